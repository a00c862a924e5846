/**
 * `npm run bench`: measures and prints the figures of every part in one run (never asserted).
 * BENCH_OUT=<file> also writes them as JSON; BENCH_ONLY=client,validator,bridge,bridge_events,floor,scale_1000,scale_1000_push,nodes,events,
 * cameras picks parts; BENCH_SECONDS shortens the bridge scale run (default 60 s, the figure); BENCH_EVENTS_SECONDS
 * the events run (10 s); BENCH_ALARMS the alarms of the bridge's alarm latency run (30); BENCH_FLOOR_SECONDS the bridge vs
 * bare poller run (60 s); BENCH_SCALE_SECONDS, BENCH_SCALE_DEVICES, BENCH_SCALE_ALARMS the 1,000-device run.
 */
import { writeFileSync } from 'node:fs';
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

const PARTS: Record<string, () => Promise<Record<string, number | string>>> = {
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
};

async function main() {
  const only = process.env.BENCH_ONLY?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const results: Record<string, Record<string, number | string> | { error: string }> = {};
  for (const [name, run] of Object.entries(PARTS)) {
    if (only && !only.includes(name)) continue;
    process.stdout.write(`\n== ${name}\n`);
    try {
      results[name] = await run();
      for (const [k, v] of Object.entries(results[name])) console.log(`  ${k.padEnd(40)} ${typeof v === 'number' ? +v.toFixed(3) : v}`);
    } catch (err) {
      results[name] = { error: String((err as Error)?.message ?? err) };
      console.log(`  failed: ${results[name].error}`);
      process.exitCode = 1;
    }
  }
  const out = { node: process.version, date: new Date().toISOString(), results };
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(out, null, 2));
}

void main().then(() => setTimeout(() => process.exit(process.exitCode ?? 0), 100).unref());
