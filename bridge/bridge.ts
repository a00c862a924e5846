/**
 * The bridge's entry point: it wires the parts and does nothing else.
 *
 * - `runtime.ts`    one DeviceRuntime per device: client, model (its state), poller, online flag, coalesced reads
 * - `publisher.ts`  StatePublisher: everything published, change cache, gating of state behind discovery
 * - `discovery.ts`  Home Assistant discovery and ghost cleanup
 * - `commands.ts`, `requests.ts`  what arrives on `set`/`get` and `bridge/request/<op>`
 * - `announcer.ts`  what goes out on every (re)connect and on Home Assistant's birth message
 * - `instance-probe.ts`  refuses a second instance on the same base topic before anything is published
 *
 * `stop()` refuses new commands, lets those in flight finish (bounded), publishes
 * `bridge/state` offline, logs out of the devices and disconnects.
 */
import { Announcer } from './announcer';
import { startEmbeddedBroker, type EmbeddedBroker } from './broker';
import { Commands } from './commands';
import { configSecrets, type BridgeConfig } from './config';
import type { BridgeContext } from './context';
import type { DeviceOptions } from './device';
import { Discovery } from './discovery';
import { InstanceConflict, InstanceGuard, probeInstance } from './instance-probe';
import { createLogger, errorText, type Logger, type LogSink } from './log';
import { clientIdFor, MqttLink } from './mqtt';
import type { PollStats } from './poller';
import { StatePublisher } from './publisher';
import { Requests } from './requests';
import { DeviceRuntime } from './runtime';
import { Topics } from './topics';

export interface BridgeOptions {
  /** A logger, or a sink receiving every line; default: stdout/stderr at config.log_level. */
  log?: Logger | LogSink;
  /** Called for every message the bridge publishes (demo output, tests). */
  onPublish?: (topic: string, payload: string, retain: boolean) => void;
  /** Retry delays after failed polls. Default 2 s .. 5 min. */
  backoff?: { minMs?: number; maxMs?: number };
  /** Consecutive failed polls before a device is offline. Default 3. */
  offlineAfter?: number;
  /** Delay between republished discovery and state after Home Assistant's birth message. Default 2000 ms. */
  haStateDelayMs?: number;
  /** How long to listen for retained discovery configs of earlier runs at start. Default 1500 ms. */
  discoveryCleanupWindowMs?: number;
  /** How long the instance probe listens for retained topics under the base topic. Default 1000 ms. */
  instanceProbeWindowMs?: number;
  /** Least time between two reads of a device asked for over MQTT (`get`, `refresh`). Default 1000 ms. */
  readGapMs?: number;
  /** Device request deadline. Default 10000 ms. */
  deviceTimeoutMs?: number;
  /**
   * How long stop() waits for commands and requests in flight before logging out (what is still unfinished then is
   * reported failed on MQTT). Default: the device request deadline + 2 s (12 s), so a slow Set is applied and confirmed.
   */
  stopTimeoutMs?: number;
  /** MQTT reconnect period. Default 2000 ms. */
  reconnectPeriodMs?: number;
  /** Wait at most this long for the first MQTT connection before startBridge rejects. Default 30000 ms. */
  connectTimeoutMs?: number;
  clientFactory?: DeviceOptions['clientFactory'];
}

export interface Bridge {
  readonly config: BridgeConfig;
  /** Broker URL in use (the embedded broker's when the config has none). */
  readonly mqttUrl: string;
  readonly topics: Topics;
  readonly devices: ReadonlyMap<string, DeviceRuntime>;
  /** The bridge's own MQTT connection (tests drop it to simulate a network loss). */
  readonly link: MqttLink;
  /** Messages published since start (all topics). */
  readonly published: number;
  pollStats(): Record<string, PollStats>;
  /** Finish commands in flight, publish `bridge/state` offline, log out of the devices, close MQTT (and the embedded broker). */
  stop(): Promise<void>;
  /**
   * Settles once the bridge has stopped: undefined after stop(), the reason when it stopped by itself (another
   * instance took over its MQTT session: an InstanceConflict).
   */
  readonly done: Promise<Error | undefined>;
}

export { InstanceConflict };

