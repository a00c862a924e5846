/**
 * `bridge/request/diagnostics`: the running bridge captures a device as `nvr2mqtt capture` does, writes the file and
 * answers with its path (and the capture itself when small); bad requests are refused with nothing read.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { suite } from 'uvu';
import { setup, type Fixture } from './fixture';
import type { CaptureFile } from '../../core/capture';

const test = suite('bridge/request/diagnostics');
let fx: Fixture;
test.before(async () => {
  fx = await setup({ devices: [{ id: 'cam', sim: { profile: 'ipc' } }], label: 'diag' });
});
test.after(async () => {
  await fx.stop();
});

async function request(body: Record<string, unknown>) {
  const since = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/bridge/request/diagnostics`, JSON.stringify(body));
  const m = await fx.recorder.waitTopic(`${fx.base}/bridge/response/diagnostics`, (j) => j.transaction === body.transaction, 20_000, since);
  return JSON.parse(m.payload) as Record<string, any>;
}

test('answers with the file written, its summary and, being small, the capture itself; no password in it', async () => {
  const sim = fx.sims.get('cam')!;
  const before = sim.log.length;
  const answer = await request({ device: 'cam', transaction: 'd1' });
  assert.equal(answer.status, 'ok', JSON.stringify(answer));
  const { path, answers, bytes, capture } = answer.data as { path: string; answers: number; bytes: number; capture: CaptureFile };
  try {
    const text = readFileSync(path, 'utf8');
    assert.equal(Buffer.byteLength(text), bytes);
    const file = JSON.parse(text) as CaptureFile;
    assert.equal(file.exchanges.length, answers);
    // The same capture inline (the request API masks token-named members once more: `***`).
    assert.deepEqual(capture.device, file.device);
    assert.deepEqual(
      capture.exchanges.map((x) => [x.path, x.status]),
      file.exchanges.map((x) => [x.path, x.status]),
    );
    assert.equal(file.device.kind, 'camera');
    assert.ok(file.exchanges.some((x) => x.path === '/API/AlarmConfig/Deterrence/Range'));
    assert.ok(!fx.passwords.some((pw) => text.includes(pw)));
    const writes = sim.log.slice(before).filter((e) => !/\/(Range|Get|Check|Login|Logout|Heartbeat)$/.test(e.path));
    assert.deepEqual(writes, []);
  } finally {
    rmSync(path, { force: true });
  }
});

test('an unknown device, or events out of bounds, is refused', async () => {
  const unknown = await request({ device: 'nope', transaction: 'd2' });
  assert.equal(unknown.status, 'error');
  assert.match(unknown.error, /unknown device/);
  const events = await request({ device: 'cam', events: 1000, transaction: 'd3' });
  assert.equal(events.status, 'error');
  assert.match(events.error, /"events" must be seconds from 0 to 300/);
});

test.run();
