/**
 * What a new user meets in the first hour, in a REAL Node-RED 4 and 5 (child process, this package
 * installed from its packed tarball) against the simulator: errors that reach Catch nodes say what
 * happened in the user's words (an offline channel read by nvr-get, a text payload for nvr-set, a
 * URL without http://); a wrong password is asked once however often the flow is deployed again, Test
 * connection says how many tries the device has left before its 5-failure block, the status says when it
 * retries, and a redeploy with the right password logs in at once; a lost device reaches nvr-event's Catch node once per failure streak with the time of
 * the next try, and the debug sidebar gets one warning per streak instead of two per retry.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { startSimulator, type Simulator } from '../../simulator';
import { availableRuntimes, postJson, startNodeRed, type NodeRedRuntime } from '../helpers/nodered-runtime';
import { missingSuite } from '../helpers/missing';

const VOICE = 'AlarmConfig/VoiceAlarm';
const LOGIN = '/API/Web/Login';

interface Ctx {
  sim?: Simulator;
  nr?: NodeRedRuntime;
  password: string;
}

/** Resolves with `probe()`'s first truthy value; fails naming `what` after `timeoutMs`. */
async function eventually<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(100);
  }
}

/** The flow: requests over http-in, every Catch message and node status kept in flow context, read at /seen. */
function flow(url: string, username: string, password: string): object[] {
  return [
    { id: 'tab1', type: 'tab', label: 'first hour' },
    { id: 'dev1', type: 'nvr-device', name: 'recorder', url, heartbeat: '0', credentials: { username, password } },
    {
      id: 'dev2',
      type: 'nvr-device',
      name: 'no scheme',
      url: '192.168.1.10',
      heartbeat: '0',
      credentials: { username: 'admin', password: 'x' },
    },
    { id: 'in1', z: 'tab1', type: 'http in', url: '/get', method: 'post', wires: [['get1']] },
    {
      id: 'get1',
      z: 'tab1',
      type: 'nvr-get',
      device: 'dev1',
      page: VOICE,
      channel: 'req.body.channel',
      channelType: 'msg',
      data: '',
      wires: [['out1']],
    },
    { id: 'in2', z: 'tab1', type: 'http in', url: '/set', method: 'post', wires: [['set1']] },
    { id: 'set1', z: 'tab1', type: 'nvr-set', device: 'dev1', page: VOICE, channel: 'CH1', data: '', wires: [['out1']] },
    { id: 'in3', z: 'tab1', type: 'http in', url: '/noscheme', method: 'post', wires: [['get2']] },
    { id: 'get2', z: 'tab1', type: 'nvr-get', device: 'dev2', page: VOICE, channel: 'CH1', data: '', wires: [['out1']] },
    { id: 'ev1', z: 'tab1', type: 'nvr-event', device: 'dev1', channels: '', types: [], startOnly: false, wires: [[]] },
    { id: 'out1', z: 'tab1', type: 'http response', statusCode: '', headers: {}, wires: [] },
    { id: 'catch1', z: 'tab1', type: 'catch', scope: ['get1', 'set1', 'get2', 'ev1'], uncaught: false, wires: [['keep1']] },
    {
      id: 'keep1',
      z: 'tab1',
      type: 'function',
      outputs: 1,
      wires: [['out1']],
      func: `const c = flow.get('caught') || [];
c.push({ source: msg.error.source.id, message: msg.error.message, code: msg.error.code, payload: msg.res ? undefined : msg.payload });
flow.set('caught', c);
if (!msg.res) return null;
msg.statusCode = 500;
msg.payload = { caught: msg.error };
return msg;`,
    },
    { id: 'st1', z: 'tab1', type: 'status', scope: ['ev1', 'get1'], wires: [['keep2']] },
    {
      id: 'keep2',
      z: 'tab1',
      type: 'function',
      outputs: 1,
      wires: [],
      func: `const s = flow.get('statuses') || {};
(s[msg.status.source.id] = s[msg.status.source.id] || []).push(msg.status.text);
flow.set('statuses', s);
return null;`,
    },
    { id: 'in4', z: 'tab1', type: 'http in', url: '/seen', method: 'post', wires: [['seen1']] },
    {
      id: 'seen1',
      z: 'tab1',
      type: 'function',
      outputs: 1,
      wires: [['out1']],
      func: `msg.payload = { caught: flow.get('caught') || [], statuses: flow.get('statuses') || {} }; return msg;`,
    },
  ];
}

