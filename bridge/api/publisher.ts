/**
 * The state publisher: everything the bridge publishes goes out here, at QoS 1 (the broker acknowledges each,
 * and handles one client's QoS 1 messages in order; aedes reorders QoS 0 messages, retained ones behind the
 * others, and then drops the older ones as duplicates). It only diffs and publishes: device and channel state
 * is built from the runtime's facts (`state.ts`), the change cache keeps the last payload per topic.
 *
 * Gating: state goes out only after this connection's discovery (`open()`), because Home Assistant subscribes
 * to a state topic when it discovers the entity and an unretained state sent before would be lost to it.
 */
import { channelSlug } from '../../core';
import type { BridgeConfig } from '../base/config';
import type { MqttLink, PublishOptions } from '../mqtt/link';
import type { AlarmEdge } from '../device/event-state';
import type { DeviceRuntime } from '../device/runtime';
import { channelState, deviceState } from '../device/sources';
import { ChangeCache, channelOnline, type Json } from '../device/state';
import type { Topics } from '../mqtt/topics';
import { VERSION } from '../base/version';

export interface PublisherOptions {
  link: MqttLink;
  topics: Topics;
  config: BridgeConfig;
  runtimes: ReadonlyMap<string, DeviceRuntime>;
  /** Called for every message published (demo output, tests). */
  onPublish?: (topic: string, payload: string, retain: boolean) => void;
}

/**
 * `bridge/info` lists every device (about 1 KB each): at most one a second per INFO_GAP_DEVICES devices, however many
 * change together. A thousand recorders coming online would otherwise rebuild and send most of a megabyte a second
 * through their whole start-up (3 % of the bridge's CPU then, and its garbage).
 */
const INFO_GAP_MS = 1_000;
const INFO_GAP_DEVICES = 100;

/**
 * Alarm edges held while the broker is away (or before this connection's state is out), oldest first, with the times
 * the device gave them: delivered after reconnecting, behind the state. Past this many the oldest are dropped (logged).
 */
export const EDGE_BUFFER = 1000;

/**
 * A channel's state after a device event goes out at once, then at most once per this gap while its events keep
 * coming (the latest state at the end of the gap): in an alarm storm (100 a second) the state costs a few messages a
 * second, not one per edge. Edges are never coalesced: each goes out at once.
 */
export const EVENT_STATE_GAP_MS = 250;

export class StatePublisher {
  private readonly cache = new ChangeCache();
  private infoTimer?: NodeJS.Timeout;
  private lastInfo = -Infinity;
  private readonly heldEdges: Array<{ topic: string; payload: string }> = [];
  /** Edges dropped from a full buffer since the last delivery. */
  droppedEdges = 0;
  private statesReady = false;
  private closed = false;
  /** Per `<device>/<channel>`: when its state last went out for an event, and the publish due at the end of the gap. */
  private readonly eventStates = new Map<string, { at: number; timer?: NodeJS.Timeout }>();
  /** Messages published since start (all topics). */
  count = 0;

  constructor(private readonly opts: PublisherOptions) {}

  /** Discovery of this connection is out: state may follow. */
  open(): void {
    this.statesReady = true;
  }

  /** Connection lost: the next connection republishes everything. */
  reset(): void {
    this.cache.clear();
    this.statesReady = false;
  }

