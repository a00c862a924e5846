/**
 * The bridge's entry point: it builds the parts, lists them (each with the same `start()`/`stop()` shape: started
 * in order, stopped in reverse) and does nothing else.
 *
 * - `runtime.ts`    one DeviceRuntime per device: client, model (its state), poller, online flag, coalesced reads
 * - `publisher.ts`  StatePublisher: everything published, change cache, gating of state behind discovery
 * - `discovery.ts`  Home Assistant discovery and ghost cleanup
 * - `commands.ts`, `requests.ts`  what arrives on `set`/`get` and `bridge/request/<op>`
 * - `announcer.ts`  what goes out on every (re)connect and on Home Assistant's birth message
 * - `instance-probe.ts`  refuses a second instance on the same base topic before anything is published
 *
 * `stop()` refuses new commands, lets those in flight finish (bounded), publishes
 * `bridge/state` offline, logs out of the devices and disconnects: the parts' stops, in reverse order.
 */
import { channelFromSlug } from '../core';
import { quoter as createQuoter, type Quoter } from '../core/quote';
import { Announcer } from './api/announcer';
import { cameraComponents, DeviceCameras } from './device/cameras';
import { embeddedBrokerOptions, startEmbeddedBroker, type EmbeddedBroker } from './mqtt/broker';
import { Commands } from './api/commands';
import { configSecrets, type BridgeConfig } from './base/config';
import type { BridgeContext } from './api/context';
import { Refusal } from './device/refusal';
import type { DeviceOptions } from './device/device';
import { Discovery } from './homeassistant/discovery';
import { InstanceConflict, InstanceGuard, probeInstance } from './mqtt/instance-probe';
import { createLogger, errorText, redacting, type Logger, type LogSink } from './base/log';
import { clientIdFor, MqttLink } from './mqtt/link';
import type { PollStats } from './device/poller';
import { StatePublisher } from './api/publisher';
import { PushListener } from './device/push-listener';
import { DevicePtz, isPtzKey, ptzComponents } from './device/ptz';
import { cameraFirmwareComponent, DeviceFirmware, FIRMWARE_COMPONENT, FIRMWARE_KEY, firmwareComponent } from './device/firmware';
import { StartGate } from './device/start-gate';
import { StorageReader } from './device/storage';
import { Requests } from './api/requests';
import { Restarts } from './device/restart';
import { channelAlarmOutputComponents, deviceAlarmOutputComponents, isAlarmOutputKey, planAlarmOutput } from './device/alarm-outputs';
import { DeviceRuntime, type RuntimeOptions } from './device/runtime';
import { Topics } from './mqtt/topics';

