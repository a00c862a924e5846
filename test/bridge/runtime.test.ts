/** DeviceRuntime with a fake device: reads asked for from outside are coalesced and paced; first-poll wait. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { parseConfig } from '../../bridge/config';
import type { Device } from '../../bridge/device';
import { createLogger } from '../../bridge/log';
import { DeviceRuntime } from '../../bridge/runtime';

const test = suite('bridge runtime');
const quiet = createLogger({ sink: () => undefined });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cfg = parseConfig(
  { devices: [{ id: 'nvr', url: 'http://127.0.0.1:9', username: 'u', password: 'p', poll_interval: 3600 }] },
  { env: {} },
).config.devices[0];

/** A device whose poll takes `ms` and records when each poll started and ended. */
function fakeDevice(ms: number, fail = false) {
  const polls: Array<{ start: number; end?: number }> = [];
  let invalidations = 0;
  const device = {
    id: 'nvr',
    async poll() {
      const p: { start: number; end?: number } = { start: performance.now() };
      polls.push(p);
      await sleep(ms);
      p.end = performance.now();
      if (fail) throw new Error('connection refused');
    },
    invalidate() {
      invalidations++;
    },
    async close() {},
  };
  return { device: device as unknown as Device, polls, invalidations: () => invalidations };
}

function runtime(fake: ReturnType<typeof fakeDevice>, readGapMs: number, offlineAfter = 3) {
  return new DeviceRuntime(cfg, {
    log: quiet,
    readGapMs,
    offlineAfter,
    minBackoffMs: 5,
    maxBackoffMs: 10,
    deviceFactory: () => fake.device,
  });
}

test('a flood of reads: bounded polls, each caller answered by a poll that started after it asked', async () => {
  const fake = fakeDevice(15);
  const rt = runtime(fake, 50);
  rt.start();
  await rt.ready(1000);
  const first = fake.polls.length;
  const calls: Array<Promise<{ asked: number; done: number }>> = [];
  const t0 = performance.now();
  while (performance.now() - t0 < 300) {
    const asked = performance.now();
    calls.push(rt.read().then(() => ({ asked, done: performance.now() })));
    await sleep(3);
  }
  const results = await Promise.all(calls);
  const reads = fake.polls.slice(first);
  assert.ok(calls.length >= 50, `${calls.length} calls`);
  // One read per 50 ms at most (plus the one in flight at the end).
  assert.ok(reads.length <= Math.ceil(300 / 50) + 2, `${reads.length} polls for ${calls.length} calls`);
  for (const r of results) {
    assert.ok(
      reads.some((p) => p.start >= r.asked && p.end !== undefined && p.end <= r.done + 1),
      'answered by a fresh poll',
    );
  }
  // Starts at least the gap apart.
  for (let i = 1; i < reads.length; i++) assert.ok(reads[i].start - reads[i - 1].start >= 49, `gap ${reads[i].start - reads[i - 1].start}`);
  await rt.stop();
});

test('refresh: one invalidation per read, however many asked for it', async () => {
  const fake = fakeDevice(20);
  const rt = runtime(fake, 0);
  rt.start();
  await rt.ready(1000);
  await Promise.all(Array.from({ length: 10 }, () => rt.read(true)));
  assert.ok(fake.invalidations() <= 2, `${fake.invalidations()} invalidations`);
  assert.ok(fake.invalidations() >= 1);
  await rt.stop();
});

test('stop() ends a read waiting for its turn at once', async () => {
  const fake = fakeDevice(1);
  const rt = runtime(fake, 10_000);
  rt.start();
  await rt.ready(1000);
  await rt.read();
  const waiting = rt.read(); // must wait 10 s for its turn
  const t0 = performance.now();
  await rt.stop();
  await waiting;
  assert.ok(performance.now() - t0 < 500);
});

test('ready(): resolves at the first poll outcome, online or offline; bounded otherwise', async () => {
  const ok = runtime(fakeDevice(30), 0);
  assert.equal(ok.started, false);
  ok.start();
  await ok.ready(2000);
  assert.equal(ok.started, true);
  assert.equal(ok.online, true);
  await ok.stop();

  const bad = runtime(fakeDevice(1, true), 0, 2);
  const seen: boolean[] = [];
  bad.on('availability', (online) => seen.push(online));
  bad.start();
  await bad.ready(2000);
  assert.deepEqual(seen, [false]);
  assert.equal(bad.online, false);
  await bad.stop();

  const never = runtime(fakeDevice(1), 0); // not started
  const t0 = performance.now();
  await never.ready(50);
  assert.ok(performance.now() - t0 < 500);
  assert.equal(never.started, false);
});

test.run();
