import * as v from 'valibot';
import { defineOperation } from '../operation';
import { AnyResponse, META_KEYS, RangeChannelInfo, channelMap, channelSetMap, optBool, optInt, optRange, optString } from './common';

/** Spec 2.8: the floodlight of one channel. */
export const DeterrenceChannel = v.looseObject({
  flood_light_switch: optBool,
  bright_time: optInt,
  flood_light_mode: optString, // seen: Warninglight (Range lists the others)
  strobe_frequency: optString, // seen: Middle
  param_video: v.optional(v.looseObject({ show: optBool, disable: optBool })),
  flood_light_disable: optBool,
  warning_light_disable: optBool,
  chn_index: optString,
});
export type DeterrenceChannel = v.InferOutput<typeof DeterrenceChannel>;

export const DeterrenceRangeData = v.looseObject({
  channel_max: optRange(v.number()),
  channel_info: v.optional(RangeChannelInfo),
});
export type DeterrenceRangeData = v.InferOutput<typeof DeterrenceRangeData>;

export const DeterrenceRequest = v.looseObject({ page_type: v.optional(v.string(), 'ChannelConfig') });
export type DeterrenceRequest = v.InferInput<typeof DeterrenceRequest>;

/** Channels without a floodlight answer `{reason: "Not configured"}`. */
export const DeterrenceGetResponse = v.looseObject({
  page_type: optString,
  channel_info: v.optional(channelMap(DeterrenceChannel)),
});
export type DeterrenceGetResponse = v.InferOutput<typeof DeterrenceGetResponse>;

/**
 * Set sends each channel block back with `chn_index` set to its channel, plus `page_type: "ChannelConfig"`
 * (field notes). Read-only fields (flood_light_disable...) must be left out: see writableSubset().
 */
export const DeterrenceSetChannel = v.looseObject({ ...DeterrenceChannel.entries, chn_index: v.string() });
export const DeterrenceSetRequest = v.looseObject({
  page_type: v.optional(v.string(), 'ChannelConfig'),
  channel_info: channelSetMap(DeterrenceSetChannel),
});
export type DeterrenceSetRequest = v.InferInput<typeof DeterrenceSetRequest>;

const page = 'AlarmConfig/Deterrence';

export const deterrenceRange = defineOperation({
  page, operation: 'Range', request: DeterrenceRequest, response: DeterrenceRangeData, metaKeys: META_KEYS,
  description: 'Floodlight (deterrence): channels with a floodlight and the limits of duration, mode and strobe.',
});
export const deterrenceGet = defineOperation({
  page, operation: 'Get', request: DeterrenceRequest, response: DeterrenceGetResponse, metaKeys: META_KEYS,
  description: 'Floodlight settings per channel.',
});
export const deterrenceSet = defineOperation({
  page, operation: 'Set', request: DeterrenceSetRequest, response: AnyResponse, metaKeys: META_KEYS,
  description: 'Change floodlight settings (channel blocks with chn_index).',
});

/** Set `data` for some channels: each block gets its `chn_index`, the page its `page_type`. */
export function deterrenceSetData(blocks: Record<string, DeterrenceChannel>): DeterrenceSetRequest {
  const channel_info: Record<string, v.InferInput<typeof DeterrenceSetChannel>> = {};
  for (const [ch, block] of Object.entries(blocks)) channel_info[ch] = { ...block, chn_index: ch };
  return { page_type: 'ChannelConfig', channel_info };
}
