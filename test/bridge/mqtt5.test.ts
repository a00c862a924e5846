/**
 * Issue 17, on a private Mosquitto (test/helpers/mosquitto.ts: MQTT 5, an ACL of our own): two instances started
 * together (at most one acts), a retained command queued for the bridge's session while it was away (retain as
 * published: refused), an ACL that refuses the bridge a publish (PUBACK reason code: logged once, reported by
 * --check); and an aedes that refuses a subscription (SUBACK failure). The simulator is the device.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { InstanceConflict, startBridge, type Bridge } from '../../bridge/bridge';
import { startEmbeddedBroker } from '../../bridge/mqtt/broker';
import { runCheck } from '../../bridge/app/config-check';
import { createLogger } from '../../bridge/base/log';
import { testIf } from '../helpers/missing';
import { missingMosquitto, startMosquitto, type PrivateMosquitto } from '../helpers/mosquitto';
import { setsOf, setup, until, waitEvent } from './fixture';

const test = suite('bridge MQTT 5');

testIf(
  test,
  missingMosquitto,
  'two instances started together: one acts, the other exits saying why; bridge/state stays online',
  async () => {
    const mosq = await startMosquitto();
    const fx = await setup({ label: 'twin', brokerUrl: mosq.url, devices: [{ id: 'nvr', poll: 30 }] });
    const bridges: Bridge[] = [];
    try {
      const r = fx.recorder;
      const sim = fx.sims.get('nvr')!;
      await fx.bridge.stop();
      // Both probe before either is online: both start (the race the probe cannot close).
      const logs: string[] = [];
      const opts = {
        log: createLogger({ level: 'info', sink: (_l: string, line: string) => logs.push(line) }),
        instanceProbeWindowMs: 100,
        reconnectPeriodMs: 200,
      };
      bridges.push(...(await Promise.all([startBridge(fx.config, opts), startBridge(fx.config, opts)])));
      const loser = await Promise.race(bridges.map((b) => b.done.then((err) => ({ b, err }))));
      assert.ok(loser.err instanceof InstanceConflict, String(loser.err));
      assert.match(loser.err.message, /another nvr2mqtt instance is running on base topic/);
      const survivor = bridges.find((b) => b !== loser.b)!;
      fx.bridge = survivor;
      // The survivor keeps (or takes back) bridge/state online.
      await until(() => r.lastJson(`${fx.base}/bridge/state`)?.state === 'online', 'bridge/state online', 5000);
      // One command, one Set; one request, one answer.
      await r.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 8000);
      const setsBefore = setsOf(sim).length;
      const since = r.count;
      await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '9');
      await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 9, 5000, since);
      await r.publish(
        `${fx.base}/bridge/request/get`,
        JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'one' }),
      );
      await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'one', 5000, since);
      await r.publish(
        `${fx.base}/bridge/request/get`,
        JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', transaction: 'two' }),
      );
      await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 'two', 5000, since);
      assert.equal(setsOf(sim, 0).length - setsBefore, 1, 'the command reached the device once');
      assert.equal(
        r.messages.slice(since).filter((m) => m.topic === `${fx.base}/bridge/response/get` && m.payload.includes('"one"')).length,
        1,
      );
      assert.equal(r.lastJson(`${fx.base}/bridge/state`)?.state, 'online');
    } finally {
      await Promise.all(bridges.map((b) => b.stop()));
      await fx.stop();
      await mosq.stop();
    }
  },
);

testIf(test, missingMosquitto, 'a retained command published while the bridge is down is refused when its session gets it', async () => {
  const mosq: PrivateMosquitto = await startMosquitto();
  const fx = await setup({ label: 'rap', brokerUrl: mosq.url, devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const r = fx.recorder;
    const sim = fx.sims.get('nvr')!;
    await fx.bridge.stop();
    // Queued for the bridge's persistent session (and retained): siren, volume, disarm.
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '8', { retain: true });
    await r.publish(`${fx.base}/nvr/set/disarmed`, 'DISARM', { retain: true });
    const setsBefore = setsOf(sim).length;
    const since = r.count;
    await fx.restartBridge();
    await waitEvent(
      fx,
      'command_refused',
      (d) => /retained command ignored/.test(String(d.reason)) && String(d.topic).endsWith('siren_volume'),
      since,
      8000,
    );
    await waitEvent(
      fx,
      'command_refused',
      (d) => /retained command ignored/.test(String(d.reason)) && String(d.topic).endsWith('disarmed'),
      since,
      8000,
    );
    // A command of our own after them, once the device answered: the only write.
    await r.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 8000, since);
    const s2 = r.count;
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '3');
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 3, 5000, s2);
    assert.equal(setsOf(sim).length - setsBefore, 1, 'only the command published live was written');
    assert.notEqual(r.lastJson(`${fx.base}/nvr`)?.disarmed, true);
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '', { retain: true });
    await r.publish(`${fx.base}/nvr/set/disarmed`, '', { retain: true });
  } finally {
    await fx.stop();
    await mosq.stop();
  }
});

testIf(test, missingMosquitto, 'an ACL that refuses the bridge a publish: a warning once per topic, and --check says so', async () => {
  // The bridge may not publish its events; everything else is allowed.
  const mosq = await startMosquitto({ acl: 'topic deny +/bridge/event\ntopic readwrite #\n' });
  const fx = await setup({ label: 'acl', brokerUrl: mosq.url, devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const r = fx.recorder;
    const warned = () =>
      fx.logs.filter((l) => /^warn .*refused publishing on .*bridge\/event: Not authorized \(reason code 0x87\)/.test(l));
    // Refused commands: bridge/event publishes the broker refuses, one warning.
    await r.publish(`${fx.base}/nvr/ch1/set/no_such_key`, '1');
    await until(() => warned().length > 0, 'the publish warning');
    await r.publish(`${fx.base}/nvr/ch1/set/no_such_key`, '2');
    const since = r.count;
    await r.publish(`${fx.base}/nvr/ch1/set/siren_volume`, '4');
    await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.siren_volume === 4, 5000, since); // still working, in order
    assert.equal(warned().length, 1, 'once per topic');
    const lines: string[] = [];
    assert.equal(await runCheck(fx.config, (l) => lines.push(l)), false);
    assert.ok(
      lines.some((l) => /^mqtt: FAILED: the broker refused publishing on .*bridge\/event: Not authorized/.test(l)),
      lines.join('\n'),
    );
  } finally {
    await fx.stop();
    await mosq.stop();
  }
});

test('a broker that refuses the bridge a subscription (SUBACK failure): a warning, and --check says so', async () => {
  // aedes with a subscription hook: the request API's filter is refused.
  const broker = await startEmbeddedBroker({ port: 0 });
  broker.aedes.authorizeSubscribe = (_client, sub, done) => done(null, sub.topic.includes('/bridge/request/') ? null : sub);
  const fx = await setup({ label: 'suback', brokerUrl: broker.url, devices: [{ id: 'nvr', poll: 30 }] });
  try {
    await until(() => fx.logs.some((l) => /^warn .*refused subscribing to .*bridge\/request\/\+/.test(l)), 'the subscription warning');
    const lines: string[] = [];
    assert.equal(await runCheck(fx.config, (l) => lines.push(l)), false);
    assert.ok(
      lines.some((l) => /^mqtt: FAILED: the broker refused subscribing to .*bridge\/request\/\+/.test(l)),
      lines.join('\n'),
    );
  } finally {
    await fx.stop();
    await broker.stop();
  }
});

test.run();
