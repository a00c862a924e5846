/** Core's restart rule (bridge buttons and Node-RED's restart mode): one at a time per target, the recorder once a minute. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RestartGuard } from '../../core/restart-guard';
import { alarmOutputKey, announcedOutputs, outputChannel } from '../../bridge/device/alarm-output-names';

const test = suite('restart guard, alarm output names');

test('one restart per target at a time; the recorder not again within the quiet time; a failure frees it', async () => {
  const g = new RestartGuard(50);
  assert.is(g.begin(), undefined);
  assert.match(g.begin() ?? '', /the recorder is already restarting/);
  assert.is(g.begin('IP_CH1'), undefined, 'a camera while the recorder is only being asked');
  assert.match(g.begin('IP_CH1') ?? '', /IP_CH1 is already restarting/);
  g.end('IP_CH1', true);
  g.end(undefined, false); // refused by the device: nothing restarted
  assert.is(g.begin(), undefined, 'a failed restart does not count');
  g.end(undefined, true);
  const camera = g.begin('IP_CH2') ?? '';
  assert.match(camera, /^the recorder is restarting \(restarted 0 s ago; one recorder restart per 0 s\)/, 'its cameras wait too');
  assert.not.match(camera, /IP_CH2 is already restarting/, 'the camera never restarted: the cause is the recorder');
  assert.match(g.begin() ?? '', /the recorder is already restarting \(restarted 0 s ago/);
  await new Promise((r) => setTimeout(r, 60));
  assert.is(g.begin(), undefined, 'after the quiet time');
});

test('alarm output names: keys, owners, and the switches an offline camera keeps', () => {
  assert.is(alarmOutputKey('Local->1'), 'alarm_output_local_1');
  assert.is(alarmOutputKey('IP_CH12->2'), 'alarm_output_ip_ch12_2');
  assert.is(outputChannel('Local->1'), undefined);
  assert.is(outputChannel('WIFI_CH3->1'), 'WIFI_CH3');
  const channels = new Map([
    ['IP_CH1', false],
    ['IP_CH2', true],
  ]);
  // IP_CH1 went offline (the NVR no longer lists its output); IP_CH9 is no channel any more.
  assert.equal(announcedOutputs({ 'Local->1': false }, ['IP_CH1->1', 'IP_CH9->1', 'Local->1'], channels), ['IP_CH1->1', 'Local->1']);
});

test.run();
