/**
 * A REAL Node-RED runtime (child process) with this package installed by `npm install <packed
 * tarball>` in a temporary user folder, flows deployed through the admin HTTP API (with adminAuth
 * on), requests driven end to end against the simulator. Node-RED 4 on this Node always; Node-RED 5
 * on Node 22 when scripts/install-test-runtimes.sh has installed it (CI does).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../simulator';
import { NvrClient } from '../../core';
import { availableRuntimes, startNodeRed, postJson, repoRoot, type NodeRedRuntime } from '../helpers/nodered-runtime';
import { missingSuite } from '../helpers/missing';
import { NODE_TYPES } from './node-types';

const PAGE = 'AlarmConfig/Deterrence';
/** The flows the package ships (examples/*.json, in the order Node-RED lists them). */
const EXAMPLES = readdirSync(join(repoRoot, 'examples'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

const { targets, skipped } = availableRuntimes();
for (const s of skipped) missingSuite('nodes: real Node-RED runtime', s);

interface Ctx {
  sim?: Simulator;
  nr?: NodeRedRuntime;
  client?: NvrClient;
  password: string;
}

type Channel = Record<string, unknown>;
const ch1 = (answer: any): Channel => answer?.channel_info?.CH1;
/** CH1 of the simulator's in-memory Deterrence state (what its Get renders). */
const simCh1 = (sim: Simulator): Channel => (sim.state as any)[PAGE].channel_info.CH1;

function flow(simUrl: string, password: string): object[] {
  return [
    { id: 'tab1', type: 'tab', label: 'nvr2mqtt end to end' },
    { id: 'dev1', type: 'nvr-device', name: 'simulator', url: simUrl, heartbeat: '25', credentials: { username: 'admin', password } },
    // Get: http in -> nvr-get -> http response
    { id: 'in1', z: 'tab1', type: 'http in', url: '/nvr', method: 'post', wires: [['get1']] },
    { id: 'get1', z: 'tab1', type: 'nvr-get', name: '', device: 'dev1', page: PAGE, channel: '', data: '', wires: [['out1']] },
    { id: 'out1', z: 'tab1', type: 'http response', statusCode: '', headers: {}, wires: [] },
    // Set one channel: http in -> nvr-set (channel CH1) -> http response
    { id: 'in2', z: 'tab1', type: 'http in', url: '/nvr/set', method: 'post', wires: [['set1']] },
    { id: 'set1', z: 'tab1', type: 'nvr-set', name: '', device: 'dev1', page: PAGE, channel: 'CH1', data: '', wires: [['out1']] },
    // Errors: a Catch node answers the request with what it received
    { id: 'catch1', z: 'tab1', type: 'catch', scope: ['get1', 'set1', 'set2', 'ctl1'], uncaught: false, wires: [['err1']] },
    {
      id: 'err1',
      z: 'tab1',
      type: 'function',
      outputs: 1,
      wires: [['out1']],
      func: 'msg.statusCode = 500; msg.payload = { caught: msg.error }; return msg;',
    },
    // Version 2 properties: page, channel and data from the request body (msg), msg overrides ignored
    { id: 'in4', z: 'tab1', type: 'http in', url: '/nvr/typed', method: 'post', wires: [['set2']] },
    {
      id: 'set2',
      z: 'tab1',
      type: 'nvr-set',
      name: '',
      device: 'dev1',
      page: 'req.body.page',
      pageType: 'msg',
      channel: 'req.body.channel',
      channelType: 'msg',
      data: 'req.body.data',
      dataType: 'msg',
      output: 'payload',
      ignoreMsg: true,
      wires: [['out1']],
    },
    // A filtered nvr-event: PIR alarms of IP_CH1 that start, kept in flow context; /alarms answers them
    {
      id: 'ev1',
      z: 'tab1',
      type: 'nvr-event',
      name: '',
      device: 'dev1',
      channels: 'IP_CH1',
      types: ['pir'],
      startOnly: true,
      wires: [['keep1']],
    },
    {
      id: 'keep1',
      z: 'tab1',
      type: 'function',
      outputs: 1,
      wires: [],
      func: 'const a = flow.get("alarms") || []; a.push(msg.payload); flow.set("alarms", a); return null;',
    },
    { id: 'in5', z: 'tab1', type: 'http in', url: '/alarms', method: 'post', wires: [['list1']] },
    {
      id: 'list1',
      z: 'tab1',
      type: 'function',
      outputs: 1,
      wires: [['out1']],
      func: 'msg.payload = flow.get("alarms") || []; return msg;',
    },
    // Live control: http in -> nvr-control (floodlight of CH1) -> http response (the state read back)
    { id: 'in6', z: 'tab1', type: 'http in', url: '/control', method: 'post', wires: [['ctl1']] },
    {
      id: 'ctl1',
      z: 'tab1',
      type: 'nvr-control',
      name: '',
      device: 'dev1',
      mode: 'floodlight',
      channel: 'CH1',
      output: '',
      brightness: '',
      volume: '',
      duration: '',
      wires: [['out1']],
    },
    // A picture: http in -> nvr-snapshot (CH1) -> the JPEG as the response, channel, time and size as headers
    { id: 'in7', z: 'tab1', type: 'http in', url: '/snapshot', method: 'post', wires: [['snap1']] },
    { id: 'snap1', z: 'tab1', type: 'nvr-snapshot', name: '', device: 'dev1', channel: 'CH1', resolution: '', wires: [['hdr1']] },
    {
      id: 'hdr1',
      z: 'tab1',
      type: 'function',
      outputs: 1,
      wires: [['out1']],
      func: 'msg.headers = { "content-type": "image/jpeg", "x-channel": msg.channel, "x-time": msg.time, "x-size": String(msg.size), "x-buffer": String(Buffer.isBuffer(msg.payload)) }; return msg;',
    },
    // core nodes only, to tell a harness failure from a node failure
    { id: 'in3', z: 'tab1', type: 'http in', url: '/echo', method: 'post', wires: [['tpl1']] },
    {
      id: 'tpl1',
      z: 'tab1',
      type: 'template',
      field: 'payload',
      template: '{"got": {{payload.x}} }',
      output: 'json',
      syntax: 'mustache',
      wires: [['out1']],
    },
  ];
}

for (const target of targets) {
  const test = suite<Ctx>(target.name, { password: randomBytes(12).toString('base64url') });

  test.before(async (ctx) => {
    const t0 = Date.now();
    ctx.sim = await startSimulator({ password: ctx.password, quiet: true });
    ctx.client = new NvrClient({ url: ctx.sim.url, username: 'admin', password: ctx.password, heartbeatMs: 0 });
    ctx.nr = await startNodeRed({
      nodeRedDir: target.nodeRedDir,
      nodeBinary: target.nodeBinary,
      adminAuth: { username: 'tester', password: randomBytes(9).toString('base64url') },
    });
    await ctx.nr.deploy(flow(ctx.sim.url, ctx.password));
    console.log(`  ${target.name}: Node-RED ${ctx.nr.version} installed, started and deployed in ${Date.now() - t0} ms`);
  });
  test.after(async (ctx) => {
    await ctx.nr?.stop();
    await ctx.client?.close();
    await ctx.sim?.stop();
  });

  test('the palette lists the nvr2mqtt node types (GET /nodes)', async ({ nr }) => {
    const r = await nr!.admin('/nodes', { headers: { accept: 'application/json' } });
    assert.is(r.status, 200);
    const sets = (await r.json()) as Array<{ module: string; types: string[]; enabled: boolean; err?: string; version?: string }>;
    const ours = sets.filter((s) => s.module === 'nvr2mqtt');
    assert.ok(ours.length > 0, 'module nvr2mqtt not in GET /nodes');
    for (const s of ours) {
      assert.is(s.err, undefined, `node set failed to load: ${s.err}`);
      assert.ok(s.enabled, `node set not enabled: ${JSON.stringify(s)}`);
    }
    const types = ours.flatMap((s) => s.types).sort();
    for (const t of NODE_TYPES) assert.ok(types.includes(t), `${t} missing from the palette: ${types.join(', ')}`);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    assert.is(ours[0].version, pkg.version);
  });

  test('installed as a user installs it: npm install of the packed tarball, a real copy in node_modules', async ({ nr }) => {
    const project = JSON.parse(readFileSync(join(nr!.userDir, 'package.json'), 'utf8'));
    assert.match(project.dependencies?.nvr2mqtt ?? '', /^file:.*nvr2mqtt-[\d.]+\.tgz$/);
    const installed = join(nr!.userDir, 'node_modules', 'nvr2mqtt');
    assert.ok(lstatSync(installed).isDirectory() && !lstatSync(installed).isSymbolicLink(), 'a copy, not a link to the repository');
    assert.not.ok(existsSync(join(installed, 'dist', 'test')), 'tests are not packed');
    assert.ok(existsSync(join(installed, 'dist', 'nodes', 'nvr-request', 'nvr-request.html')));
  });

  test('icons are served for the palette (GET /icons/nvr2mqtt/...)', async ({ nr }) => {
    for (const icon of [
      'nvr2mqtt-device.svg',
      'nvr2mqtt-camera.svg',
      'nvr2mqtt-upgrade.svg',
      'nvr2mqtt-alarm.svg',
      'nvr2mqtt-snapshot.svg',
      'nvr2mqtt-speaker.svg',
    ]) {
      const r = await nr!.admin('/icons/nvr2mqtt/' + icon);
      const body = await r.text();
      assert.is(r.status, 200, icon);
      assert.match(body, '<svg', icon);
    }
  });

  test('Import > Examples lists the example flows, and nothing else (GET /library/examples/flows/)', async ({ nr }) => {
    const modules = (await (await nr!.admin('/library/examples/flows/')).json()) as string[];
    assert.ok(modules.includes('nvr2mqtt'), JSON.stringify(modules));
    const r = await nr!.admin('/library/examples/flows/nvr2mqtt');
    assert.is(r.status, 200);
    // {fn} entries are flows, {dn} entries folders: an empty folder would show up there.
    const entries = (await r.json()) as Array<{ fn?: string; dn?: string }>;
    assert.equal(
      entries,
      EXAMPLES.map((fn) => ({ fn })),
    );
    for (const fn of EXAMPLES) {
      const flow = (await (await nr!.admin('/library/examples/flows/nvr2mqtt/' + fn)).json()) as Array<{ type: string }>;
      assert.ok(
        flow.some((n) => n.type === 'nvr-device'),
        fn,
      );
    }
  });

  test('core nodes answer through the same harness', async ({ nr }) => {
    const r = await postJson(nr!.url + '/echo', { x: 42 });
    assert.is(r.status, 200);
    assert.equal(r.body, { got: 42 });
  });

  test('admin routes need a permission; with it they list the registry pages', async ({ nr }) => {
    const anonymous = await fetch(nr!.adminUrl + '/nvr-device/pages');
    await anonymous.arrayBuffer();
    assert.is(anonymous.status, 401);
    const r = await nr!.admin('/nvr-device/pages');
    assert.is(r.status, 200);
    const pages = (await r.json()) as Array<{ name: string }>;
    assert.ok(
      pages.some((p) => p.name === PAGE),
      JSON.stringify(pages),
    );
  });

  test('http in -> nvr-get -> http response returns the simulator state, and follows a change', async ({ nr, client, sim }) => {
    const first = await postJson(nr!.url + '/nvr', { page_type: 'ChannelConfig' });
    assert.is(first.status, 200, JSON.stringify(first.body));
    const direct = await client!.get(PAGE, { page_type: 'ChannelConfig' });
    assert.equal(first.body, JSON.parse(JSON.stringify(direct)));
    const before = ch1(first.body).flood_light_switch;
    assert.type(before, 'boolean');
    assert.is(before, simCh1(sim!).flood_light_switch, "the simulator's own state");
    // CH3 has no floodlight: the device answers a reason marker there, passed through unchanged
    assert.type(first.body.channel_info.CH3.reason, 'string');

    // A Set on the simulator by another client; the runtime's next Get sees it.
    await client!.set(PAGE, { page_type: 'ChannelConfig', channel_info: { CH1: { chn_index: 'CH1', flood_light_switch: !before } } });
    const second = await postJson(nr!.url + '/nvr', { page_type: 'ChannelConfig' });
    assert.is(second.status, 200);
    assert.is(ch1(second.body).flood_light_switch, !before);
    assert.is(simCh1(sim!).flood_light_switch, !before);
  });

  test('http in -> nvr-set (CH1) changes the device; a Range violation reaches the Catch node', async ({ nr, client }) => {
    const now = ch1(await client!.get(PAGE, { page_type: 'ChannelConfig' }));
    const set = await postJson(nr!.url + '/nvr/set', { flood_light_switch: !now.flood_light_switch, bright_time: 42 });
    assert.is(set.status, 200, JSON.stringify(set.body));
    const after = ch1(await client!.get(PAGE, { page_type: 'ChannelConfig' }));
    assert.is(after.flood_light_switch, !now.flood_light_switch);
    assert.is(after.bright_time, 42);

    const bad = await postJson(nr!.url + '/nvr/set', { bright_time: 999 });
    assert.is(bad.status, 500);
    assert.is(bad.body.caught.code, 'out_of_range', JSON.stringify(bad.body));
    assert.is(ch1(await client!.get(PAGE, { page_type: 'ChannelConfig' })).bright_time, 42, 'nothing was sent');
  });

  test('version 2 nvr-set: page, channel and data from msg properties; answers the state read back', async ({ nr, sim }) => {
    const r = await postJson(nr!.url + '/nvr/typed', { page: 'AlarmConfig/VoiceAlarm', channel: 'CH2', data: { siren_value: 2 } });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.is(r.body.siren_value, 2);
    assert.type(r.body.siren_time, 'number');
    assert.is((sim!.state as any)['AlarmConfig/VoiceAlarm'].channel_info.CH2.siren_value, 2);
    const bad = await postJson(nr!.url + '/nvr/typed', { page: 'AlarmConfig/VoiceAlarm', channel: 'CH2', data: { siren_volume: 2 } });
    assert.is(bad.status, 500);
    assert.is(bad.body.caught.code, 'out_of_range', JSON.stringify(bad.body));
  });

  test('an alarm raised at the simulator reaches a filtered nvr-event; others are filtered out', async ({ nr, sim }) => {
    for (let i = 0; i < 200 && !sim!.log.some((e) => e.path === '/API/Event/Check'); i++) await new Promise((r) => setTimeout(r, 25));
    sim!.raiseAlarm({ channel: 'CH1', type: 'pir', active: true }); // other channel
    sim!.raiseAlarm({ channel: 'IP_CH1', type: 'motion', active: true }); // other type
    sim!.raiseAlarm({ channel: 'IP_CH1', type: 'pir', active: true });
    sim!.raiseAlarm({ channel: 'IP_CH1', type: 'pir', active: false }); // an end, with start only
    sim!.raiseAlarm({ channel: 'IP_CH1', type: 'pir', active: true }); // in order after the others: when it is there, all were seen
    let alarms: any[] = [];
    for (let i = 0; i < 200 && alarms.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      alarms = (await postJson(nr!.url + '/alarms', {})).body;
    }
    assert.equal(
      alarms.map((a) => `${a.device} ${a.channel} ${a.type} ${a.active}`),
      ['simulator IP_CH1 pir true', 'simulator IP_CH1 pir true'],
    );
    assert.ok(alarms.every((a) => !Number.isNaN(Date.parse(a.time))));
  });

  test("nvr-control switches the simulator's live floodlight and answers the state read back; a refusal reaches the Catch", async ({
    nr,
    sim,
  }) => {
    const live = () => (sim!.state as any)['PreviewChannel/Floodlight2AudioAlarm'].channel_info.CH1;
    const on = await postJson(nr!.url + '/control', { on: true, brightness: 70 });
    assert.is(on.status, 200, JSON.stringify(on.body));
    assert.is(on.body.floodlight, true);
    assert.is(on.body.brightness, 70);
    assert.is(live().floodlight_switch, true);
    assert.is(live().floodlight_value, 70);
    const off = await postJson(nr!.url + '/control', { on: false });
    assert.is(off.body.floodlight, false);
    assert.is(live().floodlight_switch, false);
    sim!.clearLog();
    const bad = await postJson(nr!.url + '/control', { on: true, brightness: 101 });
    assert.is(bad.status, 500);
    assert.is(bad.body.caught.code, 'out_of_range', JSON.stringify(bad.body));
    assert.match(bad.body.caught.message, /brightness must be at most 100 on this channel/);
    assert.not.ok(
      sim!.log.some((e) => e.path.endsWith('/Set')),
      'nothing was sent',
    );
    assert.is(live().floodlight_switch, false);
  });

  test('nvr-snapshot: the JPEG Buffer of CH1 with its channel, time and size', async ({ nr, sim }) => {
    const r = await fetch(nr!.url + '/snapshot', { method: 'POST', signal: AbortSignal.timeout(30_000) });
    const body = Buffer.from(await r.arrayBuffer());
    assert.is(r.status, 200, body.toString());
    assert.is(r.headers.get('content-type'), 'image/jpeg');
    const sent = sim!.lastSnapshot('CH1')!;
    assert.ok(body.equals(sent), 'the device JPEG, byte for byte');
    assert.is(r.headers.get('x-buffer'), 'true');
    assert.is(r.headers.get('x-channel'), 'CH1');
    assert.is(r.headers.get('x-size'), String(sent.length));
    assert.ok(!Number.isNaN(Date.parse(r.headers.get('x-time') ?? '')));
  });

  test('no password in the exported flow, the flow file, or the credentials API', async ({ nr, password }) => {
    const r = await nr!.admin('/flows');
    const exported = await r.text();
    assert.is(r.status, 200);
    assert.ok(exported.includes('"nvr-device"'));
    assert.not.ok(exported.includes(password), 'password in GET /flows');
    const flowFile = join(nr!.userDir, 'flows.json');
    assert.ok(existsSync(flowFile));
    assert.not.ok(readFileSync(flowFile, 'utf8').includes(password), 'password in flows.json');
    const credFile = join(nr!.userDir, 'flows_cred.json');
    assert.ok(existsSync(credFile));
    assert.not.ok(readFileSync(credFile, 'utf8').includes(password), 'plain password in flows_cred.json');
    const creds = await nr!.admin('/credentials/nvr-device/dev1');
    const body = (await creds.json()) as Record<string, unknown>;
    assert.is(body.username, 'admin');
    assert.is(body.has_password, true);
    assert.not.ok('password' in body);
    assert.not.ok(nr!.logs().includes(password), 'password in the runtime log');
  });

  test.run();
}
