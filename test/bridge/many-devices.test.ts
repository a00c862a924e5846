/**
 * Many devices on one bridge: what a thousand would make visible, at a size a test can run (more devices than the
 * discovery drain sends in one turn, more command filters than one SUBSCRIBE packet holds). The simulator is the
 * device; the broker is a real one (the embedded aedes, whose subscriptions the first test counts), behind a relay
 * that stops reading where a broker falls behind.
 */
import * as assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { suite } from 'uvu';
import { startEmbeddedBroker } from '../../bridge/mqtt/broker';
import { Recorder } from '../helpers/mqtt-broker';
import { settle, setup, until, type DeviceSpec, type Fixture } from './fixture';

const test = suite('bridge many devices');

/** Cameras (one channel each), no event checks, polls far apart: what reaches MQTT comes from start-up and the test. */
const cameras = (n: number): DeviceSpec[] =>
  Array.from({ length: n }, (_, i) => ({ id: `d${i}`, sim: { profile: 'ipc' }, events: false, poll: 60 }));

const configTopic = (fx: Fixture, id: string) => `${fx.prefix}/device/${fx.base.toLowerCase()}_${id}/config`;

/** Recorder indexes of each device's configs and of its channel's first state, from `since`. */
function order(fx: Fixture, ids: string[], since: number) {
  const all = fx.recorder.messages;
  return ids.map((id) => {
    const configs = all.flatMap((m, i) => (i >= since && m.topic === configTopic(fx, id) && m.payload ? [i] : []));
    const state = all.findIndex((m, i) => i >= since && m.topic === `${fx.base}/${id}/ch1`);
    return { id, configs, state };
  });
}

test('40 cameras: the command filters reach the broker in packets of at most 100, and every device takes a command', async () => {
  const broker = await startEmbeddedBroker({ port: 0 });
  const packets: Array<{ client: string; topics: string[] }> = [];
  broker.aedes.on('subscribe', (subs, client) => packets.push({ client: client?.id ?? '', topics: subs.map((s) => s.topic) }));
  const fx = await setup({ label: 'many', brokerUrl: broker.url, devices: cameras(40) });
  try {
    const bridgeId = packets.find((p) => p.topics.includes(`${fx.base}/d39/+/set`))?.client;
    assert.ok(bridgeId, 'the bridge subscribed to the last device');
    const mine = packets.filter((p) => p.client === bridgeId);
    const filters = mine.flatMap((p) => p.topics);
    // Every device's four channel filters (set, get, snapshot, restart), none twice.
    for (let i = 0; i < 40; i++)
      for (const f of ['+/set', '+/get', '+/snapshot/get', '+/restart']) assert.ok(filters.includes(`${fx.base}/d${i}/${f}`), f);
    assert.equal(new Set(filters).size, filters.length, 'no filter twice');
    assert.ok(filters.length > 160, `${filters.length} filters`);
    const sizes = mine.map((p) => p.topics.length);
    assert.ok(Math.max(...sizes) <= 100, `packets of ${sizes.join(', ')} filters`);
    // The first device's filters and the last device's, in different packets, both work.
    for (const id of ['d0', 'd39']) {
      const since = fx.recorder.count;
      await fx.recorder.publish(`${fx.base}/${id}/ch1/set/siren_volume`, '7');
      await fx.recorder.waitTopic(`${fx.base}/${id}/ch1`, (j) => j.siren_volume === 7, 5000, since);
    }
  } finally {
    await fx.stop();
    await broker.stop();
  }
});

test('40 cameras, Home Assistant online: every config once, sent a few devices at a time, and every config before any state', async () => {
  const fx = await setup({ label: 'manyha', devices: cameras(40) });
  const ids = Array.from({ length: 40 }, (_, i) => `d${i}`);
  try {
    // Start-up over: every device's gathered discovery and its state are out (setup waits for the first config only).
    await until(() => order(fx, ids, 0).every((o) => o.state >= 0), 'every device state at start-up', 10_000);
    await settle(fx);
    const since = fx.recorder.count;
    await fx.recorder.publish(`${fx.prefix}/status`, 'online');
    await until(() => order(fx, ids, since).every((o) => o.state >= 0), 'every device state after Home Assistant came online', 10_000);
    const after = order(fx, ids, since);
    for (const o of after) assert.equal(o.configs.length, 1, `${o.id}: ${o.configs.length} configs`);
    const lastConfig = Math.max(...after.flatMap((o) => o.configs));
    const firstState = Math.min(...after.map((o) => o.state));
    assert.ok(lastConfig < firstState, `last config at ${lastConfig}, first state at ${firstState}`);
  } finally {
    await fx.stop();
  }
});

