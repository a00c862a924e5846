import type { TLSSocket } from 'node:tls';
import { createFetch } from 'ofetch';
import { Agent, buildConnector, fetch as undiciFetch, Headers as UndiciHeaders } from 'undici';
import { DeviceError } from './errors';

/**
 * HTTP transport to one device: one undici Agent (few keep-alive sockets, no pipelining, TLS settings
 * of this client only), ofetch on top, a deadline on every request. Never changes process-wide state.
 */

export interface TlsOptions {
  /** CA certificate(s) (PEM) the device certificate must chain to. */
  ca?: string | Buffer;
  /**
   * SHA-256 fingerprint of the device certificate (hex, colons and case ignored). With a pin, the
   * certificate whose fingerprint matches is accepted even when self-signed or issued for another
   * host name, and every other certificate is refused. With `ca` as well, both must hold.
   */
  fingerprint?: string;
}

export interface TransportOptions {
  url: string;
  /** Deadline of one request, body included. */
  timeoutMs: number;
  /** Sockets to the device at most (devices refuse many: `service_unavailable_error`). */
  maxConnections: number;
  tls?: TlsOptions;
}

export interface WireResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface PostOptions {
  headers?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

// undici's own fetch: the Agent below is guaranteed to be a dispatcher it understands (the global
// fetch of Node bundles its own undici copy, possibly of another version).
const $fetch = createFetch({
  fetch: undiciFetch as unknown as typeof globalThis.fetch,
  Headers: UndiciHeaders as unknown as typeof globalThis.Headers,
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

const PIN_MISMATCH = 'ERR_NVR_CERT_PIN_MISMATCH';

/** `AB:cd:...` or `abcd...` to 64 upper-case hex digits; throws on anything else. */
export function normalizeFingerprint(fp: string): string {
  const hex = fp.replace(/[:\s]/g, '').toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw new DeviceError({
      kind: 'invalid_request', error_code: 'bad_option',
      reason: 'tls.fingerprint must be a SHA-256 fingerprint: 64 hex digits, colons allowed',
    });
  }
  return hex;
}

function connector(tls: TlsOptions | undefined) {
  const pin = tls?.fingerprint ? normalizeFingerprint(tls.fingerprint) : undefined;
  if (!pin) return buildConnector({ ca: tls?.ca, rejectUnauthorized: true });
  // Chain and host name checks are replaced by the pin (or kept for the CA, checked below); no
  // TLS session cache so that every connection shows its certificate.
  const base = buildConnector({ ca: tls?.ca, rejectUnauthorized: false, maxCachedSessions: 0 });
  return (opts: buildConnector.Options, cb: buildConnector.Callback) =>
    base(opts, (err, socket) => {
      if (err || !socket) return cb(err ?? new Error('no socket'), null);
      const tlsSocket = socket as TLSSocket;
      const cert = typeof tlsSocket.getPeerCertificate === 'function' ? tlsSocket.getPeerCertificate() : undefined;
      const got = cert?.fingerprint256?.replace(/:/g, '').toUpperCase();
      let problem: string | undefined;
      if (!got) problem = 'TLS: the device presented no certificate';
      else if (got !== pin) problem = `TLS: certificate fingerprint ${cert!.fingerprint256} does not match the pinned one`;
      else if (tls?.ca && !tlsSocket.authorized) problem = `TLS: certificate not signed by the given CA (${tlsSocket.authorizationError})`;
      if (!problem) return cb(null, socket);
      socket.destroy();
      cb(Object.assign(new Error(problem), { code: PIN_MISMATCH }), null);
    });
}

/** Find the code and message of the innermost cause (fetch wraps network errors in `cause`). */
function rootCause(err: unknown): { code?: string; message: string } {
  let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  let code: string | undefined;
  let message = String((e as Error | undefined)?.message ?? err);
  for (let depth = 0; e && depth < 6; depth++) {
    if (typeof e.code === 'string') code = e.code;
    if (typeof e.message === 'string') message = e.message;
    e = e.cause as typeof e;
  }
  return { code, message };
}

export class Transport {
  readonly baseUrl: string;
  private readonly basePath: string;
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly inflight = new Set<AbortController>();
  private closed = false;

  constructor(opts: TransportOptions) {
    const url = new URL(opts.url);
    if (url.username || url.password) {
      throw new DeviceError({
        kind: 'invalid_request', error_code: 'bad_option',
        reason: 'the URL must not carry credentials: use the username and password options',
      });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new DeviceError({ kind: 'invalid_request', error_code: 'bad_option', reason: `unsupported URL scheme ${url.protocol}` });
    }
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.baseUrl = url.origin + this.basePath;
    this.timeoutMs = opts.timeoutMs;
    this.agent = new Agent({
      connections: Math.max(1, opts.maxConnections),
      pipelining: 1,
      keepAliveTimeout: 4_000,
      connect: connector(opts.tls),
    });
  }

  /** Request target of `path` as the device sees it (the Digest `uri`). */
  pathOf(path: string): string {
    return this.basePath + path;
  }

  /** POST a JSON body; resolves with status, headers and the body text, or throws a transport DeviceError. */
  async post(path: string, body: unknown, opts: PostOptions = {}): Promise<WireResponse> {
    if (this.closed) throw closedError();
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    // One deadline for the whole exchange, body included (ofetch's own timeout stops at the headers).
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort('timeout'), timeoutMs);
    const onAbort = () => ctl.abort('aborted');
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.inflight.add(ctl);
    try {
      const res = await $fetch.raw(this.baseUrl + path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', accept: 'application/json', ...opts.headers },
        responseType: 'text',
        ignoreResponseError: true,
        retry: 0,
        signal: ctl.signal,
        dispatcher: this.agent as never,
      });
      return { status: res.status, headers: res.headers, text: typeof res._data === 'string' ? res._data : '' };
    } catch (err) {
      throw this.failure(err, ctl.signal, timeoutMs);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      this.inflight.delete(ctl);
    }
  }

