import * as v from 'valibot';
import { defineOperation } from '../operation';
import { AnyRequest, optString } from './common';

/** One channel of the channel list; abilities and other members vary by firmware and are kept. */
export const ChannelInfoEntry = v.looseObject({
  channel: optString, // list form: the channel id
  connect_status: optString, // Online / Offline
});
export type ChannelInfoEntry = v.InferOutput<typeof ChannelInfoEntry>;

const EntryMap = v.record(v.string(), ChannelInfoEntry);
/** Firmwares differ: a map keyed by channel id, or a list (or map) wrapped in `items`. */
const Wrapped = v.looseObject({ items: v.union([v.array(ChannelInfoEntry), EntryMap]) });
const ChannelInfoField = v.lazy((input) =>
  typeof input === 'object' && input !== null && 'items' in input ? Wrapped : EntryMap,
);

export const ChannelInfoResponse = v.looseObject({
  channel_info: v.optional(ChannelInfoField),
  items: v.optional(v.array(ChannelInfoEntry)),
});
export type ChannelInfoResponse = v.InferOutput<typeof ChannelInfoResponse>;

export const channelInfoGet = defineOperation({
  page: 'Login/ChannelInfo',
  operation: 'Get',
  request: AnyRequest,
  response: ChannelInfoResponse,
  description: 'Channel list with connection status.',
});
// Normalised list (map or list form, online flag): channelList() in core/client.ts.
