import { createHash, randomBytes } from 'node:crypto';
import type { DeviceError } from '../../core/errors';
import { LOGIN_FAILURE_LIMIT, loginTriesLeft } from '../../core/login-guard';
import type { LoginOutcome } from '../../core/session';

/**
 * Logins per device and user, remembered across everything in this Node-RED: the deployed config node's logins, the
 * ones of the config node that replaces it on the next deploy, and the dialog's Test-connection presses alike,
 * because the device counts them together and blocks after 5 failed ones (`login_failed_or_block`).
 *
 * - Credentials the device refused are not tried again by a deploy (a new config node) until they change or the
 *   wait core's login guard set is over (the device's own `block_remain_time`, or 5 minutes): four redeploys with
 *   the same wrong password cost one failed login, not four.
 * - How many tries are left: the device's word where its refusal says (`fail_login_count`, or its block), else the
 *   refusals counted here. The dialog's Test connection always says it; the deployed node warns with 2 or fewer left.
 */

/** The deployed node warns when this many tries (or fewer) are left before the block. */
const WARN_WHEN_LEFT = 2;

interface Logins {
  /** Refused logins in a row, counted here (a login that works starts again). */
  failures: number;
  /** The last refusal: of which password (a salted hash, never the password), why, and until when logins wait. */
  refused?: { password: string; error: DeviceError; until?: number };
}

export interface LoginCredentials {
  url: string;
  username: string;
  password: string;
}

const records = new Map<string, Logins>();
const key = (c: Pick<LoginCredentials, 'url' | 'username'>) => `${c.url}\n${c.username}`;
/** Tells passwords apart without keeping them: a hash salted once per process. */
const SALT = randomBytes(16);
const fingerprint = (password: string) => createHash('sha256').update(SALT).update(password).digest('base64');

/** Follows a client's logins (ClientOptions.onLogin) for these credentials. */
export function recordLogins(c: LoginCredentials): (outcome: LoginOutcome) => void {
  return (outcome) => {
    if (outcome.ok) {
      records.delete(key(c));
      return;
    }
    const r = records.get(key(c)) ?? { failures: 0 };
    if (outcome.error.error_code === 'verify_failed') r.failures++;
    else if (loginTriesLeft(outcome.error) === 0) r.failures = LOGIN_FAILURE_LIMIT;
    r.refused = { password: fingerprint(c.password), error: outcome.error, until: outcome.heldUntil };
    records.set(key(c), r);
  };
}

/**
 * The refusal a deploy must not ask again: these very credentials were refused and the wait is not over.
 * Undefined when they changed, were never refused, or may be tried now.
 */
export function refusedLately(c: LoginCredentials, now = Date.now()): { error: DeviceError; until: number } | undefined {
  const refused = records.get(key(c))?.refused;
  if (!refused?.until || refused.until <= now || refused.password !== fingerprint(c.password)) return undefined;
  return { error: refused.error, until: refused.until };
}

/** How many more failed logins the device takes before it blocks: its own word where `err` carries it, else counted here. */
export function triesLeft(
  c: Pick<LoginCredentials, 'url' | 'username'>,
  err?: DeviceError,
): { left: number; source: 'device' | 'counted' } {
  const said = err ? loginTriesLeft(err) : undefined;
  if (said !== undefined) return { left: said, source: 'device' };
  return { left: Math.max(0, LOGIN_FAILURE_LIMIT - (records.get(key(c))?.failures ?? 0)), source: 'counted' };
}

const tries = (n: number) => `${n} ${n === 1 ? 'try' : 'tries'}`;

/**
 * A refused login in the user's words: how many tries are left before the device blocks logins, and whose count
 * that is; once blocked, for how long where the device says. Undefined for an error that is no refused login.
 */
export function triesLeftText(c: Pick<LoginCredentials, 'url' | 'username'>, err: DeviceError): string | undefined {
  if (err.error_code !== 'verify_failed' && loginTriesLeft(err) === undefined) return undefined;
  const { left, source } = triesLeft(c, err);
  if (left === 0) {
    const wait = err.retryAfterMs !== undefined ? ` for ${Math.ceil(err.retryAfterMs / 1000)} s more` : '';
    return `the device blocks logins${wait} (after ${LOGIN_FAILURE_LIMIT} failed ones): wait before trying again`;
  }
  const whose = source === 'device' ? 'as the device counts' : 'counted by this Node-RED, Test connection presses included';
  return `${tries(left)} left before the device blocks logins (${whose}); check the username and password before trying again`;
}

/** What the deployed node warns about: the tries left, once they are few. */
export function loginWarning(c: Pick<LoginCredentials, 'url' | 'username'>, err: DeviceError): string | undefined {
  if (triesLeft(c, err).left > WARN_WHEN_LEFT) return undefined;
  return triesLeftText(c, err);
}
