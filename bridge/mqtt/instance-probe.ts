/**
 * Before the bridge connects for real (with its stable client id and its last will), a separate short-lived
 * client reads what is retained under the base topic:
 *
 * - `<base>/bridge/state` `online`: another instance runs on this base topic. Starting a second one would take
 *   over its client id (the broker drops the first connection), delete its discovery, refuse its commands and
 *   leave `bridge/state` offline when it stops; so the bridge refuses to start, having published nothing. A
 *   crashed instance left `offline` behind (its last will), which means free.
 * - the retained state topics of devices no longer configured: cleared once the bridge is connected.
 *
 * The probe client has a random id, a clean session and no will: it leaves no trace on the broker.
 */
import { randomBytes } from 'node:crypto';
import { channelFromSlug } from '../../core';
import type { BridgeConfig } from '../base/config';
import type { Logger } from '../base/log';
import { MqttLink } from './link';
import type { Topics } from './topics';

export interface ProbeResult {
  /** `bridge/state` is retained `online`, with `bridge/info` (if any) describing that instance. */
  running?: { info?: Record<string, unknown> };
  /** Retained state topics (`<base>/<dev>`, `/availability`, `/<ch>`) of devices not in the config. */
  stale: string[];
}

export class InstanceConflict extends Error {
  constructor(
    readonly base: string,
    detail: string,
    /** The retained bridge/state said so (a crashed instance may have left it): say how to clear it. */
    fromState = true,
  ) {
    super(
      `another nvr2mqtt instance is running on base topic "${base}" (${detail}); stop it or choose another ` +
        `mqtt.base_topic.${
          fromState ? ` If it is gone without having said so, clear the retained topic: mosquitto_pub -r -n -t '${base}/bridge/state'` : ''
        }`,
    );
    this.name = 'InstanceConflict';
  }
}

/**
 * How long a claim has to prove itself: the claimer answers the challenge, or (sharing this one's client id) takes the
 * session back, which its automatic reconnect does within a few seconds.
 */
const CHALLENGE_MS = 5000;

/**
 * The probe cannot see an instance started at the same moment. So on every connection each instance claims the base
 * topic: it publishes its id, retained, on `<base>/bridge/instance`, and stays subscribed there. A claim by another
 * instance seen after its own (live, or retained when it connects again after the broker dropped it because the other
 * took over its client id) means the other acts from now on, once the claim is proven: any client may publish there,
 * so this one challenges the claimer (`{"challenge", "to", "from"}`) and yields only when it answers with its own id
 * (`{"proof", "by"}`), or takes over this one's MQTT session meanwhile. The claims are ordered as the broker delivers
 * them (an instance counts as claimed once its own claim came back), so the newest wins and two instances never take
 * turns. An unproven claim is logged and the base topic claimed again. The yielding instance says `offline` and then
 * `{"yielded", "to"}`, on which the winner says `online` again: nobody left `online` behind for an instance that was
 * never there.
 */
export class InstanceGuard {
  readonly id = randomBytes(8).toString('hex');
  private claimed = false;
  private lost = false;
  private pinged?: { nonce: string; heard: () => void };
  /** Claims being checked: the claimer's id, the nonce it must send back, and how to settle the check. */
  private readonly checks = new Map<string, { nonce: string; settle: (proof: string | undefined) => void }>();
  /** The instance this one yielded to, which answered its challenge (connected: told so after `offline`). */
  private winner?: string;

  constructor(
    private readonly link: MqttLink,
    private readonly topics: Topics,
    private readonly log: Logger,
    /** Another instance proved its claim on the base topic after this one. */
    private readonly onLost: (detail: string) => void,
    /** An instance that yielded to this one said so (after publishing `offline`). */
    private readonly onYieldedTo: () => void,
  ) {}

  /**
   * On every connection, before anything else is published: true when this instance may act (then it has claimed the
   * base topic). Subscribing sends the retained claim; a ping of our own, sent after, comes back behind it.
   */
  async claim(): Promise<boolean> {
    const nonce = randomBytes(4).toString('hex');
    const heard = new Promise<void>((resolve) => (this.pinged = { nonce, heard: resolve }));
    await this.link.subscribe([this.topics.bridgeInstance], 1);
    this.link.publish(this.topics.bridgeInstance, JSON.stringify({ ping: nonce }), { qos: 1 });
    const timer = new Promise<void>((r) => setTimeout(r, 3000).unref());
    await Promise.race([heard, timer]);
    if (this.lost) return false;
    this.publishClaim();
    return true;
  }

  private publishClaim(): void {
    this.link.publish(this.topics.bridgeInstance, JSON.stringify({ instance: this.id, started: new Date().toISOString() }), {
      qos: 1,
      retain: true,
    });
  }

