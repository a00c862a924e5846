import * as v from 'valibot';
import { defineOperation } from '../operation';
import { definePage } from '../page';
import { AnyResponse, optBool, optInt, optString } from './common';

/**
 * `PreviewChannel/Floodlight2AudioAlarm` (vendor): what a channel's floodlight, siren and red/blue light do NOW.
 * Fields appear only where the channel has the hardware (R2). Set sends the Get object back (ranges echoed) with
 * the change and `operation_type`; there is no duration field.
 */
const ValueRange = v.looseObject({ type: optString, min: v.optional(v.number()), max: v.optional(v.number()) });
export type ValueRange = v.InferOutput<typeof ValueRange>;

export const LiveFields = {
  channel: optString,
  floodlight_switch: optBool,
  floodlight_mode: optInt, // 0 steady, 1 flashing
  floodlight_value: optInt, // brightness 1-100
  floodlight_value_range: v.optional(ValueRange),
  floodlight_strobe_frequency: optInt, // 0 low, 1 middle, 2 high (the table says "array")
  audioAlarm_switch: optBool,
  audioAlarm_value: optInt, // volume 1-10
  audioAlarm_value_range: v.optional(ValueRange),
  audioAlarm_value_adjustable: optBool,
  redBlueLight_switch: optBool,
};
export const LiveAnswer = v.looseObject(LiveFields);
export type LiveAnswer = v.InferOutput<typeof LiveAnswer>;

export const OPERATION_TYPES = ['Floodlight', 'AudioAlarm', 'RedBlueLight', 'All'] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];

/** `command_flag` is undocumented; the vendor's sample sends false. */
export const LiveGetRequest = v.looseObject({ channel: v.string(), command_flag: v.optional(v.boolean(), false) });
export const LiveSetRequest = v.looseObject({ ...LiveFields, channel: v.string(), operation_type: v.picklist(OPERATION_TYPES) });
export type LiveSetRequest = v.InferInput<typeof LiveSetRequest>;

const page = 'PreviewChannel/Floodlight2AudioAlarm';

export const liveGet = defineOperation({
  page,
  operation: 'Get',
  request: LiveGetRequest,
  response: LiveAnswer,
  description: 'Live floodlight, siren and red/blue light of one channel (on now, brightness, volume).',
});
export const liveSet = defineOperation({
  page,
  operation: 'Set',
  request: LiveSetRequest,
  response: AnyResponse,
  description: 'Switch the floodlight, siren or red/blue light of one channel now (operation_type names the part).',
});

/** Written through `client.setLive()` (its own `_range` / `_adjustable` checks), not `update()`. */
export const livePage = definePage({
  name: page,
  title: 'Live floodlight and siren',
  operations: { Get: liveGet, Set: liveSet },
  readOnly: true,
});
