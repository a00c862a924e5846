import { EventEmitter } from 'node:events';
import { createFetch } from 'ofetch';
import { Client, errors, type Dispatcher } from 'undici';
import { RequestGate, type Priority, type RequestBudget } from './budget';
import { DeviceError } from './errors';
import { PIN_MISMATCH, connector, type TlsOptions } from './tls';

export { normalizeFingerprint, type TlsOptions } from './tls';

/**
 * HTTP transport to one device: a few undici Clients on the device's origin (keep-alive sockets, no
 * pipelining, TLS settings of this client only; no WHATWG fetch, Request, Response or web streams
 * underneath), ofetch on top, a deadline on every request. Never changes process-wide state.
 */

export interface TransportOptions {
  url: string;
  /** Deadline of one request on the wire (from when it leaves), body included. */
  timeoutMs: number;
  /** Longest wait for a free connection before a request leaves. Default: 4 x the request's deadline. */
  queueTimeoutMs?: number;
  /** Sockets to the device at most (devices refuse many: `service_unavailable_error`). */
  maxConnections: number;
  /** Requests a second at most and how many may wait (see RequestGate); default: no limit but the connections. */
  budget?: RequestBudget;
  tls?: TlsOptions;
}

export interface WireResponse {
  status: number;
  headers: WireHeaders;
  text: string;
}

export interface PostOptions {
  /**
   * Request headers; a function is called when the request leaves, so that a request that waited for a
   * free connection carries the newest session cookie and CSRF token (devices rotate the token).
   */
  headers?: Record<string, string> | (() => Record<string, string>);
  /** Deadline on the wire, counted from when the request leaves (not from the call). */
  timeoutMs?: number;
  /** Longest wait for a free connection; default 4 x `timeoutMs`. */
  queueTimeoutMs?: number;
  /** Queued commands leave before queued polls (a slow device still confirms commands). Default 'command'. */
  priority?: Priority;
  signal?: AbortSignal;
  /**
   * Raw data sent as the body instead of `body` as JSON (a firmware file, `application/octet-stream`); a function is
   * called when the request leaves (a file stream is opened only then).
   */
  rawBody?: () => Uint8Array | NodeJS.ReadableStream;
  /** Largest answer read, in bytes; default by path (answerBound). */
  maxAnswerBytes?: number;
}

export type { Priority, RequestBudget } from './budget';

/**
 * Largest answer read, by what it carries: the answer is refused before it is buffered (a Content-Length above the
 * bound, or the bytes as they come), its connection closed, and the call fails with `answer_too_large`; a device (or
 * anything posing as one) cannot fill the bridge's memory. A JSON page is a few KB (a 64-channel Range a few
 * hundred); Snapshot/Get and Event/Check carry base64 JPEGs (alarm and AI pictures of many channels in one answer).
 */
export const ANSWER_BOUNDS = { json: 4 * 2 ** 20, pictures: 32 * 2 ** 20 } as const;
/** The paths whose answers carry pictures. */
const PICTURE_PATHS: ReadonlySet<string> = new Set(['/API/Snapshot/Get', '/API/Event/Check']);

/** The bound of the answer to `path` (relative to the device's base path). */
export function answerBound(path: string): number {
  return PICTURE_PATHS.has(path) ? ANSWER_BOUNDS.pictures : ANSWER_BOUNDS.json;
}

const MB = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10} MB`;

function answerTooLarge(bound: number, declared?: number): DeviceError {
  return new DeviceError({
    kind: 'invalid_answer',
    error_code: 'answer_too_large',
    reason:
      declared === undefined
        ? `the device's answer went past ${MB(bound)}, the most this page may send: refused, connection closed`
        : `the device announced an answer of ${MB(declared)}, over the ${MB(bound)} this page may send: refused unread`,
  });
}

/** Queue wait bound, as a multiple of the request deadline, when none is given. */
const QUEUE_FACTOR = 4;

/**
 * Headers for ofetch and for answers: a plain record. WHATWG Headers and Response (web streams, one
 * AbortSignal per call) cost three times a loopback request to a device; the device sends small
 * JSON bodies, so the body is read whole and handed over as text.
 */
