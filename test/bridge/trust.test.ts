/**
 * Issue 17, trust: nothing written that the owner did not allow (the request API writes only the bridge's own
 * pages unless the config allows more; fields the Range gives as plain values are never sent), and the request API
 * can be switched off. Real broker (MQTT_TEST_URL: Mosquitto) and the simulator.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { startSimulator } from '../../simulator';
import { json, setsOf, setup, until, type Fixture } from './fixture';

type Json = Record<string, unknown>;

const test = suite('bridge trust');

test('request/set writes only the pages the bridge publishes by default; a refusal names the setting that allows more', async () => {
  const fx = await setup({ label: 'perm' });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    const setsBefore = setsOf(sim).length;
    const ask = async (op: string, body: Record<string, unknown>) => {
      const since = r.count;
      await r.publish(`${fx.base}/bridge/request/${op}`, JSON.stringify(body));
      return json(await r.waitTopic(`${fx.base}/bridge/response/${op}`, (j) => j.transaction === body.transaction, 5000, since));
    };
    const ssh = await ask('set', { device: 'nvr', page: 'Maintenance/DeveloperMode', data: { ssh_switch: true }, transaction: 'ssh' });
    assert.equal(ssh.status, 'error');
    assert.equal(ssh.error_code, 'refused');
    assert.match(String(ssh.error), /request_api\.allow_pages/);
    // Another spelling of the same page is the same page.
    const lower = await ask('set', { device: 'nvr', page: 'maintenance/developermode', data: { ssh_switch: true }, transaction: 'ssh2' });
    assert.match(String(lower.error), /not allowed/);
    const stream = await ask('set', { device: 'nvr', page: 'StreamConfig/MainStream', data: {}, transaction: 'ms' });
    assert.match(String(stream.error), /request_api\.allow_any_page/);
    assert.equal(setsOf(sim).length, setsBefore, 'nothing was written');
    // Reads stay open; the bridge's own pages stay writable.
    assert.equal((await ask('get', { device: 'nvr', page: 'Maintenance/DeveloperMode', transaction: 'g' })).status, 'ok');
    const own = await ask('set', {
      device: 'nvr',
      page: 'AlarmConfig/VoiceAlarm',
      data: { channel_info: { CH1: { siren_value: 4 } } },
      transaction: 'own',
    });
    assert.equal(own.status, 'ok');
  } finally {
    await fx.stop();
  }
});

test('a page the owner allowed is written; fields its Range lists as plain values are refused before sending', async () => {
  const fx = await setup({
    label: 'allow',
    tweak: (c) => {
      c.request_api = {
        enabled: true,
        allow_pages: ['Maintenance/DeveloperMode'],
        allow_any_page: false,
        allow_upgrade_from: [],
        allow_prompts_from: [],
      };
    },
  });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    const ask = async (body: Record<string, unknown>) => {
      const since = r.count;
      await r.publish(`${fx.base}/bridge/request/set`, JSON.stringify({ device: 'nvr', page: 'Maintenance/DeveloperMode', ...body }));
      return json(await r.waitTopic(`${fx.base}/bridge/response/set`, (j) => j.transaction === body.transaction, 5000, since));
    };
    const before = setsOf(sim).length;
    const plain = await ask({ data: { enable_export: true, default_timeout: 60 }, transaction: 'plain' });
    assert.equal(plain.status, 'error');
    assert.match(
      String(plain.error),
      /enable_export cannot be set: the device reports it as a fact of the page \(true\), not as a setting/,
    );
    assert.match(String(plain.error), /default_timeout cannot be set/);
    assert.equal(setsOf(sim).length, before, 'nothing was sent');
    const ok = await ask({ data: { ssh_switch: true }, transaction: 'ssh' });
    assert.equal(ok.status, 'ok', JSON.stringify(ok));
    assert.equal(setsOf(sim, before).length, 1);
  } finally {
    await fx.stop();
  }
});

test('request_api.enabled false: requests are not answered, commands still work', async () => {
  const fx = await setup({
    label: 'noapi',
    tweak: (c) => {
      c.request_api = { enabled: false, allow_pages: [], allow_any_page: false, allow_upgrade_from: [], allow_prompts_from: [] };
    },
  });
  try {
    const r = fx.recorder;
    const since = r.count;
    await r.publish(`${fx.base}/bridge/request/get`, JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'x' }));
    // A command after it, as a barrier: the bridge handles messages in order.
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '6');
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 6, 5000, since);
    assert.equal(r.messages.slice(since).filter((m) => m.topic.includes('/bridge/response/')).length, 0);
  } finally {
    await fx.stop();
  }
});

/** Index of the first message on `topic` matching `pred` since `since`; -1 when none. */
function indexOf(fx: Fixture, topic: string, pred: (j: Record<string, unknown>) => boolean, since: number): number {
  const i = fx.recorder.messages.slice(since).findIndex((m) => m.topic === topic && m.payload !== '' && pred(JSON.parse(m.payload)));
  return i < 0 ? -1 : since + i;
}

