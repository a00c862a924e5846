/**
 * Shared setup of the bridge tests: a real broker (test/helpers/mqtt-broker.ts), simulated devices, a
 * recorder on `#` keeping the test's own topics, and the bridge with short poll intervals and fast retries. `stop()` closes everything,
 * clears retained topics, and checks that no password appeared in any MQTT message or log line.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../simulator';
import { startBridge, type Bridge, type BridgeOptions } from '../../bridge/bridge';
import { parseConfig, type BridgeConfig } from '../../bridge/base/config';
import { createLogger } from '../../bridge/base/log';
import { clearRetained, Recorder, startTestBroker, uniqueTopics, type TestBroker } from '../helpers/mqtt-broker';
import { asHomeAssistantReads } from './homeassistant';

export { until } from '../helpers/until';

export interface DeviceSpec {
  id: string;
  sim?: Omit<SimulatorOptions, 'password'>;
  /** Poll interval (default 0.3 s); null: the config default. */
  poll?: number | string | null;
  channels?: string[];
  /** The device password (default: a random one). */
  password?: string;
  /** Config `events`, `event_interval`, `alarm_clear_after` (default: the config's defaults). */
  events?: boolean | 'push';
  eventInterval?: number | string;
  alarmClearAfter?: number | string;
  /** Config `alarm_code`. */
  alarmCode?: string;
  /** Config `cameras` (the cameras' own passwords). */
  cameras?: Record<string, { password?: string; password_file?: string }>;
  /**
   * Config `request_rate` / `request_queue`. Default 50 a second: the tests' 0.3 s polls alone would take more than
   * the config's default budget, and requests from outside wait behind polls.
   */
  budget?: { rate: number; queue?: number };
}

export interface Fixture {
  broker: TestBroker;
  recorder: Recorder;
  sims: Map<string, Simulator>;
  passwords: string[];
  bridge: Bridge;
  config: BridgeConfig;
  base: string;
  prefix: string;
  logs: string[];
  /** Start a (new) bridge with the same config, e.g. after `bridge.stop()`; `opts` beside the fixture's bridge options. */
  restartBridge(config?: BridgeConfig, opts?: BridgeOptions): Promise<Bridge>;
  makeConfig(devices: DeviceSpec[]): BridgeConfig;
  stop(): Promise<void>;
}

export interface FixtureOptions {
  devices?: DeviceSpec[];
  bridge?: BridgeOptions;
  /** Use an embedded aedes even when MQTT_TEST_URL is set (broker restart tests). */
  embedded?: boolean;
  /** Use this broker (a private Mosquitto: test/helpers/mosquitto.ts); the test stops it. */
  brokerUrl?: string;
  label?: string;
  /** Do not wait for the devices' first state. */
  noWait?: boolean;
  mqttPassword?: string;
  /** Config `push` (devices with `events: push`). */
  push?: { address: string; port?: number; listen?: string };
  /** Changes the parsed config before the bridge starts (settings beyond the devices'). */
  tweak?: (config: BridgeConfig) => void;
  /** Runs once the simulators are up, before the bridge starts (faults armed for its first reads). */
  beforeBridge?: (sims: ReadonlyMap<string, Simulator>) => void;
}

/**
 * A round trip through the bridge (a request it refuses at once): everything it published before has been
 * recorded (one connection, QoS 1 messages in order). Replaces "wait and see that nothing came".
 */
export async function settle(fx: Pick<Fixture, 'recorder' | 'base'>, base = fx.base): Promise<void> {
  const tag = `settle-${randomBytes(4).toString('hex')}`;
  const since = fx.recorder.count;
  await fx.recorder.publish(`${base}/bridge/request/refresh`, JSON.stringify({ device: 'no-such-device', transaction: tag }));
  await fx.recorder.waitTopic(`${base}/bridge/response/refresh`, (j) => j.transaction === tag, 5000, since);
}

/** Polls a simulator answered since log index `since` (each poll reads the channel list once). */
export function pollsSince(sim: Simulator, since: number): number {
  return sim.log.slice(since).filter((e) => e.path.endsWith('/ChannelInfo/Get')).length;
}

