/**
 * Issue 9, found by hostile testing: a second instance, a password inside a transaction, superseded commands,
 * a flood of reads, commands sent while the bridge reconnects, retained and absurdly deep requests, refresh of
 * a device that never answered, retained topics of removed devices, request logging at debug level.
 */
import * as assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { suite } from 'uvu';
import { InstanceConflict, startBridge } from '../../bridge/bridge';
import { parseConfig } from '../../bridge/base/config';
import { createLogger } from '../../bridge/base/log';
import { POLLED_PAGES } from '../../bridge/device/table';
import { clearRetained } from '../helpers/mqtt-broker';
import { json, settle, setup, until, waitEvent } from './fixture';

const test = suite('bridge hostile');

test('a second instance on the same base topic refuses to start and publishes nothing', async () => {
  const fx = await setup({ label: 'dup' });
  try {
    const r = fx.recorder;
    await r.waitTopic(`${fx.base}/nvr/wifi_ch1`, () => true, 5000);
    await settle(fx);
    const since = r.count;
    const logs: string[] = [];
    await assert.rejects(
      startBridge(fx.config, {
        log: createLogger({ sink: (_l, line) => logs.push(line) }),
        instanceProbeWindowMs: 150,
      }),
      (err: Error) => err instanceof InstanceConflict && err.message.includes(fx.base) && /bridge\/state is online/.test(err.message),
    );
    // Nothing from the second one: no state, no will, no discovery clean-up; the first keeps working.
    await settle(fx);
    // (The round trip's own request, response and refusal event aside.)
    const mine = r.messages.slice(since).filter((m) => !m.payload.includes('settle-'));
    assert.deepEqual(
      mine.map((m) => m.topic),
      [],
      'the second instance published nothing',
    );
    assert.equal(r.lastJson(`${fx.base}/bridge/state`)?.state, 'online');
    const s2 = r.count;
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '3');
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 3, 5000, s2);
    // Once the first one stopped (its retained state says offline), a new one starts.
    await fx.bridge.stop();
    const s3 = r.count;
    await fx.restartBridge();
    await r.waitTopic(`${fx.base}/bridge/state`, (j) => j.state === 'online', 5000, s3);
  } finally {
    await fx.stop();
  }
});

test('password 123456, transaction 1234567: the transaction comes back intact, no password anywhere', async () => {
  const fx = await setup({ label: 'pw6', devices: [{ id: 'nvr', password: '123456' }] });
  try {
    const r = fx.recorder;
    const since = r.count;
    await r.publish(
      `${fx.base}/bridge/request/get`,
      JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 1234567 }),
    );
    const res = await r.waitFor((m) => m.topic === `${fx.base}/bridge/response/get`, 5000, since);
    const body = JSON.parse(res.payload) as Record<string, unknown>; // valid JSON
    assert.equal(body.transaction, 1234567);
    assert.equal(body.status, 'ok');
    await r.publish(
      `${fx.base}/bridge/request/get`,
      JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'tx-1234567' }),
    );
    assert.equal(
      json(await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'tx-1234567', 5000, since)).status,
      'ok',
    );
    // The password as a token of its own (not inside 1234567), in every message and log line.
    const alone = /(?<![0-9A-Za-z])123456(?![0-9A-Za-z])/;
    for (const m of r.messages) assert.ok(!alone.test(m.topic) && !alone.test(m.payload), `password on ${m.topic}`);
    for (const line of fx.logs) assert.ok(!alone.test(line), `password in log: ${line}`);
  } finally {
    await fx.stop();
  }
});

test('ON, OFF, ON, OFF: only the last command per key is reported, and it is confirmed', async () => {
  const fx = await setup({ label: 'sup', devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    sim.fault({ kind: 'latency', ms: 150, path: 'VoiceAlarm/Set' }); // the later three queue behind the first
    const since = r.count;
    for (const v of ['ON', 'OFF', 'ON', 'OFF']) await r.publish(`${fx.base}/nvr/ch1/set/siren_on_alarm`, v);
    const rt = fx.bridge.devices.get('nvr')!;
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_on_alarm === false, 5000, since);
    await until(() => rt.device.writes.size === 0, 'writes done');
    await settle(fx);
    assert.equal(sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH1.siren_switch, false);
    const events = r.messages.slice(since).filter((m) => m.topic === `${fx.base}/bridge/event`);
    assert.deepEqual(
      events.filter((m) => m.payload.includes('command_not_confirmed')).map((m) => m.payload),
      [],
    );
  } finally {
    await fx.stop();
  }
});

