import * as v from 'valibot';
import { definePage } from '../page';
import { CONTROLS, type OperationType } from '../live-controls';
import { optBool, optInt, optString } from './common';

/**
 * `PreviewChannel/Floodlight2AudioAlarm` (vendor): what a channel's floodlight, siren and red/blue light do NOW.
 * Fields appear only where the channel has the hardware (R2). Set sends the Get object back (ranges echoed) with
 * the change and `operation_type`; there is no duration field.
 */
const ValueRange = v.looseObject({ type: optString, min: v.optional(v.number()), max: v.optional(v.number()) });
export type ValueRange = v.InferOutput<typeof ValueRange>;

/** The page's fields, from the table of live controls: each control's value, its `_range` and `_adjustable`. */
export const LiveFields: Record<string, v.GenericSchema> = {
  channel: optString,
  ...Object.fromEntries(
    Object.values(CONTROLS).flatMap((c): Array<[string, v.GenericSchema]> => [
      [c.field, c.kind === 'bool' ? optBool : optInt],
      ...(c.range ? [[c.range.field, v.optional(ValueRange)] as [string, v.GenericSchema]] : []),
      ...(c.adjustable ? [[c.adjustable, optBool] as [string, v.GenericSchema]] : []),
    ]),
  ),
};
export const LiveAnswer = v.looseObject(LiveFields);
/** A Get answer: the fields of the table, each where the channel has it. */
export type LiveAnswer = { channel?: string } & Record<string, unknown>;

export const OPERATION_TYPES = [...new Set(Object.values(CONTROLS).map((c) => c.part)), 'All'] as unknown as [
  OperationType,
  ...OperationType[],
];
export type { OperationType };

/** `command_flag` is undocumented; the vendor's sample sends false. */
export const LiveGetRequest = v.looseObject({ channel: v.string(), command_flag: v.optional(v.boolean(), false) });
export const LiveSetRequest = v.looseObject({ ...LiveFields, channel: v.string(), operation_type: v.picklist(OPERATION_TYPES) });
export type LiveSetRequest = LiveAnswer & { channel: string; operation_type: OperationType };

/** Written through `client.setLive()` (its own `_range` / `_adjustable` checks), not `update()`. */
export const livePage = definePage({
  name: 'PreviewChannel/Floodlight2AudioAlarm',
  title: 'Live floodlight and siren',
  operations: {
    Get: {
      request: LiveGetRequest,
      response: LiveAnswer,
      description: 'Live floodlight, siren and red/blue light of one channel (on now, brightness, volume).',
    },
    Set: {
      request: LiveSetRequest,
      description: 'Switch the floodlight, siren or red/blue light of one channel now (operation_type names the part).',
    },
  },
  readOnly: true,
});
export const { Get: liveGet, Set: liveSet } = livePage.operations;
