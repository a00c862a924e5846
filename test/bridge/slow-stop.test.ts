/**
 * Issue 38: SIGTERM with a device that takes 8 s per answer. Docker and the Home Assistant Supervisor kill a container
 * 10 s after SIGTERM, so the process must be gone within 8 s whatever the device does (a functional bound of that
 * contract, not a speed figure): what finished is confirmed, the rest reported `command_failed` on MQTT, the logout
 * skipped, `bridge/state` offline, exit 0. The real command in a child process, the simulator as the device.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { stopWithSlowDevice } from '../helpers/slow-stop';

const test = suite('bridge slow stop');
/** Docker's 10 s kill, less room for the process to start and end. */
const STOP_BOUND_MS = 8000;

test('SIGTERM with a device answering in 8 s: exit 0 within 8 s, the command reported failed, bridge/state offline', async () => {
  const s = await stopWithSlowDevice(8000);
  const said = () => `${s.after.map((m) => `${m.topic} ${m.payload}`).join('\n')}\n${s.out}`;
  assert.ok(s.exitMs !== undefined, `no exit within 30 s:\n${s.out}`);
  assert.ok(s.exitMs < STOP_BOUND_MS, `exited ${Math.round(s.exitMs)} ms after SIGTERM (bound ${STOP_BOUND_MS} ms):\n${s.out}`);
  assert.equal(s.code, 0, s.out);
  const failed = s.after.filter((m) => m.topic === `${s.base}/bridge/event` && JSON.parse(m.payload).type === 'command_failed');
  assert.equal(failed.length, 1, `the command reported failed once:\n${said()}`);
  assert.match(String(JSON.parse(failed[0].payload).data.topic), /siren_volume$/);
  assert.equal(s.state, 'offline', said());
  assert.match(s.out, /logout skipped/);
});

test.run();
