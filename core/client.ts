import { EventEmitter } from 'node:events';
import { inspect } from 'node:util';
import * as v from 'valibot';
import { AnswerMemo } from './answer-memo';
import { describeIssues } from './envelope';
import { DeviceError } from './errors';
import { deepFreeze, isPlainObject } from './json';
import { sendThenReadBack, type LateOptions } from './late';
import { KeyedQueue, SharedCalls } from './concurrency';
import { eventStream, type DeviceEvent, type EventStreamOptions } from './events';
import { defineOperation, type OperationDef, type RequestOf, type ResponseOf } from './operation';
import { readManualAlarm, writeManualAlarm } from './alarm-outputs';
import { channelList, readChannelSlots, type ChannelSlot, type ChannelState } from './channel-slots';
import { DISARM_MEMBER, readDisarm, type DisarmPage, type DisarmState } from './disarm';
import { readIdentity, type DeviceIdentity } from './identity';
import { readLive, writeLive, type LiveChange, type LiveState } from './live';
import { planPtz, PtzMotion, ptzSpeedRange, readPtz, type PtzDone, type PtzInfo } from './ptz-control';
import { readSnapshot, readStreamUrls, type Snapshot, type StreamUrls } from './media';
import { addressingOf, definePage, type PageDef } from './page';
import { META_KEYS, findOperation, findPage, pageName } from './pages';
import { deviceInfoGet, type DeviceInfo } from './pages/device-info';
import { systemInfoGet, type SystemInfo } from './pages/system-info';
import { buildSet, changedPaths, channelProblems } from './update';
import { upgradeToken as upgradeTokenOp, type UpgradeTokenRequest, type UpgradeTokenResponse } from './pages/upgrade-token';
import { Session, type LogFn, type LoginOutcome, type SessionState } from './session';
import { rebootCamera, rebootDevice } from './reboot';
import { secondaryAuth, type SecondaryAuth } from './secondary-auth';
import { Transport, type Priority, type RequestBudget, type TlsOptions, type WireHeaders } from './transport';
import { prepareUpgrade } from './upgrade';
import {
  checkFirmware,
  runLocalUpgrade,
  runOnlineUpgrade,
  type FirmwareProgress,
  type FirmwareVersions,
  type LocalUpgradeInput,
  type OnlineUpgradeOptions,
  type UploadSender,
} from './firmware';
import { validateAgainstRange } from './validate';
import { nestFlatGroups } from './range';

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
  /**
   * Requests a second at most and how many may wait for their turn, shared by every call of this client (commands
   * first, then polls, then `request` calls); past the queue a call fails with `device_busy`, not sent. Default: none.
   */
  budget?: RequestBudget;
  /** How long a Range answer is trusted for Set checks. Default 300000. */
  rangeTtlMs?: number;
  /** The model takes firmware files up to 200 MiB instead of 100 MiB. */
  largeCapacity?: boolean;
  /** After a refused login (wrong password, blocked address), calls fail fast this long. Default 300000. */
  lockoutMs?: number;
  log?: LogFn;
  /** Every login the device judged (accepted, or refused with how long logins are held): see Session. */
  onLogin?: (outcome: LoginOutcome) => void;
  /**
   * The admin passwords of cameras behind an NVR, by channel id, where they differ from the recorder's: a camera
   * restart (IPCReboot) carries the camera's own. Kept inside the client like the login password.
   */
  cameraPasswords?: Readonly<Record<string, string>>;
  /**
   * Every answer as the device sent it (status, headers, body text) with the request's path and body: what
   * `nvr2mqtt capture` records. Request headers (the Digest answer, cookie, CSRF token) are never handed over.
   */
  onWire?: (exchange: WireExchange) => void;
}

/** One request and the device's answer as it came over the wire (ClientOptions.onWire). */
export interface WireExchange {
  path: string;
  request: unknown;
  status: number;
  headers: WireHeaders;
  text: string;
}

export type ClientState = SessionState;

// Kept here for callers of the former client-only helpers.
export { channelList, type ChannelState } from './channel-slots';