export class WireHeaders {
  /** Lower-case name -> value (a repeated header: every value); handed to undici as it is (`toRecord`). */
  private readonly fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  constructor(init?: Iterable<[string, string]> | Record<string, string | string[] | undefined> | WireHeaders) {
    if (!init) return;
    if (init instanceof WireHeaders) Object.assign(this.fields, init.fields);
    else if (Symbol.iterator in init) for (const [k, v] of init) this.fields[k.toLowerCase()] = v;
    // `for...in`, not Object.entries: ofetch copies every request's headers through here.
    else
      for (const k in init) {
        const v = init[k];
        if (v !== undefined) this.fields[k.toLowerCase()] = v;
      }
  }
  get(name: string): string | null {
    const v = this.fields[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
  has(name: string): boolean {
    return name.toLowerCase() in this.fields;
  }
  set(name: string, value: string): void {
    this.fields[name.toLowerCase()] = value;
  }
  getSetCookie(): string[] {
    const v = this.fields['set-cookie'];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  }
  forEach(fn: (value: string, key: string) => void): void {
    for (const k in this.fields) fn(this.get(k)!, k);
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    const pairs = Object.keys(this.fields).map((k): [string, string] => [k, this.get(k)!]);
    return pairs[Symbol.iterator]();
  }
  /** From undici's raw header list (name, value, name, value, ...); repeated names (Set-Cookie) keep every value. */
  static fromRaw(raw: readonly Buffer[]): WireHeaders {
    const h = new WireHeaders();
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i].toString('latin1').toLowerCase();
      const value = raw[i + 1].toString('utf8');
      const had = h.fields[name];
      h.fields[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    return h;
  }
  /** The headers as undici takes them: this object's own record, not a copy (read it, do not change it). */
  toRecord(): Readonly<Record<string, string | string[]>> {
    return this.fields;
  }
}

interface WireInit {
  method?: string;
  body?: string | Uint8Array | NodeJS.ReadableStream;
  headers?: WireHeaders;
  /** The device's connections; every URL it is given starts with `origin` (no URL parsing per request). */
  dispatcher: Connections;
  origin: string;
  signal?: EventEmitter;
  /** Largest answer read (bytes). */
  maxAnswerBytes: number;
}

/**
 * The device's connections: up to `slots` undici Clients (keep-alive, no pipelining), opened as needed; a request goes
 * to the one with the fewest of ours on it and, among those, to the one used least recently. Taking turns keeps every
 * opened connection in use: at one event check a second, both stay alive, where "the first free one" let the second
 * idle past its keep-alive after every poll and the next poll opened it again (a TCP connect and close a device each
 * poll). (An undici Pool hands out the first free connection, with a request queue of its own, 2,048 entries, 16 KB a
 * device, never used here: the RequestGate lets at most `slots` requests out at once.)
 */
class Connections {
  private readonly clients: Array<{ client: Client; calls: number; turn: number }> = [];
  /** Counts requests handed out: a connection's `turn` is the count when it last took one. */
  private turns = 0;

  constructor(
    private readonly origin: string,
    private readonly slots: number,
    private readonly options: Client.Options,
  ) {}

  /** One request and its whole body: its connection is free for the next request only then. */
  async send(opts: Dispatcher.DispatchOptions, signal: EventEmitter | undefined, maxBytes: number): Promise<WholeAnswer> {
    let c = this.clients[0];
    for (const other of this.clients) if (other.calls < c.calls || (other.calls === c.calls && other.turn < c.turn)) c = other;
    if (!c || (c.calls > 0 && this.clients.length < this.slots))
      this.clients.push((c = { client: new Client(this.origin, this.options), calls: 0, turn: 0 }));
    c.calls++;
    c.turn = ++this.turns;
    try {
      return await dispatchWhole(c.client, opts, signal, maxBytes);
    } finally {
      c.calls--;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.client.close()));
  }

  async destroy(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.client.destroy()));
  }
}

interface WholeAnswer {
  statusCode: number;
  headers: WireHeaders;
  text: string;
}

