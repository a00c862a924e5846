/**
 * The example flows in examples/ (Node-RED's Import > Examples): valid, the contract's property names, their one
 * device pointing at `nvr2mqtt simulate` as it starts without options (its URL and printed demo login, the only
 * credentials an example carries), and each one loads in the runtime and works against the simulator as shipped:
 * every node as in the file, its own credentials; only the device URL's port is the test simulator's (test files run
 * side by side and never share a fixed port). Besides, where an example waits for the night, for 30 s or 60 s, or
 * writes to /tmp, a second load shortens or moves just that, named in the test.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nvrSnapshot from '../../nodes/nvr-snapshot/nvr-snapshot';
import nvrSpeaker from '../../nodes/nvr-speaker/nvr-speaker';
import nvrRecordings from '../../nodes/nvr-recordings/nvr-recordings';
import { DEFAULT_SIMULATOR_URL, DEMO_LOGIN, parseSimulatorArgs } from '../../simulator/cli';
import { helper, NODES, node, statusesOf, waitFor, useSimulator, type SimulatorContext } from './harness';

const root = join(__dirname, '..', '..', '..');
const examplesDir = join(root, 'examples');
const EXPECTED = [
  'dashboard-switch-floodlight',
  'disarm-on-arrival',
  'list-motion-recordings',
  'motion-at-night-floodlight',
  'motion-at-night-picture',
  'person-at-night-say-warning',
  'plate-open-gate',
  'react-to-alarm-events',
  'read-deterrence-state',
  'request-upgrade-token',
  'switch-siren-with-range-check',
];

const core = (p: string) => require(join(root, 'node_modules', '@node-red', 'nodes', 'core', p));
const CORE_NODES = {
  inject: core('common/20-inject.js'),
  debug: core('common/21-debug.js'),
  comment: core('common/90-comment.js'),
  change: core('function/15-change.js'),
  function: core('function/10-function.js'),
  switch: core('function/10-switch.js'),
  'file in': core('storage/10-file.js'),
  catch: core('common/25-catch.js'),
};
const REQUEST_PROPS = ['name', 'device', 'page', 'pageType', 'channel', 'channelType', 'data', 'dataType', 'output', 'ignoreMsg'];
const OUR_PROPS: Record<string, string[]> = {
  'nvr-device': ['name', 'url', 'tls_ca', 'tls_fingerprint', 'heartbeat'],
  'nvr-range': REQUEST_PROPS,
  'nvr-get': REQUEST_PROPS,
  'nvr-set': REQUEST_PROPS,
  'nvr-upgrade': ['name', 'device', 'file', 'large_capacity', 'mode'],
  'nvr-event': ['name', 'device', 'channels', 'types', 'startOnly', 'live', 'picture', 'names', 'plates', 'lists', 'policies'],
  'nvr-snapshot': ['name', 'device', 'channel', 'resolution'],
  'nvr-speaker': ['name', 'device', 'channel', 'language'],
  'nvr-control': ['name', 'device', 'mode', 'channel', 'output', 'brightness', 'volume', 'duration'],
  'nvr-recordings': ['name', 'device', 'action', 'channel', 'types', 'timeZone'],
};
const FLOW_KEYS = new Set(['id', 'type', 'z', 'x', 'y', 'wires', 'g', 'credentials']);

const LIVE = 'PreviewChannel/Floodlight2AudioAlarm';
const liveOf = (ctx: Ctx, ch: string) => (ctx.sim!.state as any)[LIVE].channel_info[ch];
const readExample = (name: string): any[] => JSON.parse(readFileSync(join(examplesDir, `${name}.json`), 'utf8'));

type Ctx = SimulatorContext;
// The simulator of this suite takes the demo login the examples carry.
const test = suite<Ctx>('nodes: example flows', { password: DEMO_LOGIN.password });

useSimulator(test);
const after: Array<() => void> = [];
test.after.each(() => {
  for (const f of after.splice(0)) f();
});

test('every example carries the same nvr-device (one id, global): importing several gives one device, one login', () => {
  const devices = EXPECTED.map((name) => readExample(name).filter((n) => n.type === 'nvr-device'));
  for (const d of devices) assert.is(d.length, 1);
  for (const [d] of devices) {
    assert.equal(d, devices[0][0]);
    assert.is(d.z, undefined, 'a config node on a tab would be copied per example');
  }
});

test('the example device is `nvr2mqtt simulate` as it starts without options: its URL and its printed demo login', () => {
  const [device] = readExample(EXPECTED[0]).filter((n) => n.type === 'nvr-device');
  const plain = parseSimulatorArgs(['simulate'], {});
  assert.is(`http://${plain.opts.host}:${plain.opts.port}`, DEFAULT_SIMULATOR_URL);
  assert.ok(plain.demo, 'no password given: the demo one, printed');
  assert.equal([plain.opts.username, plain.opts.password], [DEMO_LOGIN.username, DEMO_LOGIN.password]);
  assert.is(device.url, DEFAULT_SIMULATOR_URL);
  assert.equal(device.credentials, { ...DEMO_LOGIN });
});

test('the example flows are there and well formed; the only credentials are the demo login', () => {
  const names = readdirSync(examplesDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''))
    .sort();
  for (const e of EXPECTED) assert.ok(names.includes(e), `examples/${e}.json missing`);
  for (const name of EXPECTED) {
    const flow = readExample(name);
    const text = JSON.stringify(flow.map(({ credentials, ...n }) => (n.type === 'nvr-device' ? n : { ...n, credentials })));
    assert.not.ok(/"(credentials|password|username)"\s*:/i.test(text), `${name}: credentials outside the demo device`);
    for (const d of flow.filter((n) => n.credentials !== undefined)) assert.equal(d.credentials, { ...DEMO_LOGIN }, `${name}: ${d.id}`);
    const ids = new Set(flow.map((n) => n.id));
    assert.is(ids.size, flow.length, `${name}: duplicate ids`);
    for (const n of flow) {
      for (const w of (n.wires ?? []).flat()) assert.ok(ids.has(w), `${name}: ${n.id} wired to missing ${w}`);
      const props = OUR_PROPS[n.type];
      if (!props) continue;
      const extra = Object.keys(n).filter((k) => !FLOW_KEYS.has(k) && !props.includes(k));
      assert.equal(extra, [], `${name}: ${n.type} ${n.id} has properties outside the contract`);
      if (n.type !== 'nvr-device')
        assert.ok(
          flow.some((d) => d.id === n.device && d.type === 'nvr-device'),
          `${name}: ${n.id} device`,
        );
    }
  }
});

/** The first message reaching one of these nodes (with `from` set), or a timeout. */
function first(ids: string[], timeoutMs = 8000): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing reached ${ids.join(', ')}`)), timeoutMs);
    for (const id of ids) {
      node(id).once('input', (m: any) => {
        clearTimeout(timer);
        resolve({ ...m, from: id });
      });
    }
  });
}

/**
 * Loads an example as shipped: its nodes as in the file and its device's own credentials; the device URL gets the test
 * simulator's port. `patch` (named in the test) changes what a test cannot wait for or must not write.
 */
async function loadExample(ctx: Ctx, name: string, patch: (n: any) => void = () => undefined) {
  const flow = readExample(name);
  const creds: Record<string, object> = {};
  for (const n of flow) {
    if (n.type === 'nvr-device') {
      const shipped = new URL(n.url);
      n.url = `${shipped.protocol}//${shipped.hostname}:${new URL(ctx.sim!.url).port}`;
      creds[n.id] = n.credentials;
      delete n.credentials;
    }
    patch(n);
  }
  await helper.load([...NODES, nvrSnapshot, nvrSpeaker, nvrRecordings, ...Object.values(CORE_NODES)], flow, creds);
}

