/**
 * A thousand recorders on one bridge (printed by bench/run.ts, never asserted): 1,000 simulated devices x 16
 * channels in four child processes of their own (dealt out in turn), the broker in a fifth, the bridge alone in
 * another (bench/bridge-scale.ts), 15 s polls, events on: paced checks once a second, or (`push`) the devices' own
 * alarm push with a 60 s check as the safety net. Figures: CPU in % of one core over the measured window,
 * peak RSS at start-up and in the steady state, time until every device's state was published, polls missed, and
 * the event latency (a motion alarm raised at a random device at a random moment of the window -> `motion: true` on
 * MQTT, p50/p95), and over the same window the CPU of the whole machine, of the farm and of anything else.
 * Goals (issue 23): CPU < 60 %, peak < 400 MB, all published within 60 s, 0 missed polls, latency p95 < 1.2 s,
 * start-up peak at most 20 % above the steady state.
 * BENCH_SCALE_DEVICES (default 1000), BENCH_SCALE_SECONDS (measured window, default 60), BENCH_SCALE_ALARMS
 * (default 30). BENCH_MQTT_URL: use that broker.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from '../test/helpers/storm';
import { Farm } from './farm';
import { runBridge } from './scale-run';

const CHANNELS = 16;
const POLL_S = 15;
/** How long an alarm stays raised before it ends (the bridge sees both edges). */
const ALARM_HOLD_MS = 2_000;

/** `checks`: the event check once a second (a device that answers at once); `push`: the devices push their alarms. */
export async function benchScale1000(events: 'checks' | 'push' = 'checks'): Promise<Record<string, number | string>> {
  const devices = Number(process.env.BENCH_SCALE_DEVICES ?? 1000);
  const seconds = Number(process.env.BENCH_SCALE_SECONDS ?? 60);
  const alarms = Number(process.env.BENCH_SCALE_ALARMS ?? 30);
  const password = randomBytes(12).toString('base64url');
  const external = process.env.BENCH_MQTT_URL;
  const farm = await Farm.start({ devices, channels: CHANNELS, password, broker: !external, processes: Math.min(4, devices) });
  const raised: Array<{ device: number; at: number }> = [];
  let raising: Promise<void> | undefined;
  // Alarms at random devices and moments of the window, ended before the window closes.
  const raise = async () => {
    const span = Math.max(1_000, seconds * 1000 - ALARM_HOLD_MS - 3_000);
    const times = Array.from({ length: alarms }, () => Math.random() * span).sort((a, b) => a - b);
    const start = Date.now();
    const ends: Array<Promise<unknown>> = [];
    for (const t of times) {
      await sleep(Math.max(0, start + t - Date.now()));
      const device = Math.floor(Math.random() * devices);
      if (raised.some((r) => r.device === device && Date.now() - r.at < ALARM_HOLD_MS + 500)) continue;
      raised.push({ device, at: await farm.alarm(device, 'CH1', true) });
      ends.push(sleep(ALARM_HOLD_MS).then(() => farm.alarm(device, 'CH1', false)));
    }
    await Promise.all(ends);
  };
  try {
    const r = await runBridge(
      {
        urls: farm.urls,
        password,
        broker: external ?? farm.broker!,
        seconds,
        pollInterval: POLL_S,
        startupLimitS: 180,
        watchPids: farm.pids,
        ...(events === 'push' ? { events } : {}),
      },
      () => {
        raising = raise();
      },
    );
    await raising;
    const motionOn = r.motion_on as Record<string, number[]>;
    const latency: number[] = [];
    for (const { device, at } of raised) {
      const seen = motionOn[`${r.base as string}/d${device}/ch1`]?.find((t) => t >= at);
      if (seen !== undefined) latency.push(seen - at);
    }
    const steady = Number(r.bridge_peak_rss_steady_mb);
    const startup = Number(r.bridge_peak_rss_startup_mb);
    return {
      scale_devices: devices,
      scale_channels: CHANNELS,
      scale_poll_interval_s: POLL_S,
      scale_seconds: seconds,
      scale_events: events,
      scale_devices_published: Number(r.scale_devices_published),
      scale_all_published_s: Number(r.scale_all_published_s),
      scale_all_published_goal_s: 60,
      bridge_cpu_percent_of_one_core: Number(r.bridge_cpu_percent_of_one_core),
      bridge_cpu_goal_percent: 60,
      // The same window, the whole machine (2 cores: at most 200) and the simulated devices with their broker; the
      // rest is anything else that ran (a bridge figure far off its usual one, with a large rest: a busy machine).
      machine_cpu_percent_of_one_core: Number(r.machine_cpu_percent_of_one_core),
      farm_cpu_percent_of_one_core: Number(r.watched_cpu_percent_of_one_core),
      other_cpu_percent_of_one_core:
        Number(r.machine_cpu_percent_of_one_core) - Number(r.watched_cpu_percent_of_one_core) - Number(r.bridge_cpu_percent_of_one_core),
      bridge_peak_rss_mb: Number(r.bridge_peak_rss_mb),
      bridge_peak_rss_goal_mb: 400,
      bridge_peak_rss_startup_mb: startup,
      bridge_peak_rss_steady_mb: steady,
      startup_peak_over_steady_percent: (100 * (startup - steady)) / steady,
      startup_peak_over_steady_goal_percent: 20,
      polls_due: Number(r.polls_due),
      polls_completed: Number(r.polls_completed),
      polls_failed: Number(r.polls_failed),
      polls_missed: Number(r.polls_missed_slots),
      alarms_raised: raised.length,
      alarms_seen_on_mqtt: latency.length,
      event_latency_p50_ms: percentile(latency, 50),
      event_latency_p95_ms: percentile(latency, 95),
      event_latency_p95_goal_ms: 1200,
      scale_warnings_logged: Number(r.scale_warnings_logged),
      scale_v8_heap: String(r.scale_v8_heap),
    };
  } finally {
    await farm.stop();
  }
}
