/** The devices' parts of the running bridge: runtimes, polls, and what their runtimes report going out. */
import type { StatePublisher } from './api/publisher';
import type { BridgeConfig } from './base/config';
import { errorText, type Logger } from './base/log';
import type { DeviceCameras } from './features/cameras/cameras';
import type { EventChange } from './device/event-state';
import { PushListener } from './device/push-listener';
import { DeviceRuntime } from './device/runtime';
import { START_CONCURRENCY, StartGate } from './device/start-gate';
import type { DeviceFeature } from './features/feature';
import type { Discovery } from './homeassistant/discovery';
import type { BridgeOptions } from './options';
import type { Part } from './base/part';
import type { StateFile } from './base/state-file';

/**
 * One DeviceRuntime per device, and the listener devices with `events: push` call (started before any device, so
 * that none pushes into the void; its stop comes after the devices gave their push settings back).
 */
export async function deviceRuntimes(
  config: BridgeConfig,
  log: Logger,
  opts: BridgeOptions,
  state?: StateFile,
): Promise<{ runtimes: Map<string, DeviceRuntime>; listener: Part }> {
  const pushConfig = config.push;
  const pushing = config.devices.filter((d) => d.events === 'push').length;
  const listener =
    pushConfig && pushing
      ? await PushListener.start(pushConfig.listen, pushConfig.address, pushConfig.port, log.child('push'), pushing)
      : undefined;
  const push = listener && pushConfig ? { listener, address: pushConfig.address, port: listener.port } : undefined;
  const runtimeOptions = {
    timeoutMs: opts.deviceTimeoutMs,
    clientFactory: opts.clientFactory,
    minBackoffMs: opts.backoff?.minMs,
    maxBackoffMs: opts.backoff?.maxMs,
    offlineAfter: opts.offlineAfter,
    readGapMs: opts.readGapMs,
    startGate: new StartGate(Math.max(1, opts.startConcurrency ?? START_CONCURRENCY)),
    push,
    state,
  };
  const runtimes = new Map(config.devices.map((cfg) => [cfg.id, new DeviceRuntime(cfg, { log: log.child(cfg.id), ...runtimeOptions })]));
  return { runtimes, listener: { stop: () => listener?.close() } };
}

/** Logs out of every device (commands in flight are aborted). */
export function closeDevices(runtimes: ReadonlyMap<string, DeviceRuntime>): Promise<void> {
  return Promise.all([...runtimes.values()].map((rt) => rt.close())).then(() => undefined);
}

/**
 * Polling: first polls spread over up to 2 s, and at most `startConcurrency` devices in their first poll at once
 * (StartGate): a thousand devices do not all log in and read Ranges at once.
 */
export function devicePolls(runtimes: ReadonlyMap<string, DeviceRuntime>): Part {
  return {
    start() {
      const spread = Math.min(2000, 20 * runtimes.size);
      [...runtimes.values()].forEach((rt, i) => rt.start(runtimes.size > 1 ? Math.round((i * spread) / runtimes.size) : 0));
    },
    stop: () => Promise.all([...runtimes.values()].map((rt) => rt.stop())).then(() => undefined),
  };
}

/**
 * How long Home Assistant is given to set up the entities of a discovery message before what fills them follows: an
 * alarm of a type the channel never reported waits this long after its new entity is announced (once per type and
 * channel: what was announced stays announced, across restarts too).
 */
export const ENTITY_SETUP_MS = 1_000;

/** What a device's runtime reports goes out: availability, state, discovery when its structure changed, events. */
export function deviceEvents(
  runtimes: ReadonlyMap<string, DeviceRuntime>,
  publisher: StatePublisher,
  discovery: Discovery,
  features: readonly DeviceFeature[],
  cameras: ReadonlyMap<string, DeviceCameras>,
  entitySetupMs = ENTITY_SETUP_MS,
): Part {
  /** Per device: its event changes held (in order) until the entities a new alarm type brought are announced. */
  const held = new Map<string, { pending: number; changes: Array<() => void> }>();
  const timers = new Set<NodeJS.Timeout>();
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
        const reads = features.map((f) => f.restructured?.(rt)).filter((r) => r instanceof Promise);
        publisher.info();
        // The state follows the entities it fills: Home Assistant gets both once, in that order (and once the
        // features' reads that add entities are in).
        return discovery.schedule(rt.device, () => publisher.state(rt), reads.length ? { reading: Promise.allSettled(reads) } : {});
      }
      publisher.state(rt);
    });
    rt.device.on('event', (type: string, data: Record<string, unknown>) => publisher.event(type, data));
    // Device events: published at once (state first, then the edge), without waiting for a poll; in a storm a channel's
    // state at most every EVENT_STATE_GAP_MS, each edge at once.
    const publish = (change: EventChange) => {
      if (publisher.isClosed) return;
      // A picture that came alone: the channel's latest alarm picture, nothing else changed.
      if (change.channel && change.picture && !change.edge) return camera.alarm(change.channel, undefined, undefined, change.picture);
      if (change.channel) publisher.eventState(rt, change.channel);
      else publisher.state(rt);
      if (change.channel && change.edge) publisher.alarmEdge(rt, change.channel, change.edge);
      // The start of an alarm (not its end, not a repeat while it lasts): its picture, sent with it or read.
      if (change.channel && change.edge?.active) camera.alarm(change.channel, change.edge.type, change.edge.time, change.picture);
    };
    rt.on('events', (change: EventChange) => {
      if (publisher.isClosed) return;
      let hold = held.get(rt.id);
      if (change.structure && discovery.enabled) {
        // A type the channel never reported: its binary sensor is announced first, and given the time to be set up,
        // so that Home Assistant has it when its first state and edge come (the event entity lists every type already).
        // Without Home Assistant nothing waits.
        if (!hold) held.set(rt.id, (hold = { pending: 0, changes: [] }));
        hold.pending++;
        const h = hold;
        discovery.schedule(
          rt.device,
          () => {
            const timer = setTimeout(() => {
              timers.delete(timer);
              if (--h.pending) return;
              held.delete(rt.id);
              for (const go of h.changes.splice(0)) go();
            }, entitySetupMs);
            timers.add(timer);
          },
          { now: true },
        );
      }
      if (hold) hold.changes.push(() => publish(change));
      else publish(change);
    });
  };
  return {
    start: () => runtimes.forEach(wire),
    stop: () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