export interface InvokeOptions {
  /**
   * Send a Set without checking it against the device's Range first. The check is the default because
   * devices may reject (or worse, half-apply) out-of-range values (rule R1); skip it only for pages whose
   * device answers no Range (`range_unavailable`) or when the payload was checked already.
   */
  skipRangeCheck?: boolean;
  /** Deadline of this call on the wire instead of `timeoutMs`. */
  timeoutMs?: number;
  /** Queued 'command' calls leave before queued 'poll' calls, and those before queued 'request' calls. Default 'command'. */
  priority?: Priority;
  /**
   * Identical concurrent reads (Range/Get, same path and data) share one device call; `fresh` starts a call of its
   * own (a read-back after a Set must not join a read that left before the Set).
   */
  fresh?: boolean;
  /**
   * For pollers: a read (Range/Get) whose answer is identical to this read's previous one returns the previous
   * object, unparsed and unvalidated. Such answers are frozen (shared by every reader of that answer).
   */
  reuse?: boolean;
}

export interface UpdateOptions extends LateOptions {
  /** Send without checking the changed paths against the Range (devices without a Range for the page). */
  skipRangeCheck?: boolean;
  timeoutMs?: number;
}

export interface UpgradeTokenInput {
  file: string | Uint8Array;
  file_name?: string;
  /** `base_secondary_authentication` `{seq, cipher}`; default: built from the configured password (secondaryAuthentication). */
  auth?: UpgradeTokenRequest['base_secondary_authentication'];
  /** The model takes files up to 200 MiB; default: the client's `largeCapacity`. */
  largeCapacity?: boolean;
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
  /** Reads in flight by path + request data: identical concurrent reads share one device call. */
  private readonly reads = new SharedCalls();
  /** The last answer of each read asked with `reuse` (pollers). */
  private readonly answers = new AnswerMemo();
  /** The page this device disarms through, once known. */
  private disarmVia?: DisarmPage;
  /** Writes queued by page (or live channel), so that none undoes another. */
  private readonly writes = new KeyedQueue();
  /** PTZ commands: one at a time per channel, a running move ended by the next. */
  private readonly ptzMotion = new PtzMotion(this);
  private current: ClientState = 'idle';
  private lastErr?: DeviceError;
  /** ClientOptions.cameraPasswords; never shown (toJSON, logs). */
  private readonly cameraPasswords: ReadonlyMap<string, string>;

  constructor(opts: ClientOptions) {
    super();
    if (!opts || typeof opts.url !== 'string' || !opts.url) throw badOption('url is required');
    if (typeof opts.username !== 'string' || !opts.username) throw badOption('username is required');
    if (typeof opts.password !== 'string') throw badOption('password is required');
    const timeoutMs = nonNegative('timeoutMs', opts.timeoutMs, 10_000) || 10_000;
    const maxConnections = Math.floor(nonNegative('maxConnections', opts.maxConnections, 2)) || 2;
    this.rangeTtlMs = nonNegative('rangeTtlMs', opts.rangeTtlMs, 300_000);
    this.largeCapacity = !!opts.largeCapacity;
    this.cameraPasswords = new Map(Object.entries(opts.cameraPasswords ?? {}));
    this.log = opts.log;
    this.transport = new Transport({ url: opts.url, timeoutMs, maxConnections, budget: opts.budget, tls: opts.tls });
    this.url = this.transport.baseUrl;
    this.username = opts.username;
    if (opts.onWire) this.recordWire(opts.onWire);
    this.session = new Session(this.transport, {
      username: opts.username,
      password: opts.password,
      timeoutMs,
      heartbeatMs: nonNegative('heartbeatMs', opts.heartbeatMs, 25_000),
      lockoutMs: nonNegative('lockoutMs', opts.lockoutMs, 300_000),
      log: opts.log,
      onState: (state, error) => this.onState(state, error),
      ...(opts.onLogin ? { onLogin: opts.onLogin } : {}),
    });
  }

  /** Hands every answer to `onWire`, after the transport read it whole (the session parses it unchanged). */
  private recordWire(onWire: (exchange: WireExchange) => void): void {
    const transport = this.transport;
    const post = transport.post.bind(transport);
    transport.post = async (path, body, opts) => {
      const answer = await post(path, body, opts);
      onWire({ path, request: body, status: answer.status, headers: answer.headers, text: answer.text });
      return answer;
    };
  }

  get state(): ClientState {
    return this.current;
  }

