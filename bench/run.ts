/**
 * `npm run bench`: measures and prints the figures of every part (never asserted). Each part runs in a process of
 * its own, so that none inherits another's heap, sockets or timers.
 *
 * BENCH_PROFILE picks what runs and how long:
 *   full (default)  every part, at its full length, one after another;
 *   ci              what .ci/run runs (under 8 minutes on the 2-core CI machine): the headline figures of docs/performance.md at
 *                   the sizes the goals name (floor: 100 recorders against the bare poller; 1,000 recorders with
 *                   checks and with push: start-up, CPU, peak, event latency; alarm to MQTT with checks, a held
 *                   check and push; reliability: storm and outage), with shorter measured windows. The parts that
 *                   measure CPU or memory run alone; the ones that measure only latency and counts (each a light
 *                   load: one simulated recorder) run side by side, and say so (`bench_ran_beside`).
 * BENCH_ONLY=client,validator,bridge,bridge_events,floor,scale_1000,scale_1000_push,nodes,events,cameras,reliability,hostile,slow_stop,speaker,recognition
 * picks parts; BENCH_OUT=<file> also writes the figures as JSON. A part's own knobs (BENCH_SECONDS, BENCH_FLOOR_SECONDS,
 * BENCH_SCALE_SECONDS, ...; see each part) override the profile's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchClient } from './client';
import { benchValidator } from './validator';
import { benchBridge } from './bridge';
import { benchBridgeEvents } from './bridge-events';
import { benchNodes } from './nodes';
import { benchEvents } from './events';
import { benchFloor } from './floor';
import { benchScale1000 } from './scale-1000';
import { benchCameras } from './cameras';
import { benchReliability } from './reliability';
import { benchSpeaker } from './speaker';
import { benchRecognition } from './recognition';
import { benchHostile } from './hostile';
import { benchSlowStop } from './slow-stop';

type Figures = Record<string, number | string>;

const PARTS: Record<string, () => Promise<Figures>> = {
  client: benchClient,
  validator: async () => ({ ...(await benchValidator()) }),
  bridge: () => benchBridge(),
  bridge_events: benchBridgeEvents,
  floor: benchFloor,
  scale_1000: () => benchScale1000('checks'),
  scale_1000_push: () => benchScale1000('push'),
  nodes: benchNodes,
  events: benchEvents,
  cameras: benchCameras,
  reliability: benchReliability,
  speaker: benchSpeaker,
  recognition: benchRecognition,
  hostile: benchHostile,
  slow_stop: benchSlowStop,
};

interface Profile {
  /** Settings of the parts' own knobs, where the environment sets none. */
  env: Record<string, string>;
  /** Steps in order; the parts of one step run side by side. */
  steps: string[][];
}

const PROFILES: Record<string, Profile> = {
  full: { env: {}, steps: Object.keys(PARTS).map((p) => [p]) },
  ci: {
    env: {
      // Measured windows: the floor's 100 recorders make about 107 requests a second (their event checks
      // dominate), so 30 s hold thousands; the 1,000 recorders' window starts 3 s after the last one was published,
      // while the first minute's follow-up reads still run (30 s measured 60 % of a core where 60 s measured 50 %
      // on the same machine), so it is 40 s. The sizes stay the goals'.
      BENCH_FLOOR_SECONDS: '30',
      BENCH_FLOOR_BASE_SECONDS: '10',
      BENCH_SCALE_SECONDS: '40',
      BENCH_OUTAGE_SECONDS: '30',
      BENCH_OUTAGE_EDGES: '300',
      BENCH_STORM_SECONDS: '15',
      BENCH_ALARMS: '20',
      BENCH_EVENTS_SECONDS: '5',
      BENCH_SLOW_N: '100',
    },
    steps: [['client', 'validator', 'events', 'bridge_events', 'reliability'], ['floor'], ['scale_1000'], ['scale_1000_push']],
  },
};