test('SIGTERM while a Set takes the device 6 s: the command is applied and confirmed before bridge/state goes offline', async () => {
  const fx = await setup({ label: 'drain', devices: [{ id: 'nvr', poll: 30 }], bridge: { deviceTimeoutMs: 10_000 } });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    sim.fault({ kind: 'latency', ms: 6000, path: 'VoiceAlarm/Set', times: 1 });
    const since = r.count;
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '2');
    await until(() => sim.held > 0, 'the Set on the wire');
    await fx.bridge.stop();
    const offline = indexOf(fx, `${fx.base}/bridge/state`, (j) => j.state === 'offline', since);
    const confirmed = indexOf(fx, `${fx.base}/nvr/ch1`, (j) => j.siren_volume === 2, since);
    assert.ok(offline > 0, 'bridge/state offline published');
    assert.ok(confirmed > 0 && confirmed < offline, 'the confirmed state went out before offline');
  } finally {
    await fx.stop();
  }
});

test('SIGTERM while a Set outlasts the stop bound: the command is reported failed on MQTT, not dropped in silence', async () => {
  const fx = await setup({ label: 'drain2', devices: [{ id: 'nvr', poll: 30 }], bridge: { deviceTimeoutMs: 10_000, stopTimeoutMs: 500 } });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    sim.fault({ kind: 'latency', ms: 4000, path: 'VoiceAlarm/Set', times: 1 });
    const since = r.count;
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '2');
    await until(() => sim.held > 0, 'the Set on the wire');
    await fx.bridge.stop();
    const offline = indexOf(fx, `${fx.base}/bridge/state`, (j) => j.state === 'offline', since);
    const failed = indexOf(
      fx,
      `${fx.base}/bridge/event`,
      (j) => j.type === 'command_failed' && /bridge stopped before the device confirmed/.test(String((j.data as Json).reason)),
      since,
    );
    assert.ok(failed > 0 && failed < offline, 'command_failed went out before offline');
  } finally {
    await fx.stop();
  }
});

test('a device back after an outage is online at its first successful answer, not at the end of the poll backoff', async () => {
  // Poll retries 30-60 s apart: only the event stream (its own, short backoff) sees the device come back.
  const fx = await setup({
    label: 'back',
    devices: [{ id: 'nvr', poll: 0.3 }],
    bridge: { backoff: { minMs: 30_000, maxMs: 60_000 }, offlineAfter: 1 },
  });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    const port = sim.port;
    let since = r.count;
    await sim.stop();
    await r.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'offline', 5000, since);
    since = r.count;
    fx.sims.set('nvr', await startSimulator({ port, password: fx.passwords[0], logLimit: 10_000 }));
    await r.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 10_000, since);
  } finally {
    await fx.stop();
  }
});

test('500 distinct request/get: the device gets its budget, the rest hear "device busy"; a command still goes first', async () => {
  const fx = await setup({
    label: 'flood',
    devices: [{ id: 'nvr', poll: 30, budget: { rate: 5, queue: 10 } }],
  });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    const since = r.count;
    const logFrom = sim.log.length;
    const t0 = Date.now();
    for (let i = 0; i < 500; i++) {
      void r.publish(
        `${fx.base}/bridge/request/get`,
        JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', data: { nonce: i }, transaction: i }),
      );
    }
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '7');
    const confirmed = await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 7, 10_000, since);
    await until(
      () => r.messages.slice(since).filter((m) => m.topic === `${fx.base}/bridge/response/get`).length === 500,
      'every answer',
      20_000,
    );
    const answers = r.messages
      .slice(since)
      .filter((m) => m.topic === `${fx.base}/bridge/response/get`)
      .map((m) => json(m));
    const busy = answers.filter((a) => a.error_code === 'device_busy');
    assert.ok(busy.length >= 450, `${busy.length} refused`);
    assert.match(String(busy[0].error), /device busy/);
    // The device's load: the budget (5 a second, a burst of 5), not the flood.
    const reqs = sim.log.slice(logFrom);
    const seconds = (reqs.at(-1)!.time - reqs[0].time) / 1000;
    assert.ok(reqs.length <= 5 + 5 * seconds + 1, `${reqs.length} requests in ${seconds.toFixed(1)} s`);
    // The command did not wait for the accepted reads: confirmed before the last of them was answered.
    const lastOk = Math.max(
      ...r.messages
        .slice(since)
        .filter((m) => (m.topic === `${fx.base}/bridge/response/get` && json(m).status !== 'error') || false)
        .map((m) => m.at),
    );
    assert.ok(confirmed.at < lastOk, 'the command went first');
    assert.ok(Date.now() - t0 < 20_000);
  } finally {
    await fx.stop();
  }
});