test('every example logs in as shipped (green status on every node using the device)', async (ctx) => {
  for (const name of EXPECTED) {
    await loadExample(ctx, name);
    const users = readExample(name).filter((n) => n.device === 'nvr2mqtt.dev');
    for (const u of users) await waitFor(() => statusesOf(u.id).some((s) => s.fill === 'green'), `${name}: ${u.id} connected`);
    await helper.unload();
  }
});

test('person-at-night-say-warning: a person at night is warned on its camera; the inject plays the doorbell on the recorder', async (ctx) => {
  await loadExample(ctx, 'person-at-night-say-warning');
  await waitFor(() => statusesOf('ex9.say').some((s) => s.fill === 'green'), 'connected');
  // What the night filter passes on (the test runs at any hour): the event's message, into the warning.
  const said = first(['ex9.dbg', 'ex9.err']);
  node('ex9.text').receive({ payload: { type: 'person', active: true }, channel: 'IP_CH1' });
  const m = await said;
  assert.is(m.from, 'ex9.dbg', JSON.stringify(m.error));
  const spoken = ctx.sim!.prompts.playLog.at(-1)!;
  assert.equal([spoken.name, spoken.targets], ['nvr2mqtt-say', ['IP_CH1']]);
  assert.is(ctx.sim!.prompts.files.find((f) => f.index === spoken.index)!.source.kind, 'text');
  const rang = first(['ex9.dbg', 'ex9.err']);
  node('ex9.bell').receive({});
  assert.is((await rang).from, 'ex9.dbg');
  assert.equal([ctx.sim!.prompts.playLog.at(-1)!.name, ctx.sim!.prompts.playLog.at(-1)!.targets], ['doorbell.mp3', ['local']]);
});