export interface BridgeOptions {
  /** On-demand firmware checks closer than this share the last answer (default 10 s; tests 0). */
  firmwareCheckGapMs?: number;
  /** Between Progress reads of a firmware install (default 2000 ms). */
  firmwareProgressMs?: number;
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
  /** Called for every picture published (tests, figures): device, channel, JPEG bytes. */
  onPicture?: (device: string, channel: string, bytes: number) => void;
  /** The embedded broker of a config without `mqtt.url`: address and port (CLI `--host`, `--port`). */
  broker?: { host?: string; port?: number };
  /**
   * Devices in their first poll (login, Ranges, first reads) at once at most. Default 64: each device's first poll
   * (about 30 requests on 16 channels) is paced by its own request budget (8 a second: about 3 s), so 16 at once
   * published 200 recorders in 37 s and 64 in 15 s on this machine, for the same CPU.
   */
  startConcurrency?: number;
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

/**
 * A part of the running bridge, in the manner of zigbee2mqtt's extensions: parts start in the order listed and stop
 * in the reverse order, so each stops while what it relies on still runs.
 */
interface Part {
  start?(): void;
  stop?(): void | Promise<void>;
}

export async function startBridge(config: BridgeConfig, opts: BridgeOptions = {}): Promise<Bridge> {
  const secrets = configSecrets(config);
  const quoter = createQuoter(() => secrets);
  // Every line, whoever built it: a password typed into a command never reaches the log.
  const log: Logger = redacting(
    typeof opts.log === 'object' ? opts.log : createLogger({ level: config.log_level, sink: opts.log }),
    quoter,
  );
  const topics = new Topics(config.mqtt.base_topic, config.homeassistant.discovery_prefix);
  const endpoint = await mqttEndpoint(config, topics, log, opts);
  const link = new MqttLink({
    url: endpoint.url,
    username: config.mqtt.username,
    password: config.mqtt.password,
    clientId: config.mqtt.client_id ?? clientIdFor(config.mqtt.base_topic),
    tls: config.mqtt.tls,
    will: { topic: topics.bridgeState, payload: JSON.stringify({ state: 'offline' }) },
    log: log.child('mqtt'),
    reconnectPeriodMs: opts.reconnectPeriodMs,
    // The embedded broker (aedes) speaks 3.1.1 only; any other is asked for MQTT 5 first.
    protocolVersion: endpoint.embedded ? 4 : 5,
  });

  // Devices with `events: push` call this listener (started before any device, so that none pushes into the void).
  const pushConfig = config.push;
  const listener =
    pushConfig && config.devices.some((d) => d.events === 'push')
      ? await PushListener.start(pushConfig.listen, pushConfig.port, log.child('push'))
      : undefined;
  const push = listener && pushConfig ? { listener, address: pushConfig.address, port: listener.port } : undefined;
  const startGate = new StartGate(Math.max(1, opts.startConcurrency ?? 64));
  const runtimes = deviceRuntimes(config, log, opts, { startGate, push });
  const publisher = new StatePublisher({ link, topics, config, runtimes, onPublish: opts.onPublish });
  const cameras = new Map<string, DeviceCameras>();
  const discovery = new Discovery({
    link,
    topics,
    enabled: config.homeassistant.enabled,
    log: log.child('discovery'),
    publish: (topic, payload) => publisher.send(topic, payload, { retain: true }),
    channelExtras: (device, ch, slug, node) => {
      const camera = cameras.get(device.id)?.hasVideo(ch) ? cameraComponents(topics, device.id, slug, node) : undefined;
      const info = ptz.get(device.id)?.info(ch);
      const restart = restarts.channelComponents(device, ch, node);
      const fw = firmware.get(device.id)?.cameraKnown(ch)
        ? { [FIRMWARE_COMPONENT]: cameraFirmwareComponent(topics, device.id, slug, node) }
        : undefined;
      const outputs = channelAlarmOutputComponents(topics, device, ch, node);
      const all = { ...camera, ...(info ? ptzComponents(topics, device.id, slug, node, info) : {}), ...restart, ...fw, ...outputs };
      return Object.keys(all).length ? all : undefined;
    },
    deviceExtras: (device, node) => ({
      ...(firmware.get(device.id)?.known ? { [FIRMWARE_COMPONENT]: firmwareComponent(topics, device.id, node) } : {}),
      ...restarts.deviceComponents(device, node),
      ...deviceAlarmOutputComponents(topics, device, node),
    }),
  });
  const restarts = new Restarts({
    topics,
    runtimes,
    log: log.child('restart'),
    quoter,
    event: (type, data) => publisher.event(type, data),
    onChange: (device) => {
      if (!publisher.isClosed && device.model.info) discovery.update(device);
    },
  });
  const ptz = new Map<string, DevicePtz>();
  const firmware = new Map<string, DeviceFirmware>();
  for (const rt of runtimes.values()) {
    cameras.set(
      rt.id,
      new DeviceCameras(rt.device, {
        link,
        topics,
        log: log.child(rt.id),
        intervalMs: rt.cfg.snapshot_interval,
        resolution: rt.cfg.snapshot_resolution,
        onChange: () => {
          if (!publisher.isClosed && rt.device.model.info) discovery.update(rt.device);
        },
        onPicture: (ch, bytes) => opts.onPicture?.(rt.id, ch, bytes),
      }),
    );
    const fwInterval = rt.cfg.firmware_check_interval;
    firmware.set(
      rt.id,
      new DeviceFirmware(rt.device, {
        link,
        topics,
        log: log.child(rt.id),
        checkMs: fwInterval === false ? undefined : fwInterval,
        scheduled: fwInterval !== false,
        onDemandGapMs: opts.firmwareCheckGapMs,
        progressMs: opts.firmwareProgressMs,
        onChange: () => {
          if (!publisher.isClosed && rt.device.model.info) discovery.update(rt.device);
        },
      }),
    );
    ptz.set(
      rt.id,
      new DevicePtz(rt.device, {
        link,
        topics,
        log: log.child(rt.id),
        onChange: () => {
          if (!publisher.isClosed && rt.device.model.info) discovery.update(rt.device);
        },
      }),
    );
  }
  // As long as a device may take to answer: a slow Set accepted before SIGTERM is applied and confirmed.
  const work = new CommandWork(opts.stopTimeoutMs ?? (opts.deviceTimeoutMs ?? 10_000) + 2000);
  const ctx = bridgeContext({ topics, link, log, runtimes, publisher, discovery, work, quoter });
  const commands = new Commands(ctx, {
    owns: (key) => isPtzKey(key) || key === FIRMWARE_KEY || isAlarmOutputKey(key),
    plan: (h, channel, key, raw) => {
      if (isAlarmOutputKey(key)) return planAlarmOutput(h.device, channel, key, raw);
      if (key === FIRMWARE_KEY) {
        if (channel) throw new Refusal(`${key} is a device key: use the <device>/set/${key} topic`, { key });
        return firmware.get(h.id)!.plan(raw);
      }
      if (!channel || !isPtzKey(key)) throw new Refusal(`${key} is a channel key: use the <device>/<channel>/set/${key} topic`, { key });
      return ptz.get(h.id)!.plan(channel, key, raw);
    },
  });
  const requests = new Requests(ctx, config.request_api);
  // Another instance on this base topic acts from now on (it claimed the base topic after this one, or took over the
  // MQTT session): this one stops at once without a word on MQTT (bridge/state is the other's), finishing only what it
  // had begun, and `done` says why.
  let yielded: InstanceConflict | undefined;
  const yieldTo = (detail: string) => {
    if (stopped || yielded) return;
    yielded = new InstanceConflict(topics.base, detail, false);
    log.error(`${yielded.message}; stopping`);
    publisher.close();
    void stopOnce();
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
    stale: endpoint.stale,
    discoveryCleanupWindowMs: opts.discoveryCleanupWindowMs ?? 1500,
    haStateDelayMs: opts.haStateDelayMs ?? 2000,
  });
  let connected = false;
  const parts: Part[] = [
    endpoint,
    { stop: () => link.end() },
    { stop: () => listener?.close() }, // after the devices gave their push settings back
    { stop: () => Promise.all([...runtimes.values()].map((rt) => rt.close())).then(() => undefined) }, // log out
    {
      stop: () =>
        connected && !yielded
          ? link.publishAndWait(topics.bridgeState, JSON.stringify({ state: 'offline' }), { retain: true, qos: 1 })
          : undefined,
    },
    { stop: () => publisher.close() },
    // A command accepted before SIGTERM is carried out and confirmed (logging out would abort it); what is still
    // unfinished then is aborted by the logout and reported failed on MQTT (event, response), not dropped.
    {
      stop: async () => {
        await work.settled();
        await Promise.all([...runtimes.values()].map((rt) => rt.close()));
        await work.settled(1000);
      },
    },
    deviceEvents(runtimes, publisher, discovery, cameras, ptz, firmware),
    devicePolls(runtimes),
    deviceStorage(runtimes, log),
    { start: () => runtimes.forEach((rt) => rt.on('availability', (online) => online && void restarts.learn(rt))) },
    { stop: () => cameras.forEach((c) => c.stop()) },
    { stop: () => ptz.forEach((p) => p.stop()) },
    { stop: () => firmware.forEach((f) => f.stop()) },
    { stop: () => commands.close() },
    announcer,
    messageRouter(config, link, topics, { publisher, announcer, requests, commands, work, cameras, quoter, guard, restarts }),
    { stop: () => work.refuse() },
  ];
  for (const part of parts) part.start?.();
  const stop = async () => {
    for (const part of [...parts].reverse()) await part.stop?.();
  };
  let stopped: Promise<void> | undefined;
  let ended!: (reason: Error | undefined) => void;
  const done = new Promise<Error | undefined>((resolve) => (ended = resolve));
  const stopOnce = () => {
    stopped ??= stop().then(() => {
      log.info('stopped');
      ended(yielded);
    });
    return stopped;
  };
  try {
    await link.waitConnected(opts.connectTimeoutMs ?? 30_000);
    connected = true;
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    config,
    mqttUrl: endpoint.url,
    topics,
    devices: runtimes,
    link,
    get published() {
      return publisher.count;
    },
    pollStats: () => Object.fromEntries([...runtimes].map(([id, rt]) => [id, { ...rt.poller.stats }])),
    stop: stopOnce,
    done,
  };
}

