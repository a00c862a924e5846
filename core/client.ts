import { EventEmitter } from 'node:events';
import { inspect } from 'node:util';
import * as v from 'valibot';
import { describeIssues } from './envelope';
import { DeviceError } from './errors';
import { isPlainObject } from './json';
import { eventStream, type DeviceEvent } from './events';
import { defineOperation, type OperationDef, type RequestOf, type ResponseOf } from './operation';
import { META_KEYS, findOperation, pageName } from './pages';
import { systemInfoGet, type SystemInfo } from './pages/system-info';
import { upgradeToken as upgradeTokenOp, type UpgradeTokenRequest, type UpgradeTokenResponse } from './pages/upgrade-token';
import { Session, type LogFn, type SessionState } from './session';
import { Transport, type TlsOptions } from './transport';
import { prepareUpgrade } from './upgrade';
import { validateAgainstRange } from './validate';

export interface ClientOptions {
  /** Device base URL, e.g. `http://192.168.1.20` or `https://nvr.local:8443`. No credentials in it. */
  url: string;
  username: string;
  password: string;
  /** Deadline of every request, body included. Default 10000. */
  timeoutMs?: number;
  /** Heartbeat period while logged in. Default 25000; 0 turns it off. */
  heartbeatMs?: number;
  tls?: TlsOptions;
  /** Sockets to the device at most. Default 2 (devices refuse many connections). */
  maxConnections?: number;
  /** How long a Range answer is trusted for Set checks. Default 300000. */
  rangeTtlMs?: number;
  /** The model takes firmware files up to 200 MiB instead of 100 MiB. */
  largeCapacity?: boolean;
  /** After a refused login (wrong password, blocked address), calls fail fast this long. Default 300000. */
  lockoutMs?: number;
  log?: LogFn;
}

export type ClientState = SessionState;

export interface InvokeOptions {
  /**
   * Send a Set without checking it against the device's Range first. The check is the default because
   * devices may reject (or worse, half-apply) out-of-range values (rule R1); skip it only for pages whose
   * device answers no Range (`range_unavailable`) or when the payload was checked already.
   */
  skipRangeCheck?: boolean;
  /** Deadline of this call instead of `timeoutMs`. */
  timeoutMs?: number;
}

export interface ChannelState {
  channel: string;
  online: boolean;
}

export interface UpgradeTokenInput {
  file: string | Uint8Array;
  file_name?: string;
  /** `base_secondary_authentication` as obtained from the user (the cipher is not computable here). */
  auth?: UpgradeTokenRequest['base_secondary_authentication'];
}

type Data = Record<string, unknown>;

const LooseObject = v.looseObject({});
/** A refused Set re-reads a Range older than this before refusing. */
const RANGE_RECHECK_MS = 10_000;

function badOption(reason: string): DeviceError {
  return new DeviceError({ kind: 'invalid_request', error_code: 'bad_option', reason });
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw badOption(`${name} must be a number >= 0`);
  return value;
}

/**
 * Typed client of one device: session handling, envelope parsing, response validation, Range-checked Sets.
 * Emits `state` (state, error?) on every state change: idle, connecting, connected, error, closed.
 */
export class NvrClient extends EventEmitter {
  readonly url: string;
  readonly username: string;
  private readonly transport: Transport;
  private readonly session: Session;
  private readonly rangeTtlMs: number;
  private readonly largeCapacity: boolean;
  private readonly log?: LogFn;
  private readonly ranges = new Map<string, { at: number; value?: Data; error?: DeviceError; pending?: Promise<Data> }>();
  private readonly generic = new Map<string, OperationDef>();
  private current: ClientState = 'idle';
  private lastErr?: DeviceError;

  constructor(opts: ClientOptions) {
    super();
    if (!opts || typeof opts.url !== 'string' || !opts.url) throw badOption('url is required');
    if (typeof opts.username !== 'string' || !opts.username) throw badOption('username is required');
    if (typeof opts.password !== 'string') throw badOption('password is required');
    const timeoutMs = nonNegative('timeoutMs', opts.timeoutMs, 10_000) || 10_000;
    const maxConnections = Math.floor(nonNegative('maxConnections', opts.maxConnections, 2)) || 2;
    this.rangeTtlMs = nonNegative('rangeTtlMs', opts.rangeTtlMs, 300_000);
    this.largeCapacity = !!opts.largeCapacity;
    this.log = opts.log;
    this.transport = new Transport({ url: opts.url, timeoutMs, maxConnections, tls: opts.tls });
    this.url = this.transport.baseUrl;
    this.username = opts.username;
    this.session = new Session(this.transport, {
      username: opts.username,
      password: opts.password,
      timeoutMs,
      heartbeatMs: nonNegative('heartbeatMs', opts.heartbeatMs, 25_000),
      lockoutMs: nonNegative('lockoutMs', opts.lockoutMs, 300_000),
      log: opts.log,
      onState: (state, error) => this.onState(state, error),
    });
  }

