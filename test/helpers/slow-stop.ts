/**
 * The real command in a child process against a simulated device that takes `answerMs` per answer from the moment a
 * command is on the wire, then SIGTERM: how long until it exited, its exit code, and what it said on MQTT meanwhile.
 * Shared by test/bridge/slow-stop.test.ts (the 8 s bound) and bench/slow-stop.ts (the figure).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../../simulator';
import { clearRetained, Recorder, startTestBroker, uniqueTopics, type Message } from './mqtt-broker';
import { until } from './until';

const CLI = join(__dirname, '..', '..', 'bridge', 'app', 'cli.js');

export interface SlowStop {
  /** From SIGTERM to the process's exit, in ms; undefined when it had not exited after 30 s (then killed). */
  exitMs?: number;
  code: number | null;
  /** What the bridge published after the command. */
  after: Message[];
  base: string;
  /** Retained `bridge/state` at the end. */
  state?: string;
  /** Everything the process printed. */
  out: string;
}

export async function stopWithSlowDevice(answerMs: number): Promise<SlowStop> {
  const broker = await startTestBroker();
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const sim = await startSimulator({ password, logLimit: 100_000 });
  const { base, prefix } = uniqueTopics('slowstop');
  const dir = mkdtempSync(join(tmpdir(), 'slowstop-'));
  const file = join(dir, 'config.yaml');
  // JSON is YAML.
  writeFileSync(
    file,
    JSON.stringify({
      mqtt: { url: broker.url, base_topic: base },
      homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
      devices: [{ id: 'nvr', url: sim.url, username: 'admin', password, poll_interval: 2, events: false, request_rate: 50 }],
      log_level: 'info',
    }),
  );
  const r = await Recorder.start(broker.url);
  let child: ChildProcess | undefined;
  let out = '';
  try {
    child = spawn(process.execPath, [CLI, '--config', file], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await r.waitTopic(`${base}/nvr/availability`, (j) => j.state === 'online', 20_000);
    await r.waitTopic(`${base}/nvr/ch1`, () => true, 10_000);
    // From now on every answer takes the device answerMs.
    sim.fault({ kind: 'latency', ms: answerMs });
    const since = r.count;
    await r.publish(`${base}/nvr/ch1/set/siren_volume`, '4');
    await until(() => sim.held > 0, 'a request held by the device');
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    const t0 = performance.now();
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'late'>((res) => setTimeout(() => res('late'), 30_000).unref())]);
    const exitMs = code === 'late' ? undefined : performance.now() - t0;
    // The retained state as a new subscriber reads it.
    const reader = await Recorder.start(broker.url, [`${base}/bridge/state`]);
    await until(() => reader.messages.length > 0, 'the retained bridge/state', 3000).catch(() => undefined);
    const state = reader.lastJson(`${base}/bridge/state`)?.state;
    await reader.stop();
    return {
      exitMs,
      code: code === 'late' ? null : code,
      after: r.messages.slice(since),
      base,
      state: typeof state === 'string' ? state : undefined,
      out,
    };
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await sim.stop();
    await clearRetained(broker.url, [base, prefix]);
    await r.stop();
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