/**
 * Where the bridge's MQTT connection goes: the configured broker, after the instance probe found no other bridge on
 * the base topic (a fresh embedded broker holds nothing; a shared one may hold another instance's state), or an
 * embedded broker when none is configured. Its stop stops the embedded broker.
 */
async function mqttEndpoint(
  config: BridgeConfig,
  topics: Topics,
  log: Logger,
  opts: BridgeOptions,
): Promise<Part & { url: string; stale: string[]; embedded: boolean }> {
  if (!config.mqtt.url) {
    const broker: EmbeddedBroker = await startEmbeddedBroker(embeddedBrokerOptions(opts.broker));
    log.info(`no mqtt.url configured: embedded MQTT broker on ${broker.url}`);
    return { url: broker.url, stale: [], embedded: true, stop: () => broker.stop() };
  }
  const probe = await probeInstance(config, config.mqtt.url, topics, log, {
    windowMs: opts.instanceProbeWindowMs ?? 1000,
    connectTimeoutMs: opts.connectTimeoutMs ?? 30_000,
  });
  if (probe.running) {
    const v = probe.running.info?.version;
    throw new InstanceConflict(topics.base, `its bridge/state is online${typeof v === 'string' ? `, version ${v}` : ''}`);
  }
  return { url: config.mqtt.url, stale: probe.stale, embedded: false };
}