export async function startBridge(config: BridgeConfig, opts: BridgeOptions = {}): Promise<Bridge> {
  const log: Logger = typeof opts.log === 'object' ? opts.log : createLogger({ level: config.log_level, sink: opts.log });
  const topics = new Topics(config.mqtt.base_topic, config.homeassistant.discovery_prefix);

  let broker: EmbeddedBroker | undefined;
  let url = config.mqtt.url;
  let stale: string[] = [];
  if (!url) {
    broker = await startEmbeddedBroker();
    url = broker.url;
    log.info(`no mqtt.url configured: embedded MQTT broker on ${url}`);
  } else {
    // A fresh embedded broker holds nothing; a shared one may hold another instance's state.
    const probe = await probeInstance(config, url, topics, log, {
      windowMs: opts.instanceProbeWindowMs ?? 1000,
      connectTimeoutMs: opts.connectTimeoutMs ?? 30_000,
    });
    if (probe.running) {
      const v = probe.running.info?.version;
      throw new InstanceConflict(topics.base, `its bridge/state is online${typeof v === 'string' ? `, version ${v}` : ''}`);
    }
    stale = probe.stale;
  }

  const link = new MqttLink({
    url,
    username: config.mqtt.username,
    password: config.mqtt.password,
    clientId: config.mqtt.client_id ?? clientIdFor(config.mqtt.base_topic),
    tls: config.mqtt.tls,
    will: { topic: topics.bridgeState, payload: JSON.stringify({ state: 'offline' }) },
    log: log.child('mqtt'),
    reconnectPeriodMs: opts.reconnectPeriodMs,
    // The embedded broker (aedes) speaks 3.1.1 only; any other is asked for MQTT 5 first.
    protocolVersion: broker ? 4 : 5,
  });

  const runtimes = new Map<string, DeviceRuntime>();
  for (const cfg of config.devices) {
    runtimes.set(
      cfg.id,
      new DeviceRuntime(cfg, {
        log: log.child(cfg.id),
        timeoutMs: opts.deviceTimeoutMs,
        clientFactory: opts.clientFactory,
        minBackoffMs: opts.backoff?.minMs,
        maxBackoffMs: opts.backoff?.maxMs,
        offlineAfter: opts.offlineAfter,
        readGapMs: opts.readGapMs,
      }),
    );
  }
  const publisher = new StatePublisher({ link, topics, config, runtimes, onPublish: opts.onPublish });
  const discovery = new Discovery({
    link,
    topics,
    enabled: config.homeassistant.enabled,
    log: log.child('discovery'),
    publish: (topic, payload) => publisher.send(topic, payload, { retain: true }),
  });

  /** Set by stop(): commands and requests are refused from then on (with a reason, like any refusal). */
  let stopping = false;
  /** Commands and requests being carried out; stop() lets them finish (bounded) before logging out. */
  const inflight = new Set<Promise<unknown>>();
  /** One refresh's publishing per coalesced read, however many requests joined it. */
  const refreshes = new WeakMap<Promise<void>, Promise<void>>();
  const secrets = configSecrets(config).filter((s) => s.length >= 4);

  const ctx: BridgeContext = {
    topics,
    link,
    log,
    devices: runtimes,
    event: (type, data) => publisher.event(type, data),
    publishState: (rt, o) => publisher.state(rt, o),
    get stopping() {
      return stopping;
    },
    track(work) {
      inflight.add(work);
      work.then(
        () => inflight.delete(work),
        () => inflight.delete(work),
      );
      return work;
    },
    refresh(rt) {
      const read = rt.read(true);
      let done = refreshes.get(read);
      if (!done) {
        done = read.then(() => {
          // A device that never answered has nothing to describe: no empty discovery config.
          if (rt.device.model.info) discovery.update(rt.device, true);
          publisher.state(rt, { force: true });
        });
        refreshes.set(read, done);
      }
      return done;
    },
    quote(text, max = 64) {
      if (secrets.some((s) => text.includes(s))) return '(withheld: contains a configured password)';
      return text.length > max ? `${text.slice(0, max)}...` : text;
    },
  };
  const commands = new Commands(ctx);
  const requests = new Requests(ctx, config.request_api);

  for (const rt of runtimes.values()) {
    rt.on('availability', (online, err) => {
      if (publisher.isClosed) return;
      publisher.event(online ? 'device_online' : 'device_offline', { device: rt.id, ...(err ? { reason: errorText(err) } : {}) });
      publisher.availability(rt);
      publisher.info();
    });
    rt.device.on('update', (change: { structure: boolean }) => {
      if (publisher.isClosed) return;
      // Entities depend on Range, channels and markers only: rebuilt when those changed.
      if (change.structure) {
        discovery.update(rt.device);
        publisher.info();
      }
      publisher.state(rt);
    });
    rt.device.on('event', (type: string, data: Record<string, unknown>) => publisher.event(type, data));
    // Device events: published at once (state first, then the edge), without waiting for a poll.
    rt.on('events', (change) => {
      if (publisher.isClosed) return;
      if (change.structure) discovery.update(rt.device);
      publisher.state(rt, change.channel ? { channel: change.channel } : {});
      if (change.channel && change.edge) publisher.alarmEdge(rt, change.channel, change.edge);
    });
  }

  // Another instance on this base topic acts from now on (it claimed the base topic after this one, or took over the
  // MQTT session): this one stops at once without a word on MQTT (bridge/state is the other's), finishing only what it
  // had begun, and `done` says why.
  let stopped: Promise<void> | undefined;
  let ended!: (reason: Error | undefined) => void;
  const done = new Promise<Error | undefined>((resolve) => (ended = resolve));
  const yieldTo = (detail: string) => {
    if (stopped) return;
    const conflict = new InstanceConflict(topics.base, detail, false);
    log.error(`${conflict.message}; stopping`);
    stopped = (async () => {
      stopping = true;
      announcer.stop();
      commands.close();
      publisher.close();
      await Promise.all([...runtimes.values()].map((rt) => rt.stop()));
      await settled([...inflight], opts.stopTimeoutMs ?? (opts.deviceTimeoutMs ?? 10_000) + 2000);
      await shutdown();
    })();
    void stopped.then(() => ended(conflict));
  };
  const guard = new InstanceGuard(link, topics, () => yieldTo('it started after this one and claimed the base topic'));
  link.once('taken_over', () => yieldTo('it connected with the same MQTT client id and took over the session'));

  const announcer = new Announcer({
    config,
    claim: () => guard.claim(),
    link,
    topics,
    runtimes,
    publisher,
    discovery,
    log,
    stale,
    discoveryCleanupWindowMs: opts.discoveryCleanupWindowMs ?? 1500,
    haStateDelayMs: opts.haStateDelayMs ?? 2000,
  });
  announcer.start();
  link.onMessage((topic, payload, packet) => {
    if (topic === topics.bridgeInstance) return guard.message(payload);
    if (publisher.isClosed) return;
    if (config.homeassistant.enabled && topic === config.homeassistant.status_topic) {
      if (!stopping) announcer.homeAssistantStatus(payload);
      return;
    }
    const parsed = topics.parse(topic);
    if (!parsed) return;
    if (parsed.kind === 'request') {
      if (config.request_api.enabled) requests.handle(topic, parsed.op, payload, !!packet.retain);
    } else commands.handle(topic, parsed, payload, !!packet.retain);
  });

  // First polls spread over up to 2 s: a hundred devices do not all log in and read Ranges at once.
  const spread = Math.min(2000, 20 * runtimes.size);
  [...runtimes.values()].forEach((rt, i) => rt.start(runtimes.size > 1 ? Math.round((i * spread) / runtimes.size) : 0));
  const shutdown = async () => {
    await Promise.all([...runtimes.values()].map((rt) => rt.close()));
    await link.end();
    await broker?.stop();
  };
  try {
    await link.waitConnected(opts.connectTimeoutMs ?? 30_000);
  } catch (err) {
    stopping = true;
    announcer.stop();
    publisher.close();
    await Promise.all([...runtimes.values()].map((rt) => rt.stop()));
    await shutdown();
    throw err;
  }

  return {
    config,
    mqttUrl: url,
    topics,
    devices: runtimes,
    link,
    get published() {
      return publisher.count;
    },
    pollStats: () => Object.fromEntries([...runtimes].map(([id, rt]) => [id, { ...rt.poller.stats }])),
    stop() {
      stopped ??= (async () => {
        stopping = true;
        announcer.stop();
        commands.close();
        await Promise.all([...runtimes.values()].map((rt) => rt.stop()));
        // A command accepted before SIGTERM is carried out and confirmed (logging out would abort it), as long as
        // its device may take to answer.
        await settled([...inflight], opts.stopTimeoutMs ?? (opts.deviceTimeoutMs ?? 10_000) + 2000);
        // What is still unfinished is aborted by the logout and reported failed on MQTT (event, response), not dropped.
        await Promise.all([...runtimes.values()].map((rt) => rt.close()));
        await settled([...inflight], 1000);
        publisher.close();
        await link.publishAndWait(topics.bridgeState, JSON.stringify({ state: 'offline' }), { retain: true, qos: 1 });
        await shutdown();
        log.info('stopped');
        ended(undefined);
      })();
      return stopped;
    },
    done,
  };
}

/** Resolves when every promise has settled, or after `timeoutMs`. */
async function settled(work: Promise<unknown>[], timeoutMs: number): Promise<void> {
  if (!work.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(work), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
  clearTimeout(timer);
}
