/**
 * A Set the device carries out but answers after the request deadline (the simulator's `late_answer` fault: applied
 * at once, answered later): the bridge reads the page back once and reports the command confirmed, "applied late",
 * instead of failed. A Set that timed out and is not in the read-back is still reported failed; a slow device may
 * carry it out later still (the simulator's `latency` fault: held, then applied): the page is read again once the
 * deadline passed once more, and `command_applied_late` follows when it shows the value.
 * The fixture's device deadline is 2 s; the late answers take 3 s.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, settle, setsOf, setup, until, waitEvent, type Fixture } from './fixture';

const test = suite('bridge applied late');
let fx: Fixture;

test.before(async () => {
  fx = await setup({ label: 'late', devices: [{ id: 'nvr', poll: 30 }] });
});
test.after(async () => {
  await fx?.stop();
});

/** Events and command errors published since `since`, by type. */
function outcome(since: number) {
  const after = fx.recorder.messages.slice(since);
  const events = after
    .filter((m) => m.topic === `${fx.base}/bridge/event`)
    .map((m) => JSON.parse(m.payload) as { type: string; data: Record<string, unknown> });
  const errors = after.filter((m) => m.topic === `${fx.base}/nvr/command_error` && m.payload);
  return { types: events.map((e) => e.type), errors: errors.map((m) => json(m)) };
}

test('a page Set answered after the deadline but applied: confirmed, command_applied_late, one Set and one read-back', async () => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const before = sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH1 as Record<string, unknown>;
  const volume = before.siren_value === 3 ? 4 : 3;
  sim.fault({ kind: 'late_answer', ms: 3000, path: 'VoiceAlarm/Set', times: 1 });
  const since = r.count;
  const log = sim.log.length;
  await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, String(volume));
  const late = await waitEvent(fx, 'command_applied_late', () => true, since, 8000);
  assert.equal(late.topic, `${fx.base}/nvr/ch1/set/siren_volume`);
  assert.equal(late.device, 'nvr');
  assert.equal(late.channel, 'CH1');
  assert.equal(late.key, 'siren_volume');
  assert.match(String(late.reason), /^applied late: .*no answer within 2000 ms.*read back: applied$/);
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === volume, 3000, since);
  await settle(fx);
  const o = outcome(since);
  assert.ok(!o.types.includes('command_failed'), `no command_failed: ${o.types.join(', ')}`);
  assert.ok(!o.types.includes('command_not_confirmed'));
  assert.deepEqual(o.errors, [], 'nothing on command_error');
  // The device: the Set once (never repeated), then one read of the page (log entries carry their arrival time).
  // The Set is logged when answered, a second after its read-back.
  await until(() => setsOf(sim, log).length > 0, 'the late answer of the Set');
  const sets = setsOf(sim, log);
  assert.equal(sets.length, 1);
  const readBacks = sim.log.slice(log).filter((e) => e.path.endsWith('VoiceAlarm/Get') && e.time >= sets[0].time);
  assert.equal(readBacks.length, 1);
  assert.ok(fx.logs.some((l) => l.startsWith('warn') && l.includes('set/siren_volume applied late')));
});

test('a live switch answered after the deadline but applied: confirmed, command_applied_late', async () => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const on = (sim.state['PreviewChannel/Floodlight2AudioAlarm'].channel_info!.CH1 as Record<string, unknown>).floodlight_switch !== true;
  sim.fault({ kind: 'late_answer', ms: 3000, path: 'Floodlight2AudioAlarm/Set', times: 1 });
  const since = r.count;
  await r.publish(`${fx.base}/nvr/ch1/set/floodlight`, on ? 'ON' : 'OFF');
  const late = await waitEvent(fx, 'command_applied_late', () => true, since, 8000);
  assert.equal(late.key, 'floodlight');
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.floodlight === on, 3000, since);
  await settle(fx);
  const o = outcome(since);
  assert.ok(!o.types.includes('command_failed'));
  assert.deepEqual(o.errors, []);
});