test("plate-open-gate: an allowed plate opens the gate (Local->1, off after 5 s); a blocked one sounds that camera's siren", async (ctx) => {
  await loadExample(ctx, 'plate-open-gate');
  const flow = readExample('plate-open-gate');
  assert.equal(
    flow.filter((n) => n.type === 'nvr-event').map((n) => [n.types, n.policies]),
    [
      [['plate'], 'allow'],
      [['plate'], 'block'],
    ],
  );
  await waitFor(() => statusesOf('ex10.gate').some((s) => s.fill === 'green'), 'connected');
  // What the allow filter passes on (the shipped simulator reads no plates): a recognised plate's message.
  const recognition = { event_type: 'plate_allowed', plate: 'GATE1', group: 'Allow List', policy: 'allow' };
  const opened = first(['ex10.dbg', 'ex10.err']);
  node('ex10.open').receive({ payload: { channel: 'CH1', type: 'plate', active: true }, recognition });
  const m = await opened;
  assert.is(m.from, 'ex10.dbg', JSON.stringify(m.payload));
  assert.is((ctx.sim!.state as any)['PreviewChannel/ManualAlarm']['Local->1'], true, 'the gate relay closed');
  const sounded = first(['ex10.sdbg', 'ex10.err']);
  node('ex10.alarm').receive({
    payload: { channel: 'CH1', type: 'plate', active: true },
    recognition: { ...recognition, policy: 'block' },
  });
  const s = await sounded;
  assert.is(s.from, 'ex10.sdbg', JSON.stringify(s.payload));
  assert.is(liveOf(ctx, 'CH1').audioAlarm_switch, true, 'the siren of the camera that read the plate');
});

test("read-deterrence-state: the inject fires once and the debug node gets CH1's floodlight block", async (ctx) => {
  await loadExample(ctx, 'read-deterrence-state');
  // inject fires once 0.1 s after start; catch its result at the debug node.
  const got = await new Promise<any>((resolve) => node('ex1.d').once('input', resolve));
  assert.type(got.payload.flood_light_switch, 'boolean');
  assert.is(got.channel, 'CH1');
});

test("list-motion-recordings: the debug node gets today's motion recordings of CH1, with their playback URLs", async (ctx) => {
  ctx.sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  await new Promise((r) => setTimeout(r, 1100));
  ctx.sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  // The simulator's clock is UTC here: the node is told so (shipped empty: the host's zone).
  await loadExample(ctx, 'list-motion-recordings', (n) => {
    if (n.type === 'nvr-recordings') n.timeZone = 'UTC';
  });
  const got = await new Promise<any>((resolve) => node('ex9.d').once('input', resolve));
  const list = got.payload as any[];
  assert.ok(list.length >= 1, JSON.stringify(got.payload));
  for (const r of list) {
    assert.equal([r.channel, r.types], ['CH1', ['motion']]);
    assert.match(r.playback_url, /^rtsp:\/\/127\.0\.0\.1:\d+\/rtsp\/playback\?channel=1&/);
  }
});

