/**
 * Speaker figures (printed by bench/run.ts, never asserted):
 * 1. `say` on MQTT (`<base>/nvr/ip_ch1/set/say`) -> the device's Play request (the simulator's play log), p50 and
 *    p95 over BENCH_SAY_N sayings (default 20), one simulated 8-channel recorder, the bridge with its defaults: the
 *    device's converter upload (and the Remove of the last spoken file) come before the Play;
 * 2. upload throughput of a 1 MiB MP3 through core (`uploadPrompt`: 3 packets of at most 512000 bytes, base64),
 *    median of BENCH_UPLOAD_N uploads (default 5), the device in a child process (bench/farm.ts);
 * 3. memory during a 5 MB upload (5 242 880 bytes, the device's limit) from a file path, the device in a child
 *    process so that its copy of the file is not counted: the peak of heap used plus array buffers above what it was
 *    before (sampled every 2 ms, after a full GC; the packets' garbage counts until the GC takes it) and the peak RSS
 *    growth; then, in a second upload with a full GC after each packet, the most it kept alive (the client reads one
 *    packet at a time: a file held whole would show 5 MB here).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt from 'mqtt';
import { NvrClient, removePrompt, uploadPrompt } from '../core';
import { startBridge, type Bridge } from '../bridge/bridge';
import { startEmbeddedBroker } from '../bridge/mqtt/broker';
import { parseConfig } from '../bridge/base/config';
import { createLogger } from '../bridge/base/log';
import { startSimulator } from '../simulator';
import { clearRetained } from '../test/helpers/mqtt-broker';
import { percentile } from '../test/helpers/storm';
import { Farm } from './farm';

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

const mb = (bytes: number) => Math.round((bytes / 1e6) * 100) / 100;
/** A full GC on demand (what `--expose-gc` gives), for the live memory between packets. */
const gc = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();
const mp3 = (size: number) => {
  const b = Buffer.alloc(size, 0x55);
  b.write('ID3', 0, 'latin1');
  return b;
};

/** Part 1: `say` on MQTT -> the device's Play request. */
async function sayLatency(): Promise<Record<string, number>> {
  const n = Number(process.env.BENCH_SAY_N ?? 20);
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels: 8, quiet: true });
  const broker = process.env.BENCH_MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? broker!.url;
  const base = `nvr2mqtt_say_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_say_${randomBytes(3).toString('hex')}`;
  const pub = await mqtt.connectAsync(brokerUrl, { reconnectPeriod: 0 });
  let bridge: Bridge | undefined;
  let offered = false;
  pub.on('message', (topic) => {
    if (topic === `${base}/nvr/prompts`) offered = true;
  });
  await pub.subscribeAsync(`${base}/nvr/prompts`);
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
    await until(() => offered, 20_000, 'the prompts of the recorder');
    await sleep(2000); // the first poll's follow-up reads end
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const plays = sim.prompts.playLog.length;
      const sent = Date.now();
      await pub.publishAsync(`${base}/nvr/ip_ch1/set/say`, JSON.stringify({ text: `Warning number ${i}`, language: 'en' }));
      await until(() => sim.prompts.playLog.length > plays, 10_000, 'the play');
      ms.push(sim.prompts.playLog[plays].time - sent);
      await sleep(100);
    }
    return { say_to_play_n: n, say_to_play_p50_ms: percentile(ms, 50), say_to_play_p95_ms: percentile(ms, 95) };
  } finally {
    await bridge?.stop();
    await pub.endAsync();
    await sim.stop();
    await broker?.stop();
    if (!broker) await clearRetained(brokerUrl, [base, prefix]);
  }
}

/** Parts 2 and 3: through core, the device in a child process. */
async function uploads(): Promise<Record<string, number>> {
  const n = Number(process.env.BENCH_UPLOAD_N ?? 5);
  const password = randomBytes(12).toString('base64url');
  const farm = await Farm.start({ devices: 1, channels: 8, password });
  const client = new NvrClient({ url: farm.urls[0], username: 'admin', password, heartbeatMs: 0, timeoutMs: 30_000 });
  const dir = await mkdtemp(join(tmpdir(), 'bench-speaker-'));
  try {
    const oneMiB = mp3(1 << 20);
    const rates: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      const p = await uploadPrompt(client, { file: oneMiB, name: `bench-${i}.mp3` });
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      rates.push(oneMiB.length / 1e6 / s);
      await removePrompt(client, p.index);
    }
    // A 5 MB file from its path: memory sampled while it goes up.
    const file = join(dir, 'five.mp3');
    await writeFile(file, mp3(5_242_880));
    gc();
    const used = () => {
      const m = process.memoryUsage();
      return { js: m.heapUsed + m.arrayBuffers, rss: m.rss };
    };
    const before = used();
    let peak = before;
    const sampler = setInterval(() => {
      const now = used();
      peak = { js: Math.max(peak.js, now.js), rss: Math.max(peak.rss, now.rss) };
    }, 2);
    const t0 = Date.now();
    const p = await uploadPrompt(client, { file });
    const fiveSeconds = (Date.now() - t0) / 1000;
    clearInterval(sampler);
    await removePrompt(client, p.index);
    // Again, a full GC after each packet: what the upload keeps alive (garbage of the packets sent excluded).
    gc();
    const liveBefore = used().js;
    let live = 0;
    const q = await uploadPrompt(client, {
      file,
      onPacket: () => {
        gc();
        live = Math.max(live, used().js - liveBefore);
      },
    });
    await removePrompt(client, q.index);
    return {
      upload_1mib_n: n,
      upload_1mib_mb_per_s_median: Math.round(percentile(rates, 50) * 100) / 100,
      upload_1mib_mb_per_s_min: Math.round(Math.min(...rates) * 100) / 100,
      upload_5mb_seconds: fiveSeconds,
      upload_5mb_packets: Math.ceil(5_242_880 / 512_000),
      upload_5mb_peak_heap_and_buffers_growth_mb: mb(peak.js - before.js),
      upload_5mb_peak_rss_growth_mb: mb(peak.rss - before.rss),
      upload_5mb_live_growth_max_mb: mb(live),
    };
  } finally {
    await client.close();
    await farm.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchSpeaker(): Promise<Record<string, number>> {
  return { ...(await sayLatency()), ...(await uploads()) };
}