test('a Set the device carries out after the deadline and its read-back: failed, then read again and command_applied_late', async () => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const before = (sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH1 as Record<string, unknown>).siren_value;
  const volume = before === 5 ? 6 : 5;
  // Held 3 s before the device applies it: at the 2 s deadline, and at the read-back, nothing has changed yet.
  sim.fault({ kind: 'latency', ms: 3000, path: 'VoiceAlarm/Set', times: 1 });
  const since = r.count;
  const log = sim.log.length;
  await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, String(volume));
  const failed = await waitEvent(fx, 'command_failed', () => true, since, 8000);
  assert.match(String(failed.reason), /no answer within 2000 ms; read back: not applied/);
  const err = json(await r.waitTopic(`${fx.base}/nvr/command_error`, () => true, 3000, since));
  assert.equal(err.event_type, 'failed');
  assert.equal(err.key, 'siren_volume');
  // Once the deadline passed again, the device is read again: it shows the value, and says so.
  const late = await waitEvent(fx, 'command_applied_late', () => true, since, 8000);
  assert.equal(late.key, 'siren_volume');
  assert.equal(late.channel, 'CH1');
  assert.match(String(late.reason), /read again: applied$/);
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === volume, 3000, since);
  // The Set went once; the page was read back once after the deadline and once again after the next one.
  assert.equal(setsOf(sim, log).filter((e) => e.path.endsWith('VoiceAlarm/Set')).length, 1);
  const reads = sim.log.slice(log).filter((e) => e.path.endsWith('VoiceAlarm/Get'));
  assert.ok(reads.length >= 3 && reads.length <= 4, `reads of the page: ${reads.length}`); // before, back, again (a poll's may join)
});

test('a Set that timed out and the device then refused: failed, and no command_applied_late after reading again', async () => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const before = (sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH1 as Record<string, unknown>).siren_value;
  const volume = before === 5 ? 6 : 5;
  sim.fault({ kind: 'latency', ms: 3000, path: 'VoiceAlarm/Set', times: 1 });
  sim.fault({ kind: 'device_busy', path: 'VoiceAlarm/Set', times: 1 });
  const since = r.count;
  const log = sim.log.length;
  await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, String(volume));
  await waitEvent(fx, 'command_failed', () => true, since, 8000);
  // Past the second deadline and the read again (2 s after the failure).
  await until(() => sim.log.slice(log).filter((e) => e.path.endsWith('VoiceAlarm/Get')).length >= 3, 'the page read again', 8000);
  await settle(fx);
  assert.ok(!outcome(since).types.includes('command_applied_late'));
  assert.equal((sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH1 as Record<string, unknown>).siren_value, before);
});

test('the alarm panel: a disarm the device carries out after the deadline: failed, then read again and command_applied_late', async () => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const disarmSet = /(Disarming|LinkageManage)\/Set$/;
  await r.publish(`${fx.base}/nvr/set/disarmed`, 'ARM_AWAY');
  await r.waitTopic(`${fx.base}/nvr`, (j) => j.disarmed === false, 5000);
  sim.fault({ kind: 'latency', ms: 3000, path: disarmSet, times: 1 });
  const since = r.count;
  const log = sim.log.length;
  await r.publish(`${fx.base}/nvr/set/disarmed`, 'DISARM');
  await waitEvent(fx, 'command_failed', () => true, since, 8000);
  const late = await waitEvent(fx, 'command_applied_late', () => true, since, 8000);
  assert.equal(late.key, 'disarmed');
  assert.match(String(late.reason), /read again: applied$/);
  await r.waitTopic(`${fx.base}/nvr`, (j) => j.disarmed === true, 3000, since);
  assert.equal(setsOf(sim, log).filter((e) => disarmSet.test(e.path)).length, 1, 'the disarm went once');
});

test.run();
