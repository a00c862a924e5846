/**
 * Issue 38, "stopped or frozen by others": a claim on `<base>/bridge/instance` must prove a real instance before the
 * running bridge yields to it, an instance that yields leaves `bridge/state` offline unless the winner says online,
 * and the survivor of a simultaneous start keeps its command subscriptions. The broker is the tests' own (aedes, or
 * Mosquitto with MQTT_TEST_URL); the simulator is the device.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { InstanceConflict, startBridge, type Bridge } from '../../bridge/bridge';
import { createLogger } from '../../bridge/base/log';
import { Recorder } from '../helpers/mqtt-broker';
import { setsOf, setup, until } from './fixture';

const test = suite('bridge instance claims');

test('a fake claim from another client does not stop the bridge; it keeps acting and stays online', async () => {
  const fx = await setup({ label: 'fake' });
  try {
    const r = fx.recorder;
    let stopped: Error | undefined | null = null;
    void fx.bridge.done.then((err) => (stopped = err));
    // What any MQTT client may publish: not retained, then retained.
    await r.publish(`${fx.base}/bridge/instance`, JSON.stringify({ instance: '0000', started: new Date().toISOString() }));
    await until(() => fx.logs.some((l) => /claim .*0000.* not proven/.test(l)), 'the claim found unproven', 10_000);
    await r.publish(`${fx.base}/bridge/instance`, JSON.stringify({ instance: '0001', started: new Date().toISOString() }), {
      retain: true,
    });
    await until(() => fx.logs.some((l) => /claim .*0001.* not proven/.test(l)), 'the retained claim found unproven', 10_000);
    assert.equal(stopped, null, 'the bridge is still running');
    // The bridge claimed the base topic again over the fake retained one.
    await until(() => r.lastJson(`${fx.base}/bridge/instance`)?.instance !== '0001', 'the claim taken back', 5000);
    assert.equal(r.lastJson(`${fx.base}/bridge/state`)?.state, 'online');
    const since = r.count;
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '7');
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 7, 5000, since);
  } finally {
    await fx.stop();
  }
});

test('an instance that yields to a claimer answering its challenge leaves bridge/state offline', async () => {
  const fx = await setup({ label: 'yield' });
  // A client that answers challenges like an instance would, but is no bridge: nobody says online after the yield.
  const topic = `${fx.base}/bridge/instance`;
  const impostor = await Recorder.start(fx.broker.url, [topic]);
  try {
    const r = fx.recorder;
    impostor.client.on('message', (t, payload) => {
      if (t !== topic) return;
      const doc = JSON.parse(payload.toString()) as { challenge?: string; to?: string };
      if (doc.to === 'imp0' && typeof doc.challenge === 'string') {
        void impostor.publish(topic, JSON.stringify({ proof: doc.challenge, by: 'imp0' }));
      }
    });
    await impostor.publish(topic, JSON.stringify({ instance: 'imp0', started: new Date().toISOString() }));
    const err = await fx.bridge.done;
    assert.ok(err instanceof InstanceConflict, String(err));
    await until(() => r.lastJson(`${fx.base}/bridge/state`)?.state === 'offline', 'bridge/state offline', 5000);
  } finally {
    await impostor.stop();
    await fx.stop();
  }
});

test('two instances started together, five rounds: exactly one acts and every command is applied', async () => {
  const fx = await setup({ label: 'twins', devices: [{ id: 'nvr', poll: 30 }] });
  const running: Bridge[] = [];
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    await fx.bridge.stop();
    const logs: string[] = [];
    const opts = {
      log: createLogger({ level: 'info', sink: (_l: string, line: string) => logs.push(line) }),
      instanceProbeWindowMs: 100,
      reconnectPeriodMs: 200,
      deviceTimeoutMs: 2000,
    };
    for (let round = 1; round <= 5; round++) {
      const since = r.count;
      const pair = await Promise.all([startBridge(fx.config, opts), startBridge(fx.config, opts)]);
      running.push(...pair);
      const loser = await Promise.race(pair.map((b) => b.done.then((err) => ({ b, err }))));
      assert.ok(loser.err instanceof InstanceConflict, `round ${round}: ${String(loser.err)}`);
      const survivor = pair.find((b) => b !== loser.b)!;
      await r.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 8000, since);
      await until(() => r.lastJson(`${fx.base}/bridge/state`)?.state === 'online', `round ${round}: bridge/state online`, 5000);
      const setsBefore = setsOf(sim).length;
      const s2 = r.count;
      const volume = round + 1;
      await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, String(volume));
      // Applied and confirmed within the device's time, not after a stalled announce (10 s, or never).
      await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === volume, 5000, s2);
      assert.equal(setsOf(sim).length - setsBefore, 1, `round ${round}: the command reached the device once`);
      let survivorDone = false;
      void survivor.done.then(() => (survivorDone = true));
      await survivor.stop();
      assert.ok(survivorDone);
      running.length = 0;
    }
  } finally {
    await Promise.all(running.map((b) => b.stop()));
    await fx.stop();
  }
});

test.run();
