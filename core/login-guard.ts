import { DeviceError, holdsLogin } from './errors';

/**
 * When a login may go out (no login storms, vendor facts a/b, field notes):
 * - a lock-out code (`verify_failed`, `login_failed_or_block`, `netip_limited`, ...) holds logins for
 *   `lockoutMs`, or as long as the device says it blocks (`block_remain_time`) when that is shorter; `have_login` (too many logins) for a backoff doubling from `busyLoginMs` up to `lockoutMs`;
 * - re-logins that follow each other are spaced by a gap doubling from 1 s up to 60 s, so that a device
 *   forgetting every session at once sees a few logins a minute; a session that lasts resets the gap;
 * - a session taken by another login from this address (`one_IE`: a person's browser on the same address) twice in
 *   a row stops the re-logins: each one would throw that person out again. Logins wait on a slow schedule (10 min,
 *   doubling up to 1 h) with an error saying so (ANOTHER_USER_SESSION); a session that lasts resets it.
 * An explicit login (`clear()`: a reconnect, a redeploy) lifts a hold.
 */

/**
 * The device blocks logins after this many failed ones in a row (the vendor's login page: `verify_failed` "wrong
 * username or password within five times", `login_failed_or_block` "locked after five or more failed logins").
 */
export const LOGIN_FAILURE_LIMIT = 5;

/**
 * How many more failed logins the device takes before it blocks, where its refusal says: its own count
 * (`fail_login_count`) against the limit, or none once it blocks. Undefined where the refusal says neither.
 */
export function loginTriesLeft(err: DeviceError): number | undefined {
  if (err.error_code === 'login_failed_or_block' || err.error_code === 'user_locked_login') return 0;
  if (err.error_code === 'verify_failed' && err.failedLogins !== undefined) return Math.max(0, LOGIN_FAILURE_LIMIT - err.failedLogins);
  return undefined;
}

/** What the bridge and the nodes say where another user's login keeps taking the session (`one_IE`). */
export const ANOTHER_USER_SESSION = "another user's session";
/** `one_IE` re-logins in a row before logins stop for a while. */
const EVICTIONS_BEFORE_HOLD = 2;
const EVICTED_HOLD_MS = 10 * 60_000;
const EVICTED_HOLD_MAX_MS = 60 * 60_000;

/** Whether `err` is the hold of logins that another user's session caused (LoginGuard). */
export function isAnotherUserSession(err: unknown): boolean {
  return err instanceof DeviceError && err.error_code === 'one_IE' && err.reason.startsWith(ANOTHER_USER_SESSION);
}

const RELOGIN_GAP_MS = 1_000;
const RELOGIN_GAP_MAX_MS = 60_000;
/** A session older than this that still answers resets the re-login gap. */
const SESSION_SETTLED_MS = 60_000;

export interface LoginGuardOptions {
  lockoutMs: number;
  busyLoginMs: number;
}

export class LoginGuard {
  private hold?: { error: DeviceError; until: number };
  private busyLogins = 0;
  private gap = 0;
  private nextReloginAt = 0;
  private loginAt = 0;
  /** `one_IE` re-logins since the last session that lasted, and the slow holds they caused. */
  private evictions = 0;
  private evictedHolds = 0;

  constructor(private readonly opts: LoginGuardOptions) {}

  /** The error to fail with while logins are held; undefined when a login may go out. */
  held(): DeviceError | undefined {
    const h = this.hold;
    if (!h) return undefined;
    if (Date.now() >= h.until) {
      this.hold = undefined;
      return undefined;
    }
    return new DeviceError({
      ...h.error.toJSON(),
      // User words (bridge logs, HA, Node-RED): when the next try happens, and that reconnecting tries now.
      reason: `${h.error.reason}; logging in again after ${new Date(h.until).toISOString()}, or at once on a reconnect`,
    });
  }

  /** When held logins may go out again (epoch ms); undefined when nothing is held. */
  get heldUntil(): number | undefined {
    return this.hold && Date.now() < this.hold.until ? this.hold.until : undefined;
  }

  /** An explicit login: try now. */
  clear(): void {
    this.hold = undefined;
  }

  /** A refused login: how long logins are now held (ms), or undefined when this refusal holds nothing. */
  refused(err: DeviceError): number | undefined {
    if (!holdsLogin(err)) return undefined;
    // A device that says how long it blocks is taken at its word (plus a second), never longer than lockoutMs.
    const said = err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs + 1000, this.opts.lockoutMs) : undefined;
    const ms =
      said ??
      (err.kind === 'lockout' ? this.opts.lockoutMs : Math.min(this.opts.busyLoginMs * 2 ** this.busyLogins++, this.opts.lockoutMs));
    this.hold = { error: err, until: Date.now() + ms };
    return ms;
  }

  /** Hold logins for `ms` with `error` (the device restarts: logging in now would only be refused). */
  holdFor(error: DeviceError, ms: number): void {
    const until = Date.now() + ms;
    if (!this.hold || this.hold.until < until) this.hold = { error, until };
  }

  loggedIn(): void {
    this.loginAt = Date.now();
    this.busyLogins = 0;
  }

  /** A call answered: a session that lasts lets the next re-login go out at once. */
  answered(): void {
    if (Date.now() - this.loginAt <= SESSION_SETTLED_MS) return;
    this.gap = 0;
    this.evictions = 0;
    this.evictedHolds = 0;
  }

  /** Before a re-login caused by `cause`: the error to fail with when it comes too soon; otherwise books the next gap. */
  relogin(cause: DeviceError): DeviceError | undefined {
    const held = this.held();
    if (held) return held;
    if (cause.error_code !== 'one_IE') this.evictions = 0;
    else if (++this.evictions >= EVICTIONS_BEFORE_HOLD) {
      const ms = Math.min(EVICTED_HOLD_MS * 2 ** this.evictedHolds++, EVICTED_HOLD_MAX_MS);
      const error = new DeviceError({
        ...cause.toJSON(),
        cause,
        reason: `${ANOTHER_USER_SESSION}: a login from this address (a browser?) took the device's session twice in a row (one_IE); not logging in again for ${Math.round(ms / 60_000)} min, so as not to throw that user out`,
      });
      this.hold = { error, until: Date.now() + ms };
      return this.held();
    }
    const now = Date.now();
    if (now < this.nextReloginAt) {
      return new DeviceError({
        ...cause.toJSON(),
        cause,
        reason: `${cause.reason}; the session was lost again soon after a login, logging in again after ${new Date(this.nextReloginAt).toISOString()}`,
      });
    }
    this.gap = this.gap ? Math.min(this.gap * 2, RELOGIN_GAP_MAX_MS) : RELOGIN_GAP_MS;
    this.nextReloginAt = now + this.gap;
    return undefined;
  }
}
