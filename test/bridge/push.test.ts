/**
 * `events: push` end to end (real broker, real simulator, the bridge): the bridge points the device's alarm push
 * (AlarmConfig/EventPush) at a listener path of that device's own, an alarm reaches MQTT at once although the
 * event check is a minute apart, a push from another address or to another path is refused and costs the device
 * nothing, and on stop the device gets its previous push settings back (password untouched).
 */
import * as assert from 'node:assert/strict';
import { request } from 'node:http';
import { suite } from 'uvu';
import { parseConfig, ConfigError } from '../../bridge/base/config';
import { assertNoSecrets, json, setup, until, type Fixture } from './fixture';

const test = suite<{ fx: Fixture }>('bridge events: push');

const PAGE = 'AlarmConfig/EventPush';
/** The user's own push settings before the bridge starts (another server of theirs). */
const USER_PUSH = { addr: '10.1.2.3', port: 9000, url: 'their/hook', enable: true, method: 'POST', push_way: 'HTTP' };

type Table = Record<string, unknown>;

/** The EventPush Set requests the device received, in order. */
const pushSets = (fx: Fixture) =>
  fx.sims
    .get('nvr')!
    .log.filter((e) => e.path === `/API/${PAGE}/Set`)
    .map((e) => (e.data as { params: { table: Table } }).params.table);

function get(url: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'push',
    // Polls and event checks far apart: an alarm on MQTT within seconds came by push.
    devices: [{ id: 'nvr', poll: 3600, events: 'push', eventInterval: 60 }],
    push: { address: '127.0.0.1', port: 0, listen: '127.0.0.1' },
    noWait: true,
  });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/ch1`, (j) => j.motion === false, 8000);
  await until(() => pushSets(ctx.fx).length === 1, 'the push set up');
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

test('the device pushes to a path of its own on the bridge (HTTP GET, on), the rest of its settings kept', ({ fx }) => {
  const [table] = pushSets(fx);
  assert.equal(table.enable, true);
  assert.equal(table.push_way, 'HTTP');
  assert.equal(table.method, 'GET');
  assert.equal(table.addr, '127.0.0.1');
  assert.match(String(table.url), /^nvr2mqtt\/[0-9a-f]{32}$/);
  assert.ok(!('password' in table), 'the password is never echoed back');
  assert.equal(table.udp_port, 5000, 'members the bridge does not need are written back as the device had them');
});

test('an alarm reaches MQTT at once although the event check is a minute apart: the push made the bridge check', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const checksBefore = sim.log.filter((e) => e.path === '/API/Event/Check').length;
  const since = r.count;
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.motion === true, 5000, since);
  assert.equal(sim.pushes.at(-1)?.status, 200, 'the bridge accepted the push');
  const checks = sim.log.filter((e) => e.path === '/API/Event/Check').length - checksBefore;
  assert.equal(checks, 1, 'one event check per push');
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
  await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.motion === false, 5000, r.count - 1);
});

test('a push from another address, or to a path the bridge did not give out, is refused and costs the device nothing', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const [table] = pushSets(fx);
  const port = Number(table.port);
  const at = sim.log.length;
  const query = '?EventType=VideoMotion&EventAction=start';
  assert.equal(await get(`http://127.0.0.1:${port}/${String(table.url)}${query}`, '127.0.0.2'), 403);
  assert.equal(await get(`http://127.0.0.1:${port}/nvr2mqtt/${'0'.repeat(32)}${query}`, '127.0.0.1'), 404);
  assert.equal(await get(`http://127.0.0.1:${port}/${String(table.url)}${query}`, '127.0.0.1'), 200, 'the device itself is heard');
  await until(() => sim.log.length > at, 'the check the accepted push asks for');
  assert.deepEqual(
    sim.log.slice(at).map((e) => e.path),
    ['/API/Event/Check'],
    'the refused pushes made no request to the device',
  );
  assert.ok(!fx.logs.some((l) => l.includes(String(table.url))), 'the secret path is never logged');
});

test('bridge/request/get on AlarmConfig/EventPush withholds the push path (the listener secret) like a password', async ({ fx }) => {
  const secret = String(pushSets(fx)[0].url);
  const r = fx.recorder;
  const since = r.count;
  await r.publish(`${fx.base}/bridge/request/get`, JSON.stringify({ device: 'nvr', page: PAGE, transaction: 'push-get' }));
  const res = json(await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'push-get', 5000, since));
  assert.equal(res.status, 'ok');
  const table = (res.data as { params: { table: Table } }).params.table;
  assert.equal(table.url, '***', 'withheld');
  assert.equal(table.addr, '127.0.0.1', 'the rest as the device answered');
  assert.equal(fx.sims.get('nvr')!.pushSettings.url, secret, 'the device still holds the real path');
  assertNoSecrets(fx, [secret]);
});

test('on stop the device gets its previous push settings back', async ({ fx }) => {
  // A second bridge run on a device the user had set up to push elsewhere.
  await fx.bridge.stop();
  const sim = fx.sims.get('nvr')!;
  Object.assign(sim.pushSettings, USER_PUSH);
  await fx.restartBridge();
  await until(() => pushSets(fx).length === 3, 'given back (run 1), taken (run 2)', 8000);
  assert.equal(sim.pushSettings.addr, '127.0.0.1');
  await fx.bridge.stop();
  assert.equal(pushSets(fx).length, 4);
  for (const [k, v] of Object.entries(USER_PUSH)) assert.equal(sim.pushSettings[k], v, `${k} given back`);
  assert.ok(!('password' in pushSets(fx)[3]), 'the password is never written');
  await fx.restartBridge(); // for the fixture's stop()
});

test('config: events push without the push settings is refused with a clear reason; env push and true', () => {
  const base = { devices: [{ id: 'a', url: 'http://10.0.0.2', username: 'u', password: 'p', events: 'push' }] };
  assert.throws(
    () => parseConfig(base, { env: {} }),
    (e: ConfigError) => /devices\[0\]\.events: push needs the push settings/.test(e.message),
  );
  const { config } = parseConfig({ ...base, push: { address: '10.0.0.1' } }, { env: {} });
  assert.equal(config.devices[0].events, 'push');
  assert.equal(config.devices[0].event_interval, 60_000, 'the check is the safety net: a minute apart by default');
  assert.equal(config.devices[0].poll_interval, 60_000);
  assert.equal(config.push?.port, 8089);
  const env = (v: string) =>
    parseConfig({ ...base, push: { address: '10.0.0.1' } }, { env: { NVR2MQTT_DEVICES_0_EVENTS: v } }).config.devices[0].events;
  assert.equal(env('true'), true);
  assert.equal(env('push'), 'push');
  assert.throws(
    () => parseConfig({ ...base, push: { address: 'x'.repeat(32) } }, { env: {} }),
    (e: ConfigError) => /push\.address: a device holds at most 31 characters/.test(e.message),
  );
});

test.run();
