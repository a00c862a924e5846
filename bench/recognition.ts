/**
 * Recognition figures (printed by bench/run.ts, never asserted), one simulated recorder whose CH1 recognises faces
 * and plates and sends AI pictures with identity, the bridge with its defaults:
 * 1. device requests per minute at idle (no recognition) over BENCH_RECOGNITION_IDLE_SECONDS (default 20), and of
 *    them the face / plate list reads (goal 0: the lists are read at the first recognition only);
 * 2. plate raised at the simulator -> `last_plate` on MQTT, p50/p95 over BENCH_RECOGNITION_PLATES plates (default
 *    20; the first one includes the one list read), and the list reads they caused (goal 1).
 * Not measured here: memory with 100 devices, each with 64-entry lists cached (the bridge keeps only the groups,
 * at most 16 face and 64 plate groups per device, never the members).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt from 'mqtt';
import { startBridge, type Bridge } from '../bridge/bridge';
import { startEmbeddedBroker } from '../bridge/mqtt/broker';
import { parseConfig } from '../bridge/base/config';
import { createLogger } from '../bridge/base/log';
import { startSimulator } from '../simulator';
import { clearRetained } from '../test/helpers/mqtt-broker';
import { percentile } from '../test/helpers/storm';

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

export async function benchRecognition(): Promise<Record<string, number>> {
  const idleSeconds = Number(process.env.BENCH_RECOGNITION_IDLE_SECONDS ?? 20);
  const plates = Number(process.env.BENCH_RECOGNITION_PLATES ?? 20);
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels: 4, analog: 2, alarmPictures: 'ai', plateChannels: ['CH1'], logLimit: 200_000 });
  sim.recognition.addPlate('GATE1', 1, 0, 'Ann');
  const broker = process.env.BENCH_MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? broker!.url;
  const base = `nvr2mqtt_rec_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_rec_${randomBytes(3).toString('hex')}`;
  let bridge: Bridge | undefined;
  const sub = await mqtt.connectAsync(brokerUrl, { reconnectPeriod: 0 });
  const seen: Array<{ topic: string; at: number }> = [];
  sub.on('message', (topic) => seen.push({ topic, at: performance.now() }));
  await sub.subscribeAsync([`${base}/nvr/ch1/last_plate`, `${base}/nvr/availability`], { qos: 1 });
  const listReads = (since: number) => sim.log.slice(since).filter((e) => /^\/API\/AI\/(FD|Plate)Group\/Get$/.test(e.path)).length;
  try {
    const { config } = parseConfig(
      {
        mqtt: { url: brokerUrl, base_topic: base },
        homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
        devices: [{ id: 'nvr', url: sim.url, username: 'admin', password }],
        log_level: 'error',
      },
      { env: {} },
    );
    bridge = await startBridge(config, { log: createLogger({ level: 'error', sink: () => undefined }) });
    await until(() => seen.some((m) => m.topic === `${base}/nvr/availability`), 20_000, 'the device online');
    await sleep(3000);
    // (1) idle.
    let since = sim.log.length;
    const t0 = Date.now();
    await sleep(idleSeconds * 1000);
    const minutes = (Date.now() - t0) / 60_000;
    const idleAll = (sim.log.length - since) / minutes;
    const idleLists = listReads(since);
    // (2) plates.
    since = sim.log.length;
    const latency: number[] = [];
    for (let i = 0; i < plates; i++) {
      await sleep(200 + Math.random() * 300);
      const from = seen.length;
      const raised = performance.now();
      sim.raiseAlarm({ channel: 'CH1', type: 'plate', active: true, plate: 'GATE1' });
      await until(() => seen.slice(from).some((m) => m.topic === `${base}/nvr/ch1/last_plate`), 10_000, 'last_plate');
      latency.push(seen.slice(from).find((m) => m.topic === `${base}/nvr/ch1/last_plate`)!.at - raised);
      sim.raiseAlarm({ channel: 'CH1', type: 'plate', active: false });
    }
    return {
      idle_device_requests_per_min: Math.round(idleAll * 10) / 10,
      idle_list_reads: idleLists,
      idle_list_reads_goal: 0,
      plate_to_last_plate_p50_ms: Math.round(percentile(latency, 50)),
      plate_to_last_plate_p95_ms: Math.round(percentile(latency, 95)),
      plate_list_reads: listReads(since),
      plate_list_reads_goal: 1,
    };
  } finally {
    await bridge?.stop();
    await sub.endAsync();
    await sim.stop();
    await broker?.stop();
    if (!broker) await clearRetained(brokerUrl, [base, prefix]);
  }
}