function deviceRuntimes(
  config: BridgeConfig,
  log: Logger,
  opts: BridgeOptions,
  shared: Pick<RuntimeOptions, 'startGate' | 'push'>,
): Map<string, DeviceRuntime> {
  const runtimeOptions = {
    timeoutMs: opts.deviceTimeoutMs,
    clientFactory: opts.clientFactory,
    minBackoffMs: opts.backoff?.minMs,
    maxBackoffMs: opts.backoff?.maxMs,
    offlineAfter: opts.offlineAfter,
    readGapMs: opts.readGapMs,
    ...shared,
  };
  return new Map(config.devices.map((cfg) => [cfg.id, new DeviceRuntime(cfg, { log: log.child(cfg.id), ...runtimeOptions })]));
}

/**
 * Polling: first polls spread over up to 2 s, and at most `startConcurrency` devices in their first poll at once
 * (StartGate): a thousand devices do not all log in and read Ranges at once.
 */
function devicePolls(runtimes: ReadonlyMap<string, DeviceRuntime>): Part {
  return {
    start() {
      const spread = Math.min(2000, 20 * runtimes.size);
      [...runtimes.values()].forEach((rt, i) => rt.start(runtimes.size > 1 ? Math.round((i * spread) / runtimes.size) : 0));
    },
    stop: () => Promise.all([...runtimes.values()].map((rt) => rt.stop())).then(() => undefined),
  };
}

/** The disks of every device, each on its own slow schedule while the device is online (storage.ts). */
function deviceStorage(runtimes: ReadonlyMap<string, DeviceRuntime>, log: Logger): Part {
  const readers = [...runtimes.values()].map((rt) => {
    const reader = new StorageReader(rt.device, { intervalMs: rt.cfg.storage_interval, log: log.child(rt.id) });
    rt.on('availability', (online) => (online ? reader.online() : reader.offline()));
    return reader;
  });
  return { stop: () => Promise.all(readers.map((r) => r.stop())).then(() => undefined) };
}

/** What a device's runtime reports goes out: availability, state, discovery when its structure changed, events. */
function deviceEvents(
  runtimes: ReadonlyMap<string, DeviceRuntime>,
  publisher: StatePublisher,
  discovery: Discovery,
  cameras: ReadonlyMap<string, DeviceCameras>,
  ptz: ReadonlyMap<string, DevicePtz>,
  firmware: ReadonlyMap<string, DeviceFirmware>,
): Part {
  const wire = (rt: DeviceRuntime) => {
    rt.on('availability', (online, err) => {
      if (publisher.isClosed) return;
      publisher.event(online ? 'device_online' : 'device_offline', { device: rt.id, ...(err ? { reason: errorText(err) } : {}) });
      publisher.availability(rt);
      publisher.info();
    });
    const camera = cameras.get(rt.id)!;
    rt.device.on('update', (change: { structure: boolean }) => {
      if (publisher.isClosed) return;
      // Entities depend on Range, channels and markers only: rebuilt when those changed.
      if (change.structure) {
        void camera.load().then(() => camera.start());
        const p = ptz.get(rt.id)!;
        void p.load().then(() => p.start());
        const fw = firmware.get(rt.id)!;
        fw.start();
        fw.publish();
        discovery.update(rt.device);
        publisher.info();
      }
      publisher.state(rt);
    });
    rt.device.on('event', (type: string, data: Record<string, unknown>) => publisher.event(type, data));
    // Device events: published at once (state first, then the edge), without waiting for a poll; in a storm a channel's
    // state at most every EVENT_STATE_GAP_MS, each edge at once.
    rt.on('events', (change) => {
      if (publisher.isClosed) return;
      // A picture that came alone: the channel's latest alarm picture, nothing else changed.
      if (change.channel && change.picture && !change.edge) return camera.alarm(change.channel, undefined, undefined, change.picture);
      if (change.structure) discovery.update(rt.device);
      if (change.channel) publisher.eventState(rt, change.channel);
      else publisher.state(rt);
      if (change.channel && change.edge) publisher.alarmEdge(rt, change.channel, change.edge);
      // The start of an alarm (not its end, not a repeat while it lasts): its picture, sent with it or read.
      if (change.channel && change.edge?.active) camera.alarm(change.channel, change.edge.type, change.edge.time, change.picture);
    });
  };
  return { start: () => runtimes.forEach(wire) };
}