  get lastError(): DeviceError | undefined {
    return this.lastErr;
  }

  /** When logins held after a refusal (lock-out) go out again (epoch ms); undefined when none is held. */
  get loginHeldUntil(): number | undefined {
    return this.session.loginHeldUntil;
  }

  /**
   * Restart the device (Maintenance/DeviceReboot with secondary authentication). Its sessions end: this client drops
   * its own and logs in once when the device is back (the next call does).
   */
  async restart(): Promise<void> {
    await this.session.withPassword((password) => rebootDevice(this, password));
    this.session.restarting();
  }

  /** Restart a camera behind an NVR (IPCMaintaint/IPCReboot); refused without sending where the NVR does not list it. */
  restartCamera(channel: string): Promise<string | undefined> {
    const own = this.cameraPasswords.get(channel);
    return this.session.withPassword((password) => rebootCamera(this, password, channel, own ?? password));
  }

  /**
   * Hold logins until `until` (epoch ms) with `error` instead of logging in: the same credentials were refused a
   * moment ago (see Session.holdLogins). The state turns `error` now; `login()` or the first call after `until` logs in.
   */
  holdLogins(error: DeviceError, until: number): void {
    this.session.holdLogins(error, until);
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
    if (op.operation !== 'Get' && op.operation !== 'Range') return this.exchange(op, request.output, opts);
    // Reads with the same path and data share one device call while it is in flight (callers get their own copy);
    // `fresh` (a read-back after a Set) never joins a call that may have left before the Set.
    const key = `${op.path}\n${JSON.stringify(request.output)}`;
    const read = () => this.exchange(op, request.output, opts, opts.reuse && !opts.fresh ? key : undefined);
    return opts.fresh ? read() : this.reads.run(key, read);
  }

  /**
   * Change a page: read Get, merge `changes` (same shape as the Get data: `{channel_info: {CH1: {siren_value: 3}}}`,
   * `{disarming: true}`), check the Range of the CHANGED paths only, Set per the page's write rule, read back and
   * return the data read back. A value the device itself holds out of its Range never blocks another change.
   * Nothing is sent when nothing changes.
   */
  update(page: string, changes: Record<string, unknown>, opts: UpdateOptions = {}): Promise<Data> {
    const def = this.pageDef(page);
    // One update of a page at a time: each reads what the previous one wrote, so none undoes another (block writes).
    return this.writes.run(`page ${def.name}`, () => this.updateNow(def, changes, opts));
  }

  private async updateNow(def: PageDef, changes: Record<string, unknown>, opts: UpdateOptions): Promise<Data> {
    const where = { page: def.name, operation: 'Set' };
    const refuse = (error_code: string, reason: string, violations?: ReturnType<typeof channelProblems>) =>
      new DeviceError({ kind: 'invalid_request', error_code, reason, violations, ...where });
    if (def.readOnly || !def.operations.Set) throw refuse('read_only_page', `${def.name} is not written through update()`);
    if (!isPlainObject(changes)) throw refuse('invalid_request', "changes must be an object shaped like the page's Get data");
    const addressing = addressingOf(def);
    const metaKeys = addressing.keys;
    const stripped = Object.fromEntries(Object.entries(changes).filter(([k]) => !metaKeys.includes(k)));
    const get = this.operation(def.name, 'Get');
    const current = (await this.invoke(get, addressing.top, { timeoutMs: opts.timeoutMs, fresh: true })) as Data;
    const diff = changedPaths(current, stripped);
    if (Object.keys(diff).length === 0) return current;
    const problems = channelProblems(def, current, diff);
    if (problems.length) throw refuse('out_of_range', `${problems.length} channel problem${problems.length > 1 ? 's' : ''}`, problems);
    const setOp = this.operation(def.name, 'Set');
    let range: Data | undefined;
    if (!opts.skipRangeCheck) range = await this.checkRange(setOp, diff, metaKeys);
    const data = buildSet(def, current, diff, range, [...META_KEYS, ...metaKeys]);
    // A Set answered too late counts when the page read back holds every changed value (core/late.ts).
    return sendThenReadBack(
      () => this.invoke(setOp, data, { skipRangeCheck: true, timeoutMs: opts.timeoutMs }),
      () => this.invoke(get, addressing.top, { timeoutMs: opts.timeoutMs, fresh: true }) as Promise<Data>,
      (after) => Object.keys(changedPaths(after, diff)).length === 0,
      opts,
    );
  }

