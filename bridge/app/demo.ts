/**
 * `nvr2mqtt` without a config: an embedded MQTT broker (127.0.0.1, port 1883 or the next free one; `--host` and
 * `--port` place it, e.g. on every interface for a Home Assistant on another machine), a simulated 8-channel
 * recorder with a random password, and the bridge between them, so that a newcomer sees topics flow at once (the
 * recorder raises an alarm now and then: motion and person sensors flip; CH1's floodlight goes on and off by itself).
 * Prints the broker URL and (throttled) what is published.
 */
import { randomBytes } from 'node:crypto';
import { LIVE_PAGE, startSimulator, type Simulator } from '../../simulator';
import { startBridge, type Bridge } from '../bridge';
import { embeddedBrokerOptions, startEmbeddedBroker, type EmbeddedBroker } from '../mqtt/broker';
import { parseConfig } from '../base/config';
import { createLogger, type LogLevel } from '../base/log';

export interface DemoOptions {
  /** Address the broker listens on (default 127.0.0.1; 0.0.0.0: every interface). */
  host?: string;
  /** The broker's port: exactly this one (0 = any free one). Default: 1883 or the next free one. */
  port?: number;
  /** Output lines (default stdout). */
  out?: (line: string) => void;
  /** Published messages printed per second at most (default 40: the whole start-up burst of the demo recorder). */
  linesPerSecond?: number;
  /** Switch CH1's live floodlight on the simulated device every so often, so that changes flow (default 20000 ms; 0 = off). */
  changeEveryMs?: number;
  /** The simulated recorder raises a random alarm (start, then end) this often (default 15000 ms; 0 = off). */
  alarmEveryMs?: number;
  logLevel?: LogLevel;
}

export interface Demo {
  brokerUrl: string;
  simulatorUrl: string;
  bridge: Bridge;
  stop(): Promise<void>;
}

function short(payload: string, n = 100): string {
  const one = payload.replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n)}...` : one;
}

export async function runDemo(opts: DemoOptions = {}): Promise<Demo> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const password = randomBytes(12).toString('base64url');
  let broker: EmbeddedBroker | undefined;
  let sim: Simulator | undefined;
  try {
    broker = await startEmbeddedBroker(embeddedBrokerOptions({ host: opts.host, port: opts.port }));
    // Alarms now and then, so that motion and person sensors flip without anyone walking past a camera.
    const alarmEveryMs = opts.alarmEveryMs ?? 15_000;
    sim = await startSimulator({ password, channels: 8, profile: 'nvr', ...(alarmEveryMs > 0 ? { alarmEveryMs } : {}) });
  } catch (err) {
    await broker?.stop();
    throw err;
  }
  const { config } = parseConfig(
    {
      // No url: the bridge takes the demo's broker as its embedded one (a fresh broker: no other instance to probe for).
      devices: [{ id: 'demo_nvr', name: 'Demo NVR', url: sim.url, username: 'admin', password, poll_interval: '2s' }],
      log_level: opts.logLevel ?? 'info',
    },
    { env: {} },
  );

  printIntro(out, broker, sim.url);
  const printer = publishPrinter(out, opts.linesPerSecond ?? 40);

  const log = createLogger({ level: config.log_level, sink: (level, line) => out(`   [${level}] ${line}`) });
  let bridge: Bridge;
  try {
    bridge = await startBridge(config, { log, onPublish: printer.onPublish, broker: { started: broker } });
  } catch (err) {
    printer.stop();
    await sim.stop();
    await broker.stop();
    throw err;
  }

  const timer = floodlightChanges(sim, opts.changeEveryMs ?? 20_000, out);

  let stopped: Promise<void> | undefined;
  return {
    brokerUrl: broker.url,
    simulatorUrl: sim.url,
    bridge,
    stop() {
      stopped ??= (async () => {
        if (timer) clearInterval(timer);
        printer.stop();
        printer.flush();
        await bridge.stop();
        out(`-> ${bridge.topics.bridgeState} (retained) {"state":"offline"}`);
        await sim.stop();
        await broker.stop();
      })();
      return stopped;
    },
  };
}

/** What the demo is and how to watch and command it. */
function printIntro(out: (line: string) => void, broker: EmbeddedBroker, simulatorUrl: string): void {
  out('nvr2mqtt demo: a simulated 8-channel recorder bridged to an embedded MQTT broker');
  out(`MQTT broker: ${broker.url}`);
  if (broker.host !== '127.0.0.1' && broker.host !== '::1' && broker.host !== 'localhost')
    out(
      `  listening on ${broker.host}:${broker.port}: Home Assistant's MQTT integration can use this machine's address, port ${broker.port}`,
    );
  out(`simulated recorder: ${simulatorUrl} (user admin, random password)`);
  const host = new URL(broker.url).hostname;
  out(`watch:   mosquitto_sub -h ${host} -p ${broker.port} -t 'nvr2mqtt/#' -v`);
  out(`command: mosquitto_pub -h ${host} -p ${broker.port} -t nvr2mqtt/demo_nvr/ch1/set/floodlight -m ON`);
  out('Ctrl-C stops the demo.');
}

/** Prints what is published, at most `perSecond` lines a second, then one summary line. */
function publishPrinter(out: (line: string) => void, perSecond: number) {
  let windowStart = Date.now();
  let inWindow = 0;
  let skipped = 0;
  const flush = () => {
    if (skipped) out(`   ... and ${skipped} more message${skipped > 1 ? 's' : ''}`);
    windowStart = Date.now();
    inWindow = 0;
    skipped = 0;
  };
  const onPublish = (topic: string, payload: string, retain: boolean) => {
    if (Date.now() - windowStart >= 1000) flush();
    if (inWindow++ < perSecond) out(`-> ${topic}${retain ? ' (retained)' : ''} ${short(payload)}`);
    else skipped++;
  };
  const flusher = setInterval(() => {
    if (skipped && Date.now() - windowStart >= 1000) flush();
  }, 1000);
  flusher.unref();
  return { onPublish, flush, stop: () => clearInterval(flusher) };
}

/** Every `every` ms (0: never), CH1's floodlight switched on the simulated device itself, so that changes flow. */
function floodlightChanges(sim: Simulator, every: number, out: (line: string) => void): NodeJS.Timeout | undefined {
  if (every <= 0) return undefined;
  const timer = setInterval(() => {
    try {
      // The light itself (live page), as if someone had switched it at the recorder: the device reports it.
      const on = sim.state[LIVE_PAGE]?.channel_info?.CH1?.floodlight_switch;
      if (typeof on === 'boolean') {
        sim.setLive('CH1', { floodlight_switch: !on });
        out(`   demo: floodlight of CH1 switched ${on ? 'off' : 'on'} on the device itself`);
      }
    } catch {
      // the demo change is decoration only
    }
  }, every);
  timer.unref();
  return timer;
}