  /** A message on `<base>/bridge/instance`. */
  message(payload: Buffer): void {
    const doc = parseObject(payload.toString('utf8'));
    if (!doc) return;
    if (typeof doc.ping === 'string' && doc.ping === this.pinged?.nonce) this.pinged.heard();
    if (typeof doc.challenge === 'string' && doc.to === this.id && typeof doc.from === 'string') this.answer(doc.challenge, doc.from);
    if (typeof doc.proof === 'string' && typeof doc.by === 'string') {
      const check = this.checks.get(doc.by);
      if (check?.nonce === doc.proof) check.settle('it answered with its id');
    }
    if (doc.yielded !== undefined && doc.to === this.id && this.claimed && !this.lost) this.onYieldedTo();
    if (typeof doc.instance !== 'string' || this.lost) return;
    // Our own claim, as the broker ordered it among the others.
    if (doc.instance === this.id) return void (this.claimed = true);
    // Before our first claim, an older claim (a crashed or stopped instance, or one the probe saw offline) is no news.
    if (this.claimed) void this.check(doc.instance);
  }

  /** After `offline`: tells the instance this one yielded to that it may say `online` again. */
  async yielded(): Promise<void> {
    if (!this.winner) return;
    await this.link.publishAndWait(this.topics.bridgeInstance, JSON.stringify({ yielded: this.id, to: this.winner }), { qos: 1 });
  }

  private answer(nonce: string, from: string): void {
    if (!this.claimed || this.lost) return;
    // Two instances checking each other's claim at once: only one answers (the greater id), so exactly one yields.
    if (this.checks.has(from) && from > this.id) return;
    this.link.publish(this.topics.bridgeInstance, JSON.stringify({ proof: nonce, by: this.id }), { qos: 1 });
  }

  private async check(claimer: string): Promise<void> {
    if (this.checks.has(claimer)) return;
    const nonce = randomBytes(8).toString('hex');
    let settle!: (proof: string | undefined) => void;
    const proven = new Promise<string | undefined>((resolve) => (settle = resolve));
    this.checks.set(claimer, { nonce, settle });
    const dropped = () => settle("it took over this instance's MQTT session");
    this.link.once('disconnect', dropped);
    const timer = setTimeout(() => settle(undefined), CHALLENGE_MS).unref();
    this.link.publish(this.topics.bridgeInstance, JSON.stringify({ challenge: nonce, to: claimer, from: this.id }), { qos: 1 });
    const proof = await proven;
    clearTimeout(timer);
    this.link.off('disconnect', dropped);
    this.checks.delete(claimer);
    if (this.lost) return;
    if (proof) {
      this.lost = true;
      if (this.link.connected) this.winner = claimer;
      this.onLost(`it started after this one and claimed the base topic; ${proof}`);
      return;
    }
    this.log.warn(
      `a claim on ${this.topics.bridgeInstance} by instance ${JSON.stringify(claimer)} was not proven (no answer to its challenge ` +
        `within ${CHALLENGE_MS / 1000} s): ignored, base topic claimed again`,
    );
    this.publishClaim();
  }
}

/** A retained topic under the base topic that a bridge publishes for a device (not commands). */
function deviceOf(topics: Topics, topic: string): string | undefined {
  const p = topic.slice(topics.base.length + 1).split('/');
  if (p[0] === 'bridge' || p.length > 2) return undefined;
  if (p.length === 2 && p[1] !== 'availability' && !channelFromSlug(p[1])) return undefined;
  return p[0];
}

export async function probeInstance(
  config: BridgeConfig,
  url: string,
  topics: Topics,
  log: Logger,
  opts: { windowMs: number; connectTimeoutMs: number },
): Promise<ProbeResult> {
  const link = new MqttLink({
    url,
    username: config.mqtt.username,
    password: config.mqtt.password,
    tls: config.mqtt.tls,
    log: log.child('probe'),
    reconnectPeriodMs: 1000,
  });
  const retained = new Map<string, string>();
  link.onMessage((topic, payload, packet) => {
    if (packet.retain && payload.length) retained.set(topic, payload.toString('utf8'));
  });
  try {
    await link.waitConnected(opts.connectTimeoutMs);
    await link.subscribe([`${topics.base}/+`, `${topics.base}/+/+`], 1);
    // Retained messages follow the subscription's acknowledgement; there is no "that was all" marker.
    await new Promise((r) => setTimeout(r, opts.windowMs));
  } finally {
    await link.end();
  }
  const result: ProbeResult = { stale: [] };
  const state = retained.get(topics.bridgeState);
  if (state !== undefined && parseState(state) === 'online') {
    result.running = { info: parseObject(retained.get(topics.bridgeInfo)) };
  }
  const configured = new Set(config.devices.map((d) => d.id));
  for (const topic of retained.keys()) {
    const device = deviceOf(topics, topic);
    if (device !== undefined && !configured.has(device)) result.stale.push(topic);
  }
  return result;
}

function parseState(text: string): string | undefined {
  const doc = parseObject(text);
  return typeof doc?.state === 'string' ? doc.state : text.trim();
}

function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const doc: unknown = JSON.parse(text);
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Watches for another instance acting on this base topic from now on: one that claimed it after this one, or took over
 * this one's MQTT session (same client id). `yieldTo` gets what happened.
 */
export function watchInstance(
  link: MqttLink,
  topics: Topics,
  log: Logger,
  yieldTo: (detail: string) => void,
  /** An instance yielded to this one (and said `offline`): say `online` again. */
  yieldedTo: () => void,
): InstanceGuard {
  const guard = new InstanceGuard(link, topics, log, yieldTo, yieldedTo);
  link.once('taken_over', () => yieldTo('it connected with the same MQTT client id and took over the session'));
  return guard;
}
