import * as v from 'valibot';
import { definePage } from '../page';
import { ChannelRange, channelGet, channelOperations, channelSet, optBool, optInt, optString } from './common';

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

export const VoiceAlarmRangeData = ChannelRange;
export type VoiceAlarmRangeData = v.InferOutput<typeof VoiceAlarmRangeData>;
/** A channel without a siren answers `{status: "Offline", reason: "Not support"}`. */
export const VoiceAlarmGetResponse = channelGet(VoiceAlarmChannel);
export type VoiceAlarmGetResponse = v.InferOutput<typeof VoiceAlarmGetResponse>;
/** Set sends only the changed channels with their changed fields (field notes). */
export const VoiceAlarmSetRequest = channelSet(VoiceAlarmChannel);
export type VoiceAlarmSetRequest = v.InferOutput<typeof VoiceAlarmSetRequest>;

export const voiceAlarmPage = definePage({
  name: 'AlarmConfig/VoiceAlarm',
  title: 'Voice alarm (siren)',
  operations: channelOperations(
    { Range: VoiceAlarmRangeData, Get: VoiceAlarmGetResponse, Set: VoiceAlarmSetRequest },
    {
      Range: 'Siren (voice alarm): channels with a siren and the limits of duration, volume and tone.',
      Get: 'Siren settings per channel.',
      Set: 'Change siren settings of one or more channels.',
    },
  ),
  write: 'changed',
  channelScoped: true,
});
export const { Range: voiceAlarmRange, Get: voiceAlarmGet, Set: voiceAlarmSet } = voiceAlarmPage.operations;
