/**
 * The bridge's MQTT connection (MQTT.js v5): last will `bridge/state` offline (retained, QoS 1), automatic
 * reconnect, QoS 1 subscriptions whose messages are acknowledged only after the bridge has handled them (parsed,
 * checked, queued), TLS per connection with a CA file or a pinned certificate fingerprint. Nothing here changes
 * process-wide TLS settings.
 *
 * A stable client id and a persistent session (`clean: false`) with QoS 1 subscriptions: while the bridge
 * reconnects, the broker keeps the commands sent to it and delivers them afterwards.
 *
 * MQTT 5 where the broker speaks it (3.1.1 otherwise: the embedded aedes), for what 3.1.1 cannot say:
 * - subscriptions with "retain as published": a retained command queued for the session while the bridge was away
 *   still carries its retain flag, and is refused like any retained command;
 * - the broker's reason for ending the session: "session taken over" (0x8E) means another instance connected
 *   with this client id; the link stops (`taken_over`) instead of taking it back;
 * - reason codes on PUBACK and SUBACK: a publish or subscription the broker refuses (an ACL) is logged once per
 *   topic as a warning and listed in `refusals` (`--check` reports them).
 *
 * Payloads are sent as given, never rewritten: secrets stay out by construction (nothing the bridge publishes
 * is built from a configured password).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventEmitter, once } from 'node:events';
import { Duplex, type Writable } from 'node:stream';
import * as tls from 'node:tls';
import createDebug from 'debug';
import mqtt, { MqttClient, ReasonCodes, type IClientOptions, type IPublishPacket } from 'mqtt';
import type { TlsMaterial } from '../base/config';
import { errorText, maskUrlCredentials, type Logger } from '../base/log';

export interface MqttLinkOptions {
  url: string;
  username?: string;
  password?: string;
  /** Stable across restarts (the persistent session belongs to it); default: a random one, clean session. */
  clientId?: string;
  tls?: TlsMaterial;
  /** Last will (retained, QoS 1): the bridge's offline state. None for short-lived clients (--check). */
  will?: { topic: string; payload: string };
  log: Logger;
  /** Delay between reconnect attempts. Default 2000 ms. */
  reconnectPeriodMs?: number;
  keepaliveS?: number;
  /** 5 (default: falls back to 3.1.1 when the broker refuses it) or 4 (3.1.1 only: the embedded broker). */
  protocolVersion?: 4 | 5;
}

/** How long the broker keeps the persistent session (MQTT 5 needs it said; 3.1.1 keeps it forever): a week. */
const SESSION_EXPIRY_S = 7 * 24 * 3600;
/** Filters in one SUBSCRIBE packet (see `subscribe`). */
const SUBSCRIBE_BATCH = 100;
/** readRetained gives up when nothing arrives for this long (a broker that never returns the ping). */
const RETAINED_STALL_MS = 10_000;
/** How long after the last retained message readRetained still waits for more (only when some came). */
const RETAINED_QUIET_MS = 300;

/**
 * Bytes the connection may hold unsent before bulk senders wait (`sendable`): a few recorders' discovery. More would
 * only sit in the bridge's memory while the broker catches up.
 */
const SEND_BUFFER_LIMIT = 1 << 20;

/** MQTT 5 DISCONNECT reason: another client connected with this client id. */
const SESSION_TAKEN_OVER = 0x8e;

export interface PublishOptions {
  retain?: boolean;
  qos?: 0 | 1;
  /**
   * While disconnected, hand the message (QoS 1) to MQTT.js, which sends it after reconnecting: for what no
   * republish restores (events, responses: the outcome of a command received before the broker went away).
   */
  queue?: boolean;
}

/** Handles one incoming message; the broker gets its PUBACK when this returns. Must not throw. */
export type MessageHandler = (topic: string, payload: Buffer, packet: IPublishPacket) => void;

/**
 * A TLS stream that releases no byte (MQTT CONNECT carries the password) before the server certificate's
 * SHA-256 fingerprint has been checked against the pin.
 */
class PinnedTlsStream extends Duplex {
  private readonly socket: tls.TLSSocket;
  private verified = false;
  private pending: Array<{ chunk: unknown; encoding: BufferEncoding; cb: (err?: Error | null) => void }> = [];