/** Alarm settings (AlarmConfig/*) of the simulator, to show that an example left them as they were. */
const alarmSettings = (ctx: Ctx) =>
  JSON.stringify(Object.fromEntries(Object.entries(ctx.sim!.state).filter(([page]) => page.startsWith('AlarmConfig/'))));

test('switch-siren-with-range-check ("Switch a siren"): switches the siren now, not an alarm setting; out-of-range asks are refused', async (ctx) => {
  const settings = alarmSettings(ctx);
  await loadExample(ctx, 'switch-siren-with-range-check');
  assert.is(readExample('switch-siren-with-range-check')[0].label, 'Switch a siren');
  await waitFor(() => statusesOf('ex2.ctl').some((s) => s.fill === 'green'), 'connected');
  for (const [inject, on] of [
    ['ex2.on', true],
    ['ex2.off', false],
  ] as const) {
    const got = first(['ex2.d', 'ex2.errd']);
    node(inject).receive({});
    const msg = await got;
    assert.is(msg.from, 'ex2.d', JSON.stringify(msg.payload));
    assert.is(msg.payload.siren, on);
    assert.is(liveOf(ctx, 'CH1').audioAlarm_switch, on, 'the siren itself');
  }
  const sets = () => ctx.sim!.log.filter((e) => e.path.endsWith('/Set')).length;
  const before = sets();
  const loud = first(['ex2.d', 'ex2.errd']);
  node('ex2.loud').receive({});
  const refusedVolume = await loud;
  assert.is(refusedVolume.from, 'ex2.errd');
  assert.is(refusedVolume.payload.code, 'out_of_range');
  // The alarm setting: its Range is read, a siren time outside it refused; nothing is sent.
  const bounds = first(['ex2.rd', 'ex2.errd']);
  node('ex2.range').receive({});
  const range = await bounds;
  assert.is(range.from, 'ex2.rd', JSON.stringify(range.payload));
  assert.equal([range.payload.items.siren_time.min, range.payload.items.siren_time.max], [5, 180]);
  const refused = first(['ex2.sd', 'ex2.errd']);
  node('ex2.bad').receive({});
  const r = await refused;
  assert.is(r.from, 'ex2.errd');
  assert.is(r.payload.code, 'out_of_range');
  assert.equal(
    r.payload.violations.map((v: any) => v.path),
    ['channel_info.CH1.siren_time'],
  );
  assert.is(sets(), before, 'nothing sent for the refused asks');
  assert.is(alarmSettings(ctx), settings, 'no alarm setting changed');
});

test('request-upgrade-token: the test file gets a token, the secondary authentication built from the password', async (ctx) => {
  await loadExample(ctx, 'request-upgrade-token');
  const got = first(['ex3.d', 'ex3.errd']);
  node('ex3.i').receive({});
  const msg = await got;
  assert.is(msg.from, 'ex3.d', JSON.stringify(msg.error));
  assert.type(msg.payload.upgrade_token, 'string');
  const token = ctx.sim!.log.find((e) => e.path === '/API/Maintenance/SystemUpgrade/Token')!.data as any;
  assert.is(token.file_name, 'test-firmware.sw');
  assert.ok(
    ctx.sim!.log.some((e) => e.path === '/API/Maintenance/TransKey/Get'),
    'a fresh salt',
  );
});

