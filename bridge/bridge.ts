/**
 * The bridge: devices (each with its own poll schedule), the MQTT connection, state publishing with change
 * detection, Home Assistant discovery, commands and requests.
 *
 * On every (re)connect: subscribe, publish `bridge/state` online, availability, `bridge/info`, discovery,
 * then the full state. `stop()` refuses new commands, lets those in flight finish (bounded), publishes
 * `bridge/state` offline, logs out of the devices and disconnects.
 */
import { channelSlug } from '../core';
import { startEmbeddedBroker, type EmbeddedBroker } from './broker';
import { Commands } from './commands';
import { configSecrets, type BridgeConfig } from './config';
import type { BridgeContext, DeviceHandle } from './context';
import { Device, type DeviceOptions } from './device';
import { Discovery } from './discovery';
import { createLogger, errorText, Redactor, type Logger, type LogSink } from './log';
import { MqttLink, type PublishOptions } from './mqtt';
import { Poller, type PollerOptions, type PollStats } from './poller';
import { Requests } from './requests';
import { ChangeCache, channelOnline, channelState, deviceState, type Json } from './state';
import { Topics } from './topics';
import { VERSION } from './version';

export interface BridgeOptions {
  /** A logger, or a sink receiving every (redacted) line; default: stdout/stderr at config.log_level. */
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
  /** Device request deadline. Default 10000 ms. */
  deviceTimeoutMs?: number;
  /** How long stop() waits for commands and requests in flight before logging out. Default 5000 ms. */
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
  readonly devices: ReadonlyMap<string, DeviceHandle>;
  /** Messages published since start (all topics). */
  readonly published: number;
  pollStats(): Record<string, PollStats>;
  /** Finish commands in flight, publish `bridge/state` offline, log out of the devices, close MQTT (and the embedded broker). */
  stop(): Promise<void>;
}

class Handle implements DeviceHandle {
  online = false;
  readonly poller: Poller;
  constructor(readonly device: Device, schedule: PollerOptions, onAvailability: (handle: Handle, online: boolean, error?: unknown) => void) {
    this.poller = new Poller(() => device.poll(), schedule, (online, error) => onAvailability(this, online, error));
  }
}