  constructor(opts: tls.ConnectionOptions, pin: string, ca: boolean) {
    super();
    // The pin replaces chain and host-name checks (self-signed brokers); with a CA as well, both must hold.
    this.socket = tls.connect({ ...opts, rejectUnauthorized: false });
    this.socket.on('secureConnect', () => {
      const cert = this.socket.getPeerCertificate();
      const got = cert?.fingerprint256?.replace(/:/g, '').toUpperCase();
      let problem: string | undefined;
      if (!got) problem = 'TLS: the broker presented no certificate';
      else if (got !== pin) problem = `TLS: broker certificate fingerprint ${cert.fingerprint256} does not match the pinned one`;
      else if (ca && !this.socket.authorized)
        problem = `TLS: broker certificate not signed by the given CA (${this.socket.authorizationError})`;
      if (problem) {
        // With a code: MQTT.js reports coded stream errors (and drops the others silently).
        this.destroy(Object.assign(new Error(problem), { code: 'ERR_TLS_CERT_PIN_MISMATCH' }));
        return;
      }
      this.verified = true;
      for (const p of this.pending.splice(0)) this.socket.write(p.chunk as Buffer, p.encoding, p.cb);
    });
    this.socket.on('data', (d) => {
      if (!this.push(d)) this.socket.pause();
    });
    this.socket.on('end', () => this.push(null));
    this.socket.on('error', (err: Error) => this.destroy(err));
    this.socket.on('close', () => this.destroy());
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: unknown, encoding: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.verified) this.socket.write(chunk as Buffer, encoding, cb);
    else this.pending.push({ chunk, encoding, cb });
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.socket.end(() => cb());
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.socket.destroy();
    for (const p of this.pending.splice(0)) p.cb(err ?? new Error('closed'));
    cb(err);
  }
}

/**
 * The bridge's client id when `mqtt.client_id` is not set: derived from the base topic, so it is the same
 * after every restart (the broker keeps the session, and the commands queued for it, under this id).
 */
export function clientIdFor(baseTopic: string): string {
  return `nvr2mqtt_${baseTopic.replace(/[^A-Za-z0-9_-]+/g, '_')}`.slice(0, 64);
}

/** MQTT.js's client log (`DEBUG=mqttjs:client`), on only when asked for. */
const mqttDebug = createDebug('mqttjs:client');

/** That log with the CONNECT packet's password masked: it prints every packet it writes. */
function mqttLog(format: unknown, ...args: unknown[]): void {
  mqttDebug(format, ...args.map((a) => (a && typeof a === 'object' && 'password' in a ? { ...a, password: '***' } : a)));
}
const ignore = () => undefined;

export class MqttLink extends EventEmitter {
  readonly client: MqttClient;
  private handler: MessageHandler = () => undefined;
  private closing = false;
  private lastErrorText = '';
  private everConnected = false;
  /** Topics whose publish or subscription the broker refused, with its reason (logged once each). */
  readonly refusals = new Map<string, string>();

