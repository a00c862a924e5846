/**
 * Child process of the bridge benchmarks: N simulated devices (and optionally an MQTT broker), so that the
 * bridge's CPU and memory are measured alone. Prints one JSON line `{"urls": [...], "broker"?: "mqtt://..."}`
 * and runs until stdin closes or SIGTERM. The device password comes from NVR2MQTT_BENCH_PASSWORD.
 *   node dist/bench/sim-farm.js --devices 100 --channels 16 [--broker] [--log-limit 50] [--event-hold-ms 0]
 * Commands, one JSON line each on stdin, answered by one JSON line on stdout (see FarmCommand):
 *   {"cmd":"count","since":t,"until":t}   requests and TCP connects of all devices in [since, until)
 *                                          -> {"count": n, "byPath": {...}, "connects": n}
 *   {"cmd":"log","device":i,"since":t}    the request log of device i from `since` -> {"log": [...]}
 *   {"cmd":"alarm","device":i,"channel":"CH1","active":true}   raise or end a motion alarm -> {"at": epoch ms}
 */
import { createInterface } from 'node:readline';
import { startEmbeddedBroker, type EmbeddedBroker } from '../bridge/mqtt/broker';
import { startSimulator, type Simulator } from '../simulator';

export type FarmCommand =
  | { cmd: 'count'; since: number; until: number }
  | { cmd: 'log'; device: number; since: number }
  | { cmd: 'alarm'; device: number; channel: string; active: boolean };

function answer(sims: Simulator[], c: FarmCommand): unknown {
  switch (c.cmd) {
    case 'count': {
      const byPath: Record<string, number> = {};
      let connects = 0;
      for (const s of sims) {
        for (const e of s.log) if (e.time >= c.since && e.time < c.until) byPath[e.path] = (byPath[e.path] ?? 0) + 1;
        for (const t of s.connects) if (t >= c.since && t < c.until) connects++;
      }
      return { count: Object.values(byPath).reduce((a, b) => a + b, 0), byPath, connects };
    }
    case 'log':
      return { log: sims[c.device].log.filter((e) => e.time >= c.since).map(({ time, path, data }) => ({ time, path, data })) };
    case 'alarm':
      sims[c.device].raiseAlarm({ channel: c.channel, type: 'motion', active: c.active });
      return { at: Date.now() };
  }
}

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string, dflt: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const devices = arg('--devices', 100);
  const channels = arg('--channels', 16);
  const logLimit = arg('--log-limit', 50);
  const holdMs = arg('--event-hold-ms', -1);
  const password = process.env.NVR2MQTT_BENCH_PASSWORD;
  if (!password) throw new Error('NVR2MQTT_BENCH_PASSWORD is required');
  const hold = holdMs >= 0 ? { eventHold: holdMs > 0, eventHoldMs: holdMs } : {};
  const sims: Simulator[] = [];
  for (let i = 0; i < devices; i++) sims.push(await startSimulator({ password, channels, logLimit, quiet: true, ...hold }));
  let broker: EmbeddedBroker | undefined;
  if (args.includes('--broker')) broker = await startEmbeddedBroker({ port: 0 });
  process.stdout.write(`${JSON.stringify({ urls: sims.map((s) => s.url), broker: broker?.url })}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all(sims.map((s) => s.stop()));
    await broker?.stop();
    process.exit(0);
  };
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let out: unknown;
    try {
      out = answer(sims, JSON.parse(line) as FarmCommand);
    } catch (err) {
      out = { error: String((err as Error).message) };
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  });
  lines.on('close', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  process.stderr.write(`sim-farm: ${(err as Error).message}\n`);
  process.exit(1);
});
