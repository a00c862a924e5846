/**
 * Child process of the bridge benchmark: runs the bridge alone (devices and broker live in the sim-farm
 * process) and measures itself: CPU (process.cpuUsage) in % of one core, peak RSS (sampled every 250 ms),
 * polls completed vs due, MQTT messages published; every device with its event stream on (1 s checks), as by
 * default (BENCH_NO_EVENTS=1: off; job `events: "push"`: pushed alarms, 60 s checks). Reads its job as one JSON line on stdin
 * `{urls, password, broker, seconds, base, prefix}` (optional: `pollInterval` in s, default 1; `startupLimitS`,
 * default 60; `announceSteady`: print `{"phase":"steady"}` when the measured window starts, so that the parent
 * raises alarms in it; `watchPids`: processes whose CPU is measured over the window too, beside the whole machine's);
 * prints one JSON line with the figures, with the times at which each channel's `motion`
 * turned true on MQTT (`motion_on`, topic -> epoch ms list) and the measured window (`window_t0`, `window_t1`).
 */
// First, as in the CLI: holds the young generation before the rest of the code is loaded.
import { sizeYoungGeneration, tuneHeapForDaemon } from '../bridge/app/tuning';
import { createInterface } from 'node:readline';
import { getHeapSpaceStatistics } from 'node:v8';
import { constants as perf, performance, PerformanceObserver, type NodeGCPerformanceDetail } from 'node:perf_hooks';
import { startBridge } from '../bridge/bridge';
import { parseConfig } from '../bridge/base/config';
import { createLogger } from '../bridge/base/log';
import { loadBetween, loadMark } from './machine-load';

