/**
 * Runs the bridge (bench/bridge-scale.ts), the bare poller (bench/bare-poller.ts) or the Python peer
 * (bench/peer-poller.py) in a child process of its own against a farm, hands it its job and collects its figures.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { LAUNCH_HEAP_FLAGS } from '../bridge/app/tuning';
import { clearRetained } from '../test/helpers/mqtt-broker';
import type { BareJob } from './bare-poller';

export interface BridgeJob {
  urls: string[];
  password: string;
  broker: string;
  seconds: number;
  pollInterval: number;
  startupLimitS?: number;
  events?: 'push';
  /** Processes whose CPU the bridge's child also measures over its window (the farm's: bench/machine-load.ts). */
  watchPids?: number[];
}

export type Figures = Record<string, unknown>;

/**
 * Node flags of the bridge's process: as its container starts it (LAUNCH_HEAP_FLAGS); BENCH_BRIDGE_NODE_ARGS: flags
 * of its own instead (to try heap settings), BENCH_NO_TUNING: none.
 */
export function bridgeNodeFlags(): string[] {
  const own = process.env.BENCH_BRIDGE_NODE_ARGS?.split(/\s+/).filter(Boolean);
  return own ?? (process.env.BENCH_NO_TUNING ? [] : [...LAUNCH_HEAP_FLAGS]);
}

/**
 * The child's stdout lines as they come; the last one holds its figures. A child that has not given them within
 * `limitS` is killed and the run fails with that said (CI's run stays bounded on a machine too slow for it).
 */
async function runChild(argv: string[], job: unknown, limitS: number, onLine?: (line: Figures) => void): Promise<Figures> {
  const script = basename(argv[argv.length - 1]);
  const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  let timer: NodeJS.Timeout | undefined;
  try {
    child.stdin.write(`${JSON.stringify(job)}\n`);
    return await new Promise<Figures>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${script} gave no figures within ${limitS} s`)), limitS * 1000);
      createInterface({ input: child.stdout }).on('line', (l) => {
        const parsed = JSON.parse(l) as Figures;
        if (parsed.phase) onLine?.(parsed);
        else resolve(parsed);
      });
      child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
    });
  } finally {
    clearTimeout(timer);
    // It logs out of the devices after its figures (bounded): let it, then make sure it is gone.
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      const kill = setTimeout(() => child.kill('SIGKILL'), 40_000);
      await exited;
      clearTimeout(kill);
    }
  }
}

/**
 * The bridge with events on; `onSteady` is called when its measured window starts. On a shared broker
 * (BENCH_MQTT_URL) its retained topics are cleared afterwards.
 */
export async function runBridge(job: BridgeJob, onSteady?: () => void): Promise<Figures> {
  const tag = randomBytes(3).toString('hex');
  const topics = { base: `nvr2mqtt_bench_${tag}`, prefix: `ha_bench_${tag}` };
  try {
    const limitS = (job.startupLimitS ?? 60) + job.seconds + 120;
    return {
      ...(await runChild(
        [process.execPath, ...bridgeNodeFlags(), join(__dirname, 'bridge-scale.js')],
        { ...job, ...topics, announceSteady: true },
        limitS,
        () => onSteady?.(),
      )),
      ...topics,
    };
  } finally {
    if (process.env.BENCH_MQTT_URL) await clearRetained(process.env.BENCH_MQTT_URL, [topics.base, topics.prefix], 1000);
  }
}

export function runBare(job: BareJob): Promise<Figures> {
  return runChild([process.execPath, join(__dirname, 'bare-poller.js')], job, job.seconds + 120);
}

/** The Python peer (bench/peer-poller.py) on the bare poller's job; `peer` as `peerSetup()` found it. */
export function runPeer(job: BareJob, peer: PeerSetup): Promise<Figures> {
  return runChild([peer.python, PEER_POLLER], { ...job, peer: peer.dir }, job.seconds + 120);
}

/** Where it runs from: bench/ beside dist/ (the driver is Python, not built). */
const PEER_POLLER = join(__dirname, '..', '..', 'bench', 'peer-poller.py');

export interface PeerSetup {
  python: string;
  dir: string;
}

/**
 * The Python peer can run when BENCH_PEER names the integration's client folder (`custom_components/raysharp_nvr` of a
 * checkout of github.com/11058/OEM-RaySharp-NVR-Ai; its code is not ours to ship) and the Python (BENCH_PYTHON,
 * default python3) imports aiohttp; otherwise, why it does not.
 */
export function peerSetup(): PeerSetup | string {
  const dir = process.env.BENCH_PEER;
  const python = process.env.BENCH_PYTHON ?? 'python3';
  if (!dir) {
    return "not run: set BENCH_PEER to the community integration's custom_components/raysharp_nvr (github.com/11058/OEM-RaySharp-NVR-Ai) and use a python3 with aiohttp (Debian: python3-aiohttp; BENCH_PYTHON)";
  }
  if (!existsSync(join(dir, 'api_client.py'))) return `not run: BENCH_PEER (${dir}) has no api_client.py`;
  const probe = spawnSync(python, ['-c', 'import aiohttp'], { encoding: 'utf8' });
  if (probe.status !== 0)
    return `not run: ${python} cannot import aiohttp (${(probe.stderr || String(probe.error)).trim().split('\n').pop()})`;
  return { python, dir };
}