/**
 * One request through the Client's `dispatch`, the answer kept whole as it comes: undici's `request` wraps every
 * answer in a Readable stream and an AsyncResource (measured on loopback at 1,000 requests a second: 150 instead of
 * 190 µs of CPU a request). Aborted by `signal`'s 'abort' (as `request` is): before the request is written it is
 * never sent; either way the promise settles when undici has let go of it, so the connection's count stays true.
 * An answer over `maxBytes` is aborted as soon as that shows (its Content-Length, or the bytes so far): nothing more
 * of it is read or kept.
 */
function dispatchWhole(
  client: Client,
  opts: Dispatcher.DispatchOptions,
  signal: EventEmitter | undefined,
  maxBytes: number,
): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    let abortRequest: ((err: Error) => void) | undefined;
    let aborted = false;
    let statusCode = 0;
    let headers: WireHeaders | undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    const onAbort = () => {
      aborted = true;
      abortRequest?.(new errors.RequestAbortedError());
    };
    signal?.once('abort', onAbort);
    const settled = () => signal?.off('abort', onAbort);
    client.dispatch(opts, {
      onConnect(abort) {
        if (aborted) abort(new errors.RequestAbortedError());
        else abortRequest = abort;
      },
      onHeaders(status, raw) {
        if (status >= 200) {
          statusCode = status;
          headers = WireHeaders.fromRaw(raw);
          const declared = Number(headers.get('content-length') ?? 0);
          if (declared > maxBytes) {
            abortRequest?.(answerTooLarge(maxBytes, declared));
            return false;
          }
        }
        return true;
      },
      onData(chunk) {
        received += chunk.length;
        if (received > maxBytes) {
          chunks.length = 0;
          abortRequest?.(answerTooLarge(maxBytes));
          return false;
        }
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        settled();
        resolve({ statusCode, headers: headers ?? new WireHeaders(), text: textOf(chunks) });
      },
      onError(err) {
        settled();
        reject(err);
      },
    });
  });
}

/** The body as UTF-8 text, a byte-order mark dropped (as undici's `text()` does: JSON.parse refuses one). */
function textOf(chunks: Buffer[]): string {
  const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  const bom = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return body.toString('utf8', bom ? 3 : 0);
}

/** The `fetch` ofetch calls: an undici Client's `dispatch` under the Response members ofetch reads. */
async function wireFetch(url: string, init: WireInit) {
  const res = await init.dispatcher.send(
    {
      path: url.slice(init.origin.length),
      method: (init.method ?? 'GET') as 'POST',
      body: init.body as string,
      headers: init.headers?.toRecord(),
    },
    init.signal,
    init.maxAnswerBytes,
  );
  const text = res.text;
  return {
    status: res.statusCode,
    statusText: '',
    ok: res.statusCode < 400,
    url,
    headers: res.headers,
    body: text ? {} : null,
    text: async () => text,
  };
}

const $fetch = createFetch({
  fetch: wireFetch as unknown as typeof globalThis.fetch,
  Headers: WireHeaders as unknown as typeof globalThis.Headers,
});

/** Network error codes to a reason a person understands. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the device',
  EPIPE: 'connection reset by the device',
  UND_ERR_SOCKET: 'connection closed by the device before the answer was complete',
  UND_ERR_CLOSED: 'connection closed',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connect timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS: certificate does not match the host name',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS: self-signed certificate (pin its fingerprint or give its CA)',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS: self-signed certificate in chain (give the CA)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS: unable to verify the certificate (give the CA)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS: unknown certificate issuer (give the CA)',
  CERT_HAS_EXPIRED: 'TLS: certificate expired',
  CERT_NOT_YET_VALID: 'TLS: certificate not yet valid',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS: the device does not speak TLS on this port',
  EPROTO: 'TLS protocol error',
};

/**
 * The device's URL, which must name http:// or https:// (a bare "192.168.1.10" or "nvr.local:8080" is
 * what users type first: say what to write instead of failing later with a library's words).
 */
