/**
 * A Set slower than the request deadline: the client gave up waiting, yet the device may have applied it and only
 * answered late. Before such a Set is reported failed its page is read back once (a command-priority read, through
 * the device's request budget like any other call): when the read-back holds what was asked, the Set counts as done,
 * "applied late" (the caller hears of it through `onLate`); when it does not, the timeout stands, saying so.
 * The one place this rule lives: page updates (`update`, `setDisarmed`) and live switches (`setLive`) use it.
 */
import { DeviceError } from './errors';
import { leftUnanswered } from './transport';

/** Told when a Set timed out on the wire but its read-back shows it applied: the timeout it outlived. */
export type OnAppliedLate = (timeout: DeviceError) => void;

export interface LateOptions {
  /** The Set's answer came too late, but reading back showed it applied (else the call fails as before). */
  onAppliedLate?: OnAppliedLate;
}

/**
 * `send()` then `readBack()`; a `send()` that left and timed out is followed by `readBack()` all the same, and its
 * answer counts when `holds(answer)` (every value asked for is there).
 */
export async function sendThenReadBack<T>(
  send: () => Promise<unknown>,
  readBack: () => Promise<T>,
  holds: (after: T) => boolean,
  opts: LateOptions = {},
): Promise<T> {
  try {
    await send();
  } catch (err) {
    if (!leftUnanswered(err)) throw err;
    let after: T;
    try {
      after = await readBack();
    } catch {
      throw err; // the device does not answer at all: the timeout is the news
    }
    if (!holds(after)) {
      throw new DeviceError({ ...err.toJSON(), reason: `${err.reason}; read back: not applied`, cause: err });
    }
    opts.onAppliedLate?.(err);
    return after;
  }
  return readBack();
}
