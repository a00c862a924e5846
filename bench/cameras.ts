/**
 * Camera figures (printed by bench/run.ts, never asserted), one simulated 8-channel recorder, the bridge with its
 * defaults (no `snapshot_interval`):
 * 1. picture requests per minute at idle (goal 0 without an interval), counted at the simulator over
 *    BENCH_CAMERA_IDLE_SECONDS (default 30), with all device requests per minute beside them;
 * 2. alarm raised at the simulator -> its picture on MQTT, p50/p95, and the bytes on MQTT per alarm (start and
 *    end: state, edge, picture), BENCH_CAMERA_ALARMS alarms (default 10);
 * 3. a storm of 100 alarm starts and ends per second on one channel for 3 s: pictures taken;
 * 4. memory of 100 devices x 16 channels with cameras announced (camera, Snapshot button and "Last alarm" image per
 *    channel), the devices in a child process (bench/farm.ts) so that the bridge is measured alone: heap used (after
 *    a GC where `--expose-gc` allows one) and RSS once every channel's camera is announced, and again after one alarm
 *    picture per device. The bridge holds no picture: each is published and dropped (pictures held: 0 bytes; what
 *    stays is the last alarm's type and time per channel). BENCH_CAMERA_MEMORY=0 skips this part, =only runs it alone.
 * 5. the simulator's own pictures (a captioned test pattern, simulator/test-pattern.ts): pictures it makes a second, at
 *    1280x720 (a snapshot's default) and 640x480 (an alarm picture's), in this process, for BENCH_CAMERA_PICTURE_SECONDS
 *    (default 1) each; and their size. A real camera's pictures are larger (a photograph compresses less).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt from 'mqtt';
import { startBridge, type Bridge } from '../bridge/bridge';
import { startEmbeddedBroker } from '../bridge/mqtt/broker';
import { parseConfig } from '../bridge/base/config';
import { createLogger } from '../bridge/base/log';
import { startSimulator, testPicture } from '../simulator';
import { clearRetained } from '../test/helpers/mqtt-broker';
import { percentile } from '../test/helpers/storm';
import { Farm } from './farm';

async function until(cond: () => boolean, timeoutMs: number, what = 'a condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const mb = (bytes: number) => Math.round((bytes / (1 << 20)) * 10) / 10;
function heapNow(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** Part 4: memory of the bridge with 100 x 16 cameras announced, before and after one alarm picture per device. */
async function cameraMemory(): Promise<Record<string, number>> {
  const devices = Number(process.env.BENCH_CAMERA_MEMORY_DEVICES ?? 100);
  const channels = 16;
  const password = randomBytes(12).toString('base64url');
  const farm = await Farm.start({ devices, channels, password, broker: !process.env.BENCH_MQTT_URL });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? farm.broker!;
  const base = `nvr2mqtt_cmem_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_cmem_${randomBytes(3).toString('hex')}`;
  const sub = await mqtt.connectAsync(brokerUrl, { reconnectPeriod: 0 });
  const streams = new Set<string>();
  const alarmPictures = new Set<string>();
  sub.on('message', (topic) => {
    if (topic.endsWith('/streams')) streams.add(topic);
    else if (topic.endsWith('/alarm_picture')) alarmPictures.add(topic);
  });
  await sub.subscribeAsync([`${base}/+/+/streams`, `${base}/+/+/alarm_picture`], { qos: 0 });
  const heap0 = heapNow();
  let bridge: Bridge | undefined;
  try {
    const { config } = parseConfig(
      {
        mqtt: { url: brokerUrl, base_topic: base },
        homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
        devices: farm.urls.map((url, i) => ({ id: `d${i}`, url, username: 'admin', password, poll_interval: 15 })),
        log_level: 'error',
      },
      { env: {} },
    );
    bridge = await startBridge(config, { log: createLogger({ level: 'error', sink: () => undefined }) });
    const t0 = Date.now();
    // Every device's cameras (the channels its Snapshot Range lists: online ones), then no new one for 5 s.
    const perDevice = () => new Set([...streams].map((t) => t.split('/')[1])).size;
    await until(() => perDevice() >= devices, 60_000 + devices * 1200, 'stream addresses of every device');
    for (let size = -1; size !== streams.size;) {
      size = streams.size;
      await sleep(5000);
    }
    const announcedMs = Date.now() - t0 - 5000;
    await sleep(5000); // discovery with the cameras settles
    const heapAnnounced = heapNow();
    const rssAnnounced = process.memoryUsage().rss;
    for (let i = 0; i < devices; i++) await farm.alarm(i, 'CH1', true);
    await until(() => alarmPictures.size >= devices, 60_000, 'an alarm picture of every device');
    await sleep(2000);
    const heapPictures = heapNow();
    const rssPictures = process.memoryUsage().rss;
    for (let i = 0; i < devices; i++) await farm.alarm(i, 'CH1', false);
    return {
      memory_devices: devices,
      memory_channels_per_device: channels,
      memory_cameras_announced: streams.size,
      memory_cameras_announced_ms: announcedMs,
      memory_gc_forced: (globalThis as { gc?: unknown }).gc ? 1 : 0,
      memory_heap_before_bridge_mb: mb(heap0),
      memory_heap_cameras_announced_mb: mb(heapAnnounced),
      memory_rss_cameras_announced_mb: mb(rssAnnounced),
      memory_heap_after_one_alarm_picture_per_device_mb: mb(heapPictures),
      memory_rss_after_one_alarm_picture_per_device_mb: mb(rssPictures),
      memory_pictures_held_bytes: 0,
    };
  } finally {
    await bridge?.stop();
    await sub.endAsync();
    if (process.env.BENCH_MQTT_URL) await clearRetained(brokerUrl, [base, prefix]);
    await farm.stop();
  }
}