/** What arrives on MQTT: Home Assistant's status, picture requests, requests, commands. */
function messageRouter(
  config: BridgeConfig,
  link: MqttLink,
  topics: Topics,
  to: {
    publisher: StatePublisher;
    announcer: Announcer;
    requests: Requests;
    commands: Commands;
    work: CommandWork;
    cameras: ReadonlyMap<string, DeviceCameras>;
    quoter: Quoter;
    guard: InstanceGuard;
    restarts: Restarts;
  },
): Part {
  return {
    start: () =>
      link.onMessage((topic, payload, packet) => {
        if (topic === topics.bridgeInstance) return to.guard.message(payload);
        if (to.publisher.isClosed) return;
        if (config.homeassistant.enabled && topic === config.homeassistant.status_topic) {
          if (!to.work.stopping) to.announcer.homeAssistantStatus(payload);
          return;
        }
        if (to.restarts.handle(topic, !!packet.retain)) return;
        const shot = topics.parseSnapshotGet(topic);
        if (shot) {
          const channel = channelFromSlug(shot.slug);
          const camera = to.cameras.get(shot.device);
          const refused = packet.retain
            ? 'retained request ignored (it would take a picture on every restart)'
            : !camera || !channel
              ? 'no such device or channel'
              : camera.take(channel);
          if (refused) to.publisher.event('command_refused', { topic: to.quoter.quote(topic, 256), reason: refused });
          return;
        }
        const parsed = topics.parse(topic);
        if (!parsed) return;
        if (parsed.kind === 'request') {
          if (config.request_api.enabled) to.requests.handle(topic, parsed.op, payload, !!packet.retain);
        } else to.commands.handle(topic, parsed, payload, !!packet.retain);
      }),
  };
}

/** Commands and requests being carried out, and whether the bridge still takes new ones. */
class CommandWork {
  private readonly inflight = new Set<Promise<unknown>>();
  /** Set by stop(): commands and requests are refused from then on (with a reason, like any refusal). */
  stopping = false;

  constructor(private readonly stopTimeoutMs: number) {}

  track<T>(work: Promise<T>): Promise<T> {
    this.inflight.add(work);
    const done = () => this.inflight.delete(work);
    work.then(done, done);
    return work;
  }

  refuse(): void {
    this.stopping = true;
  }

  /** The work in flight finished, or the stop timeout passed. */
  settled(timeoutMs = this.stopTimeoutMs): Promise<void> {
    return settled([...this.inflight], timeoutMs);
  }
}

/** What commands and requests need from the running bridge. */
function bridgeContext(p: {
  topics: Topics;
  link: MqttLink;
  log: Logger;
  runtimes: ReadonlyMap<string, DeviceRuntime>;
  publisher: StatePublisher;
  discovery: Discovery;
  work: CommandWork;
  quoter: Quoter;
}): BridgeContext {
  /** One refresh's publishing per coalesced read, however many requests joined it. */
  const refreshes = new WeakMap<Promise<void>, Promise<void>>();
  return {
    topics: p.topics,
    link: p.link,
    log: p.log,
    devices: p.runtimes,
    quoter: p.quoter,
    event: (type, data) => p.publisher.event(type, p.quoter.redactDeep(data)),
    commandError: (device, error) =>
      p.publisher.send(p.topics.commandError(device), JSON.stringify(p.quoter.redactDeep(error)), { queue: true }),
    publishState: (rt, o) => p.publisher.state(rt, o),
    get stopping() {
      return p.work.stopping;
    },
    track: (work) => p.work.track(work),
    refresh(rt) {
      const read = rt.read(true);
      let done = refreshes.get(read);
      if (!done) {
        done = read.then(() => {
          // A device that never answered has nothing to describe: no empty discovery config.
          if (rt.device.model.info) p.discovery.update(rt.device, true);
          p.publisher.state(rt, { force: true });
        });
        refreshes.set(read, done);
      }
      return done;
    },
  };
}

/** Resolves when every promise has settled, or after `timeoutMs`. */
async function settled(work: Promise<unknown>[], timeoutMs: number): Promise<void> {
  if (!work.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(work), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
  clearTimeout(timer);
}
