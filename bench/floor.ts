/**
 * Cost per device at the floor (printed by bench/run.ts, never asserted), side by side in one run on the same
 * simulated devices (100 x 16 channels in a child process, events on, 15 s polls):
 * 1. the bridge (bench/bridge-scale.ts), alone in its process: CPU in % of one core over the measured window,
 *    peak RSS, device requests per second and TCP connects a device a minute (both counted at the simulators);
 * 2. the bare poller (bench/bare-poller.ts): undici `request` on a keep-alive Pool + `JSON.parse`, making the
 *    requests the bridge made to device 0 in its window (one poll's requests every poll interval, the
 *    heartbeat at its period, Event/Check at the bridge's pace) on every device: the same figures (its Pool takes
 *    the first free connection, so the second idles out after a poll and the next poll opens it again);
 * 3. both again with one device: the process's base, so that memory per device beyond it can be given;
 * 4. the ratios bridge / bare (goals: CPU <= 1.5, peak RSS <= 1.10, <= 0.4 MB per device beyond the base).
 * 5. the Python peer (bench/peer-poller.py: the community integration's own client) on the bare poller's job, where
 *    it can run (BENCH_PEER, see peerSetup); otherwise the bench says why instead of giving a number.
 * BENCH_FLOOR_SECONDS: the measured window (default 60). BENCH_MQTT_URL: use that broker.
 */
import { randomBytes } from 'node:crypto';
import type { BareJob } from './bare-poller';
import { Farm } from './farm';
import { peerSetup, runBare, runBridge, runPeer, type Figures, type PeerSetup } from './scale-run';

const DEVICES = 100;
const CHANNELS = 16;
const POLL_S = 15;
const EVENTS = '/API/Event/Check';
const CHANNEL_INFO = '/API/Login/ChannelInfo/Get';

type Entry = { time: number; path: string; data: unknown };

/**
 * What the bare poller sends: the requests of device 0's last complete poll (from one ChannelInfo Get to the
 * next, from its request log), and every other request at the rate the bridge sent it to all devices in its
 * measured window (`byPath`, over `spanMs`): the event checks and the heartbeat.
 */
export function scriptOf(
  log: Entry[],
  byPath: Record<string, number>,
  spanMs: number,
  devices: number,
): Pick<BareJob, 'poll' | 'extras' | 'eventIntervalMs'> {
  const starts = log.map((e, i) => (e.path === CHANNEL_INFO ? i : -1)).filter((i) => i >= 0);
  if (starts.length < 2) throw new Error(`device 0 polled ${starts.length} times: too short a run`);
  const poll = log.slice(starts[starts.length - 2], starts[starts.length - 1]).filter((e) => e.path !== EVENTS);
  const inPoll = new Set(poll.map((e) => e.path));
  const periodOf = (path: string) => Math.round((devices * spanMs) / byPath[path]);
  const extras = Object.keys(byPath)
    .filter((path) => path !== EVENTS && !inPoll.has(path))
    .map((path) => ({ path, data: [...log].reverse().find((e) => e.path === path)?.data ?? {}, periodMs: periodOf(path) }));
  return {
    poll: poll.map(({ path, data }) => ({ path, data })),
    extras,
    eventIntervalMs: byPath[EVENTS] ? periodOf(EVENTS) : 1000,
  };
}

const num = (f: Figures, k: string) => Number(f[k]);

/** The Python peer on the bare poller's job: its CPU, peak RSS, memory per device and requests a second. */
async function measurePeer(
  peer: PeerSetup,
  job: (urls: string[], s: number) => BareJob,
  farm: Farm,
  baseSeconds: number,
  seconds: number,
): Promise<Record<string, number | string>> {
  const { urls } = farm;
  const all = await runPeer(job(urls, seconds), peer);
  const requests = await farm.count(num(all, 't0'), num(all, 't1'));
  const one = await runPeer(job(urls.slice(0, 1), baseSeconds), peer);
  return {
    python_peer: "run: the community integration's RaySharpNVRClient (aiohttp)",
    peer_cpu_percent_of_one_core: num(all, 'cpu_percent'),
    peer_peak_rss_mb: num(all, 'peak_rss_mb'),
    peer_base_rss_mb_1_device: num(one, 'peak_rss_mb'),
    peer_mb_per_device_beyond_base: (num(all, 'peak_rss_mb') - num(one, 'peak_rss_mb')) / (urls.length - 1),
    peer_device_requests_per_s: (requests.count * 1000) / (num(all, 't1') - num(all, 't0')),
    peer_calls_failed: num(all, 'failed'),
  };
}

