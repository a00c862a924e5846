import * as v from 'valibot';
import { members } from '../members';
import { definePage } from '../page';
import { GenericRange, channelMap, optBool } from './common';

/** Linkages withdrawn while disarmed (vendor Alarm > Disarming, table 2; `mobile_push` from the sample). */
export const DISARM_ACTIONS = [
  'buzzer',
  'alarm_out',
  'show_message',
  'send_email',
  'full_screen',
  'voice_prompts',
  'event_push_platform',
  'mobile_push',
] as const;

export const DisarmingAction = v.looseObject(members(DISARM_ACTIONS, optBool));
export type DisarmingAction = v.InferOutput<typeof DisarmingAction>;

/** `[{schedule_type: "Disarming", week: [7 x {day: "Sun".."Sat", time: [48 x 0/1]}]}]`: 1 = half hour disarmed. */
export const DisarmingSchedule = v.looseObject({
  schedule_type: v.optional(v.string()),
  week: v.optional(v.array(v.looseObject({ day: v.optional(v.string()), time: v.optional(v.array(v.number())) }))),
});
export const DisarmingChannel = v.looseObject({ disarming_schedule: v.optional(v.array(DisarmingSchedule)) });
export type DisarmingChannel = v.InferOutput<typeof DisarmingChannel>;

/** Get/Set data: the Range's shape with values (the vendor's Get/Set pages are not published). */
export const DisarmingData = v.looseObject({
  disarming: optBool,
  action: v.optional(DisarmingAction),
  disarming_channel: v.optional(v.array(v.string())),
  channel_info: v.optional(channelMap(DisarmingChannel)),
});
export type DisarmingData = v.InferOutput<typeof DisarmingData>;

export const disarmingPage = definePage({
  name: 'AlarmConfig/Disarming',
  title: 'Disarming',
  operations: {
    Range: {
      response: GenericRange,
      description: 'One-key disarming: the linkages it can withdraw, the channels and schedules it can cover.',
    },
    Get: { response: DisarmingData, description: 'Disarming state: disarmed now, withdrawn linkages, channels, schedules.' },
    Set: {
      request: DisarmingData,
      description: 'Disarm/arm and choose what disarming withdraws (device-level fields and channel schedules).',
    },
  },
  write: 'whole',
  channelScoped: true,
});
export const { Range: disarmingRange, Get: disarmingGet, Set: disarmingSet } = disarmingPage.operations;