export async function startBridge(config: BridgeConfig, opts: BridgeOptions = {}): Promise<Bridge> {
  const redactor = new Redactor();
  for (const s of configSecrets(config)) redactor.add(s);
  const log: Logger = typeof opts.log === 'object' ? opts.log : createLogger({ level: config.log_level, sink: opts.log, redactor });
  // A caller's logger gets the secrets too (its own redactor may not know them).
  const logged: Logger = typeof opts.log === 'object' ? wrapRedact(opts.log, redactor) : log;

  let broker: EmbeddedBroker | undefined;
  let url = config.mqtt.url;
  if (!url) {
    broker = await startEmbeddedBroker();
    url = broker.url;
    logged.info(`no mqtt.url configured: embedded MQTT broker on ${url}`);
  }

  const topics = new Topics(config.mqtt.base_topic, config.homeassistant.discovery_prefix);
  const link = new MqttLink({
    url,
    username: config.mqtt.username,
    password: config.mqtt.password,
    clientId: config.mqtt.client_id,
    tls: config.mqtt.tls,
    will: { topic: topics.bridgeState, payload: JSON.stringify({ state: 'offline' }) },
    log: logged.child('mqtt'),
    redactor,
    reconnectPeriodMs: opts.reconnectPeriodMs,
  });
  let published = 0;
  const cache = new ChangeCache();
  /**
   * Every message of the bridge goes out here (counted; shown by the demo), at QoS 1: the broker acknowledges
   * each, and a broker handles one client's QoS 1 messages in order (aedes reorders QoS 0 messages, retained
   * ones behind the others, and then drops the older ones as duplicates).
   */
  const send = (topic: string, payload: string, o: PublishOptions): boolean => {
    if (!link.publish(topic, payload, { ...o, qos: o.qos ?? 1 })) return false;
    published++;
    opts.onPublish?.(topic, redactor.redact(payload), !!o.retain);
    return true;
  };
  /** Publish when the payload differs from the last one on that topic (or `force`). */
  const publish = (topic: string, payload: string, o: PublishOptions & { force?: boolean } = {}) => {
    if (!cache.changed(topic, payload) && !o.force) return;
    // Not connected: forget it, the full republish after connecting covers it.
    if (!send(topic, payload, o)) cache.forget(topic);
  };
  const stateRetain = config.mqtt.retain;
  const discovery = new Discovery({
    link, topics, enabled: config.homeassistant.enabled, log: logged.child('discovery'),
    publish: (topic, payload) => send(topic, payload, { retain: true, qos: 1 }),
  });

  const handles = new Map<string, Handle>();
  const devices = () => [...handles.values()].map((h) => h.device);
  /** Set by stop(): commands and requests are refused from then on (with a reason, like any refusal). */
  let stopping = false;
  /** Set by stop() once the work in flight is done: nothing is published any more. */
  let closing = false;
  /**
   * State goes out only after this connection's discovery: Home Assistant subscribes to a state topic when it
   * discovers the entity, and an unretained state sent before that would be lost to it.
   */
  let statesReady = false;
  /** Commands and requests being carried out; stop() lets them finish (bounded) before logging out. */
  const inflight = new Set<Promise<unknown>>();

  const event = (type: string, data: Json) => {
    publish(topics.bridgeEvent, JSON.stringify({ type, data }), { force: true, queue: true });
  };

  const publishInfo = (force = false) => {
    const info = {
      version: VERSION,
      base_topic: config.mqtt.base_topic,
      homeassistant: { enabled: config.homeassistant.enabled, discovery_prefix: config.homeassistant.discovery_prefix },
      devices: [...handles.values()].map((h) => ({
        id: h.device.id,
        name: h.device.name,
        model: h.device.model.info?.device_type ?? null,
        firmware: h.device.model.info?.software_version ?? null,
        channels: h.device.channels().map((ch) => ({ id: ch, slug: channelSlug(ch), online: channelOnline(h.device.model, ch) })),
        online: h.online,
      })),
    };
    publish(topics.bridgeInfo, JSON.stringify(info), { retain: true, qos: 1, force });
  };

  const publishAvailability = (h: DeviceHandle, force = false) => {
    publish(topics.availability(h.device.id), JSON.stringify({ state: h.online ? 'online' : 'offline' }), { retain: true, qos: 1, force });
  };

  const publishState = (h: DeviceHandle, o: { force?: boolean; channel?: string } = {}) => {
    if (!statesReady || !h.device.model.info) return;
    const d = h.device;
    if (!o.channel) publish(topics.state(d.id), JSON.stringify(deviceState(d.model)), { retain: stateRetain, force: o.force });
    for (const ch of d.channels()) {
      if (o.channel && o.channel !== ch) continue;
      publish(topics.state(d.id, channelSlug(ch)), JSON.stringify(channelState(d.model, ch)), { retain: stateRetain, force: o.force });
    }
  };

  const ctx: BridgeContext = {
    topics,
    link,
    log: logged,
    devices: handles,
    event,
    publishState,
    get stopping() {
      return stopping;
    },
    track(work) {
      inflight.add(work);
      work.then(() => inflight.delete(work), () => inflight.delete(work));
      return work;
    },
    refresh: async (h) => {
      h.device.invalidate();
      await h.poller.pollNow();
      discovery.update(h.device, true);
      publishState(h, { force: true });
    },
  };
  const commands = new Commands(ctx);
  const requests = new Requests(ctx);

  for (const cfg of config.devices) {
    const dlog = logged.child(cfg.id);
    const device = new Device(cfg, { log: dlog, timeoutMs: opts.deviceTimeoutMs, clientFactory: opts.clientFactory });
    const handle = new Handle(device, {
      intervalMs: cfg.poll_interval,
      minBackoffMs: opts.backoff?.minMs,
      maxBackoffMs: opts.backoff?.maxMs,
      offlineAfter: opts.offlineAfter,
      log: dlog,
    }, (h, online, err) => {
      if (closing) return;
      h.online = online;
      if (online) dlog.info('online');
      else {
        dlog.warn(`offline: ${errorText(err)}`);
        device.invalidate(); // read system info and Ranges again when it answers
      }
      event(online ? 'device_online' : 'device_offline', { device: device.id, ...(err ? { reason: errorText(err) } : {}) });
      publishAvailability(h);
      publishInfo();
    });
    device.on('update', (change: { structure: boolean }) => {
      if (closing) return;
      // Entities depend on Range, channels and markers only: rebuilt when those changed.
      if (change.structure) {
        discovery.update(device);
        publishInfo();
      }
      publishState(handle);
    });
    device.on('event', (type: string, data: Json) => event(type, data));
    handles.set(cfg.id, handle);
  }

  let haTimer: NodeJS.Timeout | undefined;
  link.onMessage((topic, payload, packet) => {
    if (closing) return;
    if (config.homeassistant.enabled && topic === config.homeassistant.status_topic) {
      if (stopping || payload.toString('utf8').trim() !== 'online') return;
      logged.info('Home Assistant is online: republishing discovery, then state');
      discovery.republish(devices());
      if (haTimer) clearTimeout(haTimer);
      haTimer = setTimeout(() => {
        haTimer = undefined;
        for (const h of handles.values()) publishState(h, { force: true });
      }, opts.haStateDelayMs ?? 2000);
      return;
    }
    const parsed = topics.parse(topic);
    if (!parsed) return;
    if (parsed.kind === 'request') requests.handle(topic, parsed.op, payload, !!packet.retain);
    else commands.handle(topic, parsed, payload, !!packet.retain);
  });

  const onConnect = async () => {
    cache.clear();
    discovery.reset();
    statesReady = false;
    try {
      const subs = topics.commandSubscriptions();
      if (config.homeassistant.enabled) subs.push(config.homeassistant.status_topic);
      await link.subscribe(subs, 1);
      publish(topics.bridgeState, JSON.stringify({ state: 'online' }), { retain: true, qos: 1, force: true });
      // Availability only once known: a restart must not flap a device offline before its first poll.
      for (const h of handles.values()) if (h.poller.isOnline !== undefined) publishAvailability(h, true);
      publishInfo(true);
      await discovery.collect(devices(), opts.discoveryCleanupWindowMs ?? 1500);
      if (!link.connected) return;
      discovery.republish(devices());
      statesReady = true;
      for (const h of handles.values()) publishState(h);
    } catch (err) {
      logged.error(`after connecting: ${errorText(err)}`);
    }
  };
  link.on('connect', () => void onConnect());
  link.on('disconnect', () => {
    cache.clear();
    discovery.reset();
    statesReady = false;
  });

  // First polls spread over up to 2 s: a hundred devices do not all log in and read Ranges at once.
  const spread = Math.min(2000, 20 * handles.size);
  [...handles.values()].forEach((h, i) => h.poller.start(handles.size > 1 ? Math.round((i * spread) / handles.size) : 0));
  try {
    await link.waitConnected(opts.connectTimeoutMs ?? 30_000);
  } catch (err) {
    stopping = closing = true;
    await Promise.all([...handles.values()].map((h) => h.poller.stop()));
    await Promise.all([...handles.values()].map((h) => h.device.close()));
    await link.end();
    await broker?.stop();
    throw err;
  }

  let stopped: Promise<void> | undefined;
  return {
    config,
    mqttUrl: url,
    topics,
    devices: handles,
    get published() {
      return published;
    },
    pollStats: () => Object.fromEntries([...handles].map(([id, h]) => [id, { ...h.poller.stats }])),
    stop() {
      stopped ??= (async () => {
        stopping = true;
        if (haTimer) clearTimeout(haTimer);
        await Promise.all([...handles.values()].map((h) => h.poller.stop()));
        // A command accepted before Ctrl-C is carried out and confirmed (logging out would abort it).
        await settled([...inflight], opts.stopTimeoutMs ?? 5000);
        closing = true;
        await link.publishAndWait(topics.bridgeState, JSON.stringify({ state: 'offline' }), { retain: true, qos: 1 });
        await Promise.all([...handles.values()].map((h) => h.device.close()));
        await link.end();
        await broker?.stop();
        logged.info('stopped');
      })();
      return stopped;
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

function wrapRedact(log: Logger, redactor: Redactor): Logger {
  const r = (f: (m: string) => void) => (m: string) => f(redactor.redact(m));
  return {
    level: log.level,
    debug: r(log.debug.bind(log)),
    info: r(log.info.bind(log)),
    warn: r(log.warn.bind(log)),
    error: r(log.error.bind(log)),
    enabled: log.enabled.bind(log),
    child: (p) => wrapRedact(log.child(p), redactor),
  };
}
