import * as v from 'valibot';
import { members } from '../members';
import { definePage } from '../page';
import { optBool, optInt, optString, optStrings } from './common';

/**
 * One slot of the vendor's channel list (`channel_param`): every slot is listed, configured or not.
 * `ability` / `intelligent_ability` are `[]` while the camera is not online.
 */
export const ChannelParam = v.looseObject({
  channel: v.string(),
  ...members(['channel_name', 'channel_alias'], optString),
  videoloss: optBool,
  connect_status: optString, // NotConfigured, Online, Offline, Sleep, NotPaired, FailConnectNetwork
  ...members(['ability', 'intelligent_ability'], optStrings),
  ...members(['alarm_in_num', 'alarm_out_num'], optInt),
  show_ptz_setting: optBool,
  talk_audio_ability: optStrings,
  wireless_ipc_type: optInt, // 1 battery, 2 mains
});
export type ChannelParam = v.InferOutput<typeof ChannelParam>;

const ParamList = v.array(ChannelParam);
/** The table says "object array"; the vendor's sample wraps it as a Range-style `{type: "array", items: [...]}`. */
const ChannelParamField = v.lazy((input) => (Array.isArray(input) ? ParamList : v.looseObject({ type: optString, items: ParamList })));

/** Older firmwares (and the project spec): `channel_info` as a map keyed by channel id, or a list in `items`. */
export const ChannelInfoEntry = v.looseObject({
  channel: optString, // list form: the channel id
  connect_status: optString, // Online / Offline
});
export type ChannelInfoEntry = v.InferOutput<typeof ChannelInfoEntry>;

const EntryMap = v.record(v.string(), ChannelInfoEntry);
const Wrapped = v.looseObject({ items: v.union([v.array(ChannelInfoEntry), EntryMap]) });
const ChannelInfoField = v.lazy((input) => (typeof input === 'object' && input !== null && 'items' in input ? Wrapped : EntryMap));

export const ChannelInfoResponse = v.looseObject({
  channel_param: v.optional(ChannelParamField),
  channel_info: v.optional(ChannelInfoField),
  items: v.optional(v.array(ChannelInfoEntry)),
});
export type ChannelInfoResponse = v.InferOutput<typeof ChannelInfoResponse>;

export const channelInfoPage = definePage({
  name: 'Login/ChannelInfo',
  title: 'Channel list',
  operations: {
    Get: {
      response: ChannelInfoResponse,
      description: 'Channel list: connection status, hardware and AI abilities of every channel slot.',
    },
  },
  readOnly: true,
});
export const { Get: channelInfoGet } = channelInfoPage.operations;
// Typed model (status, hardware, AI): core/channel-slots.ts.