interface Job {
  urls: string[];
  password: string;
  broker: string;
  seconds: number;
  base: string;
  prefix: string;
  pollInterval?: number;
  startupLimitS?: number;
  announceSteady?: boolean;
  /** `push`: the devices push their alarms to the bridge (a listener on 127.0.0.1), the event check is the safety net. */
  events?: 'push';
  /** Other processes whose CPU is measured over the window (the simulated devices'). */
  watchPids?: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  // Measure the bridge as its container runs it: started with LAUNCH_HEAP_FLAGS (scale-run.ts); BENCH_NO_TUNING=1:
  // V8 defaults, as when embedded.
  const tuned = process.env.BENCH_NO_TUNING ? false : tuneHeapForDaemon();
  const line = await new Promise<string>((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
  const job = JSON.parse(line) as Job;
  const warnings = { n: 0 };
  const { config } = parseConfig(
    {
      mqtt: { url: job.broker, base_topic: job.base },
      homeassistant: { discovery_prefix: job.prefix, status_topic: `${job.prefix}/status` },
      ...(job.events === 'push' ? { push: { address: '127.0.0.1', port: 0, listen: '127.0.0.1' } } : {}),
      devices: job.urls.map((url, i) => ({
        id: `d${i}`,
        url,
        username: 'admin',
        password: job.password,
        poll_interval: job.pollInterval ?? 1,
        events: job.events ?? !process.env.BENCH_NO_EVENTS,
      })),
      log_level: 'warn',
    },
    { env: {} },
  );
  // As the CLI does once it knows the devices: the young generation for this many.
  const young = sizeYoungGeneration(config.devices.length);
  let peakRss = process.memoryUsage().rss;
  let ticks = 0;
  let lastCpu = process.cpuUsage();
  let lastAt = Date.now();
  let lastElu = performance.eventLoopUtilization();
  // BENCH_DEBUG: time spent in garbage collection since the last line, minor (scavenge) and major (mark-compact).
  const gcMs = { minor: 0, major: 0 };
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail: NodeGCPerformanceDetail }).detail.kind;
      if (kind === perf.NODE_PERFORMANCE_GC_MINOR) gcMs.minor += e.duration;
      else gcMs.major += e.duration;
    }
  });
  if (process.env.BENCH_DEBUG) gcObserver.observe({ entryTypes: ['gc'] });
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    // BENCH_DEBUG: a memory timeline on stderr, each second (where a start-up peak comes from).
    if (process.env.BENCH_DEBUG && ++ticks % 4 === 0) {
      const mb = (n: number) => (n / 1048576).toFixed(0);
      // Over the time since the last line (a loaded loop runs this late), in % of one core (GC threads included).
      const cpu = process.cpuUsage(lastCpu);
      const wallMs = Date.now() - lastAt;
      lastCpu = process.cpuUsage();
      lastAt = Date.now();
      // The main thread's share of the time busy (1: every turn runs into the next; the rest of `cpu` is V8's helpers).
      const elu = performance.eventLoopUtilization(lastElu);
      lastElu = performance.eventLoopUtilization();
      process.stderr.write(
        `  t=${((Date.now() - t0) / 1000).toFixed(0)}s published ${firstPublished.size} cpu ${((cpu.user + cpu.system) / 10 / wallMs).toFixed(0)}% loop ${(100 * elu.utilization).toFixed(0)}% rss ${mb(m.rss)} heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} arrayBuffers ${mb(m.arrayBuffers)} gc ${gcMs.minor.toFixed(0)}+${gcMs.major.toFixed(0)} ms\n`,
      );
      gcMs.minor = gcMs.major = 0;
    }
  }, 250);
  // When each device's first channel state reached MQTT, and when a channel's motion turned true.
  const channelTopic = (i: number) => `${job.base}/d${i}/ch1`;
  const firstPublished = new Map<string, number>();
  const motionOn: Record<string, number[]> = {};
  const motion = new Map<string, boolean>();
  const devicesOf = new Set(job.urls.map((_, i) => channelTopic(i)));
  const t0 = Date.now();
  const bridge = await startBridge(config, {
    log: createLogger({
      level: 'warn',
      sink: (level, msg) => {
        // BENCH_DEBUG: the first few warnings on stderr (the count alone says little).
        if (process.env.BENCH_DEBUG && warnings.n < 5) process.stderr.write(`  ${level}: ${msg}\n`);
        warnings.n++;
      },
    }),
    startConcurrency: process.env.BENCH_START_CONCURRENCY ? Number(process.env.BENCH_START_CONCURRENCY) : undefined,
    onPublish: (topic, payload) => {
      if (!devicesOf.has(topic) || !payload) return;
      if (!firstPublished.has(topic)) firstPublished.set(topic, Date.now());
      const on = (JSON.parse(payload) as { motion?: boolean }).motion === true;
      if (on && !motion.get(topic)) (motionOn[topic] ??= []).push(Date.now());
      motion.set(topic, on);
    },
  });
  const limit = (job.startupLimitS ?? 60) * 4;
  for (let i = 0; i < limit && firstPublished.size < job.urls.length; i++) await sleep(250);
  const online = [...bridge.devices.values()].filter((h) => h.online).length;
  const published = firstPublished.size;
  const allPublishedMs = published === job.urls.length ? Math.max(...firstPublished.values()) - t0 : NaN;
  const warmupMs = Date.now() - t0;
  await sleep(3000); // first full publish and discovery settle
  const peakStartup = peakRss;
  const sum = () => {
    const s = { completed: 0, failed: 0, missed: 0 };
    for (const st of Object.values(bridge.pollStats())) {
      s.completed += st.completed;
      s.failed += st.failed;
      s.missed += st.missed;
    }
    return s;
  };
  const before = sum();
  const published0 = bridge.published;
  if (job.announceSteady) process.stdout.write(`${JSON.stringify({ phase: 'steady' })}\n`);
  const windowT0 = Date.now();
  const cpu0 = process.cpuUsage();
  const load0 = loadMark(job.watchPids ?? []);
  const wall0 = process.hrtime.bigint();
  peakRss = process.memoryUsage().rss;
  await sleep(job.seconds * 1000);
  const cpu = process.cpuUsage(cpu0);
  const load = loadBetween(load0, loadMark(job.watchPids ?? []));
  const wallUs = Number(process.hrtime.bigint() - wall0) / 1000;
  const windowT1 = Date.now();
  const after = sum();
  clearInterval(sampler);
  gcObserver.disconnect();
  const completed = after.completed - before.completed;
  const publishedIdle = bridge.published - published0;
  const due = (job.urls.length * wallUs) / 1e6 / (job.pollInterval ?? 1); // one poll per device per interval
  const result = {
    scale_devices: job.urls.length,
    scale_devices_online: online,
    scale_warmup_s: warmupMs / 1000,
    scale_devices_published: published,
    scale_all_published_s: allPublishedMs / 1000,
    scale_poll_interval_s: job.pollInterval ?? 1,
    scale_seconds: job.seconds,
    bridge_cpu_percent_of_one_core: (100 * (cpu.user + cpu.system)) / wallUs,
    machine_cpu_percent_of_one_core: load.machine,
    // Only where there are processes to watch (`scale_1000`'s farm): the `bridge` part gives none.
    ...(job.watchPids ? { watched_cpu_percent_of_one_core: load.processes } : {}),
    bridge_peak_rss_mb: Math.max(peakRss, peakStartup) / (1 << 20),
    bridge_peak_rss_steady_mb: peakRss / (1 << 20),
    bridge_peak_rss_startup_mb: peakStartup / (1 << 20),
    bridge_heap_used_mb: process.memoryUsage().heapUsed / (1 << 20),
    polls_due: Math.round(due),
    polls_completed: completed,
    polls_failed: after.failed - before.failed,
    polls_missed_slots: after.missed - before.missed,
    polls_completed_ratio: completed / due,
    idle_mqtt_messages: publishedIdle,
    idle_mqtt_messages_per_poll: completed ? publishedIdle / completed : NaN,
    scale_warnings_logged: warnings.n,
    scale_v8_heap: young === undefined ? tuned || 'defaults' : `${tuned}, semi-spaces ${young ? 'up to 16 MB' : 'as started'}`,
    scale_events_on: process.env.BENCH_NO_EVENTS ? 0 : 1,
  };
  if (process.env.BENCH_DEBUG) {
    for (const sp of getHeapSpaceStatistics()) {
      process.stderr.write(
        `  ${sp.space_name} used ${(sp.space_used_size / 1048576).toFixed(1)} MB of ${(sp.space_size / 1048576).toFixed(1)} MB\n`,
      );
    }
    const m = process.memoryUsage();
    process.stderr.write(
      `  rss ${(m.rss / 1048576).toFixed(0)} heapTotal ${(m.heapTotal / 1048576).toFixed(0)} external ${(m.external / 1048576).toFixed(0)} arrayBuffers ${(m.arrayBuffers / 1048576).toFixed(0)}\n`,
    );
  }
  const extra = job.announceSteady ? { motion_on: motionOn, window_t0: windowT0, window_t1: windowT1 } : {};
  // The figures first: a thousand logouts on a loaded machine must not hold them back.
  process.stdout.write(`${JSON.stringify({ ...result, ...extra })}\n`);
  await Promise.race([bridge.stop(), sleep(30_000)]);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`bridge-scale: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
