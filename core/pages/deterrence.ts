import * as v from 'valibot';
import { definePage } from '../page';
import { META_KEYS, RangeChannelInfo, channelMap, channelSetMap, optBool, optInt, optRange, optString } from './common';

/** Spec 2.8 and the vendor's Alarm > Flood-light page: the deterrence (floodlight, siren, red/blue light) of one channel. */
export const DeterrenceChannel = v.looseObject({
  status: optString, // Offline / Online, offline digital channels only
  flood_light_switch: optBool,
  bright_time: optInt, // 5-180 s
  flood_light_mode: optString, // Warninglight (steady) / Strobe (flashing)
  flood_light_value: optInt, // brightness 1-100
  strobe_frequency: optString, // Low / Middle / High
  sensitivity: optInt,
  siren_switch: optBool,
  siren_value: optInt,
  siren_time: optInt,
  enforcer_light_switch: optBool, // red/blue light
  enforcer_bright_time: optInt,
  color_image_ctrl: optBool,
  dualtalk_volume: optInt,
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
 * Set sends each channel block back with `chn_index` (its channel) and `page: "chn_floodlight"`, plus
 * `page_type: "ChannelConfig"` (vendor). Read-only fields (flood_light_disable...) are left out: see writableSubset().
 */
export const DeterrenceSetChannel = v.looseObject({ ...DeterrenceChannel.entries, chn_index: v.string(), page: optString });
export const DeterrenceSetRequest = v.looseObject({
  page_type: v.optional(v.string(), 'ChannelConfig'),
  channel_info: channelSetMap(DeterrenceSetChannel),
});
export type DeterrenceSetRequest = v.InferInput<typeof DeterrenceSetRequest>;

const DETERRENCE_META = [...META_KEYS, 'page'] as const;
const setMembers = (ch: string) => ({ chn_index: ch, page: 'chn_floodlight' });

export const deterrencePage = definePage({
  name: 'AlarmConfig/Deterrence',
  title: 'Deterrence (floodlight)',
  operations: {
    Range: {
      request: DeterrenceRequest,
      response: DeterrenceRangeData,
      metaKeys: DETERRENCE_META,
      description: 'Floodlight (deterrence): channels with a floodlight and the limits of duration, mode and strobe.',
    },
    Get: {
      request: DeterrenceRequest,
      response: DeterrenceGetResponse,
      metaKeys: DETERRENCE_META,
      description: 'Floodlight settings per channel.',
    },
    Set: {
      request: DeterrenceSetRequest,
      metaKeys: DETERRENCE_META,
      description: 'Change floodlight settings (channel blocks with chn_index).',
    },
  },
  getRequest: { page_type: 'ChannelConfig' },
  setMembers,
  write: 'block',
  channelScoped: true,
});
export const { Range: deterrenceRange, Get: deterrenceGet, Set: deterrenceSet } = deterrencePage.operations;

/** Set `data` for some channels: each block gets its `chn_index` and `page`, the page its `page_type`. */
export function deterrenceSetData(blocks: Record<string, DeterrenceChannel>): DeterrenceSetRequest {
  const channel_info: Record<string, v.InferInput<typeof DeterrenceSetChannel>> = {};
  for (const [ch, block] of Object.entries(blocks)) channel_info[ch] = { ...block, ...setMembers(ch) };
  return { page_type: 'ChannelConfig', channel_info };
}
