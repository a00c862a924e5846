import * as v from 'valibot';
import { definePage } from '../page';
import { isPtzHex } from '../ptz';
import { META_KEYS, RangeChannelInfo, channelMap, channelSetMap, optBool, optRange, optString } from './common';

/**
 * Int 0-255 (old firmware) or, from 8.2.3, a 64-hex-digit preset set: normalise with ptzPresetIndices(). Both forms
 * are checked here so that a malformed value is a wrong answer named at its path, not a throw in the normaliser.
 */
export const PtzPointIndex = v.union([
  v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255)),
  v.pipe(
    v.string(),
    v.check((s: string) => isPtzHex(s), 'a preset set must be 64 hex digits (256 bits)'),
  ),
]);

/** Top-level ptz_info element (spec 2.3): the PTZ channel and preset an alarm drives. */
export const PtzTarget = v.looseObject({ ptz_chn: optString, linkage_ptz_point_index: v.optional(PtzPointIndex) });
export type PtzTarget = v.InferOutput<typeof PtzTarget>;

export const ALL_ALARM_KEYS = [
  'motion',
  'pir',
  'io',
  'ptz_motion',
  'linkage_lcd',
  'linkage_pid',
  'linkage_sod',
  'linkage_pd',
  'linkage_pdvd',
  'linkage_fd',
  'linkage_cc',
  'linkage_sound',
  'linkage_vt',
  'linkage_ad',
  'linkage_cd',
  'linkage_qd',
  'linkage_lpd',
  'linkage_rsd',
  'linkage_lpr',
  'linkage_fr',
  'linkage_ai_pid',
  'linkage_ai_lcd',
  'linkage_ai_pdvd',
  'linkage_intrusion',
  'linkage_region_entrance',
  'linkage_region_exiting',
  'linkage_ai_firedetet',
  'linkage_ai_tempmeas',
] as const;

// Loose: the spec mentions one more member (Local<-1 ticked, value 1) whose name it does not show.
export const PtzAllAlarm = v.looseObject(
  Object.fromEntries(ALL_ALARM_KEYS.map((k) => [k, optBool])) as Record<(typeof ALL_ALARM_KEYS)[number], typeof optBool>,
);
export type PtzAllAlarm = v.InferOutput<typeof PtzAllAlarm>;

export const PtzLinkageChannel = v.looseObject({
  switch: optBool,
  motion: optBool,
  pir: optBool,
  io: optBool,
  ptz_info: v.optional(v.array(v.looseObject({ ptz_switch: optBool }))), // up to 4 linkage groups
  all_alarm: v.optional(PtzAllAlarm),
  copy_ch: optString,
});
export type PtzLinkageChannel = v.InferOutput<typeof PtzLinkageChannel>;

export const PtzLinkageRangeData = v.looseObject({
  channel_max: optRange(v.number()),
  support_copy: optRange(v.boolean()),
  ptz_info: optRange(v.array(PtzTarget)),
  channel_info: v.optional(RangeChannelInfo),
});
export type PtzLinkageRangeData = v.InferOutput<typeof PtzLinkageRangeData>;

export const PtzLinkageGetResponse = v.looseObject({
  ptz_info: v.optional(v.array(PtzTarget)),
  channel_info: v.optional(channelMap(PtzLinkageChannel)),
});
export type PtzLinkageGetResponse = v.InferOutput<typeof PtzLinkageGetResponse>;

export const PtzLinkageSetRequest = v.looseObject({
  ptz_info: v.optional(v.array(PtzTarget)),
  channel_info: v.optional(channelSetMap(PtzLinkageChannel)),
});
export type PtzLinkageSetRequest = v.InferOutput<typeof PtzLinkageSetRequest>;

export const ptzLinkagePage = definePage({
  name: 'AlarmConfig/PTZLinkage',
  title: 'PTZ linkage',
  operations: {
    Range: {
      response: PtzLinkageRangeData,
      description: 'PTZ linkage: which alarms move which PTZ channel to which preset, and the limits.',
    },
    Get: { response: PtzLinkageGetResponse, metaKeys: META_KEYS, description: 'PTZ linkage settings per channel.' },
    Set: { request: PtzLinkageSetRequest, metaKeys: META_KEYS, description: 'Change PTZ linkage settings.' },
  },
  write: 'block',
  channelScoped: true,
});
export const { Range: ptzLinkageRange, Get: ptzLinkageGet, Set: ptzLinkageSet } = ptzLinkagePage.operations;
