/**
 * Fake time for the bridge's unit tests (@sinonjs/fake-timers: unlike Node 20's `mock.timers` it also fakes
 * `timers/promises`, which the runtime and the event stream wait with). Timers, `Date` and `performance.now()`
 * start at 0 and move only when the test says so, so figures are exact and a loaded machine changes nothing.
 */
import { install, type Clock } from '@sinonjs/fake-timers';

export type { Clock };

/** Runs `fn` on fake time; real time is always restored (uvu runs every suite in one process). */
export async function withFakeTime<T>(fn: (clock: Clock) => Promise<T> | T): Promise<T> {
  // A real timer set before (Node's fetch keeps one per idle socket) is cleared for real: were its clear a no-op, it
  // would fire later on a socket already collected and crash the run (undici's onParserTimeout, nodejs/undici#4755).
  const clock = install({
    now: 0,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    shouldClearNativeTimers: true,
  });
  try {
    return await fn(clock);
  } finally {
    clock.uninstall();
  }
}

/** Runs every pending timer, then awaits `work`: a `stop()` that waits for the work in progress to end on fake time. */
export async function runOut<T>(clock: Clock, work: Promise<T>): Promise<T> {
  await clock.runAllAsync();
  return work;
}