test('issue 38: a retained discovery config crafted to throw while the bridge reads it back ends nothing', async () => {
  const fx = await setup({ label: 'crafted-config' });
  try {
    const r = fx.recorder;
    // Looks like this bridge's own config (origin, availability), with a device reference no string can be made of.
    const crafted = {
      o: { name: 'nvr2mqtt' },
      avty: [{ t: `${fx.base}/bridge/state` }],
      dev: { via_device: { toString: 1, valueOf: 1 } },
    };
    await r.publish(`${fx.prefix}/device/crafted/config`, JSON.stringify(crafted), { retain: true, qos: 1 });
    // A (re)start makes the bridge read its retained configs back.
    await fx.bridge.stop();
    const since = r.count;
    await fx.restartBridge();
    await r.publish(`${fx.base}/bridge/request/refresh`, JSON.stringify({ device: 'nvr', transaction: 'after-crafted' }));
    const res = json(await r.waitTopic(`${fx.base}/bridge/response/refresh`, (j) => j.transaction === 'after-crafted', 8000, since));
    assert.equal(res.status, 'ok', 'the bridge still answers');
    assert.ok(
      fx.logs.some((l) => l.startsWith('error') && l.includes(`message on ${fx.prefix}/device/crafted/config:`)),
      'the message that could not be handled is logged',
    );
    await r.publish(`${fx.prefix}/device/crafted/config`, '', { retain: true, qos: 1 });
  } finally {
    await fx.stop();
  }
});

test('a flood of get and refresh (20/s for 3 s) costs the device a bounded number of reads', async () => {
  const fx = await setup({ label: 'flood', devices: [{ id: 'nvr', poll: 60 }], bridge: { readGapMs: 500 } });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    const before = sim.log.length;
    const since = r.count;
    // 60 messages at the flood's own pace (20 a second): a count, so a slow harness sends no fewer.
    const n = 60;
    for (let i = 1; i <= n; i++) {
      if (i % 4 === 0) await r.publish(`${fx.base}/bridge/request/refresh`, JSON.stringify({ device: 'nvr', transaction: i }));
      else await r.publish(`${fx.base}/nvr/${i % 2 ? 'ch1/' : ''}get`, '');
      await new Promise((res) => setTimeout(res, 50)); // the flood's own pace, 20 messages a second
    }
    // Every refresh is answered, the last one after a read that started after it.
    const lastRefresh = n - (n % 4);
    await r.waitTopic(`${fx.base}/bridge/response/refresh`, (j) => j.transaction === lastRefresh && j.status === 'ok', 5000, since);
    await r.waitTopic(`${fx.base}/nvr/ch1`, () => true, 3000, since);
    const requests = sim.log.length - before;
    // One read is a channel list, the table's pages and the live page of 6 channels (a refresh adds system and device
    // info and the pages' Ranges), and at most one read per 0.5 s.
    const perRead = 1 + 2 * POLLED_PAGES.length + 2 + 6;
    assert.ok(requests <= 10 * perRead, `${requests} device requests for ${n} messages (at most ${perRead} a read)`);
  } finally {
    await fx.stop();
  }
});

test('a QoS 1 command published while the bridge reconnects is applied after it is back (persistent session)', async () => {
  const fx = await setup({ label: 'sess', devices: [{ id: 'nvr', poll: 30 }], bridge: { reconnectPeriodMs: 1500 } });
  try {
    const r = fx.recorder;
    await r.waitTopic(`${fx.base}/nvr/ch1`, () => true, 5000);
    const since = r.count;
    // The network drops the bridge's connection: the broker publishes its last will.
    (fx.bridge.link.client.stream as Socket).destroy();
    await r.waitTopic(`${fx.base}/bridge/state`, (j) => j.state === 'offline', 5000, since);
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '9', { qos: 1 });
    await r.waitTopic(`${fx.base}/bridge/state`, (j) => j.state === 'online', 5000, since);
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 9, 5000, since);
    assert.equal(fx.sims.get('nvr')!.state['AlarmConfig/VoiceAlarm'].channel_info!.CH1.siren_value, 9);
  } finally {
    await fx.stop();
  }
});