  /** Stopping: nothing is published any more (the final `bridge/state` offline goes out directly). */
  close(): void {
    this.closed = true;
    clearTimeout(this.infoTimer);
    for (const e of this.eventStates.values()) clearTimeout(e.timer);
    this.eventStates.clear();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Publish as is (QoS 1 unless given): counted and reported; false when not connected. */
  send(topic: string, payload: string, o: PublishOptions = {}): boolean {
    if (this.closed || !this.opts.link.publish(topic, payload, { ...o, qos: o.qos ?? 1 })) return false;
    this.count++;
    this.opts.onPublish?.(topic, payload, !!o.retain);
    return true;
  }

  /** Publish when the payload differs from the last one on that topic (or `force`). */
  publish(topic: string, payload: string, o: PublishOptions & { force?: boolean } = {}): void {
    if (!this.cache.changed(topic, payload) && !o.force) return;
    // Not connected: forget it, the full republish after connecting covers it.
    if (!this.send(topic, payload, o)) this.cache.forget(topic);
  }

  /** `{"type", "data"}` on `<base>/bridge/event` (queued while disconnected: no republish restores it). */
  event(type: string, data: Json): void {
    this.publish(this.opts.topics.bridgeEvent, JSON.stringify({ type, data }), { force: true, queue: true });
  }

  bridgeState(online: boolean): void {
    this.send(this.opts.topics.bridgeState, JSON.stringify({ state: online ? 'online' : 'offline' }), { retain: true });
  }

  /**
   * `bridge/info`: on the next turn (the changes of one poll make one), and at most once per INFO_GAP_MS per
   * INFO_GAP_DEVICES devices (later calls in the gap make one publish at its end): it lists every device, and a
   * thousand devices coming online would otherwise rebuild it a thousand times. `force` (after connecting) goes out
   * at once and does not count.
   */
  info(force = false): void {
    if (force) {
      clearTimeout(this.infoTimer);
      this.infoTimer = undefined;
      return this.publishInfo(true);
    }
    if (this.infoTimer) return;
    this.infoTimer = setTimeout(
      () => {
        this.infoTimer = undefined;
        this.lastInfo = Date.now();
        this.publishInfo(false);
      },
      Math.max(0, this.lastInfo + INFO_GAP_MS * Math.ceil(this.opts.runtimes.size / INFO_GAP_DEVICES) - Date.now()),
    );
  }

  private publishInfo(force: boolean): void {
    const { config, runtimes } = this.opts;
    const body = {
      version: VERSION,
      base_topic: config.mqtt.base_topic,
      homeassistant: { enabled: config.homeassistant.enabled, discovery_prefix: config.homeassistant.discovery_prefix },
      devices: [...runtimes.values()].map((rt) => ({
        id: rt.id,
        name: rt.device.name,
        model: rt.device.facts.info?.model ?? null,
        firmware: rt.device.facts.info?.firmware ?? null,
        channels: rt.device.channels().map((ch) => ({ id: ch, slug: channelSlug(ch), online: channelOnline(rt.device.facts, ch) })),
        online: rt.online,
      })),
    };
    this.publish(this.opts.topics.bridgeInfo, JSON.stringify(body), { retain: true, force });
  }

  availability(rt: DeviceRuntime, force = false): void {
    const body = { state: rt.online ? 'online' : 'offline', ...(rt.offlineReason ? { reason: rt.offlineReason } : {}) };
    this.publish(this.opts.topics.availability(rt.id), JSON.stringify(body), {
      retain: true,
      force,
    });
  }

  /** An alarm edge on `<dev>/<ch>/event` (not retained; gated like state, after the channel's state; held while away). */
  alarmEdge(rt: DeviceRuntime, channel: string, edge: AlarmEdge): void {
    if (!rt.device.facts.info) return;
    const topic = this.opts.topics.event(rt.id, channelSlug(channel));
    const payload = JSON.stringify(edge);
    if (this.statesReady && !this.heldEdges.length && this.send(topic, payload)) return;
    if (this.heldEdges.length >= EDGE_BUFFER) {
      this.heldEdges.shift();
      this.droppedEdges++;
    }
    this.heldEdges.push({ topic, payload });
  }

  /** After reconnecting, once the state is out: the edges held meanwhile, in order. */
  releaseEdges(): void {
    while (this.heldEdges.length && this.statesReady) {
      const { topic, payload } = this.heldEdges[0];
      if (!this.send(topic, payload)) return;
      this.heldEdges.shift();
    }
  }

  /** A channel's state after a device event: at once, or at the end of its gap (EVENT_STATE_GAP_MS) during a storm. */
  eventState(rt: DeviceRuntime, channel: string): void {
    const key = `${rt.id}/${channel}`;
    const now = performance.now();
    const e = this.eventStates.get(key) ?? { at: -Infinity };
    this.eventStates.set(key, e);
    if (e.timer) return; // the publish at the end of the gap takes the state as it is then
    const wait = e.at + EVENT_STATE_GAP_MS - now;
    const go = () => {
      e.timer = undefined;
      e.at = performance.now();
      this.state(rt, { channel });
    };
    if (wait <= 0) go();
    else e.timer = setTimeout(go, wait);
  }

  /** A device's state topics (or one channel's, or the device's own only); `force`: even when unchanged. */
  state(rt: DeviceRuntime, o: { force?: boolean; channel?: string; deviceOnly?: boolean } = {}): void {
    // Not before the first poll read the channels and pages (identity alone, from an event meanwhile, would publish
    // every channel as offline).
    if (!this.statesReady || !rt.device.facts.info || rt.device.polled === false) return;
    const { topics, config } = this.opts;
    const d = rt.device;
    const retain = config.mqtt.retain;
    if (!o.channel) this.publish(topics.state(d.id), JSON.stringify(deviceState(d.facts)), { retain, force: o.force });
    if (o.deviceOnly) return;
    for (const ch of d.channels()) {
      if (o.channel && o.channel !== ch) continue;
      const slug = channelSlug(ch);
      // Retained like the device's: Home Assistant shows an Offline channel's entities unavailable from the start.
      const avail = JSON.stringify({ state: channelOnline(d.facts, ch) ? 'online' : 'offline' });
      this.publish(topics.availability(d.id, slug), avail, { retain: true, force: o.force });
      this.publish(topics.state(d.id, slug), JSON.stringify(channelState(d.facts, ch)), { retain, force: o.force });
    }
  }
}
