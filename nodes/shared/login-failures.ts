import type { DeviceError } from '../../core/errors';

/**
 * Failed logins in a row per device and user, counted across everything in this Node-RED: the
 * deployed config node's logins and the dialog's Test-connection presses alike, because the device
 * counts them together: after 5 it blocks logins (`login_failed_or_block`, vendor facts: "locked
 * after >= 5 failures"). The user is warned before the last tries, not after the block.
 */
export const DEVICE_FAILURE_LIMIT = 5;
/** Warn when this many tries (or fewer) are left before the block. */
const WARN_WHEN_LEFT = 2;

const failures = new Map<string, number>();
const key = (url: string, username: string) => `${url}\n${username}`;

/** Codes that are a refused login the device counts (a wrong password), and the device's block itself. */
const COUNTED = new Set(['verify_failed']);
const BLOCKED = new Set(['login_failed_or_block', 'user_locked_login']);

/** A login of `username` at `url` failed with `err`: counts it. */
export function loginFailed(url: string, username: string, err: DeviceError | undefined): void {
  if (!err) return;
  const k = key(url, username);
  if (COUNTED.has(err.error_code)) failures.set(k, (failures.get(k) ?? 0) + 1);
  else if (BLOCKED.has(err.error_code)) failures.set(k, DEVICE_FAILURE_LIMIT);
}

/** A login worked: the device's count starts again. */
export function loginWorked(url: string, username: string): void {
  failures.delete(key(url, username));
}

/** What the user must know now, when few tries are left (or none); undefined otherwise. */
export function loginWarning(url: string, username: string): string | undefined {
  const n = failures.get(key(url, username)) ?? 0;
  const left = DEVICE_FAILURE_LIMIT - n;
  if (n === 0 || left > WARN_WHEN_LEFT) return undefined;
  if (left <= 0) return `the device blocks logins after ${DEVICE_FAILURE_LIMIT} failed ones: wait until it lets logins in again`;
  return (
    `${n} failed logins in a row (Test connection presses count): ${left} more and the device blocks logins ` +
    `(after ${DEVICE_FAILURE_LIMIT}); check the username and password before trying again`
  );
}

/** Follows a client's logins (its 'state' events): connected resets the count, a refused login adds to it. */
export function countLogins(url: string, username: string) {
  return (state: string, err?: DeviceError) => {
    if (state === 'connected') loginWorked(url, username);
    else if (state === 'error') loginFailed(url, username, err);
  };
}
