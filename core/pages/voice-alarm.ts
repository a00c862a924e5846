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

/** Spec 2.6 (Range) and field notes (Get): the siren of one channel. Bounds come from Range (siren_time 5-180...). */
export const VoiceAlarmChannel = v.looseObject({
  status: optString, // Offline / Online, read only, only on offline channels
  siren_switch: optBool,
  siren_time: optInt, // seconds of warning
  siren_value: optInt, // volume
  siren_type: optString, // Alarm1, Alarm2, User-defined1..3
  siren_file_name: optString,
  siren_file: optString,
  siren_file_type: optString,
  siren_support_format: v.optional(v.array(v.string())),
  support_siren_schedule_hub: optBool,
});
export type VoiceAlarmChannel = v.InferOutput<typeof VoiceAlarmChannel>;

export const VoiceAlarmRangeData = v.looseObject({
  channel_max: optRange(v.number()),
  channel_info: v.optional(RangeChannelInfo),
});
export type VoiceAlarmRangeData = v.InferOutput<typeof VoiceAlarmRangeData>;

/** A channel without a siren answers `{status: "Offline", reason: "Not support"}`. */
export const VoiceAlarmGetResponse = v.looseObject({ channel_info: v.optional(channelMap(VoiceAlarmChannel)) });
export type VoiceAlarmGetResponse = v.InferOutput<typeof VoiceAlarmGetResponse>;

/** Set sends only the changed channels with their changed fields (field notes). */
export const VoiceAlarmSetRequest = v.looseObject({ channel_info: channelSetMap(VoiceAlarmChannel) });
export type VoiceAlarmSetRequest = v.InferOutput<typeof VoiceAlarmSetRequest>;

const page = 'AlarmConfig/VoiceAlarm';

export const voiceAlarmRange = defineOperation({
  page,
  operation: 'Range',
  request: AnyRequest,
  response: VoiceAlarmRangeData,
  description: 'Siren (voice alarm): channels with a siren and the limits of duration, volume and tone.',
});
export const voiceAlarmGet = defineOperation({
  page,
  operation: 'Get',
  request: AnyRequest,
  response: VoiceAlarmGetResponse,
  metaKeys: META_KEYS,
  description: 'Siren settings per channel.',
});
export const voiceAlarmSet = defineOperation({
  page,
  operation: 'Set',
  request: VoiceAlarmSetRequest,
  response: AnyResponse,
  metaKeys: META_KEYS,
  description: 'Change siren settings of one or more channels.',
});

export const voiceAlarmPage = definePage({
  name: page,
  title: 'Voice alarm (siren)',
  operations: { Range: voiceAlarmRange, Get: voiceAlarmGet, Set: voiceAlarmSet },
  write: 'changed',
  channelScoped: true,
});
