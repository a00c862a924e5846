/**
 * Child process of the bridge benchmark: N simulated devices (and optionally an MQTT broker), so that the
 * bridge's CPU and memory are measured alone. Prints one JSON line `{"urls": [...], "broker"?: "mqtt://..."}`
 * and runs until stdin closes or SIGTERM. The device password comes from NVR2MQTT_BENCH_PASSWORD.
 *   node dist/bench/sim-farm.js --devices 100 --channels 16 [--broker]
 */
import { startEmbeddedBroker, type EmbeddedBroker } from '../bridge/broker';
import { startSimulator, type Simulator } from '../simulator';

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string, dflt: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const devices = arg('--devices', 100);
  const channels = arg('--channels', 16);
  const password = process.env.NVR2MQTT_BENCH_PASSWORD;
  if (!password) throw new Error('NVR2MQTT_BENCH_PASSWORD is required');
  const sims: Simulator[] = [];
  for (let i = 0; i < devices; i++) sims.push(await startSimulator({ password, channels, logLimit: 50, quiet: true }));
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
  process.stdin.on('end', () => void stop());
  process.stdin.on('close', () => void stop());
  process.stdin.resume();
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  process.stderr.write(`sim-farm: ${(err as Error).message}\n`);
  process.exit(1);
});