/**
 * A TCP relay to a broker that can stop reading what its clients send (a broker that falls behind: busy, remote, or
 * on a loaded core) or cut every connection. Written by hand, not piped: a pipe would resume a paused reader.
 */
async function slowRelay(brokerPort: number) {
  const pairs = new Set<[Socket, Socket]>();
  let paused = false;
  const server = createServer((client) => {
    const upstream = connect(brokerPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('data', (b) => upstream.write(b));
    upstream.on('data', (b) => client.write(b));
    if (paused) client.pause();
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of pair) s.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pause(on: boolean) {
      paused = on;
      for (const [client] of pairs) {
        if (on) client.pause();
        else client.resume();
      }
    },
    cut() {
      for (const pair of pairs) pair[0].destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The bridge's own connection to a paused relay, filled past what it may hold: a 12 MB message, more than the kernel's
 * socket buffers take (about 5.5 MB on loopback here), so that the rest waits in the bridge.
 */
async function fillSendBuffer(fx: Fixture): Promise<void> {
  const socket = fx.bridge.link.client.stream as unknown as Writable;
  fx.bridge.link.publish(`${fx.base}/filler`, Buffer.alloc(12 << 20));
  await until(() => socket.writableLength >= 2 << 20, 'the send buffer to fill', 10_000);
}

/** Discovery configs the bridge published (onPublish), in order. */
const configsSent = (sent: string[], fx: Fixture) => sent.filter((t) => t.startsWith(`${fx.prefix}/device/`));

interface SlowBroker {
  fx: Fixture;
  relay: Awaited<ReturnType<typeof slowRelay>>;
  /** Home Assistant, on the broker itself: its birth message makes the bridge send every config again. */
  ha: Recorder;
  ids: string[];
  /** Topics the bridge published, in order. */
  sent: string[];
}

/**
 * Six cameras on a bridge whose broker connection goes through a relay, start-up over; then the relay stops reading,
 * the bridge's connection is filled and Home Assistant comes online: its discovery is due while the broker reads
 * nothing.
 */
async function withSlowBroker(label: string, body: (s: SlowBroker) => Promise<void>): Promise<void> {
  const broker = await startEmbeddedBroker({ port: 0 });
  const relay = await slowRelay(broker.port);
  const sent: string[] = [];
  const fx = await setup({ label, brokerUrl: relay.url, devices: cameras(6), bridge: { onPublish: (t) => sent.push(t) } });
  const ids = [...fx.sims.keys()];
  const ha = await Recorder.start(broker.url, [`${fx.prefix}/#`]);
  try {
    await until(() => order(fx, ids, 0).every((o) => o.state >= 0), 'every device state at start-up', 10_000);
    await settle(fx);
    relay.pause(true);
    await fillSendBuffer(fx);
    await body({ fx, relay, ha, ids, sent });
  } finally {
    await ha.stop();
    await fx.stop();
    await relay.close();
    await broker.stop();
  }
}

/** Every device's config reaches Home Assistant after `since`. */
async function everyConfig(s: SlowBroker, since: number, timeoutMs: number): Promise<void> {
  for (const id of s.ids) {
    const topic = configTopic(s.fx, id);
    await s.ha.waitFor((m) => m.topic === topic && !!m.payload, timeoutMs, since, topic);
  }
}

test('a broker that stops reading: discovery waits for it instead of piling up in the bridge, then every config arrives once', () =>
  withSlowBroker('slowbroker', async (s) => {
    const { fx, ha, sent } = s;
    const before = configsSent(sent, fx).length;
    const since = ha.count;
    await ha.publish(`${fx.prefix}/status`, 'online');
    // The first device's config goes out, then the bridge waits for the broker: the other five are not built yet.
    await until(() => configsSent(sent, fx).length > before, 'the first config', 5_000);
    // Nothing can make a round trip while the broker reads nothing (settle cannot): a second's look instead.
    await new Promise((r) => setTimeout(r, 1_000));
    const early = configsSent(sent, fx).slice(before);
    assert.equal(early.length, 1, `sent while the broker read nothing: ${early.join(', ')}`);
    s.relay.pause(false);
    await everyConfig(s, since, 10_000);
    for (const id of s.ids) {
      const n = ha.messages.slice(since).filter((m) => m.topic === configTopic(fx, id)).length;
      assert.equal(n, 1, `${id}: ${n} configs`);
    }
  }));

test('the broker connection drops while discovery waits for it: nothing hangs, every config goes out on the next connection', () =>
  withSlowBroker('cutbroker', async (s) => {
    await s.ha.publish(`${s.fx.prefix}/status`, 'online');
    const since = s.ha.count;
    s.relay.pause(false);
    s.relay.cut();
    // The bridge reconnects and announces again: every device's config, none left behind the wait.
    await everyConfig(s, since, 15_000);
  }));

test.run();