export async function benchFloor(): Promise<Record<string, number | string>> {
  const seconds = Number(process.env.BENCH_FLOOR_SECONDS ?? 60);
  // The base: one recorder alone, for the memory a device adds beyond it.
  const baseSeconds = Number(process.env.BENCH_FLOOR_BASE_SECONDS ?? Math.min(seconds, 20));
  const password = randomBytes(12).toString('base64url');
  const external = process.env.BENCH_MQTT_URL;
  const farm = await Farm.start({ devices: DEVICES, channels: CHANNELS, password, broker: !external, logLimit: 600 });
  const broker = external ?? farm.broker!;
  try {
    const bridge = await runBridge({ urls: farm.urls, password, broker, seconds, pollInterval: POLL_S });
    const t0 = num(bridge, 'window_t0');
    const t1 = num(bridge, 'window_t1');
    const bridgeRequests = await farm.count(t0, t1);
    const script = scriptOf(await farm.log(0, 0), bridgeRequests.byPath, t1 - t0, DEVICES);
    const bridge1 = await runBridge({ urls: farm.urls.slice(0, 1), password, broker, seconds: baseSeconds, pollInterval: POLL_S });
    const job = (urls: string[], s: number): BareJob => ({
      urls,
      password,
      seconds: s,
      pollIntervalMs: POLL_S * 1000,
      spreadMs: 2000,
      ...script,
    });
    const bare = await runBare(job(farm.urls, seconds));
    const bareRequests = await farm.count(num(bare, 't0'), num(bare, 't1'));
    const bare1 = await runBare(job(farm.urls.slice(0, 1), baseSeconds));
    const peer = peerSetup();
    const peerFigures = typeof peer === 'string' ? { python_peer: peer } : await measurePeer(peer, job, farm, baseSeconds, seconds);

    const cpu = num(bridge, 'bridge_cpu_percent_of_one_core');
    const rss = num(bridge, 'bridge_peak_rss_mb');
    const rss1 = num(bridge1, 'bridge_peak_rss_mb');
    const bareCpu = num(bare, 'cpu_percent');
    const bareRss = num(bare, 'peak_rss_mb');
    const bareRss1 = num(bare1, 'peak_rss_mb');
    return {
      floor_devices: DEVICES,
      floor_channels: CHANNELS,
      floor_poll_interval_s: POLL_S,
      floor_seconds: seconds,
      floor_events_on: 1,
      bridge_cpu_percent_of_one_core: cpu,
      bare_cpu_percent_of_one_core: bareCpu,
      cpu_ratio_bridge_to_bare: cpu / bareCpu,
      cpu_ratio_goal: 1.5,
      bridge_peak_rss_mb: rss,
      bare_peak_rss_mb: bareRss,
      rss_ratio_bridge_to_bare: rss / bareRss,
      rss_ratio_goal: 1.1,
      bridge_base_rss_mb_1_device: rss1,
      bare_base_rss_mb_1_device: bareRss1,
      bridge_mb_per_device_beyond_base: (rss - rss1) / (DEVICES - 1),
      bare_mb_per_device_beyond_base: (bareRss - bareRss1) / (DEVICES - 1),
      mb_per_device_goal: 0.4,
      bridge_device_requests_per_s: (bridgeRequests.count * 1000) / (t1 - t0),
      bare_device_requests_per_s: (bareRequests.count * 1000) / (num(bare, 't1') - num(bare, 't0')),
      bridge_event_checks_per_s: ((bridgeRequests.byPath[EVENTS] ?? 0) * 1000) / (t1 - t0),
      bare_event_checks_per_s: ((bareRequests.byPath[EVENTS] ?? 0) * 1000) / (num(bare, 't1') - num(bare, 't0')),
      bridge_connects_per_device_per_min: (bridgeRequests.connects * 60_000) / (t1 - t0) / DEVICES,
      bare_connects_per_device_per_min: (bareRequests.connects * 60_000) / (num(bare, 't1') - num(bare, 't0')) / DEVICES,
      bare_requests_per_poll: script.poll.length,
      bare_event_interval_ms: script.eventIntervalMs,
      bridge_polls_missed: num(bridge, 'polls_missed_slots'),
      bridge_polls_failed: num(bridge, 'polls_failed'),
      bridge_warnings_logged: num(bridge, 'scale_warnings_logged'),
      ...peerFigures,
      ...(typeof peerFigures.peer_cpu_percent_of_one_core === 'number'
        ? { cpu_ratio_bridge_to_peer: cpu / peerFigures.peer_cpu_percent_of_one_core, cpu_ratio_peer_goal: 1 }
        : {}),
    };
  } finally {
    await farm.stop();
  }
}