  /** Range of any page, e.g. `range('AlarmConfig/Deterrence')`; typed pages are validated by their schema. */
  range(page: string, data?: object, opts?: InvokeOptions): Promise<Data> {
    return this.invoke(this.operation(page, 'Range'), data, opts) as Promise<Data>;
  }

  get(page: string, data?: object, opts?: InvokeOptions): Promise<Data> {
    return this.invoke(this.operation(page, 'Get'), data, opts) as Promise<Data>;
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
    // `reuse`: an answer this or another device gave before is the same frozen object (AnswerMemo).
    const pending = this.range(name, undefined, { reuse: true }).then(
      (answer) => {
        // Frozen: shared by every reader, its repeated descriptors shared with the other devices' (deepFreeze).
        // Members a Get nests in a group the Range lists flat are described in the group too (PageDef rangeFlattens).
        const value = deepFreeze(nestFlatGroups(answer, findPage(name)?.rangeFlattens));
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
      page: cut > 0 ? page.slice(0, cut) : page,
      operation: cut > 0 ? page.slice(cut + 1) : undefined,
      envelope: 'any',
    });
  }

  /** Model, firmware, MAC, serial number (`/API/SystemInfo/Base/Get`). */
  systemInfo(): Promise<SystemInfo> {
    return this.invoke(systemInfoGet);
  }

  /** Capabilities and `dev_type` (`/API/Login/DeviceInfo/Get`). */
  deviceInfo(): Promise<DeviceInfo> {
    return this.invoke(deviceInfoGet);
  }

  /** Model, firmware, serial, MAC, `dev_type` from SystemInfo/Base and Login/DeviceInfo (either may be missing). */
  identity(): Promise<DeviceIdentity> {
    return readIdentity(this);
  }

  /** Channels and whether they are online (`/API/Login/ChannelInfo/Get`; map or `items` list tolerated). */
  async channels(): Promise<ChannelState[]> {
    return channelList(await this.get('Login/ChannelInfo'));
  }

  /**
   * Every channel slot with its status, hardware and AI abilities (`Login/ChannelInfo/Get`). Devices without that
   * page: the channels the Deterrence and VoiceAlarm pages report, hardware inferred from which page lists them.
   */
  channelSlots(): Promise<ChannelSlot[]> {
    return readChannelSlots(this);
  }

  /** What the channel's floodlight, siren and red/blue light do now (`PreviewChannel/Floodlight2AudioAlarm/Get`). */
  live(channel: string): Promise<LiveState> {
    return readLive(this, channel);
  }

  /**
   * Switch the floodlight, siren or red/blue light now. Checked against the page's own `_range` / `_adjustable`
   * fields and the parts the channel has (R2) before anything is sent; sent with the Get object, the change and
   * `operation_type`; read back.
   */
  setLive(channel: string, change: LiveChange, opts: LateOptions = {}): Promise<LiveState> {
    return this.writes.run(`live ${channel}`, () => writeLive(this, channel, change, opts));
  }

  /**
   * What the channel's live page says once the live writes queued before this call are done: a fresh read, in
   * line with {@link setLive}, so that it is never older than a write's read-back.
   */
  liveAfterWrites(channel: string): Promise<LiveState> {
    return this.writes.run(`live ${channel}`, () => readLive(this, channel, true));
  }

  /** Disarmed now? From `AlarmConfig/Disarming`, or `LinkageConfig/LinkageManage` on devices without it. */
  async disarmState(): Promise<DisarmState> {
    const s = await readDisarm(this, this.disarmVia);
    this.disarmVia = s.page;
    return s;
  }

  /** Disarm (true) or arm (false) through whichever page the device has, via {@link update}; read back. */
  async setDisarmed(disarmed: boolean, opts: LateOptions = {}): Promise<DisarmState> {
    if (typeof disarmed !== 'boolean') {
      throw new DeviceError({
        kind: 'invalid_request',
        error_code: 'invalid_request',
        reason: `disarmed must be a boolean (got ${JSON.stringify(disarmed)})`,
      });
    }
    const { page } = await this.disarmState();
    const after = await this.update(page, { [DISARM_MEMBER[page]]: disarmed }, opts);
    const v = after[DISARM_MEMBER[page]];
    return typeof v === 'boolean' ? { page, disarmed: v } : { page };
  }

