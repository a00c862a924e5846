import type { AnswerMemo } from './answer-memo';
import type { AnswerContext } from './envelope';
import { DeviceError, RELOGIN_CODES, RESET_CODES, isKnownCode } from './errors';
import { digestLogin, envelope, parse } from './login';
import { LoginGuard } from './login-guard';
import { closedError, type Priority, type Transport, type WireResponse } from './transport';

/**
 * The login session with one device (field notes): Digest login, session cookie, CSRF token,
 * heartbeat, one shared re-login when the device forgets the session, and a lock-out state after a
 * refused login so that a wrong password never turns into a login storm.
 *
 * Login rules (vendor facts a, b; field notes):
 * - a session code (RELOGIN_CODES) logs in again, single flight, and repeats the call once;
 * - a code saying the device changed (RESET_CODES) drops the session; the next call logs in;
 * - a failing heartbeat, or a 400 with a code outside the vendor's list on a session that worked,
 *   makes the session suspect: one re-login, the call is not repeated;
 * - when a login may go out (lock-outs, `have_login`, spacing of re-logins): see LoginGuard.
 */

export type SessionState = 'idle' | 'connecting' | 'connected' | 'error' | 'closed';
export type LogFn = (level: 'debug' | 'info' | 'warn' | 'error', msg: string) => void;

export interface SessionOptions {
  username: string;
  password: string;
  timeoutMs: number;
  /** Heartbeat period; 0 turns it off. */
  heartbeatMs: number;
  /** After a refused login, calls fail fast for this long (or until `login()` is called). */
  lockoutMs: number;
  /** First hold after `have_login`; doubles up to `lockoutMs`. Default 5000. */
  busyLoginMs?: number;
  log?: LogFn;
  onState?: (state: SessionState, error?: DeviceError) => void;
  /** Every login the device judged: accepted, or refused (a lock-out code) with how long logins are now held. */
  onLogin?: (outcome: LoginOutcome) => void;
}

/** What a login the device judged came to (SessionOptions.onLogin). */
export type LoginOutcome = { ok: true } | { ok: false; error: DeviceError; heldUntil?: number };

export interface ExchangeOptions extends AnswerContext {
  timeoutMs?: number;
  /** 'poll' calls (events, state reads) wait behind queued commands. Default 'command'. */
  priority?: Priority;
  signal?: AbortSignal;
  /** A read asked again and again: an answer identical to the previous one is not parsed again. */
  memo?: { answers: AnswerMemo; key: string };
  /** Raw data as the body instead of the `{version, data}` envelope, with extra request headers (a firmware upload). */
  upload?: { body: () => Uint8Array | NodeJS.ReadableStream; headers: Record<string, string> };
}

export { LOGIN_PATH } from './login';
export const LOGOUT_PATH = '/API/Web/Logout';
export const HEARTBEAT_PATH = '/API/Login/Heartbeat';
const CSRF_HEADER = 'X-csrftoken';
/** How long logins wait after the device said it restarts (`device_reboot`, or a restart this client asked for). */
const REBOOT_HOLD_MS = 2_000;

export class Session {
  readonly username: string;
  // Private field: not visible to JSON.stringify, util.inspect or error serialisation.
  readonly #password: string;
  private readonly opts: SessionOptions;
  private readonly cookies = new Map<string, string>();
  /** The Cookie header of `cookies`, built when they change rather than for every request. */
  private cookieHeader = '';
  private csrf?: string;
  private loggedIn = false;
  /** Incremented by every successful login: tells whether a failed call already saw a newer session. */
  private gen = 0;
  /** A call succeeded on the current session (an unknown error code is then suspect). */
  private worked = false;
  private readonly guard: LoginGuard;
  private loginPromise?: Promise<void>;
  private heartbeat?: NodeJS.Timeout;
  private heartbeatBusy = false;
  private closed = false;
  private readonly closing = new AbortController();
  private current: SessionState = 'idle';

  constructor(
    private readonly transport: Transport,
    opts: SessionOptions,
  ) {
    const { password, ...rest } = opts;
    this.username = opts.username;
    this.#password = password;
    this.opts = { ...rest, password: '' };
    this.guard = new LoginGuard({ lockoutMs: opts.lockoutMs, busyLoginMs: opts.busyLoginMs ?? 5_000 });
  }