test("react-to-alarm-events: motion on CH1 switches CH1's floodlight on now (not an alarm setting), and off again", async (ctx) => {
  const settings = alarmSettings(ctx);
  // As shipped: motion switches the floodlight on.
  await loadExample(ctx, 'react-to-alarm-events');
  await waitFor(() => ctx.sim!.log.some((e) => e.path === '/API/Event/Check'), 'subscribed');
  const shipped = first(['ex4.sd', 'ex4.errd']);
  ctx.sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  assert.is((await shipped).from, 'ex4.sd');
  assert.is(liveOf(ctx, 'CH1').floodlight_switch, true);
  ctx.sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  await helper.unload();
  ctx.sim!.setLive('CH1', { floodlight_switch: false });
  // Besides: 1 s instead of 30 s, to see it go off again.
  await loadExample(ctx, 'react-to-alarm-events', (n) => {
    if (n.id === 'ex4.ctl') n.duration = '1';
  });
  assert.is(readExample('react-to-alarm-events').find((n) => n.id === 'ex4.ctl').duration, '30');
  await waitFor(() => ctx.sim!.log.some((e) => e.path === '/API/Event/Check'), 'subscribed');
  const on = first(['ex4.sd', 'ex4.errd']);
  ctx.sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  const msg = await on;
  assert.is(msg.from, 'ex4.sd', JSON.stringify(msg.error));
  assert.is(msg.channel, 'CH1');
  assert.is(msg.payload.floodlight, true);
  assert.is(liveOf(ctx, 'CH1').floodlight_switch, true, 'the floodlight itself');
  const off = await first(['ex4.sd', 'ex4.errd'], 3000);
  assert.is(off.cause, 'duration');
  assert.is(liveOf(ctx, 'CH1').floodlight_switch, false);
  assert.is(alarmSettings(ctx), settings, 'no alarm setting changed');
});

