/** Poll schedule of one device on fake time: backoff figures, offline and back, fixed cadence, missed slots. */
import * as assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { suite } from 'uvu';
import { createLogger } from '../../bridge/base/log';
import { Poller } from '../../bridge/device/poller';
import { runOut, withFakeTime } from '../helpers/fake-time';

const test = suite('bridge poller');

/** A poller whose polls take `pollMs`, fail while `fails(n)` (n: 1-based attempt), with the log lines it wrote. */
function poller(o: { intervalMs: number; pollMs?: number; fails?: (n: number) => boolean }) {
  const starts: number[] = [];
  const availability: Array<[number, boolean]> = [];
  const lines: string[] = [];
  const p = new Poller(
    async () => {
      starts.push(Date.now());
      if (o.pollMs) await delay(o.pollMs);
      if (o.fails?.(starts.length)) throw new Error('connection refused');
    },
    {
      intervalMs: o.intervalMs,
      minBackoffMs: 40,
      maxBackoffMs: 200,
      offlineAfter: 3,
      log: createLogger({ sink: (level, line) => lines.push(`${level} ${line}`) }),
    },
    (online) => availability.push([Date.now(), online]),
  );
  const gaps = () => starts.slice(1).map((t, i) => t - starts[i]);
  return { p, starts, gaps, availability, lines };
}

/** Runs `fn` with Math.random pinned (the backoff's jitter). */
async function withRandom<T>(value: number, fn: () => Promise<T>): Promise<T> {
  const real = Math.random;
  Math.random = () => value;
  try {
    return await fn();
  } finally {
    Math.random = real;
  }
}

test('retries double from the minimum up to the cap, jitter +25 % at most; offline after 3 failures, online at the first success', () =>
  withFakeTime(async (clock) => {
    const { p, gaps, availability, lines } = poller({ intervalMs: 10_000, fails: (n) => n <= 6 });
    await withRandom(0.999, async () => {
      p.start();
      await clock.tickAsync(5_000);
    });
    // 40, 80, 160, 320 -> 200 (cap), each +25 %, capped at 200; then the normal interval after the success.
    assert.deepEqual(gaps().slice(0, 6), [50, 100, 200, 200, 200, 200]);
    assert.deepEqual(availability, [
      [150, false],
      [950, true],
    ]);
    assert.deepEqual(p.stats, { completed: 1, failed: 6, missed: 0, due: 7 });
    assert.equal(lines.filter((l) => l.includes('poll failed')).length, 1, 'the same error is logged once, not on every retry');
    await runOut(clock, p.stop());
  }));

test('jitter at its bottom: -25 %', () =>
  withFakeTime(async (clock) => {
    const { p, gaps } = poller({ intervalMs: 10_000, fails: (n) => n <= 4 });
    await withRandom(0, async () => {
      p.start();
      await clock.tickAsync(1_000);
    });
    assert.deepEqual(gaps(), [30, 60, 120, 150]);
    await runOut(clock, p.stop());
  }));

test('fixed cadence: polls start on the interval however long each takes', () =>
  withFakeTime(async (clock) => {
    const { p, starts } = poller({ intervalMs: 1000, pollMs: 300 });
    p.start(250); // the bridge spreads first polls
    await clock.tickAsync(4_000);
    assert.deepEqual(starts, [250, 1250, 2250, 3250]);
    assert.deepEqual(p.stats, { completed: 4, failed: 0, missed: 0, due: 4 });
    await runOut(clock, p.stop());
  }));

test('a device slower than its interval: polled back to back, never two at once, passed slots counted as missed', () =>
  withFakeTime(async (clock) => {
    const { p, starts } = poller({ intervalMs: 1000, pollMs: 2_500 });
    p.start();
    await clock.tickAsync(7_600);
    // Each next poll at once (a 0 ms timer fires after 1 ms, as in Node).
    assert.deepEqual(starts, [0, 2_501, 5_002, 7_503]);
    assert.deepEqual(p.stats, { completed: 3, failed: 0, missed: 3, due: 7 });
    await runOut(clock, p.stop());
  }));

test('pollNow(): after the poll in progress, one poll for many callers; the cadence goes on from there', () =>
  withFakeTime(async (clock) => {
    const { p, starts } = poller({ intervalMs: 1000, pollMs: 100 });
    p.start();
    await clock.tickAsync(50); // first poll under way
    const asked = [p.pollNow(), p.pollNow(), p.pollNow()];
    await clock.tickAsync(200);
    await Promise.all(asked);
    assert.deepEqual(starts, [0, 100], 'one poll for the three callers, after the first one');
    await clock.tickAsync(1_000);
    assert.deepEqual(starts, [0, 100, 1000]);
    await runOut(clock, p.stop());
    await clock.tickAsync(5_000);
    assert.equal(starts.length, 3, 'stopped: no more polls');
  }));

test.run();