export function deviceUrl(raw: string): URL {
  const bad = (why: string) =>
    new DeviceError({
      kind: 'invalid_request',
      error_code: 'bad_url',
      reason: `the device URL ${JSON.stringify(raw)} ${why} (for example http://${raw.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '') || '192.168.1.10'})`,
    });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad(/^https?:\/\//i.test(raw) ? 'is not a URL a browser would open' : 'must start with http:// or https://');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw bad(
      /^[a-z][a-z0-9+.-]*:\/\//i.test(raw)
        ? `has the scheme ${url.protocol} where http:// or https:// belongs`
        : 'must start with http:// or https://',
    );
  }
  return url;
}

/**
 * The innermost cause (fetch wraps network errors in `cause`) with the innermost code and message found on the way.
 * Only `error` may be kept as a DeviceError's cause: the outer fetch error carries the request headers (cookie).
 */
function rootCause(err: unknown): { code?: string; message: string; error: unknown } {
  let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  let code: string | undefined;
  let message = String((e as Error | undefined)?.message ?? err);
  let error: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    error = e;
    if (typeof e.code === 'string') code = e.code;
    if (typeof e.message === 'string') message = e.message;
    e = e.cause as typeof e;
  }
  return { code, message, error };
}

type AbortWhy = 'timeout' | 'queue_timeout' | 'closed' | 'aborted';
type Call = EventEmitter & { why?: AbortWhy };

export class Transport {
  readonly baseUrl: string;
  private readonly basePath: string;
  private readonly origin: string;
  private readonly pool: Connections;
  private readonly timeoutMs: number;
  private readonly queueTimeoutMs?: number;
  /** Abort handles of the requests in flight: close aborts them. */
  private readonly inflight = new Set<Call>();
  /** Requests on the wire at most (= sockets) and the budget: the others wait there, before their headers are built. */
  private readonly gate: RequestGate;
  private closed = false;

  constructor(opts: TransportOptions) {
    const url = deviceUrl(opts.url);
    if (url.username || url.password) {
      throw new DeviceError({
        kind: 'invalid_request',
        error_code: 'bad_option',
        reason: 'the URL must not carry credentials: use the username and password options',
      });
    }
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.origin = url.origin;
    this.baseUrl = url.origin + this.basePath;
    this.timeoutMs = opts.timeoutMs;
    this.queueTimeoutMs = opts.queueTimeoutMs;
    const slots = Math.max(1, opts.maxConnections);
    this.gate = new RequestGate(slots, opts.budget);
    this.pool = new Connections(url.origin, slots, {
      pipelining: 1,
      keepAliveTimeout: 4_000,
      connect: connector(opts.tls),
    });
  }

  /** Request target of `path` as the device sees it (the Digest `uri`). */
  pathOf(path: string): string {
    return this.basePath + path;
  }

  /**
   * POST a JSON body; resolves with status, headers and the body text, or throws a transport DeviceError.
   * The deadline `timeoutMs` counts from when the request leaves, body included: a slow device whose
   * answers are in time is not failed for the time a call waited for a connection. That wait has its
   * own, generous bound (`queueTimeoutMs`), so nothing waits forever behind hung requests.
   */
  async post(path: string, body: unknown, opts: PostOptions = {}): Promise<WireResponse> {
    if (this.closed) throw closedError();
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const queueTimeoutMs = opts.queueTimeoutMs ?? this.queueTimeoutMs ?? QUEUE_FACTOR * timeoutMs;
    // undici takes an EventEmitter as abort signal: far cheaper than an AbortController per call.
    const call: Call = Object.assign(new EventEmitter(), { why: undefined as AbortWhy | undefined });
    const abort = (why: AbortWhy) => {
      if (!call.why) {
        call.why = why;
        call.emit('abort');
      }
    };
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => abort('aborted');
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.inflight.add(call);
    let holding = false;
    try {
      if (call.why) throw new Error('not sent'); // mapped by failure() below
      if (!this.gate.tryEnter()) await this.queue(call, opts.priority ?? 'command', queueTimeoutMs, abort);
      holding = true;
      if (this.closed || call.why) throw new Error('not sent');
      timer = setTimeout(abort, timeoutMs, 'timeout');
      const headers = typeof opts.headers === 'function' ? opts.headers() : opts.headers;
      const rawBody = opts.rawBody?.();
      const res = await $fetch.raw(this.baseUrl + path, {
        method: 'POST',
        body: rawBody ?? JSON.stringify(body),
        headers: { 'content-type': rawBody ? 'application/octet-stream' : 'application/json', accept: 'application/json', ...headers },
        responseType: 'text',
        ignoreResponseError: true,
        retry: 0,
        signal: call,
        dispatcher: this.pool,
        origin: this.origin,
        maxAnswerBytes: opts.maxAnswerBytes ?? answerBound(path),
      } as never);
      return { status: res.status, headers: res.headers as unknown as WireHeaders, text: typeof res._data === 'string' ? res._data : '' };
    } catch (err) {
      throw this.failure(err, call.why, call.why === 'queue_timeout' ? queueTimeoutMs : timeoutMs);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      this.inflight.delete(call);
      if (holding) this.gate.leave();
    }
  }