  get state(): ClientState {
    return this.current;
  }

  get lastError(): DeviceError | undefined {
    return this.lastErr;
  }

  /** Log in now (calls log in lazily anyway); clears a lock-out. Use it to test a connection. */
  login(): Promise<void> {
    return this.session.login();
  }

  /**
   * Run one operation: validate the request against its schema, check a Set against the device's Range
   * (unless `skipRangeCheck`), send `{version: "1.0", data}`, unwrap the envelope and validate the answer.
   */
  async invoke<O extends OperationDef>(op: O, data?: RequestOf<O>, opts: InvokeOptions = {}): Promise<ResponseOf<O>> {
    const where = { page: op.page, operation: op.operation };
    const request = v.safeParse(op.request, data ?? {});
    if (!request.success) {
      throw new DeviceError({ kind: 'invalid_request', error_code: 'invalid_request', reason: describeIssues(request.issues), ...where });
    }
    if (op.operation === 'Set' && !opts.skipRangeCheck) await this.checkRange(op, request.output);
    const raw = await this.session.exchange(op.path, request.output, {
      ...where, envelope: op.envelope ?? 'result', timeoutMs: opts.timeoutMs,
    });
    const answer = v.safeParse(op.response, raw);
    if (!answer.success) {
      throw new DeviceError({ kind: 'invalid_answer', error_code: 'invalid_answer', reason: describeIssues(answer.issues), ...where });
    }
    return answer.output;
  }

  /** Range of any page, e.g. `range('AlarmConfig/Deterrence')`; typed pages are validated by their schema. */
  range(page: string, data?: object): Promise<Data> {
    return this.invoke(this.operation(page, 'Range'), data) as Promise<Data>;
  }

  get(page: string, data?: object): Promise<Data> {
    return this.invoke(this.operation(page, 'Get'), data) as Promise<Data>;
  }

  /** Set any page, checked against the device's cached Range first (see {@link InvokeOptions.skipRangeCheck}). */
  set(page: string, data: object, opts: InvokeOptions = {}): Promise<Data> {
    return this.invoke(this.operation(page, 'Set'), data, opts) as Promise<Data>;
  }

  /** The page's Range, cached for `rangeTtlMs` (shared by concurrent callers); `refresh` asks the device again. */
  cachedRange(page: string, opts: { refresh?: boolean } = {}): Promise<Data> {
    const name = pageName(page);
    const hit = this.ranges.get(name);
    if (hit && !opts.refresh) {
      if (hit.pending) return hit.pending;
      if (Date.now() - hit.at < this.rangeTtlMs) return hit.error ? Promise.reject(hit.error) : Promise.resolve(hit.value!);
    }
    const pending = this.range(name).then(
      (value) => {
        this.ranges.set(name, { at: Date.now(), value });
        return value;
      },
      (error: unknown) => {
        // "This device has no Range here" is an answer worth keeping; an outage is not.
        if (error instanceof DeviceError && error.kind === 'unsupported') this.ranges.set(name, { at: Date.now(), error });
        else this.ranges.delete(name);
        throw error;
      },
    );
    this.ranges.set(name, { at: 0, pending });
    return pending;
  }

  /** Raw call: `path` is the whole `/API/...` path; returns `data` unvalidated. */
  call(path: string, data?: object): Promise<unknown> {
    const page = pageName(path);
    const cut = page.lastIndexOf('/');
    return this.session.exchange(`/API/${page}`, data ?? {}, {
      page: cut > 0 ? page.slice(0, cut) : page, operation: cut > 0 ? page.slice(cut + 1) : undefined, envelope: 'any',
    });
  }

  /** Model, firmware, MAC, serial number (`/API/SystemInfo/Base/Get`). */
  systemInfo(): Promise<SystemInfo> {
    return this.invoke(systemInfoGet);
  }

  /** Channels and whether they are online (`/API/Login/ChannelInfo/Get`; map or `items` list tolerated). */
  async channels(): Promise<ChannelState[]> {
    return channelList(await this.get('Login/ChannelInfo'));
  }