  /** Alarm outputs (`Local->1`, `IP_CH1->1`) and whether each is on (`PreviewChannel/ManualAlarm/Get`). */
  manualAlarm(): Promise<Record<string, boolean>> {
    return readManualAlarm(this);
  }

  /** Switch alarm outputs; only outputs the device lists (R2), only the ones that change are sent; read back. */
  setManualAlarm(outputs: Record<string, boolean>): Promise<Record<string, boolean>> {
    return this.writes.run('manual alarm', () => writeManualAlarm(this, outputs));
  }

  /** A JPEG of the channel now (`Snapshot/Get`, base64 in either field spelling). */
  snapshot(channel: string, opts: { resolution?: string } = {}): Promise<Snapshot> {
    return readSnapshot(this, channel, opts);
  }

  /** RTSP URLs of every channel (`Preview/StreamUrl/Get`), on the host this client reaches the device at. */
  streamUrls(opts: { priority?: Priority } = {}): Promise<StreamUrls[]> {
    return readStreamUrls(this, { ...opts, host: new URL(this.url).hostname });
  }

  /**
   * Upgrade token for a firmware file or buffer; limits are checked before anything is sent, then the secondary
   * authentication is built from the configured password (unless `auth` gives one).
   */
  async upgradeToken(input: UpgradeTokenInput): Promise<UpgradeTokenResponse> {
    const largeCapacity = input.largeCapacity ?? this.largeCapacity;
    const prepared = await prepareUpgrade({ file: input.file, file_name: input.file_name }, { largeCapacity });
    const auth = input.auth ?? (await this.secondaryAuthentication());
    return this.invoke(upgradeTokenOp, { ...prepared, base_secondary_authentication: auth });
  }

  /** `base_secondary_authentication` from the configured password and a fresh salt of the device (TransKey/Get). */
  secondaryAuthentication(): Promise<SecondaryAuth> {
    return this.session.withPassword((password) => secondaryAuth(this, password));
  }

  /** Installed firmware (SystemInfo) and what the device's own online check (`FtpUpgrade/Check`) finds. */
  async checkFirmware(): Promise<FirmwareVersions> {
    const { firmware } = await this.identity();
    return checkFirmware(this, firmware);
  }

  /** The device's online upgrade of what its check found, followed to the end (the device then reboots). */
  onlineUpgrade(opts: OnlineUpgradeOptions = {}): Promise<FirmwareProgress> {
    return runOnlineUpgrade(this, { signal: this.session.closedSignal, ...opts });
  }

  /**
   * The whole local upgrade from a file path or a buffer: limits checked before anything is sent, the secondary
   * authentication built from the configured password (unless `auth` gives one), token, upload with `X-Upgrade-Token`;
   * resolves when the device accepted the file.
   */
  upgradeFirmware(
    input: Omit<LocalUpgradeInput, 'auth'> & { auth?: LocalUpgradeInput['auth']; largeCapacity?: boolean },
  ): Promise<{ file_name: string; file_size: number }> {
    const sender: UploadSender = {
      invoke: (op, data, opts) => this.invoke(op, data, opts),
      upload: (path: string, body: () => Uint8Array | NodeJS.ReadableStream, headers: Record<string, string>, timeoutMs: number) =>
        this.session.exchange(path, undefined, {
          page: 'Maintenance/SystemUpgrade',
          operation: 'Upgrade',
          upload: { body, headers },
          timeoutMs,
        }),
    };
    const { largeCapacity = this.largeCapacity, ...rest } = input;
    const auth = rest.auth ?? (() => this.secondaryAuthentication());
    return runLocalUpgrade(sender, { ...rest, auth }, { largeCapacity });
  }

  /** Device events from `/API/Event/Check`, at most one call per `intervalMs` (default 1 s); ends on abort or close. */
  events(opts: Omit<EventStreamOptions, 'log'> = {}): AsyncIterable<DeviceEvent> {
    return eventStream(this.session, { ...opts, log: this.log });
  }

