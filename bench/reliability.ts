/**
 * Reliability figures (issue 17; printed by bench/run.ts, never asserted), one simulated recorder, the bridge with
 * its defaults (request budget 8 a second, 32 waiting):
 * 1. a flood of 500 distinct `bridge/request/get`: device requests a second while it is answered (goal: the budget),
 *    and how many were refused "device busy".
 * BENCH_MQTT_URL: use that broker instead of an aedes.
 */
import { randomBytes } from 'node:crypto';
import { startBridge, type Bridge } from '../bridge/bridge';
import { startEmbeddedBroker } from '../bridge/broker';
import { parseConfig } from '../bridge/config';
import { createLogger } from '../bridge/log';
import { startSimulator } from '../simulator';
import { clearRetained, Recorder } from '../test/helpers/mqtt-broker';
import { until } from '../test/helpers/until';

export async function benchReliability(): Promise<Record<string, number>> {
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels: 8, logLimit: 100_000, quiet: true });
  const broker = process.env.BENCH_MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? broker!.url;
  const base = `nvr2mqtt_rel_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_rel_${randomBytes(3).toString('hex')}`;
  let bridge: Bridge | undefined;
  let rec: Recorder | undefined;
  try {
    const { config } = parseConfig(
      {
        mqtt: { url: brokerUrl, base_topic: base },
        homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
        devices: [{ id: 'nvr', url: sim.url, username: 'admin', password }],
        log_level: 'warn',
      },
      { env: {} },
    );
    rec = await Recorder.start(brokerUrl, [`${base}/nvr/+`, `${base}/bridge/response/+`]);
    bridge = await startBridge(config, { log: createLogger({ level: 'error', sink: () => undefined }), discoveryCleanupWindowMs: 200 });
    await rec.waitTopic(`${base}/nvr/ch1`, () => true, 20_000);
    const since = rec.count;
    const logFrom = sim.log.length;
    for (let i = 0; i < 500; i++) {
      void rec.publish(
        `${base}/bridge/request/get`,
        JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', data: { nonce: i }, transaction: i }),
      );
    }
    const answers = () => rec!.messages.slice(since).filter((m) => m.topic === `${base}/bridge/response/get`);
    await until(() => answers().length >= 500, 'every answer', 120_000);
    const requests = sim.log.slice(logFrom);
    const seconds = Math.max(1, requests.at(-1)!.time - requests[0].time) / 1000;
    return {
      flood_500_get_device_requests: requests.length,
      flood_500_get_device_requests_per_s: requests.length / seconds,
      flood_500_get_refused_device_busy: answers().filter((m) => m.payload.includes('"device_busy"')).length,
    };
  } finally {
    await bridge?.stop();
    await rec?.stop();
    await clearRetained(brokerUrl, [base, prefix]).catch(() => undefined);
    await sim.stop();
    await broker?.stop();
  }
}
