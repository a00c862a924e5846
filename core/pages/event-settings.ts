import * as v from 'valibot';
import { definePage } from '../page';
import { ChannelId } from '../channels';
import { META_KEYS, RangeChannelInfo, optRange } from './common';

export const ABILITIES = [
  'FaceDetection',
  'HumanVehicle',
  'LicensePlate',
  'LineCrossing',
  'Intrusion',
  'ExitRegion',
  'ObjectDetection',
  'CrossCounting',
  'QueueLength',
  'CrowdDensity',
  'RareSound',
  'MotionDetection',
  'VideoTampering',
  'HumanDetection',
  'ParcelDetection',
  'WanderDetection',
] as const;
export const Ability = v.picklist(ABILITIES);

/**
 * Spec 2.10: the table names `abilities` (array), the request sample the single `ability`: both are accepted
 * and sent as given. `oper_type: "get_default_data"` fetches the smart default values.
 */
export const EventSettingsRangeRequest = v.looseObject({
  channel: v.optional(ChannelId),
  abilities: v.optional(v.array(Ability)),
  ability: v.optional(Ability),
  oper_type: v.optional(v.string()),
});
export type EventSettingsRangeRequest = v.InferInput<typeof EventSettingsRangeRequest>;

/** Face detection channel descriptors (rule_info, sensitivity, roll_range...) live in channel_info. */
export const EventSettingsRangeData = v.looseObject({
  default_timeout: optRange(v.number()),
  channel_info: v.optional(RangeChannelInfo),
  page_type: optRange(v.string()), // ChannelConfig, AlarmConfig
  channel_max: optRange(v.number()),
  agreed_to_agreement: optRange(v.boolean()),
  statement_file_name: optRange(v.string()), // length 1-48
});
export type EventSettingsRangeData = v.InferOutput<typeof EventSettingsRangeData>;

export const eventSettingsPage = definePage({
  name: 'Event/SettingConfig',
  title: 'Smart event settings',
  operations: {
    Range: {
      request: EventSettingsRangeRequest,
      response: EventSettingsRangeData,
      metaKeys: [...META_KEYS, 'oper_type'],
      description: 'Smart event settings (cloud): limits of an intelligent channel for the given abilities.',
    },
  },
  readOnly: true,
});
export const { Range: eventSettingsRange } = eventSettingsPage.operations;
