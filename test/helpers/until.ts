/** Waiting for a condition instead of a fixed time: the one polling wait every suite uses. */
import { setTimeout as delay } from 'node:timers/promises';

/** Resolves once `cond` holds (checked every 10 ms); fails naming `what` after `timeoutMs`. */
export async function until(cond: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(10);
  }
}
