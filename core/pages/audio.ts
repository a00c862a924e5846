import * as v from 'valibot';
import { defineOperation } from '../operation';
import { definePage } from '../page';
import {
  AnyRequest,
  AnyResponse,
  META_KEYS,
  RangeChannelInfo,
  channelMap,
  channelSetMap,
  optBool,
  optInt,
  optRange,
  optString,
} from './common';

/** Spec 2.7: a supported channel; values and bounds are not shown (the Range has them). */
export const AudioChannel = v.looseObject({
  copy_ch: optString,
  audio_enable: optBool, // present on some channels
  audio_type: optString,
  in_volume: optInt,
  out_volume: optInt,
});
export type AudioChannel = v.InferOutput<typeof AudioChannel>;

export const AudioRangeData = v.looseObject({
  channel_max: optRange(v.number()),
  channel_info: v.optional(RangeChannelInfo),
});
export type AudioRangeData = v.InferOutput<typeof AudioRangeData>;

/** Unsupported channels answer `{reason: "Not support"}`. */
export const AudioGetResponse = v.looseObject({ channel_info: v.optional(channelMap(AudioChannel)) });
export type AudioGetResponse = v.InferOutput<typeof AudioGetResponse>;

export const AudioSetRequest = v.looseObject({ channel_info: channelSetMap(AudioChannel) });
export type AudioSetRequest = v.InferOutput<typeof AudioSetRequest>;

const page = 'DeviceConfig/Audio';

export const audioRange = defineOperation({
  page,
  operation: 'Range',
  request: AnyRequest,
  response: AudioRangeData,
  description: 'Audio: channels with audio and the limits of type and volumes.',
});
export const audioGet = defineOperation({
  page,
  operation: 'Get',
  request: AnyRequest,
  response: AudioGetResponse,
  metaKeys: META_KEYS,
  description: 'Audio settings per channel (input/output volume, type, enable).',
});
export const audioSet = defineOperation({
  page,
  operation: 'Set',
  request: AudioSetRequest,
  response: AnyResponse,
  metaKeys: META_KEYS,
  description: 'Change audio settings.',
});

export const audioPage = definePage({
  name: page,
  title: 'Audio',
  operations: { Range: audioRange, Get: audioGet, Set: audioSet },
  write: 'block',
  channelScoped: true,
});