/** Part 5: the simulator's picture rate (a captioned test pattern coded as JPEG), per size. */
function simulatorPictures(): Record<string, number> {
  const seconds = Number(process.env.BENCH_CAMERA_PICTURE_SECONDS ?? 1);
  const out: Record<string, number> = {};
  for (const [w, h] of [
    [1280, 720],
    [640, 480],
  ]) {
    testPicture(w, h, ['warm-up']); // the pattern of a size is coded once
    let n = 0;
    let bytes = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < seconds * 1000)
      bytes += testPicture(w, h, ['Camera1 CH1', new Date().toISOString(), `Alarm: ${n++}`]).length;
    out[`sim_pictures_per_second_${w}x${h}`] = n / ((performance.now() - t0) / 1000);
    out[`sim_picture_bytes_${w}x${h}`] = bytes / n;
  }
  return out;
}

export async function benchCameras(): Promise<Record<string, number>> {
  const figures = process.env.BENCH_CAMERA_MEMORY === 'only' ? {} : { ...simulatorPictures(), ...(await benchCameraPictures()) };
  return process.env.BENCH_CAMERA_MEMORY === '0' ? figures : { ...figures, ...(await cameraMemory()) };
}

async function benchCameraPictures(): Promise<Record<string, number>> {
  const idleSeconds = Number(process.env.BENCH_CAMERA_IDLE_SECONDS ?? 30);
  const alarms = Number(process.env.BENCH_CAMERA_ALARMS ?? 10);
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels: 8, logLimit: 200_000, quiet: true });
  const broker = process.env.BENCH_MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? broker!.url;
  const base = `nvr2mqtt_cam_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_cam_${randomBytes(3).toString('hex')}`;
  let bridge: Bridge | undefined;
  const sub = await mqtt.connectAsync(brokerUrl, { reconnectPeriod: 0 });
  const seen: Array<{ topic: string; bytes: number; at: number; start?: boolean }> = [];
  sub.on('message', (topic, payload) => {
    const start = topic.endsWith('/event') ? (JSON.parse(payload.toString()) as { active?: boolean }).active === true : undefined;
    seen.push({ topic, bytes: payload.length, at: Date.now(), start });
  });
  await sub.subscribeAsync(`${base}/#`, { qos: 1 });
  const pictureRequests = (since: number) => sim.log.slice(since).filter((e) => e.path === '/API/Snapshot/Get').length;
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
    await until(() => seen.some((m) => m.topic === `${base}/nvr/ch1/streams`), 20_000);

    // (1) idle.
    let since = sim.log.length;
    const t0 = Date.now();
    await sleep(idleSeconds * 1000);
    const minutes = (Date.now() - t0) / 60_000;
    const idlePictures = pictureRequests(since) / minutes;
    const idleAll = (sim.log.length - since) / minutes;

    // (2) alarms: raise, wait for the picture, end it; bytes on MQTT from the raise to the end's edge.
    const latency: number[] = [];
    const bytes: number[] = [];
    const pictureBytes: number[] = [];
    for (let i = 0; i < alarms; i++) {
      const channel = `CH${(i % 4) + 1}`;
      const slug = channel.toLowerCase();
      await sleep(Math.random() * 1000);
      const from = seen.length;
      const raised = Date.now();
      sim.raiseAlarm({ channel, type: 'motion', active: true });
      await until(() => seen.slice(from).some((m) => m.topic === `${base}/nvr/${slug}/snapshot`), 10_000);
      latency.push(seen.slice(from).find((m) => m.topic === `${base}/nvr/${slug}/snapshot`)!.at - raised);
      const mid = seen.length;
      sim.raiseAlarm({ channel, type: 'motion', active: false });
      await until(() => seen.slice(mid).some((m) => m.topic === `${base}/nvr/${slug}/event`), 10_000);
      const during = seen.slice(from).filter((m) => m.topic.startsWith(`${base}/nvr/`));
      bytes.push(during.reduce((n, m) => n + m.bytes, 0));
      pictureBytes.push(during.filter((m) => m.topic.endsWith('/snapshot')).reduce((n, m) => n + m.bytes, 0));
    }

    // (3) storm: 100 starts and ends per second on CH1 for 3 s.
    since = sim.log.length;
    const stormFrom = seen.length;
    for (let tick = 0; tick < 30; tick++) {
      for (let i = 0; i < 10; i++) {
        sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
        sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
      }
      await sleep(100);
    }
    await sleep(3000);
    const stormStarts = seen.slice(stormFrom).filter((m) => m.topic === `${base}/nvr/ch1/event` && m.start).length;
    return {
      idle_picture_requests_per_min: idlePictures,
      idle_picture_requests_per_min_goal: 0,
      idle_device_requests_per_min: idleAll,
      alarm_to_picture_p50_ms: percentile(latency, 50),
      alarm_to_picture_p95_ms: percentile(latency, 95),
      mqtt_bytes_per_alarm: bytes.reduce((a, b) => a + b, 0) / bytes.length,
      mqtt_picture_bytes_per_alarm: pictureBytes.reduce((a, b) => a + b, 0) / pictureBytes.length,
      storm_alarm_edges_sent: 600,
      storm_alarm_starts_published: stormStarts,
      storm_pictures: pictureRequests(since),
    };
  } finally {
    await bridge?.stop();
    await sub.endAsync();
    await sim.stop();
    await broker?.stop();
    if (!broker) await clearRetained(brokerUrl, [base, prefix]);
  }
}
