import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';

const CHECK = '/API/Event/Check';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sim: Simulator;
let c: RawClient;

const test = suite('simulator event long poll');

test.before.each(async () => {
  sim = await startSimulator({ password: PASSWORD, eventHoldMs: 300 });
  c = new RawClient(sim.url);
  await c.login();
});
test.after.each(async () => {
  await sim.stop();
});

async function subscribe() {
  const res = await c.post(CHECK, {});
  assert.is(res.status, 200);
  const d = res.json.data;
  assert.equal(d.alarm_list, []);
  assert.type(d.reader_id, 'number');
  assert.type(d.sequence, 'number');
  assert.type(d.lap_number, 'number');
  return d as { reader_id: number; sequence: number; lap_number: number };
}

test('subscribe answers at once; raiseAlarm wakes a held request', async () => {
  const pos = await subscribe();
  const t = Date.now();
  const pending = c.post(CHECK, pos);
  await sleep(50);
  sim.raiseAlarm('CH1', 'motion_alarm', true);
  sim.raiseAlarm('IP_CH5', 'pir_alarm', true);
  const res = await pending;
  assert.ok(Date.now() - t < 250, 'woken before the hold ended');
  assert.equal(res.json.data.alarm_list, [
    { channel: 'CH1', alarm_type: 'motion_alarm', status: true },
    { channel: 'IP_CH5', alarm_type: 'pir_alarm', status: true },
  ], 'one burst, one answer');
  assert.is(res.json.data.reader_id, pos.reader_id);
  assert.is(res.json.data.sequence, pos.sequence + 2);
  assert.is(res.json.data.heat_alarm, undefined);
});

test('alarms raised between polls are answered at once on the next poll', async () => {
  const pos = await subscribe();
  sim.raiseAlarm('CH2', 'io_alarm', true);
  sim.raiseAlarm('CH2', 'io_alarm', false);
  await sleep(10);
  const t = Date.now();
  const res = await c.post(CHECK, pos);
  assert.ok(Date.now() - t < 150);
  assert.equal(res.json.data.alarm_list.map((a: any) => a.status), [true, false]);
  const again = await c.post(CHECK, { reader_id: pos.reader_id, sequence: res.json.data.sequence, lap_number: res.json.data.lap_number });
  assert.equal(again.json.data.alarm_list, [], 'nothing new: held, then keep-alive');
  assert.is(again.json.data.heat_alarm, true);
});

test('keep-alive heat_alarm after the hold', async () => {
  const pos = await subscribe();
  const t = Date.now();
  const res = await c.post(CHECK, pos);
  assert.ok(Date.now() - t >= 280, 'held about eventHoldMs');
  assert.equal(res.json.data, { ...pos, alarm_list: [], heat_alarm: true });
});

test('unknown reader -> readerID_invalid; bad position -> position_invalid; then subscribe again', async () => {
  const pos = await subscribe();
  const bad = await c.post(CHECK, { ...pos, reader_id: 999 });
  assert.is(bad.status, 400);
  assert.is(bad.json.error_code, 'readerID_invalid');
  const ahead = await c.post(CHECK, { ...pos, sequence: pos.sequence + 5 });
  assert.is(ahead.json.error_code, 'position_invalid');
  const malformed = await c.post(CHECK, { reader_id: pos.reader_id });
  assert.is(malformed.json.error_code, 'param_error');
  await subscribe();
});

test('the long poll needs a session', async () => {
  const res = await new RawClient(sim.url).post(CHECK, {});
  assert.is(res.json.error_code, 'no_login');
});

test('raiseAlarm on an unknown channel throws', () => {
  assert.throws(() => sim.raiseAlarm('CH42', 'motion_alarm', true), /no channel CH42/);
});

test('stop() answers held requests (keep-alive) and closes', async () => {
  const other = await startSimulator({ password: PASSWORD, eventHoldMs: 60_000 });
  const oc = new RawClient(other.url);
  await oc.login();
  const pos = (await oc.post(CHECK, {})).json.data;
  const pending = oc.post(CHECK, pos);
  await sleep(50);
  const t = Date.now();
  await other.stop();
  const res = await pending;
  assert.ok(Date.now() - t < 1000);
  assert.is(res.json.data.heat_alarm, true);
});

test.run();