test('topics with an empty level do not disconnect the bridge (persistent session on the embedded aedes)', async () => {
  const fx = await setup({ label: 'empty', devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const r = fx.recorder;
    const since = r.count;
    for (const t of [
      `${fx.base}//set`,
      `${fx.base}//set/siren_volume`,
      `${fx.base}/nvr//set`,
      `${fx.base}/nvr//get`,
      `${fx.base}/nvr//set/x`,
    ]) {
      await r.publish(t, '{"siren_volume": 4}', { qos: 1 });
    }
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '4', { qos: 1 });
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 4, 5000, since);
    assert.equal(fx.logs.filter((l) => /connection .* lost/.test(l)).length, 0, 'never disconnected');
    assert.equal(r.messages.slice(since).filter((m) => m.topic === `${fx.base}/bridge/state`).length, 0, 'no last will, no reconnect');
  } finally {
    await fx.stop();
  }
});

test('a command queued for the bridge while it was stopped is applied once the device answers', async () => {
  const fx = await setup({ label: 'queued', devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const r = fx.recorder;
    await fx.bridge.stop();
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '2', { qos: 1 });
    const since = r.count;
    await fx.restartBridge();
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 2, 8000, since);
  } finally {
    await fx.stop();
  }
});

test('a retained request is refused once per start, with its transaction, not again on reconnect', async () => {
  const fx = await setup({ label: 'req', devices: [{ id: 'nvr', poll: 30 }], bridge: { reconnectPeriodMs: 300 } });
  try {
    const r = fx.recorder;
    const request = JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'ret-1' });
    // Sent while the bridge listens: a live message. MQTT 5 (retain as published) shows the flag: refused; with 3.1.1
    // (aedes) the broker clears it: answered.
    let since = r.count;
    await r.publish(`${fx.base}/bridge/request/get`, request, { retain: true });
    const live = json(await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'ret-1', 5000, since));
    assert.equal(live.status, fx.bridge.link.protocol === 5 ? 'error' : 'ok');
    // A restart finds it retained: refused, with its transaction.
    await fx.bridge.stop();
    since = r.count;
    await fx.restartBridge();
    const res = json(await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'ret-1', 5000, since));
    assert.equal(res.status, 'error');
    assert.match(String(res.error), /retained/);
    // A reconnect keeps the session: the broker does not send it again.
    (fx.bridge.link.client.stream as Socket).destroy();
    await r.waitTopic(`${fx.base}/bridge/state`, (j) => j.state === 'offline', 5000, since);
    await r.waitTopic(`${fx.base}/bridge/state`, (j) => j.state === 'online', 5000, r.count);
    await settle(fx);
    assert.equal(
      r.messages.slice(since).filter((m) => m.topic.endsWith('/bridge/response/get') && m.payload.includes('"ret-1"')).length,
      1,
      'refused once',
    );
    await r.publish(`${fx.base}/bridge/request/get`, '', { retain: true });
  } finally {
    await fx.stop();
  }
});

test('a 30,000-deep request or command is refused clearly, with its transaction', async () => {
  const fx = await setup({ label: 'deep' });
  try {
    const r = fx.recorder;
    const since = r.count;
    // 30,000 levels within the 64 KB payload limit: arrays.
    const deep = `${'['.repeat(30_000)}1${']'.repeat(30_000)}`;
    await r.publish(
      `${fx.base}/bridge/request/set`,
      `{"device":"nvr","page":"AlarmConfig/VoiceAlarm","transaction":"deep-1","data":{"a":${deep}}}`,
    );
    const d = json(await r.waitTopic(`${fx.base}/bridge/response/set`, (j) => j.transaction === 'deep-1', 5000, since));
    assert.equal(d.error_code, 'refused');
    assert.match(String(d.error), /nested too deeply/);
    await r.publish(`${fx.base}/nvr/ch1/set`, `{"siren_volume":${deep}}`);
    await waitEvent(fx, 'command_refused', (e) => /nested too deeply/.test(String(e.reason)), since);
    assert.equal(fx.sims.get('nvr')!.log.filter((e) => e.path.endsWith('/Set')).length, 0);
  } finally {
    await fx.stop();
  }
});