  private failure(err: unknown, signal: AbortSignal, timeoutMs: number): DeviceError {
    if (signal.aborted) {
      const why = signal.reason;
      if (why === 'timeout') return new DeviceError({ kind: 'transport', error_code: 'timeout', reason: `no answer within ${timeoutMs} ms` });
      if (why === 'closed') return closedError();
      return new DeviceError({ kind: 'transport', error_code: 'aborted', reason: 'request aborted' });
    }
    const { code, message } = rootCause(err);
    if (code === PIN_MISMATCH) return new DeviceError({ kind: 'transport', error_code: 'tls_error', reason: message });
    const known = code ? NETWORK_REASONS[code] : undefined;
    const tls = /TLS|SSL|CERT/i.test(code ?? '') || (known ?? '').startsWith('TLS');
    const reason = known ?? (code ? `${message} (${code})` : message);
    // The cause is the network error only: the fetch error would carry request headers (cookie).
    return new DeviceError({ kind: 'transport', error_code: tls ? 'tls_error' : 'network_error', reason, cause: rootError(err) });
  }

  /** Abort every request in flight (they fail with `closed`), then close the sockets. */
  abortAll(): void {
    for (const ctl of this.inflight) ctl.abort('closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abortAll();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.agent.close(),
      new Promise<void>((resolve) => { timer = setTimeout(resolve, 1_000); }),
    ]);
    clearTimeout(timer);
    await this.agent.destroy().catch(() => undefined);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

function rootError(err: unknown): unknown {
  let e = err as { cause?: unknown } | undefined;
  while (e && typeof e === 'object' && e.cause) e = e.cause as typeof e;
  return e;
}

export function closedError(): DeviceError {
  return new DeviceError({ kind: 'transport', error_code: 'closed', reason: 'client closed' });
}