  /** Upgrade token for a firmware file or buffer; limits are checked before anything is sent. */
  async upgradeToken(input: UpgradeTokenInput): Promise<UpgradeTokenResponse> {
    const prepared = await prepareUpgrade({ file: input.file, file_name: input.file_name }, { largeCapacity: this.largeCapacity });
    return this.invoke(upgradeTokenOp, { ...prepared, ...(input.auth ? { base_secondary_authentication: input.auth } : {}) });
  }

  /** Device events from the `/API/Event/Check` long poll; ends on abort or close. */
  events(opts: { signal?: AbortSignal; pollTimeoutMs?: number } = {}): AsyncIterable<DeviceEvent> {
    return eventStream(this.session, { ...opts, log: this.log });
  }

  /** Log out (best effort, bounded), stop the heartbeat, abort calls in flight, close the sockets. */
  async close(): Promise<void> {
    await this.session.close();
    this.ranges.clear();
  }

  toJSON() {
    return { url: this.url, username: this.username, state: this.current, lastError: this.lastErr?.toJSON() };
  }

  [inspect.custom]() {
    return `NvrClient ${inspect(this.toJSON())}`;
  }

  // --- internals -------------------------------------------------------------------------------

  private onState(state: ClientState, error?: DeviceError): void {
    this.current = state;
    if (error) this.lastErr = error;
    this.emit('state', state, error);
  }

  /** The registry's operation for a page, else a loose generic one (any object in, any object out). */
  private operation(page: string, operation: string): OperationDef {
    const name = pageName(page);
    const known = findOperation(name, operation);
    if (known) return known;
    const key = `${name}/${operation}`;
    let op = this.generic.get(key);
    if (!op) {
      op = defineOperation({
        page: name, operation, request: LooseObject, response: LooseObject, metaKeys: META_KEYS,
        description: `generic ${operation} of ${name}`,
      });
      this.generic.set(key, op);
    }
    return op;
  }

  /** Refuse a Set that leaves the device's Range, listing every violation; nothing is sent. */
  private async checkRange(op: OperationDef, payload: unknown): Promise<void> {
    const where = { page: op.page, operation: op.operation };
    let rangeData: Data;
    try {
      rangeData = await this.cachedRange(op.page);
    } catch (err) {
      if (err instanceof DeviceError && err.kind === 'unsupported') {
        throw new DeviceError({
          kind: 'invalid_request', error_code: 'range_unavailable', ...where, cause: err,
          reason: `the device has no Range for this page (${err.error_code}), so the Set cannot be checked; pass skipRangeCheck: true to send it unchecked`,
        });
      }
      throw err;
    }
    let violations = validateAgainstRange(payload, rangeData, { metaKeys: op.metaKeys });
    // A channel that came online (or a firmware update) changes the Range: before refusing, ask again,
    // but at most once per RANGE_RECHECK_MS per page so that a stream of bad commands cannot flood the device.
    const cached = this.ranges.get(pageName(op.page));
    if (violations.length && cached && Date.now() - cached.at > RANGE_RECHECK_MS) {
      rangeData = await this.cachedRange(op.page, { refresh: true });
      violations = validateAgainstRange(payload, rangeData, { metaKeys: op.metaKeys });
    }
    if (violations.length) {
      throw new DeviceError({
        kind: 'invalid_request', error_code: 'out_of_range', ...where, violations,
        reason: `${violations.length} value${violations.length > 1 ? 's' : ''} outside the device's Range; nothing was sent`,
      });
    }
  }
}

/** `Online`/`Offline` from `connect_status` (or `status`); a channel without one is online (spec 2.2). */
function online(entry: unknown): boolean {
  if (!isPlainObject(entry)) return false;
  const s = entry.connect_status ?? entry.status ?? entry.online;
  if (typeof s === 'boolean') return s;
  if (typeof s === 'string') return /^(online|connected|true|1)$/i.test(s);
  return typeof entry.reason !== 'string';
}

/** Channel list from a map `{CH1: {...}}`, a list `[{channel, ...}]`, or either wrapped in `items`. */
export function channelList(data: unknown): ChannelState[] {
  let info: unknown = isPlainObject(data) ? (data.channel_info ?? data.items ?? data.channels ?? data) : data;
  if (isPlainObject(info) && info.items !== undefined && (Array.isArray(info.items) || isPlainObject(info.items))) info = info.items;
  if (Array.isArray(info)) {
    return info
      .filter(isPlainObject)
      .map((e) => ({ channel: String(e.channel ?? e.chn_index ?? e.channel_id ?? e.id ?? ''), online: online(e) }))
      .filter((c) => c.channel);
  }
  if (!isPlainObject(info)) return [];
  return Object.entries(info)
    .filter(([, e]) => isPlainObject(e))
    .map(([channel, e]) => ({ channel, online: online(e) }));
}