  constructor(private readonly opts: MqttLinkOptions) {
    super();
    const v5 = (opts.protocolVersion ?? 5) === 5;
    const base: IClientOptions = {
      protocolVersion: v5 ? 5 : 4,
      // MQTT 5 ends a session with its connection unless told to keep it.
      properties: v5 && opts.clientId ? { sessionExpiryInterval: SESSION_EXPIRY_S } : undefined,
      // A persistent session needs a stable id; a random id gets a clean one (short-lived clients: --check, probes).
      clean: !opts.clientId,
      resubscribe: false, // the bridge subscribes itself on every connect
      reconnectPeriod: opts.reconnectPeriodMs ?? 2000,
      connectTimeout: 10_000,
      keepalive: opts.keepaliveS ?? 30,
      queueQoSZero: false,
      // Packet ids written as they come, not from MQTT.js's table of 65,536 two-byte buffers (about 7 MB of heap).
      writeCache: false,
      // MQTT.js logs through `debug` on every packet; off, each call still gathers its arguments (24 MB of garbage in
      // 13 s of a hundred recorders' start-up).
      log: mqttDebug.enabled ? mqttLog : ignore,
      clientId: opts.clientId ?? `nvr2mqtt_${Math.random().toString(16).slice(2, 10)}`,
      username: opts.username,
      // As bytes: mqtt-packet's own debug log (DEBUG=mqtt-packet:*) prints every string it writes.
      password: opts.password === undefined ? undefined : Buffer.from(opts.password),
      will: opts.will ? { topic: opts.will.topic, payload: Buffer.from(opts.will.payload), qos: 1, retain: true } : undefined,
    };
    const url = new URL(opts.url);
    const secure = /^(mqtts|tls|ssl|wss):$/.test(url.protocol);
    if (secure && opts.tls?.fingerprint) {
      if (url.protocol === 'wss:') throw new Error('mqtt.tls.fingerprint: supported for mqtts:// URLs, not wss://');
      const pin = opts.tls.fingerprint.replace(/:/g, '').toUpperCase();
      const host = url.hostname;
      const port = Number(url.port || 8883);
      const tlsOpts: tls.ConnectionOptions = {
        host,
        port,
        ca: opts.tls.ca,
        cert: opts.tls.cert,
        key: opts.tls.key,
        servername: /^[\d.]+$|:/.test(host) ? undefined : host,
      };
      this.client = new MqttClient(() => new PinnedTlsStream(tlsOpts, pin, !!opts.tls?.ca) as never, { ...base, host, port });
    } else {
      this.client = mqtt.connect(opts.url.replace(/^tls:/, 'mqtts:'), {
        ...base,
        ...(secure ? { ca: opts.tls?.ca, cert: opts.tls?.cert, key: opts.tls?.key, rejectUnauthorized: true } : {}),
      });
    }
    // Acknowledge (PUBACK) only after the handler ran: a message is handed over, never lost in between.
    this.client.handleMessage = (packet, done) => {
      this.deliver(this.handler, packet.topic, packet.payload as Buffer, packet);
      done();
    };
    this.client.on('disconnect', (packet) => {
      if (packet.reasonCode !== SESSION_TAKEN_OVER || this.closing) return;
      // Another instance connected with this client id. Taking the session back would only start a tug of war.
      opts.log.error(`MQTT: the broker ended this session: another client connected with the same client id (session taken over)`);
      this.closing = true;
      this.client.end(true);
      this.emit('taken_over');
    });
    this.client.on('connect', (connack) => {
      // Commands and their confirmations are small packets: send them at once (no Nagle delay).
      (this.client.stream as { setNoDelay?: (v: boolean) => void } | undefined)?.setNoDelay?.(true);
      this.lastErrorText = '';
      this.everConnected = true;
      opts.log.info(`MQTT connected to ${this.safeUrl}${this.protocol === 5 ? '' : ' (MQTT 3.1.1)'}`);
      this.emit('connect', !!connack.sessionPresent);
    });
    // Before the first connection there is nothing to lose (a refused MQTT 5 attempt, a broker not up yet).
    this.client.on('close', () => {
      if (!this.closing && this.everConnected) this.emit('disconnect');
    });
    this.client.on('offline', () => {
      if (!this.closing && this.everConnected) opts.log.warn(`MQTT connection to ${this.safeUrl} lost; reconnecting`);
    });
    this.client.on('error', (err: Error & { code?: number }) => {
      // A broker without MQTT 5 (CONNACK "unacceptable protocol version"): speak 3.1.1 to it.
      if (this.protocol === 5 && !this.everConnected && (err.code === 1 || err.code === 132)) {
        opts.log.info(`MQTT: ${this.safeUrl} does not speak MQTT 5; using 3.1.1`);
        this.client.options.protocolVersion = 4;
        delete this.client.options.properties;
        // Read by MQTT.js right after this handler: it schedules the reconnect (with 3.1.1) itself, this once.
        this.client.options.reconnectOnConnackError = true;
        setImmediate(() => (this.client.options.reconnectOnConnackError = false));
        return;
      }
      const text = errorText(err);
      // One line per distinct problem: a broker that stays down must not flood the log.
      if (text !== this.lastErrorText) opts.log.error(`MQTT ${this.safeUrl}: ${text}`);
      this.lastErrorText = text;
      this.emit('mqtt_error', err);
    });
  }

  get safeUrl(): string {
    return maskUrlCredentials(this.opts.url);
  }

  get connected(): boolean {
    return this.client.connected;
  }

  /** The protocol spoken: 5, or 4 (3.1.1) with a broker that does not speak MQTT 5. */
  get protocol(): 4 | 5 {
    return this.client.options.protocolVersion === 5 ? 5 : 4;
  }