test('a stopping bridge refuses a request with its transaction', async () => {
  const fx = await setup({ label: 'stopreq', devices: [{ id: 'nvr', poll: 30 }], bridge: { stopTimeoutMs: 3000 } });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    sim.fault({ kind: 'latency', ms: 1000, path: 'VoiceAlarm/Get' });
    const since = r.count;
    await r.publish(
      `${fx.base}/bridge/request/get`,
      JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'slow' }),
    );
    // Answered in order: once this one is, the slow one is under way.
    await r.publish(
      `${fx.base}/bridge/request/range`,
      JSON.stringify({ device: 'nvr', page: 'AlarmConfig/Deterrence', transaction: 'ping' }),
    );
    await r.waitTopic(`${fx.base}/bridge/response/range`, (j) => j.transaction === 'ping', 5000, since);
    const stopping = fx.bridge.stop();
    await r.publish(
      `${fx.base}/bridge/request/get`,
      JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'late' }),
    );
    const late = json(await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'late', 5000, since));
    assert.equal(late.status, 'error');
    assert.match(String(late.error), /stopping/);
    assert.equal(json(await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'slow', 5000, since)).status, 'ok');
    await stopping;
  } finally {
    await fx.stop();
  }
});

test('refresh of a device that never answered publishes no discovery config', async () => {
  const fx = await setup({ label: 'never' });
  const base = `${fx.base}_2`;
  const prefix = `${fx.prefix}_2`;
  const { config } = parseConfig(
    {
      mqtt: { url: fx.broker.url, base_topic: base },
      homeassistant: { discovery_prefix: prefix },
      devices: [{ id: 'gone', url: 'http://127.0.0.1:9', username: 'admin', password: 'irrelevant-pw', poll_interval: 0.2 }],
    },
    { env: {} },
  );
  const bridge2 = await startBridge(config, {
    log: createLogger({ level: 'error', sink: () => undefined }),
    backoff: { minMs: 50, maxMs: 100 },
    instanceProbeWindowMs: 100,
    readGapMs: 100,
  });
  try {
    const r = fx.recorder;
    await r.waitTopic(`${base}/gone/availability`, (j) => j.state === 'offline', 8000);
    await r.publish(`${base}/bridge/request/refresh`, JSON.stringify({ device: 'gone', transaction: 'nv-1' }));
    const res = json(await r.waitTopic(`${base}/bridge/response/refresh`, (j) => j.transaction === 'nv-1', 8000));
    assert.deepEqual(res.data, { devices: [{ id: 'gone', online: false, channels: [] }] });
    assert.deepEqual(
      r.on((t) => t.startsWith(`${prefix}/`)).map((m) => m.topic),
      [],
    );
  } finally {
    await bridge2.stop();
    await clearRetained(fx.broker.url, [base, prefix]);
    await fx.stop();
  }
});

test('retained state of a device removed from the config is cleared at start', async () => {
  const fx = await setup({ label: 'gone', devices: [{ id: 'a' }, { id: 'b' }] });
  try {
    const r = fx.recorder;
    await r.waitTopic(`${fx.base}/b/ch1`, () => true, 5000);
    await r.waitTopic(`${fx.base}/b`, () => true, 5000);
    await fx.bridge.stop();
    const since = r.count;
    await fx.restartBridge(fx.makeConfig([{ id: 'a' }]));
    for (const t of [`${fx.base}/b/availability`, `${fx.base}/b`, `${fx.base}/b/ch1`, `${fx.base}/b/ip_ch1`]) {
      await r.waitFor((m) => m.topic === t && m.payload === '', 5000, since, `cleared ${t}`);
    }
    await r.waitTopic(`${fx.base}/a/ch1`, () => true, 5000, since);
    assert.equal(r.messages.slice(since).filter((m) => m.topic.startsWith(`${fx.base}/a/`) && m.payload === '').length, 0);
  } finally {
    await fx.stop();
  }
});

test('debug level logs every device request and every MQTT request (never a password)', async () => {
  const fx = await setup({ label: 'dbg', devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const r = fx.recorder;
    const since = r.count;
    await r.publish(`${fx.base}/bridge/request/get`, JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'd1' }));
    await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'd1', 5000, since);
    assert.ok(
      fx.logs.some((l) => /^debug \[nvr\] poll AlarmConfig\/Deterrence\/Get: \d+ ms$/.test(l)),
      fx.logs.join('\n'),
    );
    assert.ok(fx.logs.some((l) => /^debug \[nvr\] poll Login\/ChannelInfo\/Get/.test(l)));
    assert.ok(
      fx.logs.some((l) => /^debug request get device nvr page AlarmConfig\/VoiceAlarm transaction d1$/.test(l)),
      fx.logs.join('\n'),
    );
  } finally {
    await fx.stop();
  }
});

test.run();
