/** Broker restart mid-run, devices going offline and coming back by themselves, slow devices. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { startSimulator } from '../../simulator';
import { json, pollsSince, setsOf, setup, until, waitEvent, type Fixture } from './fixture';

const test = suite('bridge reliability');

test('broker restart: reconnect, republish availability, discovery and state; commands work again', async () => {
  // Always an embedded broker here: the test stops and restarts it (never the system's Mosquitto).
  const fx: Fixture = await setup({ label: 'brk', embedded: true, devices: [{ id: 'nvr', poll: 0.3 }] });
  try {
    const r = fx.recorder;
    await r.waitTopic(`${fx.base}/nvr/ch1`, () => true, 3000);
    const logged = fx.logs.length;
    await fx.broker.stop(); // retained messages are gone with it
    await until(() => fx.logs.slice(logged).some((l) => /MQTT connection to .* lost/.test(l)), 'the bridge noticed the broker gone');
    const since = r.count;
    await fx.broker.restart();
    await r.waitTopic(`${fx.base}/bridge/state`, (j) => j.state === 'online', 5000, since);
    await r.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 5000, since);
    await r.waitFor((m) => m.topic.endsWith('_nvr/config') && !!m.payload, 5000, since, 'recorder discovery');
    await r.waitFor((m) => m.topic.endsWith('_nvr_ch1/config') && !!m.payload, 5000, since, 'channel discovery');
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.online === true, 5000, since);
    await r.waitTopic(`${fx.base}/nvr`, () => true, 5000, since);
    await r.waitTopic(`${fx.base}/bridge/info`, () => true, 5000, since);
    // A command after the reconnect works (subscriptions restored).
    const s2 = r.count;
    await r.publish(`${fx.base}/nvr/ch1/set/floodlight_on_alarm`, 'ON');
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.floodlight_on_alarm === true, 5000, s2);
  } finally {
    await fx.stop();
  }
});

test('broker lost while a command is carried out: its outcome is published once the bridge is back', async () => {
  // Order made certain, not timed: the bridge has the command before the broker goes, its outcome is known
  // while the broker is away, and the recorder subscribes again before the bridge's next reconnect attempt.
  const fx: Fixture = await setup({
    label: 'lost',
    embedded: true,
    devices: [{ id: 'nvr', poll: 30 }],
    bridge: { reconnectPeriodMs: 2000 },
  });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    sim.fault({ kind: 'latency', ms: 400, path: 'VoiceAlarm/Get' });
    sim.fault({ kind: 'http500', path: 'VoiceAlarm/Set' });
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '8');
    await r.publish(
      `${fx.base}/bridge/request/get`,
      JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'lost-1' }),
    );
    // One connection, in order: the request's log line means the command arrived before it.
    await until(() => fx.logs.some((l) => l.includes('transaction lost-1')), 'the bridge to receive the command and the request');
    const logMark = fx.logs.length;
    await fx.broker.stop();
    await until(() => fx.logs.some((l) => l.includes('set/siren_volume failed')), 'the write to fail while the broker is away');
    // The bridge's first reconnect attempt has failed; its next one is 2 s away.
    await until(() => fx.logs.slice(logMark).some((l) => l.startsWith('error [mqtt]')), 'a failed reconnect attempt');
    const since = r.count;
    await fx.broker.restart();
    await r.subscribed();
    const failed = await waitEvent(fx, 'command_failed', (d) => d.topic === `${fx.base}/nvr/ch1/set/siren_volume`, since, 5000);
    assert.ok(failed.reason);
    const res = json(await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'lost-1', 5000, since));
    assert.equal(res.status, 'ok');
    // Published once each, not again on every reconnect.
    assert.equal(r.messages.slice(since).filter((m) => m.topic === `${fx.base}/bridge/response/get`).length, 1);
  } finally {
    await fx.stop();
  }
});

test('device offline after repeated failures, back online by itself; others unaffected', async () => {
  const fx = await setup({
    label: 'off',
    devices: [
      { id: 'a', poll: 0.2 },
      { id: 'b', poll: 0.2 },
    ],
  });
  try {
    const r = fx.recorder;
    const simA = fx.sims.get('a')!;
    const simB = fx.sims.get('b')!;
    // Every request to A: connection reset.
    let since = r.count;
    simA.fault({ kind: 'reset' });
    const off = await waitEvent(fx, 'device_offline', (d) => d.device === 'a', since, 5000);
    assert.ok(off.reason);
    await r.waitTopic(`${fx.base}/a/availability`, (j) => j.state === 'offline', 3000, since);
    // Commands to an offline device are refused, not queued.
    const s1 = r.count;
    await r.publish(`${fx.base}/a/ch1/set/siren_on_alarm`, 'ON');
    await waitEvent(fx, 'command_refused', (d) => String(d.reason).includes('offline'), s1);
    // B keeps being polled (independent schedules) and accepts commands.
    const s2 = r.count;
    await r.publish(`${fx.base}/b/ch1/set/siren_on_alarm`, 'ON');
    await r.waitTopic(`${fx.base}/b/ch1`, (j) => j.siren_on_alarm === true, 3000, s2);
    assert.equal(r.messages.slice(since).filter((m) => m.topic === `${fx.base}/b/availability`).length, 0);
    // Back: A answers again and is online by itself.
    since = r.count;
    simA.clearFaults();
    await r.waitTopic(`${fx.base}/a/availability`, (j) => j.state === 'online', 5000, since);
    await waitEvent(fx, 'device_online', (d) => d.device === 'a', since);
    const s3 = r.count;
    await r.publish(`${fx.base}/a/ch1/set/siren_on_alarm`, 'ON');
    await r.waitTopic(`${fx.base}/a/ch1`, (j) => j.siren_on_alarm === true, 3000, s3);

    // The simulator process goes away and a new one (fresh sessions) comes up on the same port.
    const port = simA.port;
    since = r.count;
    await simA.stop();
    await r.waitTopic(`${fx.base}/a/availability`, (j) => j.state === 'offline', 5000, since);
    const again = await startSimulator({ port, password: fx.passwords[0], logLimit: 10_000 });
    fx.sims.set('a', again);
    since = r.count;
    await r.waitTopic(`${fx.base}/a/availability`, (j) => j.state === 'online', 5000, since);
    await r.waitTopic(`${fx.base}/a/ch1`, (j) => j.siren_on_alarm === false, 5000, since); // the new device's own state
    assert.ok(simB.log.length > 0);
  } finally {
    await fx.stop();
  }
});

test('stop: a command in flight is carried out and confirmed before bridge/state offline; later ones refused; logout', async () => {
  const fx = await setup({ label: 'stop', devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 5, 3000);
    sim.fault({ kind: 'latency', ms: 250, path: 'VoiceAlarm' }); // the write takes about a second
    const since = r.count;
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '8');
    // Received, and its read-merge-Set cycle under way.
    await until(() => fx.logs.some((l) => l.includes('command set on') && l.includes('ch1/set/siren_volume')), 'the command to arrive');
    const stopped = fx.bridge.stop();
    await r.publish(`${fx.base}/nvr/ch2/set/siren_volume`, '3');
    await stopped;
    await r.waitTopic(`${fx.base}/bridge/state`, (j) => j.state === 'offline', 3000, since);
    assert.equal(sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH1.siren_value, 8, 'the command was carried out');
    assert.equal(sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH2.siren_value, 5, 'the later one was not');
    const after = r.messages.slice(since);
    const confirmed = after.findIndex((m) => m.topic === `${fx.base}/nvr/ch1` && JSON.parse(m.payload).siren_volume === 8);
    const offline = after.findIndex((m) => m.topic === `${fx.base}/bridge/state`);
    assert.ok(confirmed >= 0 && confirmed < offline, `confirmed state (${confirmed}) before bridge/state offline (${offline})`);
    const refused = await waitEvent(fx, 'command_refused', (d) => d.topic === `${fx.base}/nvr/ch2/set/siren_volume`, since);
    assert.match(String(refused.reason), /stopping/);
    const set = sim.log.findIndex((e) => e.path.endsWith('/VoiceAlarm/Set'));
    const logout = sim.log.findIndex((e) => e.path === '/API/Web/Logout');
    assert.ok(set >= 0 && logout > set, 'logged out after the Set');
  } finally {
    await fx.stop();
  }
});

test('a slow device does not delay another', async () => {
  const fx = await setup({
    label: 'slow',
    devices: [
      { id: 'slow', poll: 0.2 },
      { id: 'fast', poll: 0.2 },
    ],
  });
  try {
    fx.sims.get('slow')!.fault({ kind: 'latency', ms: 1500 });
    const fast = fx.sims.get('fast')!;
    const before = fast.log.length;
    // Waiting behind the slow device, five polls would take 7.5 s.
    await until(() => pollsSince(fast, before) >= 5, 'five polls of the fast device while the other hangs', 5000);
    const since = fx.recorder.count;
    await fx.recorder.publish(`${fx.base}/fast/ch2/set/siren_volume`, '8');
    await fx.recorder.waitTopic(`${fx.base}/fast/ch2`, (j) => j.siren_volume === 8, 2000, since);
    fx.sims.get('slow')!.clearFaults();
    assert.ok(setsOf(fast).length >= 1);
  } finally {
    await fx.stop();
  }
});

test('a device answering in 4 s still confirms a command: it leaves before queued polls, its deadline counts the wire only', async () => {
  // Deadline 6 s per request; every answer takes 4 s; polls every 0.3 s keep both connections busy.
  const fx = await setup({ label: 'slowcmd', devices: [{ id: 'nvr', poll: 0.3 }], bridge: { deviceTimeoutMs: 6000 } });
  try {
    const sim = fx.sims.get('nvr')!;
    await fx.recorder.waitTopic(`${fx.base}/nvr/wifi_ch1`, () => true, 5000);
    sim.fault({ kind: 'latency', ms: 4000 });
    // A poll under way at 4 s an answer: its reads hold the connections and queue behind each other.
    const at = sim.log.length;
    await until(() => sim.log.length > at, 'a slow poll read', 10_000);
    const since = fx.recorder.count;
    const t0 = Date.now();
    await fx.recorder.publish(`${fx.base}/nvr/ch2/set/siren_volume`, '8');
    await fx.recorder.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.siren_volume === 8, 30_000, since);
    const took = Date.now() - t0;
    assert.equal(sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH2.siren_value, 8);
    // Get, Set, read back (and the session's own calls): a handful of 4 s answers, not a whole poll's worth queued ahead.
    assert.ok(took < 6 * 4000 + 2000, `confirmed after ${took} ms`);
    const failures = fx.recorder.messages
      .slice(since)
      .filter((m) => m.topic === `${fx.base}/bridge/event` && /command_failed|command_not_confirmed/.test(m.payload));
    assert.deepEqual(
      failures.map((m) => m.payload),
      [],
    );
    assert.equal(fx.recorder.lastJson(`${fx.base}/nvr/availability`)?.state, 'online');
    sim.clearFaults();
  } finally {
    await fx.stop();
  }
});

test.run();
