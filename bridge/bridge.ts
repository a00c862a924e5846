/**
 * The bridge's entry point: it builds the parts, lists them (each with the same `start()`/`stop()` shape: started
 * in order, stopped in reverse) and does nothing else.
 *
 * - `device/runtime.ts`  one DeviceRuntime per device: client, facts (its state), poller, online flag, coalesced
 *   reads; `devices.ts` starts their polls and sends out what they report
 * - `features/`  the per-device features outside the settings table (cameras, PTZ, storage, firmware, restarts,
 *   alarm outputs, speaker, recognition), a folder and one shape each: discovery components, command keys, MQTT
 *   topics, structure changes, coming online and going offline, stop
 * - `api/publisher.ts`  StatePublisher: everything published, change cache, gating of state behind discovery
 * - `homeassistant/discovery.ts`  Home Assistant discovery and ghost cleanup
 * - `api/commands.ts`, `api/requests.ts`  what arrives on `set`/`get` and `bridge/request/<op>` (`router.ts` routes)
 * - `api/announcer.ts`  what goes out on every (re)connect and on Home Assistant's birth message
 * - `mqtt/endpoint.ts`  the broker (probed for a second instance on the same base topic, or embedded) and the link
 * - `shutdown.ts`  what `stop()` does last: finish commands in flight (bounded), `bridge/state` offline, log out of
 *   the devices, disconnect
 */
import { quoter as createQuoter } from '../core/quote';
import { Announcer } from './api/announcer';
import { CommandWork } from './api/command-work';
import { Commands } from './api/commands';
import { bridgeContext, commandErrorSender } from './api/context';
import { StatePublisher } from './api/publisher';
import { Requests } from './api/requests';
import { configSecrets, type BridgeConfig } from './base/config';
import { createLogger, redacting, type Logger } from './base/log';
import type { Device } from './device/device';
import type { PollStats } from './device/poller';
import type { DeviceRuntime } from './device/runtime';
import { deviceEvents, devicePolls, deviceRuntimes, ENTITY_SETUP_MS } from './devices';
import { deviceFeatures } from './features';
import { featureCommands, featureComponents, featurePart, featureRequests } from './features/feature';
import { Discovery } from './homeassistant/discovery';
import { bridgeLink, mqttEndpoint } from './mqtt/endpoint';
import { InstanceConflict, watchInstance } from './mqtt/instance-probe';
import type { MqttLink } from './mqtt/link';
import { Topics } from './mqtt/topics';
import type { BridgeOptions } from './options';
import { Parts } from './base/part';
import { StateFile } from './base/state-file';
import { messageRouter } from './router';
import { shutdown } from './shutdown';

export type { BridgeOptions };

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
  const secrets = configSecrets(config);
  const quoter = createQuoter(() => secrets);
  // Every line, whoever built it: a password typed into a command never reaches the log.
  const log: Logger = redacting(
    typeof opts.log === 'object' ? opts.log : createLogger({ level: config.log_level, sink: opts.log }),
    quoter,
  );
  const topics = new Topics(config.mqtt.base_topic, config.homeassistant.discovery_prefix);
  const endpoint = await mqttEndpoint(config, topics, log, opts);
  const link = bridgeLink(config, topics, endpoint, log.child('mqtt'), opts.reconnectPeriodMs);
  const state = StateFile.open(config.state_file, log.child('state'));
  const { runtimes, listener } = await deviceRuntimes(config, log, opts, state);
  const publisher = new StatePublisher({ link, topics, config, runtimes, onPublish: opts.onPublish });
  // A feature's entities changed: the device's discovery goes out again.
  const changed = (device: Device) => {
    if (!publisher.isClosed) discovery.schedule(device);
  };
  const event = publisher.event.bind(publisher);
  const commandError = commandErrorSender(publisher, topics, quoter);
  const { features, cameras, promptUploads } = deviceFeatures({
    ...opts,
    link,
    topics,
    log,
    quoter,
    runtimes,
    event,
    commandError,
    changed,
    state,
    clips: config.clips,
  });
  const discovery = new Discovery({
    link,
    topics,
    enabled: config.homeassistant.enabled,
    log: log.child('discovery'),
    publish: (topic, payload) => publisher.send(topic, payload, { retain: true }),
    ...featureComponents(features),
  });
  // As long as a device may take to answer: a slow Set accepted before SIGTERM is applied and confirmed.
  const work = new CommandWork(opts.stopTimeoutMs ?? (opts.deviceTimeoutMs ?? 10_000) + 2000);
  const shared = { topics, link, log, runtimes, publisher, discovery };
  const ctx = bridgeContext({ ...shared, work, quoter, commandError });
  const commands = new Commands(ctx, featureCommands(features));
  const requests = new Requests(ctx, config.request_api, promptUploads, featureRequests(features));
  // Another instance on this base topic acts from now on (it proved its claim on the base topic, or took over the
  // MQTT session): this one stops at once, finishing only what it had begun, says `offline` (or its will does) and then
  // that it yielded (the winner says `online` again), and `done` says why.
  let yielded: InstanceConflict | undefined;
  const guard = watchInstance(
    link,
    topics,
    log,
    (detail) => {
      if (parts.stopped || yielded) return;
      yielded = new InstanceConflict(topics.base, detail, false);
      log.error(`${yielded.message}; stopping`);
      link.stopReconnecting();
      publisher.close();
      void parts.stop(yielded);
    },
    () => {
      if (!publisher.isClosed) publisher.bridgeState(true);
    },
  );
  const announcer = new Announcer({
    ...shared,
    config,
    claim: () => guard.claim(),
    stale: endpoint.stale,
    haStateDelayMs: opts.haStateDelayMs ?? 2000,
    entitySetupMs: opts.entitySetupMs ?? ENTITY_SETUP_MS,
  });
  let connected = false;
  const parts = new Parts(
    [
      ...shutdown({
        endpoint,
        link,
        topics,
        listener,
        runtimes,
        publisher,
        work,
        saysOffline: () => connected,
        yielded: () => guard.yielded(),
        stopSince: (): number => parts.stopSince ?? performance.now(),
      }),
      deviceEvents(runtimes, publisher, discovery, features, cameras, opts.entitySetupMs),
      devicePolls(runtimes),
      featurePart(features, runtimes),
      { stop: () => commands.close() },
      { stop: () => discovery.stop() },
      announcer,
      messageRouter(config, link, topics, { publisher, announcer, requests, commands, work, guard, features }),
      { stop: () => work.refuse() },
    ],
    () => log.info('stopped'),
  );
  parts.start();
  try {
    await link.waitConnected(opts.connectTimeoutMs ?? 30_000);
    connected = true;
  } catch (err) {
    await parts.stopAll();
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
    stop: () => parts.stop(),
    done: parts.done,
  };
}
