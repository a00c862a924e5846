/**
 * A real MQTT broker for tests: the one named by MQTT_TEST_URL (e.g. the Mosquitto on 127.0.0.1:1883), or an
 * embedded aedes on an ephemeral port. Every test uses its own random base topic and discovery prefix, so that
 * retained messages of one test never reach another, and clears what it left retained at the end.
 * The Recorder subscribes to `#` and keeps every message.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt, { type MqttClient } from 'mqtt';
import { startEmbeddedBroker, type EmbeddedBroker } from '../../bridge/mqtt/broker';
import { asHomeAssistantReads } from '../bridge/homeassistant';

export interface TestBroker {
  url: string;
  /** True for MQTT_TEST_URL: the broker cannot be restarted by the test. */
  external: boolean;
  port: number;
  /** Embedded only: stop the broker (connections dropped, retained messages lost). */
  stop(): Promise<void>;
  /** Embedded only: start it again on the same port. */
  restart(): Promise<void>;
}

export async function startTestBroker(opts: { embedded?: boolean } = {}): Promise<TestBroker> {
  const external = process.env.MQTT_TEST_URL;
  if (external && !opts.embedded) {
    return {
      url: external,
      external: true,
      port: Number(new URL(external).port || 1883),
      stop: async () => undefined,
      restart: async () => {
        throw new Error('cannot restart an external broker');
      },
    };
  }
  let broker: EmbeddedBroker | undefined = await startEmbeddedBroker({ port: 0 });
  const port = broker.port;
  return {
    url: broker.url,
    external: false,
    port,
    async stop() {
      await broker?.stop();
      broker = undefined;
    },
    async restart() {
      await broker?.stop();
      // The port was just released; retry briefly in case the OS holds it a moment.
      for (let i = 0; ; i++) {
        try {
          broker = await startEmbeddedBroker({ port, scan: 0 });
          return;
        } catch (err) {
          if (i > 50) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    },
  };
}

/** A unique base topic and discovery prefix for one test. */
export function uniqueTopics(label = 't'): { base: string; prefix: string } {
  const id = randomBytes(4).toString('hex');
  return { base: `nvr2mqtt_${label}_${id}`, prefix: `ha_${label}_${id}` };
}

export interface Message {
  topic: string;
  payload: string;
  retain: boolean;
  qos: number;
  at: number;
}

export class Recorder {
  readonly messages: Message[] = [];
  /** Messages the `keep` filter of start() left out (other tests' topics on a shared broker): never waited on. */
  readonly elsewhere: Message[] = [];
  private waiters: Array<{ pred: (m: Message) => boolean; resolve: (m: Message) => void }> = [];

  private topics: string[] = [];

  private constructor(
    readonly client: MqttClient,
    keep: (topic: string) => boolean,
  ) {
    client.on('message', (topic, payload, packet) => {
      const m: Message = { topic, payload: payload.toString('utf8'), retain: !!packet.retain, qos: packet.qos, at: Date.now() };
      if (!keep(topic)) return void this.elsewhere.push(m);
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred(m)) return true;
        w.resolve(m);
        return false;
      });
    });
  }

  static async start(url: string, topics: string[] = ['#'], keep: (topic: string) => boolean = () => true): Promise<Recorder> {
    const client = mqtt.connect(url, { clientId: `rec_${randomBytes(4).toString('hex')}`, reconnectPeriod: 200 });
    const rec = new Recorder(client, keep);
    rec.topics = topics;
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    // Like Home Assistant's client (paho sets TCP_NODELAY): no Nagle delay on small packets.
    const noDelay = () => (client.stream as { setNoDelay?: (v: boolean) => void } | undefined)?.setNoDelay?.(true);
    noDelay();
    // Re-subscribe after a broker restart (aedes forgets sessions).
    client.on('connect', () => {
      noDelay();
      client.subscribe(topics, { qos: 1 });
    });
    await client.subscribeAsync(topics, { qos: 1 });
    return rec;
  }

  /** Messages on one topic (or matching a predicate), oldest first. */
  on(topic: string | ((t: string) => boolean)): Message[] {
    const f = typeof topic === 'string' ? (t: string) => t === topic : topic;
    return this.messages.filter((m) => f(m.topic));
  }

  last(topic: string): Message | undefined {
    const list = this.on(topic);
    return list[list.length - 1];
  }

  /** The last message's JSON (a discovery config as Home Assistant reads its components: `asHomeAssistantReads`). */
  lastJson<T = Record<string, unknown>>(topic: string): T | undefined {
    const m = this.last(topic);
    return m && m.payload ? asHomeAssistantReads(JSON.parse(m.payload) as T) : undefined;
  }

  /** Resolves with the first message (already recorded since `since`, or future) that matches. */
  waitFor(pred: (m: Message) => boolean, timeoutMs = 5000, since = 0, what = 'message'): Promise<Message> {
    const seen = this.messages.slice(since).find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        pred,
        resolve: (m: Message) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timeout after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** The first message on `topic` whose JSON (read as `lastJson` reads it) matches. */
  waitTopic(topic: string, pred: (json: Record<string, unknown>) => boolean = () => true, timeoutMs = 5000, since = 0): Promise<Message> {
    return this.waitFor(
      (m) => {
        if (m.topic !== topic || !m.payload) return false;
        try {
          return pred(asHomeAssistantReads(JSON.parse(m.payload) as Record<string, unknown>));
        } catch {
          return false;
        }
      },
      timeoutMs,
      since,
      `${topic}`,
    );
  }

  get count(): number {
    return this.messages.length;
  }

  /**
   * Resolves once the recorder is connected again and its subscriptions hold (after a broker restart): the
   * broker handles one client's packets in order, so a SUBACK here follows the re-subscription on connect.
   */
  async subscribed(timeoutMs = 5000): Promise<void> {
    if (!this.client.connected) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`recorder not reconnected after ${timeoutMs} ms`)), timeoutMs);
        this.client.once('connect', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await this.client.subscribeAsync(this.topics, { qos: 1 });
  }

  publish(topic: string, payload: string | Buffer, opts: { qos?: 0 | 1; retain?: boolean } = {}): Promise<void> {
    return this.client.publishAsync(topic, payload, { qos: opts.qos ?? 1, retain: opts.retain ?? false }).then(() => undefined);
  }

  async stop(): Promise<void> {
    await this.client.endAsync(true).catch(() => undefined);
  }
}