/** The next message reaching `id` whose payload is `payload` (others, e.g. a state reported twice, are passed over). */
function nextWith(id: string, payload: unknown, timeoutMs = 8000): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${JSON.stringify(payload)} reached ${id}`)), timeoutMs);
    const on = (m: any) => {
      if (m.payload !== payload) return;
      clearTimeout(timer);
      node(id).off('input', on);
      resolve(m);
    };
    node(id).on('input', on);
  });
}

test('dashboard-switch-floodlight: "switch on" / "switch off" switch CH1\'s floodlight; the switch follows the device, whoever switched it', async (ctx) => {
  await loadExample(ctx, 'dashboard-switch-floodlight');
  const errors: any[] = [];
  node('ex5.errd').on('input', (m: any) => errors.push(m.error));
  await waitFor(() => ctx.sim!.log.some((e) => e.path === '/API/Event/Check'), 'listening');
  for (const [inject, on] of [
    ['ex5.on', true],
    ['ex5.off', false],
  ] as const) {
    const got = nextWith('ex5.d', on);
    node(inject).receive({});
    const msg = await got;
    assert.is(msg.payload, on, 'a boolean, as a dashboard switch wants it');
    assert.is(liveOf(ctx, 'CH1').floodlight_switch, on);
  }
  // Switched elsewhere (the device's own reaction, its web page, Home Assistant): the switch follows.
  const follows = nextWith('ex5.d', true);
  ctx.sim!.setLive('CH1', { floodlight_switch: true });
  assert.is((await follows).payload, true);
  assert.equal(errors, []);
});

test("motion-at-night-floodlight: the night filter, then motion switches that channel's floodlight on and off again", async (ctx) => {
  const night = readExample('motion-at-night-floodlight').find((n) => n.id === 'ex6.night').func as string;
  const at = (hour: number) =>
    class extends Date {
      override getHours() {
        return hour;
      }
    };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const filter = (hour: number) => new Function('msg', 'Date', night)({ payload: 1 }, at(hour));
  assert.equal(
    [22, 3, 6, 7, 12, 19, 20].map((h) => filter(h) !== null),
    [true, true, true, false, false, false, true],
  );
  assert.is(readExample('motion-at-night-floodlight').find((n) => n.id === 'ex6.ctl').duration, '60');
  ctx.sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: false }); // the earlier test's alarm ends
  // As shipped: at night motion switches that channel's floodlight on; by day nothing is sent (the filter, with the
  // Node-RED host's clock as the flow reads it).
  const isNight = filter(new Date().getHours()) !== null;
  await loadExample(ctx, 'motion-at-night-floodlight');
  await waitFor(() => ctx.sim!.log.some((e) => e.path === '/API/Event/Check'), 'subscribed');
  const sets = () => ctx.sim!.log.filter((e) => e.path.endsWith('/Set')).length;
  const before = sets();
  const shipped = first(['ex6.d', 'ex6.errd'], isNight ? 8000 : 2000).catch(() => undefined);
  ctx.sim!.raiseAlarm({ channel: 'IP_CH1', type: 'motion', active: true });
  const got = await shipped;
  if (isNight) assert.is(got?.from, 'ex6.d', JSON.stringify(got?.error));
  else assert.equal([got, sets() - before], [undefined, 0], 'by day: nothing sent');
  ctx.sim!.raiseAlarm({ channel: 'IP_CH1', type: 'motion', active: false });
  await helper.unload();
  ctx.sim!.setLive('IP_CH1', { floodlight_switch: false });
  // Besides: always night, and 1 s instead of 60 s, for the test.
  await loadExample(ctx, 'motion-at-night-floodlight', (n) => {
    if (n.id === 'ex6.night') n.func = 'return msg;';
    if (n.id === 'ex6.ctl') n.duration = '1';
  });
  await waitFor(() => ctx.sim!.log.some((e) => e.path === '/API/Event/Check'), 'subscribed');
  const on = first(['ex6.d', 'ex6.errd']);
  ctx.sim!.raiseAlarm({ channel: 'IP_CH1', type: 'motion', active: true });
  const msg = await on;
  assert.is(msg.from, 'ex6.d', JSON.stringify(msg.error));
  assert.is(msg.payload.channel, 'IP_CH1');
  assert.is(liveOf(ctx, 'IP_CH1').floodlight_switch, true);
  const off = await first(['ex6.d', 'ex6.errd'], 3000);
  assert.is(off.cause, 'duration');
  assert.is(liveOf(ctx, 'IP_CH1').floodlight_switch, false);
});

test('motion-at-night-picture: the alarm with its picture to the debug node and a file; nvr-snapshot saves CH1 now', async (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-ex8-'));
  after.push(() => rmSync(dir, { recursive: true, force: true }));
  const flow = readExample('motion-at-night-picture');
  assert.is(flow.find((n) => n.id === 'ex8.e').picture, true);
  assert.is(flow.find((n) => n.id === 'ex8.night').func, readExample('motion-at-night-floodlight').find((n) => n.id === 'ex6.night').func);
  await loadExample(ctx, 'motion-at-night-picture', (n) => {
    if (n.id === 'ex8.night') n.func = 'return msg;'; // always night, for the test
    if (n.id === 'ex8.file') n.filename = join(dir, 'alarm.jpg');
    if (n.id === 'ex8.snapfile') n.filename = join(dir, 'ch1.jpg');
  });
  await waitFor(() => ctx.sim!.log.some((e) => e.path === '/API/Event/Check'), 'subscribed');
  const got = first(['ex8.d']);
  ctx.sim!.raiseAlarm({ channel: 'IP_CH1', type: 'motion', active: true });
  const msg = await got;
  assert.is(msg.event.channel, 'IP_CH1');
  assert.is(msg.event.type, 'motion');
  assert.ok(Buffer.isBuffer(msg.payload) && msg.payload[0] === 0xff && msg.payload[1] === 0xd8, 'a JPEG');
  assert.is(msg.pictureSource, 'snapshot', 'this simulator sends no pictures: one read for the alarm');
  await waitFor(() => {
    try {
      return readFileSync(join(dir, 'alarm.jpg')).equals(msg.payload);
    } catch {
      return false;
    }
  }, 'the picture in the file');
  ctx.sim!.raiseAlarm({ channel: 'IP_CH1', type: 'motion', active: false });
  const snap = first(['ex8.snapd']);
  node('ex8.now').receive({});
  const shot = await snap;
  assert.is(shot.channel, 'CH1');
  assert.ok(Buffer.isBuffer(shot.payload));
  await waitFor(() => {
    try {
      return readFileSync(join(dir, 'ch1.jpg')).equals(shot.payload);
    } catch {
      return false;
    }
  }, "CH1's picture in the file");
});

test('disarm-on-arrival: "arrived home" disarms, "left home" arms', async (ctx) => {
  await loadExample(ctx, 'disarm-on-arrival');
  for (const [inject, disarmed] of [
    ['ex7.home', true],
    ['ex7.away', false],
  ] as const) {
    const got = first(['ex7.d', 'ex7.errd']);
    node(inject).receive({});
    const msg = await got;
    assert.is(msg.from, 'ex7.d', JSON.stringify(msg.error));
    assert.is(msg.payload.disarmed, disarmed);
    assert.is((ctx.sim!.state as any)['AlarmConfig/Disarming'].disarming, disarmed);
  }
});

test.run();