  /** A PUBACK or SUBACK reason code of failure: logged once per topic, kept for `--check`. */
  private refused(what: 'publishing on' | 'subscribing to', topic: string, code: number): void {
    const text = `${ReasonCodes[code as keyof typeof ReasonCodes] || 'refused'} (reason code 0x${code.toString(16)})`;
    if (this.refusals.has(topic)) return;
    this.refusals.set(topic, `${what} ${topic}: ${text}`);
    this.opts.log.warn(`MQTT: the broker refused ${what} ${topic}: ${text}; check its ACL for this user`);
  }

  /**
   * Every message from the broker reaches its handler through here: whatever anyone published (a crafted retained
   * config, a command), a handler that throws is logged, never thrown into MQTT.js (where it ends the process).
   */
  private deliver(handler: MessageHandler, topic: string, payload: Buffer, packet: IPublishPacket): void {
    try {
      handler(topic, payload, packet);
    } catch (err) {
      this.opts.log.error(`message on ${topic}: ${errorText(err)}`);
    }
  }

  onMessage(handler: MessageHandler): void {
    this.handler = handler;
  }

  /** Resolves on the first connection; rejects when the broker refuses the credentials or after timeoutMs. */
  waitConnected(timeoutMs = 30_000): Promise<void> {
    if (this.client.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`MQTT: no connection to ${this.safeUrl} within ${timeoutMs / 1000} s`)), timeoutMs);
      const onConnect = () => finish();
      const onError = (err: Error & { code?: number }) => {
        // CONNACK 4 (bad user name or password) / 5 (not authorized): retrying will not help.
        if (err.code === 4 || err.code === 5 || /not authori[sz]ed|bad user/i.test(err.message)) finish(err);
      };
      const finish = (err?: Error) => {
        clearTimeout(timer);
        this.off('connect', onConnect);
        this.off('mqtt_error', onError);
        if (err) reject(err);
        else resolve();
      };
      this.on('connect', onConnect);
      this.on('mqtt_error', onError);
    });
  }

  /** Publishes when connected (returns false otherwise: the full republish after reconnect covers it), or queues. */
  publish(topic: string, payload: string | Buffer, opts: PublishOptions = {}): boolean {
    if (this.closing || (!this.client.connected && !(opts.queue && opts.qos === 1))) return false;
    this.client.publish(topic, payload, { qos: opts.qos ?? 0, retain: opts.retain ?? false }, (err) => {
      const code = (err as { code?: unknown } | undefined)?.code;
      if (typeof code === 'number' && code >= 0x80) this.refused('publishing on', topic, code);
      else if (err && !this.closing) this.opts.log.debug(`publish ${topic}: ${errorText(err)}`);
    });
    return true;
  }

  /**
   * Resolves once the connection holds less than SEND_BUFFER_LIMIT unsent (at once, or when it drains or closes).
   * Bulk senders wait on it: discovery for a thousand recorders is about 200 MB, which a broker slower than the
   * bridge (busy, remote, or sharing its core) would otherwise leave in the bridge's socket buffer.
   */
  async sendable(): Promise<void> {
    const stream = this.client.stream as Writable | undefined;
    if (!stream || stream.destroyed || stream.writableLength < SEND_BUFFER_LIMIT) return;
    const done = new AbortController();
    // 'drain' comes once the buffer is empty; a connection that closes first has nothing left to wait for.
    await Promise.race([once(stream, 'drain', { signal: done.signal }), once(stream, 'close', { signal: done.signal })]).catch(
      () => undefined,
    );
    done.abort();
  }

  /** Publish and wait for the broker's acknowledgement (QoS 1), bounded. */
  publishAndWait(topic: string, payload: string, opts: PublishOptions = {}, timeoutMs = 3000): Promise<void> {
    if (!this.client.connected) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.client.publish(topic, payload, { qos: opts.qos ?? 1, retain: opts.retain ?? false }, (err) => {
        const code = (err as { code?: unknown } | undefined)?.code;
        if (typeof code === 'number' && code >= 0x80) this.refused('publishing on', topic, code);
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Subscribe (MQTT 5: retain as published, so that a retained message shows as one however it arrives). A filter the
   * broker refuses (SUBACK reason code) is logged and listed in `refusals`; the others stand. Sent SUBSCRIBE_BATCH
   * filters to a packet: a thousand devices make four thousand, and a broker may bound a packet (some take a few
   * filters at most) or, like the embedded one (aedes 1.2, persistent session), store a packet's filters once per
   * filter in it (4,000 filters in one packet: 11 s of its CPU; in packets of 100: 0.3 s).
   */
  async subscribe(topics: string[], qos: 0 | 1 = 1): Promise<void> {
    const batches = Array.from({ length: Math.ceil(topics.length / SUBSCRIBE_BATCH) }, (_, i) =>
      topics.slice(i * SUBSCRIBE_BATCH, (i + 1) * SUBSCRIBE_BATCH),
    );
    await Promise.all(batches.map((batch) => this.subscribeBatch(batch, qos)));
  }

  private subscribeBatch(topics: string[], qos: 0 | 1): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!topics.length) return resolve();
      this.client.subscribe(topics, { qos, rap: true }, (err, _granted, packet) => {
        // The SUBACK's codes, in the order of the filters (one batch): 0x80 and above refuse that filter.
        const codes = (packet as { granted?: unknown[] } | undefined)?.granted ?? [];
        const refused = topics.filter((topic, i) => {
          const code = codes[i];
          if (typeof code !== 'number' || code < 0x80) return false;
          this.refused('subscribing to', topic, code);
          return true;
        });
        if (err && !refused.length) reject(err);
        else resolve();
      });
    });
  }

  /**
   * Everything retained under `filters` now, handed to `onRetained` as it arrives, without a fixed window (a slow or busy
   * broker outlasts any window, and the configs it missed stayed behind as ghosts). The filters and `pingTopic` go in
   * one SUBSCRIBE; a ping published after it comes back behind the retained messages where the broker sends them
   * before it reads the next packet (Mosquitto), but may overtake them where it streams them after its SUBACK (aedes).
   * So it is done when a ping came back, nothing retained came for RETAINED_QUIET_MS, and a last ping came back with
   * nothing before it. It gives up when nothing at all arrives for `stallMs` (a broker that drops the ping).
   */
  async readRetained(filters: string[], pingTopic: string, onRetained: MessageHandler, stallMs = RETAINED_STALL_MS): Promise<void> {
    let seen = 0;
    let lastAt = Date.now();
    let ping: { nonce: string; back: () => void } | undefined;
    const onMessage: MessageHandler = (topic, payload, packet) => {
      if (topic === pingTopic) {
        if (ping && payload.toString() === ping.nonce) ping.back();
      } else if (packet.retain) {
        seen++;
        lastAt = Date.now();
        this.deliver(onRetained, topic, payload, packet);
      }
    };
    /** True when the ping came back; false when nothing at all came for stallMs meanwhile. */
    const pingBack = async (): Promise<boolean> => {
      let heard = false;
      const back = new Promise<void>((resolve) => {
        ping = { nonce: randomBytes(8).toString('hex'), back: () => ((heard = true), resolve()) };
      });
      const sentAt = Date.now();
      this.publish(pingTopic, ping!.nonce, { qos: 0 });
      while (!heard) {
        const silentFor = Date.now() - Math.max(lastAt, sentAt);
        if (silentFor >= stallMs) return false;
        await Promise.race([back, sleep(Math.min(stallMs - silentFor, 100), undefined, { ref: false })]);
      }
      return true;
    };
    this.client.on('message', onMessage);
    try {
      // QoS 0: a broker bounds what it queues for a client at QoS 1 (Mosquitto: 1,000 messages, the rest dropped),
      // and a thousand recorders leave more configs than that.
      await this.subscribeBatch([...filters, pingTopic], 0);
      if (!(await pingBack())) return;
      for (;;) {
        const quiet = Date.now() - lastAt;
        if (seen && quiet < RETAINED_QUIET_MS) {
          await sleep(RETAINED_QUIET_MS - quiet);
          continue;
        }
        const before = seen;
        if (!(await pingBack()) || seen === before) return;
      }
    } finally {
      this.client.off('message', onMessage);
      await this.unsubscribe([...filters, pingTopic]).catch(() => undefined);
    }
  }

  unsubscribe(topics: string[]): Promise<void> {
    return new Promise((resolve) => {
      if (!topics.length || !this.client.connected) return resolve();
      this.client.unsubscribe(topics, () => resolve());
    });
  }

  async end(): Promise<void> {
    this.closing = true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.client.end(true);
        resolve();
      }, 2000);
      this.client.end(false, {}, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