export async function setup(opts: FixtureOptions = {}): Promise<Fixture> {
  const broker: TestBroker = opts.brokerUrl
    ? {
        url: opts.brokerUrl,
        external: true,
        port: Number(new URL(opts.brokerUrl).port),
        stop: async () => undefined,
        restart: () => Promise.reject(new Error('not restartable')),
      }
    : await startTestBroker({ embedded: opts.embedded });
  const { base, prefix } = uniqueTopics(opts.label);
  const specs = opts.devices ?? [{ id: 'nvr' }];
  const sims = new Map<string, Simulator>();
  const passwords: string[] = [];
  for (const d of specs) {
    const password = d.password ?? `pw-${randomBytes(9).toString('base64url')}`;
    passwords.push(password);
    sims.set(d.id, await startSimulator({ password, logLimit: 100_000, ...d.sim }));
  }
  const makeConfig = (devices: DeviceSpec[]) =>
    parseConfig(
      {
        mqtt: { url: broker.url, base_topic: base, ...(opts.mqttPassword ? { username: 'bridge', password: opts.mqttPassword } : {}) },
        homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
        ...(opts.push ? { push: opts.push } : {}),
        devices: devices.map((d) => ({
          id: d.id,
          name: `Test ${d.id}`,
          url: sims.get(d.id)!.url,
          username: 'admin',
          password: passwords[specs.findIndex((s) => s.id === d.id)],
          ...(d.poll === null ? {} : { poll_interval: d.poll ?? 0.3 }),
          ...(d.channels ? { channels: d.channels } : {}),
          ...(d.events !== undefined ? { events: d.events } : {}),
          ...(d.eventInterval !== undefined ? { event_interval: d.eventInterval } : {}),
          ...(d.alarmClearAfter !== undefined ? { alarm_clear_after: d.alarmClearAfter } : {}),
          ...(d.alarmCode !== undefined ? { alarm_code: d.alarmCode } : {}),
          ...(d.cameras !== undefined ? { cameras: d.cameras } : {}),
          request_rate: d.budget?.rate ?? 50,
          ...(d.budget?.queue !== undefined ? { request_queue: d.budget.queue } : {}),
        })),
        log_level: 'debug',
      },
      { env: {} },
    ).config;
  const config = makeConfig(specs);
  opts.tweak?.(config);
  // Every topic is seen (for the secrets check) but only this test's own are kept as its messages: on a shared broker
  // (Mosquitto, MQTT_TEST_URL) the other test files' bridges publish too.
  const own = [config.mqtt.base_topic, config.homeassistant.discovery_prefix];
  // (A topic that starts with them counts: a test may run a second bridge on `<base>_2`.)
  const recorder = await Recorder.start(broker.url, ['#'], (t) => own.some((o) => t.startsWith(o)));
  const logs: string[] = [];
  const log = createLogger({ level: 'debug', sink: (level, line) => logs.push(`${level} ${line}`) });
  const bridgeOpts: BridgeOptions = {
    log,
    backoff: { minMs: 50, maxMs: 300 },
    haStateDelayMs: 100,
    reconnectPeriodMs: 200,
    deviceTimeoutMs: 2000,
    ...opts.bridge,
  };
  const fx: Fixture = {
    broker,
    recorder,
    sims,
    passwords,
    config,
    base,
    prefix,
    logs,
    makeConfig,
    bridge: undefined as never,
    async restartBridge(cfg = config, more = {}) {
      fx.bridge = await startBridge(cfg, { ...bridgeOpts, ...more });
      return fx.bridge;
    },
    async stop() {
      await fx.bridge?.stop();
      for (const s of sims.values()) await s.stop();
      await clearRetained(broker.url, [base, prefix]);
      await recorder.stop();
      await broker.stop();
      assertNoSecrets(fx);
    },
  };
  try {
    opts.beforeBridge?.(sims);
    fx.bridge = await startBridge(config, bridgeOpts);
    if (!opts.noWait) {
      // A first poll is about 40 requests on 16 channels: a device with a small request budget needs its time.
      const firstPollMs = (d: (typeof specs)[number]) => Math.max(8000, 3000 + (45_000 / (d.budget?.rate ?? 8)) * 1.5);
      await Promise.all(specs.map((d) => recorder.waitTopic(`${base}/${d.id}/availability`, (j) => j.state === 'online', firstPollMs(d))));
      await Promise.all(
        specs.map((d) => recorder.waitFor((m) => m.topic.startsWith(`${prefix}/device/`) && m.topic.includes(`_${d.id}`), firstPollMs(d))),
      );
    }
  } catch (err) {
    await fx.stop().catch(() => undefined);
    throw err;
  }
  return fx;
}

/** No password (device or broker) in any recorded MQTT message or bridge log line. */
export function assertNoSecrets(fx: Fixture, extra: string[] = []): void {
  // A password as a token of its own: password 123456 is not found inside a transaction 1234567 echoed back.
  const secrets = [...fx.passwords, ...extra].map(
    (s) => new RegExp(`(?<![0-9A-Za-z])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`),
  );
  // Commands and requests are the tests' own input; everything else is the bridge's output.
  const input = (t: string) => /\/set(\/[^/]+)?$|\/get$|\/bridge\/request\//.test(t);
  // On its own broker every topic is the bridge's; on a shared one, topics outside its own are other tests'.
  const seen = fx.broker.external ? fx.recorder.messages : [...fx.recorder.messages, ...fx.recorder.elsewhere];
  for (const m of seen) {
    if (input(m.topic)) continue;
    for (const s of secrets) assert.ok(!s.test(m.topic) && !s.test(m.payload), `secret in MQTT message on ${m.topic}`);
  }
  for (const line of fx.logs) for (const s of secrets) assert.ok(!s.test(line), `secret in log line: ${line.slice(0, 80)}`);
}

/** Set requests that reached a simulator (path ends in /Set), optionally since a log index. */
export function setsOf(sim: Simulator, since = 0) {
  return sim.log.slice(since).filter((e) => e.path.endsWith('/Set'));
}

/** A message's JSON; a discovery config as Home Assistant reads its components (`asHomeAssistantReads`). */
export function json(m: { payload: string } | undefined): Record<string, unknown> {
  assert.ok(m, 'message expected');
  return asHomeAssistantReads(JSON.parse(m.payload) as Record<string, unknown>);
}

/** Next bridge/event of a type (after recorder index `since`). */
export function waitEvent(
  fx: Fixture,
  type: string,
  pred: (data: Record<string, unknown>) => boolean = () => true,
  since = 0,
  timeoutMs = 3000,
) {
  return fx.recorder
    .waitFor(
      (m) => {
        if (m.topic !== `${fx.base}/bridge/event`) return false;
        const e = JSON.parse(m.payload) as { type: string; data: Record<string, unknown> };
        return e.type === type && pred(e.data);
      },
      timeoutMs,
      since,
      `event ${type}`,
    )
    .then((m) => (JSON.parse(m.payload) as { data: Record<string, unknown> }).data);
}