  /**
   * A PTZ channel's offer (`PreviewChannel/PTZ/Get`): stored presets, moves, speed bounds. `channelSlots`: how many
   * channel slots the device lists (one: a camera, speed 0-10; more: a recorder, 0-100).
   */
  ptzInfo(channel: string, channelSlots: number, opts: { priority?: 'poll' | 'command' } = {}): Promise<PtzInfo> {
    return readPtz(this, channel, ptzSpeedRange(channelSlots), opts);
  }

  /**
   * A PTZ command (`{preset}`, `{move, duration?, speed?}`, `{stop: true}`) checked against `info` (refused before
   * anything is sent) and carried out: a preset called, or a move's Start, its duration, its Stop.
   */
  async ptz(info: PtzInfo, command: unknown): Promise<PtzDone> {
    return this.ptzMotion.run(info.channel, planPtz(info, command));
  }

  /** Log out (best effort, bounded), stop the heartbeat, abort calls in flight, close the sockets. Running PTZ moves are stopped first. */
  async close(): Promise<void> {
    await this.ptzMotion.stopAll();
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

  /** Send one operation and validate its answer; with `memoKey`, an answer unchanged since the last one is reused. */
  private async exchange<O extends OperationDef>(op: O, data: unknown, opts: InvokeOptions, memoKey?: string): Promise<ResponseOf<O>> {
    const memo = memoKey ? { answers: this.answers, key: memoKey } : undefined;
    const raw = await this.session.exchange(op.path, data, {
      page: op.page,
      operation: op.operation,
      envelope: op.envelope ?? 'result',
      timeoutMs: opts.timeoutMs,
      priority: opts.priority,
      memo,
    });
    const validate = () => {
      const answer = v.safeParse(op.response, raw);
      if (answer.success) return answer.output;
      const reason = describeIssues(answer.issues);
      throw new DeviceError({ kind: 'invalid_answer', error_code: 'invalid_answer', reason, page: op.page, operation: op.operation });
    };
    return memo ? this.answers.validated(memo.key, raw, validate) : validate();
  }

  /** The declared page, or for an unknown page a generic declaration (changed fields, channel blocks if any). */
  private pageDef(page: string): PageDef {
    const name = pageName(page);
    return (
      findPage(name) ??
      definePage({
        name,
        title: name,
        channelScoped: true,
        write: 'changed',
        operations: { Get: this.operation(name, 'Get'), Set: this.operation(name, 'Set') },
      })
    );
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
        page: name,
        operation,
        request: LooseObject,
        response: LooseObject,
        metaKeys: META_KEYS,
        description: `generic ${operation} of ${name}`,
      });
      this.generic.set(key, op);
    }
    return op;
  }

  /** Refuse a Set that leaves the device's Range, listing every violation; nothing is sent. Returns the Range. */
  private async checkRange(op: OperationDef, payload: unknown, metaKeys = op.metaKeys): Promise<Data> {
    const where = { page: op.page, operation: op.operation };
    let rangeData: Data;
    try {
      rangeData = await this.cachedRange(op.page);
    } catch (err) {
      if (err instanceof DeviceError && err.kind === 'unsupported') {
        throw new DeviceError({
          kind: 'invalid_request',
          error_code: 'range_unavailable',
          ...where,
          cause: err,
          reason: `the device has no Range for this page (${err.error_code}), so the Set cannot be checked; pass skipRangeCheck: true to send it unchecked`,
        });
      }
      throw err;
    }
    let violations = validateAgainstRange(payload, rangeData, { metaKeys });
    // A channel that came online (or a firmware update) changes the Range: before refusing, ask again,
    // but at most once per RANGE_RECHECK_MS per page so that a stream of bad commands cannot flood the device.
    const cached = this.ranges.get(pageName(op.page));
    if (violations.length && cached && Date.now() - cached.at > RANGE_RECHECK_MS) {
      rangeData = await this.cachedRange(op.page, { refresh: true });
      violations = validateAgainstRange(payload, rangeData, { metaKeys });
    }
    if (violations.length) {
      throw new DeviceError({
        kind: 'invalid_request',
        error_code: 'out_of_range',
        ...where,
        violations,
        reason: `${violations.length} value${violations.length > 1 ? 's' : ''} outside the device's Range`,
      });
    }
    return rangeData;
  }
}