  /**
   * Wait for the turn of `priority` (a free connection, a token of the budget); rejects when aborted, after `boundMs`,
   * or with `device_busy` when the budget's queue is full.
   */
  private queue(call: Call, priority: Priority, boundMs: number, abort: (why: AbortWhy) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // The turn may come at once (inside wait()): then no bound and no abort listener are set up.
      let settled = false;
      let bound: NodeJS.Timeout | undefined;
      const done = () => {
        settled = true;
        clearTimeout(bound);
        call.off('abort', leave);
      };
      const leave = () => {
        done();
        cancel();
        reject(new Error('not sent'));
      };
      let cancel: () => void;
      try {
        cancel = this.gate.wait(
          priority,
          () => {
            done();
            resolve();
          },
          (err) => {
            done();
            reject(err);
          },
        );
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (settled) return;
      bound = setTimeout(abort, boundMs, 'queue_timeout');
      call.once('abort', leave);
    });
  }

  private failure(err: unknown, why: AbortWhy | undefined, timeoutMs: number): DeviceError {
    if (!why && err instanceof DeviceError) return err; // refused by the budget, not sent
    const { code, message, error } = rootCause(err);
    if (!why && error instanceof DeviceError) return error; // an answer over its bound
    if (why === 'timeout') return new DeviceError({ kind: 'transport', error_code: 'timeout', reason: `no answer within ${timeoutMs} ms` });
    if (why === 'queue_timeout') {
      return new DeviceError({
        kind: 'transport',
        error_code: 'timeout',
        reason: `${NOT_SENT} no free connection to the device within ${timeoutMs} ms`,
      });
    }
    if (why === 'closed' || this.closed) return closedError();
    if (why === 'aborted') return new DeviceError({ kind: 'transport', error_code: 'aborted', reason: 'request aborted' });
    if (code === PIN_MISMATCH) return new DeviceError({ kind: 'transport', error_code: 'tls_error', reason: message });
    const known = code ? NETWORK_REASONS[code] : undefined;
    const tls = /TLS|SSL|CERT/i.test(code ?? '') || (known ?? '').startsWith('TLS');
    const reason = known ?? (code ? `${message} (${code})` : message);
    return new DeviceError({ kind: 'transport', error_code: tls ? 'tls_error' : 'network_error', reason, cause: error });
  }

  /** Abort every request in flight or waiting for a connection: they fail with `closed`. Later requests go out. */
  abortAll(): void {
    for (const call of this.inflight) {
      call.why ??= 'closed';
      call.emit('abort');
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abortAll();
    this.gate.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.pool.close(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 1_000);
      }),
    ]);
    clearTimeout(timer);
    await this.pool.destroy().catch(() => undefined);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/**
 * The request left and its deadline passed without an answer: the device may still have acted on it (a Set applied,
 * its answer late). Not so for a call that never left (no free connection, refused by the budget).
 */
export function leftUnanswered(err: unknown): err is DeviceError {
  return err instanceof DeviceError && err.kind === 'transport' && err.error_code === 'timeout' && !err.reason.startsWith(NOT_SENT);
}

const NOT_SENT = 'not sent:';

export function closedError(): DeviceError {
  return new DeviceError({ kind: 'transport', error_code: 'closed', reason: 'client closed' });
}
