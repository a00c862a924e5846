/**
 * What the bridge announces on every (re)connect, in this order: subscriptions, `bridge/state` online, availability
 * (once known), `bridge/info`, discovery (after reading the retained configs of earlier runs and clearing those of
 * removed devices), then the full state; the retained state of removed devices is cleared after their discovery. And Home Assistant's birth message
 * (`homeassistant/status` = `online`): discovery again, then the state after a short delay.
 */
import type { BridgeConfig } from '../base/config';
import type { Discovery } from '../homeassistant/discovery';
import { errorText, type Logger } from '../base/log';
import type { MqttLink } from '../mqtt/link';
import type { StatePublisher } from './publisher';
import type { DeviceRuntime } from '../device/runtime';
import type { Topics } from '../mqtt/topics';

export interface AnnouncerOptions {
  config: BridgeConfig;
  link: MqttLink;
  topics: Topics;
  runtimes: ReadonlyMap<string, DeviceRuntime>;
  publisher: StatePublisher;
  discovery: Discovery;
  log: Logger;
  /** Retained state topics of devices no longer configured (from the instance probe): cleared once. */
  stale: string[];
  /** Claims the base topic on this connection (InstanceGuard): false when another instance acts, then nothing is announced. */
  claim: () => Promise<boolean>;
  haStateDelayMs: number;
  /** Home Assistant's time to drop the entities of a cleared config before their state topics are cleared. */
  entitySetupMs: number;
}

export class Announcer {
  private subscribed = false;
  /** Connections so far: an announce whose connection is no longer the current one stops. */
  private connections = 0;
  private haTimer?: NodeJS.Timeout;
  private staleTimer?: NodeJS.Timeout;
  /** Home Assistant's `online` messages so far (the last one's state goes out). */
  private haOnline = 0;
  private readonly onConnect = (sessionPresent: boolean) => void this.announce(sessionPresent);
  private readonly onDisconnect = () => {
    this.opts.publisher.reset();
    this.opts.discovery.reset();
  };

  constructor(private readonly opts: AnnouncerOptions) {}

  start(): void {
    this.opts.link.on('connect', this.onConnect);
    this.opts.link.on('disconnect', this.onDisconnect);
  }

  stop(): void {
    this.opts.link.off('connect', this.onConnect);
    this.opts.link.off('disconnect', this.onDisconnect);
    if (this.haTimer) clearTimeout(this.haTimer);
    this.haTimer = undefined;
    clearTimeout(this.staleTimer);
    this.haOnline++; // a republish still being sent sets no timer
  }

  /** A message on Home Assistant's status topic. */
  homeAssistantStatus(payload: Buffer): void {
    if (payload.toString('utf8').trim() !== 'online') return;
    const { discovery, runtimes, publisher, log } = this.opts;
    log.info('Home Assistant is online: republishing discovery, then state');
    if (this.haTimer) clearTimeout(this.haTimer);
    this.haTimer = undefined;
    const asked = ++this.haOnline;
    void discovery.republish(this.devices()).then(() => {
      if (asked !== this.haOnline) return; // asked again since: that one's state follows
      this.haTimer = setTimeout(() => {
        this.haTimer = undefined;
        for (const rt of runtimes.values()) publisher.state(rt, { force: true });
      }, this.opts.haStateDelayMs);
    });
  }

  /**
   * The retained state of devices no longer configured would stay forever: cleared once their discovery is (collect
   * clears it) and Home Assistant had the time to drop their entities; before, each cleared topic would be a template
   * error of every entity reading it.
   */
  private clearStale(): void {
    const stale = this.opts.stale.splice(0);
    if (!stale.length) return;
    const { publisher, log, link, config } = this.opts;
    const clear = () => {
      this.staleTimer = undefined;
      // Disconnected meanwhile: the next connection clears them.
      if (!link.connected) return void this.opts.stale.push(...stale);
      for (const topic of stale) {
        log.info(`removing retained ${topic} (device no longer configured)`);
        publisher.send(topic, '', { retain: true });
      }
    };
    if (!config.homeassistant.enabled) return clear();
    clearTimeout(this.staleTimer);
    this.staleTimer = setTimeout(clear, this.opts.entitySetupMs);
  }

  private devices() {
    return [...this.opts.runtimes.values()].map((rt) => rt.device);
  }

  private async announce(sessionPresent: boolean): Promise<void> {
    const { config, link, topics, runtimes, publisher, discovery, log } = this.opts;
    const connection = ++this.connections;
    const current = () => link.connected && connection === this.connections;
    publisher.reset();
    discovery.reset();
    try {
      if (!(await this.opts.claim()) || !current()) return;
      // The broker kept the session (and its subscriptions) across a reconnect: subscribing again would make it
      // send every retained message on those topics again. After a restart the config may have changed: subscribe.
      if (!this.subscribed || !sessionPresent) {
        const subs = topics.commandSubscriptions([...runtimes.keys()], config.request_api.enabled);
        if (config.homeassistant.enabled) subs.push(config.homeassistant.status_topic);
        await link.subscribe(subs, 1);
        // Switched off: the persistent session may still hold an earlier run's subscription.
        if (!config.request_api.enabled) await link.unsubscribe([topics.requestSubscription]);
        this.subscribed = current();
      }
      publisher.bridgeState(true);
      // Availability only once known: a restart must not flap a device offline before its first poll.
      for (const rt of runtimes.values()) if (rt.started) publisher.availability(rt, true);
      publisher.info(true);
      // A connection that dropped meanwhile leaves the rest to the next one (its own announce); one that dropped while
      // reading the retained configs (its ping lost with it) has them read again on this one.
      while (!discovery.isCollected && current()) await discovery.collect(this.devices());
      if (!current()) return;
      this.clearStale();
      publisher.open();
      // Each device's state after its configs, a few devices at a time (a thousand at once: a 200 MB peak).
      void discovery.republish(this.devices(), (d) => publisher.state(runtimes.get(d.id)!));
      // Alarm edges that happened while the broker was away, with their own times (bounded: EDGE_BUFFER).
      if (publisher.droppedEdges) log.warn(`${publisher.droppedEdges} alarm edge(s) dropped while the broker was away (buffer full)`);
      publisher.droppedEdges = 0;
      publisher.releaseEdges();
    } catch (err) {
      log.error(`after connecting: ${errorText(err)}`);
    }
  }
}
