import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';

const GET = '/API/AlarmConfig/Deterrence/Get';
const DATA = { page_type: 'ChannelConfig' };

let sim: Simulator;
let c: RawClient;

const test = suite('simulator faults and HTTP errors');

test.before.each(async () => {
  sim = await startSimulator({ password: PASSWORD });
  c = new RawClient(sim.url);
  await c.login();
});
test.after.each(async () => {
  await sim.stop();
});

test('latency delays the normal answer', async () => {
  sim.fault({ kind: 'latency', ms: 200, times: 1 });
  let t = Date.now();
  const res = await c.post(GET, DATA);
  assert.is(res.status, 200);
  assert.ok(Date.now() - t >= 190, 'delayed');
  t = Date.now();
  await c.post(GET, DATA);
  assert.ok(Date.now() - t < 150, 'times: 1 -> only once');
});

test('late_answer: the Set is carried out at once, its answer comes later', async () => {
  sim.fault({ kind: 'late_answer', ms: 300, path: '/Set', times: 1 });
  const t = Date.now();
  const pending = c.post('/API/AlarmConfig/Deterrence/Set', {
    page_type: 'ChannelConfig',
    channel_info: { CH1: { flood_light_switch: true } },
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is((sim.state['AlarmConfig/Deterrence'].channel_info as any).CH1.flood_light_switch, true, 'applied before the answer');
  const res = await pending;
  assert.is(res.status, 200);
  assert.ok(Date.now() - t >= 290, 'answered late');
});

test('http500: HTTP 500 with an HTML body', async () => {
  sim.fault({ kind: 'http500', times: 1 });
  const res = await c.post(GET, DATA);
  assert.is(res.status, 500);
  assert.match(String(res.headers['content-type']), 'text/html');
  assert.match(res.text, '<html>');
  assert.is(res.json, undefined);
  assert.is((await c.post(GET, DATA)).status, 200);
});

test('html: 200 with an HTML page instead of JSON', async () => {
  sim.fault({ kind: 'html', path: GET, times: 1 });
  const res = await c.post(GET, DATA);
  assert.is(res.status, 200);
  assert.match(res.text, '<!DOCTYPE html>');
  assert.is(res.json, undefined);
});

test('truncated: JSON cut short, nothing applied', async () => {
  sim.fault({ kind: 'truncated', path: '/Set', times: 1 });
  const res = await c.post('/API/AlarmConfig/Deterrence/Set', { channel_info: { CH1: { flood_light_switch: true } } });
  assert.is(res.status, 200);
  assert.ok(res.text.startsWith('{"result":"success"'));
  assert.is(res.json, undefined, 'not parseable');
  assert.is((sim.state['AlarmConfig/Deterrence'].channel_info as any).CH1.flood_light_switch, false);
});

test('reset: the connection is destroyed without an answer', async () => {
  sim.fault({ kind: 'reset', times: 1 });
  try {
    await c.post(GET, DATA);
    assert.unreachable('should fail');
  } catch (err) {
    assert.match(String((err as NodeJS.ErrnoException).code ?? err), /ECONNRESET|socket hang up/);
  }
  assert.is((await c.post(GET, DATA)).status, 200);
  assert.is(sim.log.find((e) => e.fault === 'reset')!.status, 0);
});

test('expire_session: the next session call answers expired; login works again', async () => {
  sim.fault({ kind: 'expire_session', times: 1 });
  const res = await c.post(GET, DATA);
  assert.is(res.json.error_code, 'expired');
  assert.is((await c.login()).status, 200, 'login is not hit by the fault');
  assert.is((await c.post(GET, DATA)).status, 200);
});

test('device_busy: 400 device_busy', async () => {
  sim.fault({ kind: 'device_busy', times: 2 });
  for (let i = 0; i < 2; i++) {
    const res = await c.post(GET, DATA);
    assert.is(res.status, 400);
    assert.equal(res.json, { result: 'failed', reason: res.json.reason, error_code: 'device_busy', data: {} });
  }
  assert.is((await c.post(GET, DATA)).status, 200);
});

test('not_found for a page: every operation of that page answers 404 not_found, others work', async () => {
  sim.fault({ kind: 'not_found', path: 'AlarmConfig/Deterrence/' });
  for (const op of ['Range', 'Get', 'Set']) {
    const res = await c.post(`/API/AlarmConfig/Deterrence/${op}`, DATA);
    assert.is(res.status, 404, op);
    assert.is(res.json.error_code, 'not_found');
  }
  assert.is((await c.post('/API/AlarmConfig/VoiceAlarm/Get')).status, 200);
  sim.clearFaults();
  assert.is((await c.post(GET, DATA)).status, 200);
});

test('RegExp path filter', async () => {
  sim.fault({ kind: 'device_busy', path: /VoiceAlarm\/(Get|Set)$/ });
  assert.is((await c.post('/API/AlarmConfig/VoiceAlarm/Get')).json.error_code, 'device_busy');
  assert.is((await c.post('/API/AlarmConfig/VoiceAlarm/Range')).status, 200);
});

test('fault() refuses unknown kinds and latency without ms', () => {
  assert.throws(() => sim.fault({ kind: 'meteor' as never }), /unknown fault kind/);
  assert.throws(() => sim.fault({ kind: 'latency' }), /ms/);
});

test('unknown path -> 404 not_found; non-POST -> 405; body not JSON, without data or with a wrong version -> 400 param_error', async () => {
  const nf = await c.post('/API/Nope/Get');
  assert.is(nf.status, 404);
  assert.is(nf.json.error_code, 'not_found');
  const anonNf = await c.post('/API/Nope/Get', {}, { anonymous: true });
  assert.is(anonNf.json.error_code, 'not_found');
  const get = await c.post(GET, undefined, { method: 'GET', body: '' });
  assert.is(get.status, 405);
  assert.is(get.json.error_code, 'method_not_allowed');
  const garbage = await c.post(GET, undefined, { body: '{"version":"1.0","data":' });
  assert.is(garbage.status, 400);
  assert.is(garbage.json.error_code, 'param_error');
  const noVersion = await c.post(GET, undefined, { body: JSON.stringify({ data: {} }) });
  assert.is(noVersion.status, 200, 'version is reserved: a body without it is accepted (public clients)');
  const wrongVersion = await c.post(GET, undefined, { body: JSON.stringify({ version: '2.0', data: {} }) });
  assert.is(wrongVersion.json.error_code, 'param_error');
  const noData = await c.post(GET, undefined, { body: JSON.stringify({ version: '1.0' }) });
  assert.is(noData.json.error_code, 'param_error');
  const array = await c.post(GET, undefined, { body: '[]' });
  assert.is(array.json.error_code, 'param_error');
});

test.run();