/** In a part's own process (BENCH_PART): run it, print its figures, write them to BENCH_OUT. */
async function runPart(name: string): Promise<void> {
  const started = Date.now();
  let figures: Figures | { error: string };
  try {
    figures = await PARTS[name]();
  } catch (err) {
    figures = { error: String((err as Error)?.message ?? err) };
    process.exitCode = 1;
  }
  writeFileSync(process.env.BENCH_OUT!, JSON.stringify({ figures, seconds: (Date.now() - started) / 1000 }));
}

interface PartResult {
  figures: Figures | { error: string };
  seconds: number;
}

/** A part in a child process of this script; its output (progress of its own children) kept for printing. */
function spawnPart(name: string, env: Record<string, string>, dir: string): Promise<PartResult & { output: string }> {
  const out = join(dir, `${name}.json`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [__filename], {
      env: { ...process.env, ...env, BENCH_PART: name, BENCH_OUT: out },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('close', (code, signal) => {
      let result: PartResult;
      try {
        result = JSON.parse(readFileSync(out, 'utf8')) as PartResult;
      } catch {
        result = { figures: { error: `the part's process ended (${signal ?? `exit ${code}`}) without figures` }, seconds: 0 };
      }
      resolve({ ...result, output });
    });
  });
}

async function main(): Promise<void> {
  const profileName = process.env.BENCH_PROFILE || 'full';
  const profile = PROFILES[profileName];
  if (!profile) throw new Error(`BENCH_PROFILE: no profile ${profileName} (${Object.keys(PROFILES).join(', ')})`);
  const only = process.env.BENCH_ONLY?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only?.filter((p) => !PARTS[p]) ?? [];
  if (unknown.length) throw new Error(`BENCH_ONLY: no part ${unknown.join(', ')} (${Object.keys(PARTS).join(', ')})`);
  // With BENCH_ONLY every part named runs, in the full profile's order where the profile leaves it out.
  const steps = only
    ? [
        ...profile.steps.map((s) => s.filter((p) => only.includes(p))),
        ...only.filter((p) => !profile.steps.flat().includes(p)).map((p) => [p]),
      ]
    : profile.steps;
  const env = Object.fromEntries(Object.entries(profile.env).filter(([k]) => process.env[k] === undefined));
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-bench-'));
  const started = Date.now();
  const results: Record<string, Figures | { error: string }> = {};
  console.log(
    `bench: profile ${profileName}${
      Object.keys(env).length
        ? ` (${Object.entries(env)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')})`
        : ''
    }`,
  );
  try {
    for (const step of steps.filter((s) => s.length)) {
      const done = await Promise.all(step.map((name) => spawnPart(name, env, dir)));
      step.forEach((name, i) => {
        const r = done[i];
        const beside = step.filter((p) => p !== name);
        results[name] = 'error' in r.figures || !beside.length ? r.figures : { ...r.figures, bench_ran_beside: beside.join(',') };
        process.stdout.write(`\n== ${name}\n`);
        if (r.output.trim()) process.stdout.write(r.output.replace(/^/gm, '  | ').replace(/ {2}\| $/, ''));
        for (const [k, v] of Object.entries(results[name])) console.log(`  ${k.padEnd(40)} ${typeof v === 'number' ? +v.toFixed(3) : v}`);
        if ('error' in results[name]) {
          console.log(`  failed: ${results[name].error}`);
          process.exitCode = 1;
        }
        console.log(`  (${name}: ${r.seconds.toFixed(0)} s)`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(`\nbench: ${Object.keys(results).length} parts in ${seconds.toFixed(0)} s (profile ${profileName})`);
  const out = { node: process.version, date: new Date().toISOString(), profile: profileName, seconds, results };
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 2));
}

const part = process.env.BENCH_PART;
void (part ? runPart(part) : main())
  .catch((err: Error) => {
    console.error(`bench: ${err.message}`);
    process.exitCode = 1;
  })
  .then(() => setTimeout(() => process.exit(process.exitCode ?? 0), 100).unref());