/** A pass this large may have met the broker's limit (Mosquitto's default queue is 1,000). */
const PASS_MAYBE_CUT = 500;

/**
 * Clears every retained message under the given topic prefixes (external brokers keep them across runs). A broker
 * sends a new subscriber only so many at once (Mosquitto about a thousand: its queue per client), so: subscribe,
 * gather until none came for `windowMs`, clear those, and again while a pass may have been cut short (a
 * 1,000-device bench leaves about 30,000; a test, a few hundred: one pass).
 */
export async function clearRetained(url: string, prefixes: string[], windowMs = 300): Promise<number> {
  const client = mqtt.connect(url, { clientId: `clr_${randomBytes(4).toString('hex')}`, reconnectPeriod: 0 });
  const filters = prefixes.map((p) => `${p}/#`);
  let cleared = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    let pass = new Set<string>();
    let lastAt = 0;
    client.on('message', (topic, payload, packet) => {
      lastAt = Date.now();
      if (packet.retain && payload.length) pass.add(topic);
    });
    for (let round = 0; round < 100; round++) {
      pass = new Set();
      await client.subscribeAsync(filters, { qos: 1 });
      lastAt = Date.now();
      while (Date.now() - lastAt < windowMs) await sleep(Math.max(10, lastAt + windowMs - Date.now()));
      await client.unsubscribeAsync(filters);
      await Promise.all([...pass].map((t) => client.publishAsync(t, '', { qos: 1, retain: true })));
      cleared += pass.size;
      if (pass.size < PASS_MAYBE_CUT) break;
    }
    return cleared;
  } catch {
    return cleared;
  } finally {
    await client.endAsync(true).catch(() => undefined);
  }
}
