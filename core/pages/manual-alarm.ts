import * as v from 'valibot';
import { defineOperation } from '../operation';
import { definePage } from '../page';
import { AnyResponse } from './common';

/** Alarm output name: `Local->1` (recorder), `IP_CH1->1` (camera). */
export const ALARM_OUTPUT_RE = /^(Local|(?:IP_|WIFI_)?CH[1-9][0-9]*)->[1-9][0-9]*$/;

/** `PreviewChannel/ManualAlarm` (vendor): a flat map of alarm outputs to on/off. Set sends the outputs to change. */
export const ManualAlarmState = v.record(v.string(), v.unknown());
export const ManualAlarmSetRequest = v.record(
  v.pipe(v.string(), v.regex(ALARM_OUTPUT_RE, 'not an alarm output name (Local->1, IP_CH1->1)')),
  v.boolean(),
);

const page = 'PreviewChannel/ManualAlarm';

export const manualAlarmGet = defineOperation({
  page,
  operation: 'Get',
  request: v.looseObject({}),
  response: ManualAlarmState,
  description: 'Alarm outputs (Local->1, IP_CH1->1) and whether each is on now.',
});
export const manualAlarmSet = defineOperation({
  page,
  operation: 'Set',
  request: ManualAlarmSetRequest,
  response: AnyResponse,
  description: 'Switch alarm outputs on or off (only the outputs to change).',
});

export const manualAlarmPage = definePage({
  name: page,
  title: 'Manual alarm outputs',
  operations: { Get: manualAlarmGet, Set: manualAlarmSet },
  readOnly: true,
});
