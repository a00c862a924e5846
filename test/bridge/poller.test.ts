/** Poll schedule of one device: offline after repeated failures, capped exponential backoff with jitter, back by itself. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { createLogger } from '../../bridge/log';
import { Poller } from '../../bridge/poller';

const test = suite('bridge poller');
const quiet = createLogger({ sink: () => undefined });

/** Runs a poller whose polls fail `failures` times, then succeed; returns the gaps between attempts. */
async function run(random: number, failures: number) {
  const realRandom = Math.random;
  Math.random = () => random;
  const attempts: number[] = [];
  const availability: boolean[] = [];
  let succeeded!: () => void;
  const done = new Promise<void>((r) => (succeeded = r));
  const poller = new Poller(
    async () => {
      attempts.push(performance.now());
      if (attempts.length <= failures) throw new Error('connection refused');
      succeeded();
    },
    { intervalMs: 10_000, minBackoffMs: 40, maxBackoffMs: 200, offlineAfter: 3, log: quiet },
    (online) => availability.push(online),
  );
  try {
    poller.start();
    await done;
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    await poller.stop();
    Math.random = realRandom;
  }
  return { gaps: attempts.slice(1).map((t, i) => t - attempts[i]), availability, stats: poller.stats };
}

test('retries double from the minimum up to the cap, which jitter never exceeds; offline after 3, online again', async () => {
  const high = await run(0.999, 6); // jitter at its top: +25 %
  const expected = [50, 100, 200, 200, 200, 200]; // 40, 80, 160, 320->200, ... times 1.25, capped at 200
  assert.equal(high.gaps.length, expected.length);
  high.gaps.forEach((g, i) =>
    assert.ok(g >= expected[i] - 5 && g <= expected[i] + 40, `retry ${i + 1}: ${g.toFixed(0)} ms, expected about ${expected[i]}`),
  );
  assert.deepEqual(high.availability, [false, true], 'offline once after the third failure, online at the first success');
  assert.equal(high.stats.failed, 6);
  assert.equal(high.stats.completed, 1);

  const low = await run(0, 4); // jitter at its bottom: -25 %
  [30, 60, 120, 150].forEach((e, i) =>
    assert.ok(low.gaps[i] >= e - 5 && low.gaps[i] <= e + 40, `retry ${i + 1}: ${low.gaps[i].toFixed(0)} ms, expected about ${e}`),
  );
});

test.run();