  get state(): SessionState {
    return this.current;
  }

  /** When a held login (lock-out, too many logins) may go out again (epoch ms); undefined when none is held. */
  get loginHeldUntil(): number | undefined {
    return this.guard.heldUntil;
  }

  get isLoggedIn(): boolean {
    return this.loggedIn;
  }

  /** Incremented by every successful login: a subscription made under an older one is gone. */
  get generation(): number {
    return this.gen;
  }

  /** Aborted when the session closes (lets waiting loops end at once). */
  get closedSignal(): AbortSignal {
    return this.closing.signal;
  }

  /** Explicit login ("test connection"): clears a lock-out; when logged in, proves it with a heartbeat. */
  async login(): Promise<void> {
    this.assertOpen();
    this.guard.clear();
    if (this.loggedIn && !this.loginPromise) {
      try {
        await this.heartbeatOnce();
      } catch (err) {
        if (!(err instanceof DeviceError && err.kind === 'unsupported')) throw err; // answered: the session works
      }
      return;
    }
    await this.loginOnce();
  }

  /** Send `{version, data}` to `path` within the session; log in again per the login rules above. */
  async exchange(path: string, data: unknown, opts: ExchangeOptions = {}): Promise<unknown> {
    this.assertOpen();
    if (!this.loggedIn) await this.loginOnce();
    const generation = this.gen;
    try {
      return await this.send(path, data, opts);
    } catch (err) {
      if (!(err instanceof DeviceError) || this.closed) throw err;
      // An upload's token belongs to the session it was asked in: never sent again after a new login.
      if (RELOGIN_CODES.has(err.error_code) && !opts.upload) {
        this.log('info', `session lost (${err.error_code}): logging in again`);
        await this.relogin(generation, err);
        return await this.send(path, data, opts);
      }
      if (RESET_CODES.has(err.error_code) && generation === this.gen) {
        this.log('info', `device changed (${err.error_code}): the next call logs in again`);
        this.forget();
        if (err.error_code === 'device_reboot') this.guard.holdFor(err, REBOOT_HOLD_MS);
      } else if (this.suspect(err, generation)) {
        this.log('warn', `unknown error ${err.error_code} on a working session: logging in again`);
        await this.relogin(generation, err).catch(() => undefined);
      }
      throw err;
    }
  }

  /**
   * The device was told to restart: its sessions end, so this one is dropped and logins wait a little (the device
   * answers `device_reboot`, then nothing, until it is back); the first call after that logs in once.
   */
  restarting(): void {
    this.forget();
    this.stopHeartbeat();
    this.guard.holdFor(
      new DeviceError({ kind: 'session', error_code: 'device_reboot', reason: 'the device is restarting' }),
      REBOOT_HOLD_MS,
    );
  }

  /**
   * Hold logins until `until` (epoch ms) with `error`, without logging in: these credentials were refused a moment
   * ago (by an earlier client, e.g. before a redeploy) and asking again would only count toward the device's block.
   * The state turns `error` at once; the first call after `until`, or `login()`, logs in.
   */
  holdLogins(error: DeviceError, until: number): void {
    this.assertOpen();
    const ms = until - Date.now();
    if (ms <= 0) return;
    this.guard.holdFor(error, ms);
    this.setState('error', this.guard.held());
  }

  /** Runs `use` with the login password (secondary authentication); the password never leaves core. */
  withPassword<T>(use: (password: string) => Promise<T>): Promise<T> {
    return use(this.#password);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    this.stopHeartbeat();
    this.transport.abortAll();
    if (this.loggedIn) {
      try {
        const res = await this.transport.post(LOGOUT_PATH, envelope({}), {
          headers: this.headers(),
          timeoutMs: Math.min(this.opts.timeoutMs, 3_000),
        });
        this.log('debug', `logout: HTTP ${res.status}`);
      } catch (err) {
        this.log('debug', `logout failed (ignored): ${(err as Error).message}`);
      }
    }
    this.forget();
    await this.transport.close();
    this.setState('closed');
  }

  // --- internals -------------------------------------------------------------------------------

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }

  private log(level: Parameters<LogFn>[0], msg: string): void {
    this.opts.log?.(level, this.redact(msg));
  }

  private redact(s: string): string {
    const pw = this.#password;
    return pw && s.includes(pw) ? s.split(pw).join('***') : s;
  }

  /** A device error whose text carries the password (an echoing firmware) is rewritten. */
  private scrub(err: unknown): unknown {
    if (!(err instanceof DeviceError) || !this.#password || !err.message.includes(this.#password)) return err;
    return new DeviceError({ ...err.toJSON(), reason: this.redact(err.reason) });
  }

  /** Tells onLogin; a listener that throws never breaks the login. */
  private judged(outcome: LoginOutcome): void {
    try {
      this.opts.onLogin?.(outcome);
    } catch {
      // the listener's problem
    }
  }

  private setState(state: SessionState, error?: DeviceError): void {
    if (this.closed && state !== 'closed') return;
    if (state === this.current && state !== 'error') return;
    this.current = state;
    this.opts.onState?.(state, error);
  }

  /** Drop the login: the next call logs in afresh. */
  private forget(): void {
    this.loggedIn = false;
    this.cookies.clear();
    this.cookieHeader = '';
    this.csrf = undefined;
  }

  private headers(extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { ...extra };
    if (this.cookieHeader) h.cookie = this.cookieHeader;
    if (this.csrf) h[CSRF_HEADER] = this.csrf;
    return h;
  }

  /** Keep the newest session cookie(s) and CSRF token a response carries. */
  private absorb(res: WireResponse): void {
    for (const line of res.headers.getSetCookie?.() ?? []) {
      const m = /^\s*([^=;\s]+)\s*=\s*([^;]*)/.exec(line);
      if (!m || !/^session/i.test(m[1])) continue;
      const gone = !m[2] || /;\s*max-age\s*=\s*0\b/i.test(line) || /;\s*expires\s*=\s*Thu, 01 Jan 1970/i.test(line);
      if (gone) this.cookies.delete(m[1]);
      else this.cookies.set(m[1], m[2]);
      this.cookieHeader = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    const token = res.headers.get(CSRF_HEADER); // Headers are case-insensitive: X-CsrfToken too
    if (token) this.csrf = token;
  }

  /** A 400 with a code outside the vendor's list, on a session that worked until now. */
  private suspect(err: DeviceError, generation: number): boolean {
    return err.status === 400 && !isKnownCode(err.error_code) && this.worked && generation === this.gen;
  }

  private async send(path: string, data: unknown, opts: ExchangeOptions): Promise<unknown> {
    let res: WireResponse;
    try {
      const { upload } = opts;
      res = await this.transport.post(path, upload ? undefined : envelope(data), {
        headers: () => this.headers(upload?.headers),
        rawBody: upload?.body,
        timeoutMs: opts.timeoutMs,
        priority: opts.priority,
        signal: opts.signal,
      });
    } catch (raw) {
      // Name the operation that failed: "SystemInfo/Base/Get: timeout (no answer within 10000 ms)".
      const err =
        raw instanceof DeviceError && !raw.page && opts.page
          ? new DeviceError({ ...raw.toJSON(), page: opts.page, operation: opts.operation, cause: raw.cause })
          : raw;
      if (err instanceof DeviceError && err.error_code !== 'aborted' && err.error_code !== 'closed') this.setState('error', err);
      throw err;
    }
    this.absorb(res);
    try {
      const { memo } = opts;
      const out = memo ? memo.answers.parse(memo.key, res.text, () => parse(res, opts)) : parse(res, opts);
      this.worked = true;
      this.guard.answered();
      this.setState('connected');
      return out;
    } catch (err) {
      if (err instanceof DeviceError && err.kind === 'transport') this.setState('error', err);
      throw this.scrub(err);
    }
  }

  /**
   * Log in again unless another caller already did since `seenGeneration`. Re-logins in quick
   * succession are spaced (LoginGuard): inside the gap, `cause` is thrown and nothing is sent.
   */
  private relogin(seenGeneration: number, cause: DeviceError): Promise<void> {
    if (this.loginPromise) return this.loginPromise;
    if (this.gen !== seenGeneration && this.loggedIn) return Promise.resolve(); // already renewed
    const tooSoon = this.guard.relogin(cause);
    if (tooSoon && this.guard.heldUntil !== undefined && this.loggedIn) {
      // Logins held (another user's session): drop this one, so that no call goes out until the hold ends.
      this.log('warn', tooSoon.reason);
      this.forget();
      this.stopHeartbeat();
      this.setState('error', tooSoon);
    }
    if (tooSoon) return Promise.reject(tooSoon);
    this.loggedIn = false;
    return this.loginOnce();
  }

  /** Single flight: every caller that needs a login while one is running shares it. */
  private loginOnce(): Promise<void> {
    if (this.loginPromise) return this.loginPromise;
    const held = this.guard.held();
    if (held) return Promise.reject(held);
    this.loginPromise = this.doLogin().finally(() => {
      this.loginPromise = undefined;
    });
    return this.loginPromise;
  }

  private async doLogin(): Promise<void> {
    this.setState('connecting');
    this.stopHeartbeat();
    this.forget();
    try {
      const { res, data } = await digestLogin(this.transport, this.username, this.#password);
      this.absorb(res);
      const token = (data as { token?: unknown } | undefined)?.token;
      if (!this.csrf && typeof token === 'string' && token) this.csrf = token; // old firmware: token in the body
      this.loggedIn = true;
      this.gen++;
      this.worked = false;
      this.guard.loggedIn();
      this.log('info', `logged in as ${this.username}${this.cookies.size ? '' : ' (no session cookie received)'}`);
      this.judged({ ok: true });
      this.setState('connected');
      this.startHeartbeat();
    } catch (raw) {
      const err = this.scrub(raw) as DeviceError;
      if (this.closed) throw err;
      // A device still restarting refuses logins for a while: wait instead of asking again at every call.
      if (err instanceof DeviceError && err.error_code === 'device_reboot') this.guard.holdFor(err, REBOOT_HOLD_MS);
      const heldMs = err instanceof DeviceError ? this.guard.refused(err) : undefined;
      if (heldMs !== undefined) this.log('error', `login refused (${err.error_code}); not retrying for ${Math.round(heldMs / 1000)} s`);
      else this.log('warn', `login failed: ${(err as Error).message}`);
      if (err instanceof DeviceError && err.kind === 'lockout') this.judged({ ok: false, error: err, heldUntil: this.guard.heldUntil });
      this.setState('error', err instanceof DeviceError ? err : undefined);
      throw err;
    }
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    if (!this.opts.heartbeatMs || this.opts.heartbeatMs <= 0 || this.closed) return;
    this.heartbeat = setInterval(() => this.beat(), this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private heartbeatOnce(): Promise<unknown> {
    return this.exchange(HEARTBEAT_PATH, { keep_alive: true }, { page: 'Login', operation: 'Heartbeat', envelope: 'any' });
  }

  private beat(): void {
    if (this.heartbeatBusy || !this.loggedIn || this.closed) return;
    this.heartbeatBusy = true;
    const generation = this.gen;
    this.heartbeatOnce()
      .catch(async (err: Error) => {
        if (err instanceof DeviceError && err.kind === 'unsupported') {
          this.log('info', 'device has no heartbeat endpoint: heartbeat off');
          this.stopHeartbeat();
          return;
        }
        this.log('warn', `heartbeat failed: ${err.message}`);
        // A failing heartbeat means a dead session (field notes: a 46-hour outage without this): one
        // re-login, spaced by the re-login gap; session codes were already handled by exchange().
        if (!(err instanceof DeviceError) || this.closed || !this.loggedIn || err.kind === 'session' || err.kind === 'lockout') return;
        if (err.error_code === 'aborted' || err.error_code === 'closed') return;
        await this.relogin(generation, err).catch((e: Error) => this.log('warn', `re-login after heartbeat failure failed: ${e.message}`));
      })
      .finally(() => {
        this.heartbeatBusy = false;
      });
  }
}
