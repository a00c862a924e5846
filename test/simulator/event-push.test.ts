/** Simulator `AlarmConfig/EventPush` (vendor: Event > Http listening): Range/Get/Set shapes, and alarms pushed to the URL set. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, startSimulator } from '../../simulator';
import { PASSWORD, RawClient, until } from './raw-client';

const PAGE = '/API/AlarmConfig/EventPush';

let sim: Simulator;
let c: RawClient;
let server: http.Server;
const received: Array<{ method: string; url: string; body: string; from: string }> = [];

const test = suite('simulator AlarmConfig/EventPush');
test.before.each(async () => {
  received.length = 0;
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (b: Buffer) => (body += b.toString()));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body, from: req.socket.remoteAddress! });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sim = await startSimulator({ password: PASSWORD });
  c = new RawClient(sim.url);
  await c.login();
});
test.after.each(async () => {
  await sim.stop();
  await new Promise((r) => server.close(r));
});

const port = () => (server.address() as AddressInfo).port;

test('Get: the vendor sample (push off); Range: params.table with the vendor bounds', async () => {
  const get = await c.post(`${PAGE}/Get`, {});
  assert.is(get.status, 200, get.text);
  const table = get.json.data.params.table;
  assert.is(table.enable, false);
  assert.is(table.push_way, 'HTTP');
  assert.is(table.url, 'API/AlarmEvent/EventPush');
  assert.is(table.password, '', 'the password is never read back');
  const range = await c.post(`${PAGE}/Range`, {});
  const items = range.json.data.params.items.table.items;
  assert.equal(items.port, { type: 'int32', mode: 'rw', min: 1, max: 65535 });
  assert.equal(items.url.max_len, 63);
  assert.equal(items.method.items, ['GET', 'POST']);
});

test('Set enables push: alarm start and stop of a pushed type arrive as GET with the vendor query members', async () => {
  const set = await c.post(`${PAGE}/Set`, {
    params: { name: '', table: { enable: true, push_way: 'HTTP', addr: '127.0.0.1', port: port(), url: 'hook/abc', method: 'GET' } },
  });
  assert.is(set.status, 200, set.text);
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
  await until(() => received.length === 2);
  const [start, stop] = received.map((r) => new URL(r.url, 'http://x'));
  assert.is(start.pathname, '/hook/abc');
  assert.is(start.searchParams.get('EventType'), 'VideoMotion');
  assert.is(start.searchParams.get('EventAction'), 'start');
  assert.is(stop.searchParams.get('EventAction'), 'stop');
  assert.ok(/^[0-9A-F]{2}(-[0-9A-F]{2}){5}$/.test(start.searchParams.get('MACAddress') ?? ''));
  assert.ok(start.searchParams.get('EventTime'));
  assert.is(received[0].from, '127.0.0.1');
});

test('POST: the same members as a JSON body; a type without a vendor EventType (PIR, IO) is not pushed', async () => {
  await c.post(`${PAGE}/Set`, { params: { table: { enable: true, addr: '127.0.0.1', port: port(), url: '/p', method: 'POST' } } });
  sim.raiseAlarm({ channel: 'CH1', type: 'line_crossing', active: true });
  await until(() => received.length === 1);
  assert.is(received[0].method, 'POST');
  assert.is(JSON.parse(received[0].body).EventType, 'LCD');
  const io = sim.profile.specs.find((s) => s.alarmIn > 0);
  if (io) sim.raiseAlarm({ channel: io.id, type: 'io', active: true });
  sim.raiseAlarm({ channel: 'CH1', type: 'pir', active: true });
  assert.is(sim.pushes.length, 1, 'a push is recorded when it is sent: none for IO or PIR');
});

test('Set out of Range is refused and changes nothing; push off sends nothing', async () => {
  const bad = await c.post(`${PAGE}/Set`, { params: { table: { enable: true, addr: '127.0.0.1', port: 70000 } } });
  assert.is(bad.status, 400);
  assert.match(bad.text, 'port');
  assert.is((await c.post(`${PAGE}/Get`, {})).json.data.params.table.enable, false);
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  assert.is(sim.pushes.length, 0, 'a push is recorded when it is sent: none while push is off');
});

test.run();