interface Seen {
  caught: Array<{ source: string; message: string; code: string; payload?: any }>;
  statuses: Record<string, string[]>;
}

const { targets, skipped } = availableRuntimes();
for (const s of skipped) missingSuite('nodes: the first hour in a real Node-RED', s);

for (const target of targets) {
  const test = suite<Ctx>(`the first hour in ${target.name}`, { password: randomBytes(12).toString('base64url') });
  const seen = async (nr: NodeRedRuntime): Promise<Seen> => (await postJson(nr.url + '/seen', {})).body as Seen;

  test.before(async (ctx) => {
    ctx.sim = await startSimulator({ password: ctx.password, quiet: true });
    ctx.nr = await startNodeRed({ nodeRedDir: target.nodeRedDir, nodeBinary: target.nodeBinary });
    await ctx.nr.deploy(flow(ctx.sim.url, 'admin', ctx.password));
  });
  test.after(async (ctx) => {
    await ctx.nr?.stop();
    await ctx.sim?.stop();
  });

  test("nvr-get of an offline channel is an error with the device's reason, named by what happened", async ({ nr }) => {
    const ok = await postJson(nr!.url + '/get', { channel: 'CH1' });
    assert.is(ok.status, 200, JSON.stringify(ok.body));
    assert.type(ok.body.siren_time, 'number');
    const offline = await postJson(nr!.url + '/get', { channel: 'IP_CH2' });
    assert.is(offline.status, 500, `not a success: ${JSON.stringify(offline.body)}`);
    assert.is(offline.body.caught.code, 'channel_offline');
    assert.match(offline.body.caught.message, /^Not supported by the device: IP_CH2 is Offline \(the device answers "Not support"\)/);
    assert.not.match(offline.body.caught.message, /DeviceError/);
  });

  test('nvr-set with a text payload says the payload is text; a URL without http:// says what to write', async ({ nr }) => {
    const r = await fetch(nr!.url + '/set', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'siren on' });
    const body = (await r.json()) as any;
    assert.is(r.status, 500);
    assert.is(body.caught.code, 'bad_data');
    assert.match(body.caught.message, /^Not sent: nothing to set: msg\.payload is text \("siren on"\), not an object of fields/);
    const json = await fetch(nr!.url + '/set', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"siren_value":3}' });
    assert.match(((await json.json()) as any).caught.message, /msg\.payload is JSON text, not an object; parse it first/);
    const noScheme = await postJson(nr!.url + '/noscheme', {});
    assert.is(noScheme.status, 500);
    assert.is(noScheme.body.caught.code, 'bad_url');
    assert.match(
      noScheme.body.caught.message,
      /^Not sent: the device URL "192\.168\.1\.10" must start with http:\/\/ or https:\/\/ \(for example http:\/\/192\.168\.1\.10\)/,
    );
  });

  test('a wrong password: the status says when it retries, redeploys do not ask again, Test connection says the tries left, a redeploy with the right one logs in at once', async (ctx) => {
    const { nr, sim } = ctx;
    const failedLogins = () => sim!.log.filter((e) => e.path === LOGIN && e.error_code === 'verify_failed').length;
    const base = failedLogins();
    await nr!.deploy(flow(sim!.url, 'admin', 'not-the-password'));
    // The deployed node's login fails once, then waits (core holds logins after a refusal): the status says until when.
    const text = await eventually(async () => (await seen(nr!)).statuses.ev1?.find((t) => /^wrong username or password/.test(t)), 'status');
    assert.match(text, /^wrong username or password; retry \d\d:\d\d:\d\d$/);
    assert.is(failedLogins() - base, 1, 'the deployed node tried once');
    // Four more full deploys with the same refused password: the new config nodes wait for the same retry time instead
    // of asking again (each ask counts toward the device's block of 5; before, four redeploys and a press locked it).
    const perDeploy: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = failedLogins();
      const shown = (await seen(nr!)).statuses.ev1?.length ?? 0;
      await nr!.deploy(flow(sim!.url, 'admin', 'not-the-password'));
      // The new nodes show the held login (the flow context keeps every status since the first deploy).
      await eventually(
        async () => ((await seen(nr!)).statuses.ev1 ?? []).slice(shown).find((t) => /^wrong username or password; retry /.test(t)),
        'held status',
      );
      // The event stream's retries meanwhile (1 s, 2 s) meet the held login too: nothing reaches the device.
      await delay(1500);
      perDeploy.push(failedLogins() - before);
    }
    console.log(`  refused logins at the device per redeploy with the same wrong password: ${JSON.stringify(perDeploy)}`);
    assert.equal(perDeploy, [0, 0, 0, 0]);
    // Test-connection presses with the dialog's (still wrong) values: an explicit ask, so it goes out, and says how many
    // tries the device has left by its own count (fail_login_count).
    const press = async () =>
      (await nr!
        .admin('/nvr-device/test', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: 'dev1', url: sim!.url, username: 'admin', password: 'not-the-password' }),
        })
        .then((r) => r.json())) as any;
    const answers: string[] = [];
    while (failedLogins() - base < 4) answers.push((await press()).error.reason);
    assert.equal(
      answers.map((a) => /(\d) tr(?:y|ies) left before the device blocks logins \(as the device counts\)/.exec(a)?.[1]),
      ['3', '2', '1'],
      answers.join('\n'),
    );
    assert.not.ok(
      sim!.log.some((e) => e.error_code === 'login_failed_or_block'),
      'the device never blocked',
    );
    assert.match(nr!.logs(), /\[warn\] \[nvr-device:recorder\] [12] tr(y|ies) left before the device blocks logins/);
    // The password fixed and deployed (modified nodes only, as the editor's Deploy does): the login goes out now, not after 300 s.
    const t0 = Date.now();
    const r = await nr!.admin('/flows', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'nodes' },
      body: JSON.stringify(flow(sim!.url, 'admin', ctx.password)),
    });
    assert.ok(r.ok, await r.text());
    await eventually(async () => sim!.log.some((e) => e.path === LOGIN && e.status === 200 && e.time >= t0), 'a login', 10_000);
    const ok = await postJson(nr!.url + '/get', { channel: 'CH1' });
    assert.is(ok.status, 200, JSON.stringify(ok.body));
  });

  test('a lost device: nvr-event reaches the Catch node once per streak with the next try; one warning in the sidebar, not two per retry', async ({
    nr,
    sim,
  }) => {
    await eventually(async () => sim!.log.some((e) => e.path === '/API/Event/Check' && e.status === 200), 'listening');
    const caughtBefore = (await seen(nr!)).caught.filter((c) => c.source === 'ev1').length;
    const logBefore = nr!.logs().length;
    const t0 = Date.now();
    await sim!.stop(); // the device is gone: connections refused from now on
    // The stream retries after 1, 2, 4 s: wait for the third failed try (each visible in the status's retry time).
    const statuses = await eventually(
      async () => {
        const s = (await seen(nr!)).statuses.ev1 ?? [];
        const retries = new Set(s.filter((t) => /; retry /.test(t)));
        return retries.size >= 4 && s;
      },
      'four failed tries',
      30_000,
    );
    const caught = (await seen(nr!)).caught.filter((c) => c.source === 'ev1').slice(caughtBefore);
    assert.is(caught.length, 1, `once per streak: ${JSON.stringify(caught)}`);
    assert.match(caught[0].message, /^Device unreachable: .*; listening again at \d{4}-\d\d-\d\dT/);
    assert.ok(Date.parse(caught[0].payload.retry_at) > t0, 'the time of the next try');
    assert.match(statuses.at(-1)!, /^unreachable \(.+\); retry \d\d:\d\d:\d\d$/);
    const warnings = nr!
      .logs()
      .slice(logBefore)
      .split('\n')
      .filter((l) => /\[warn\] \[nvr-device:recorder\]/.test(l));
    assert.is(warnings.length, 1, `one warning per failure streak:\n${warnings.join('\n')}`);
  });

  test.run();
}
