/**
 * Many devices on one bridge: what a thousand would make visible, at a size a test can run (more devices than the
 * discovery drain sends in one turn, more command filters than one SUBSCRIBE packet holds). The simulator is the
 * device; the broker is a real one (the embedded aedes, whose subscriptions the first test counts).
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { startEmbeddedBroker } from '../../bridge/mqtt/broker';
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

test.run();