test('a transaction comes back exactly as sent, a password inside it too (order-<password>); the log withholds it', async () => {
  const password = String(70_000_000 + Math.floor(Math.random() * 9_999_999));
  const fx = await setup({ label: 'txpw', devices: [{ id: 'nvr', poll: 30, password }] });
  try {
    const r = fx.recorder;
    const since = r.count;
    const sent = [Number(password), password, `order-${password}`];
    for (const transaction of sent) {
      await r.publish(`${fx.base}/bridge/request/get`, JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction }));
    }
    // A refused request echoes it too.
    await r.publish(
      `${fx.base}/bridge/request/get`,
      JSON.stringify({ device: 'nope', page: 'AlarmConfig/VoiceAlarm', transaction: sent[2] }),
    );
    const answers = () => r.messages.slice(since).filter((m) => m.topic === `${fx.base}/bridge/response/get`);
    await until(() => answers().length === 4, 'every answer');
    // The refusal is answered at once, the reads when the device answers them: in any order.
    const got = answers().map((a) => json(a));
    const ok = got.filter((j) => j.status === 'ok');
    const refusedAnswers = got.filter((j) => j.status === 'error');
    const asText = (ts: unknown[]) => ts.map((t) => JSON.stringify(t)).sort();
    assert.deepEqual(asText(ok.map((j) => j.transaction)), asText(sent));
    assert.deepEqual(
      refusedAnswers.map((j) => j.transaction),
      [sent[2]],
    );
    assert.ok(
      fx.logs.some((l) => l.startsWith('debug request get') && l.includes('transaction (withheld')),
      'the debug line withholds it',
    );
    const refused = r.messages.slice(since).filter((m) => m.topic === `${fx.base}/bridge/event` && m.payload.includes('command_refused'));
    assert.ok(refused.length >= 1 && refused.every((m) => !m.payload.includes(password)), "the bridge's own event withholds it");
  } finally {
    await fx.stop(); // no password in any MQTT message (but the transactions echoed) or log line (debug included)
  }
});

test('alarm edges while the broker is away are delivered after it is back, in order, with their own times', async () => {
  // Order made certain: the edges reach the bridge while the broker is down, and the recorder subscribes again
  // before the bridge's next reconnect attempt (2 s apart).
  const fx = await setup({ label: 'edges', embedded: true, devices: [{ id: 'nvr', poll: 30 }], bridge: { reconnectPeriodMs: 2000 } });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    const events = fx.bridge.devices.get('nvr')!.events!;
    const logMark = fx.logs.length;
    await fx.broker.stop();
    const before = events.received;
    for (const active of [true, false, true, false, true]) {
      sim.raiseAlarm({ channel: 'CH1', type: 'motion', active });
      const n = events.received;
      await until(() => events.received > n, 'the bridge to receive the edge');
    }
    assert.ok(events.received - before >= 5);
    await until(() => fx.logs.slice(logMark).some((l) => l.startsWith('error [mqtt]')), 'a failed reconnect attempt');
    const since = r.count;
    await fx.broker.restart();
    await r.subscribed();
    await until(() => r.messages.slice(since).filter((m) => m.topic === `${fx.base}/nvr/ch1/event`).length >= 5, 'five edges', 8000);
    const edges = r.messages
      .slice(since)
      .filter((m) => m.topic === `${fx.base}/nvr/ch1/event`)
      .map((m) => json(m));
    assert.deepEqual(
      edges.map((e) => [e.type, e.active]),
      [true, false, true, false, true].map((a) => ['motion', a]),
    );
    for (const e of edges) assert.match(String(e.time), /^\d{4}-\d\d-\d\dT/);
    // State went out first, and it is right: motion on.
    assert.equal(r.lastJson(`${fx.base}/nvr/ch1`)?.motion, true);
  } finally {
    await fx.stop();
  }
});

test.run();
