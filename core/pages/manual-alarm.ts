import * as v from 'valibot';
import { definePage } from '../page';

/** Alarm output name: `Local->1` (recorder), `IP_CH1->1` (camera). */
export const ALARM_OUTPUT_RE = /^(Local|(?:IP_|WIFI_)?CH[1-9][0-9]*)->[1-9][0-9]*$/;

/** `PreviewChannel/ManualAlarm` (vendor): a flat map of alarm outputs to on/off. Set sends the outputs to change. */
export const ManualAlarmState = v.record(v.string(), v.unknown());
export const ManualAlarmSetRequest = v.record(
  v.pipe(v.string(), v.regex(ALARM_OUTPUT_RE, 'not an alarm output name (Local->1, IP_CH1->1)')),
  v.boolean(),
);

export const manualAlarmPage = definePage({
  name: 'PreviewChannel/ManualAlarm',
  title: 'Manual alarm outputs',
  operations: {
    Get: { response: ManualAlarmState, description: 'Alarm outputs (Local->1, IP_CH1->1) and whether each is on now.' },
    Set: { request: ManualAlarmSetRequest, description: 'Switch alarm outputs on or off (only the outputs to change).' },
  },
  readOnly: true,
});
export const { Get: manualAlarmGet, Set: manualAlarmSet } = manualAlarmPage.operations;
