/** DeviceRuntime with a fake device on fake time: reads asked for from outside are coalesced and paced; first-poll wait; start gate. */
import * as assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { suite } from 'uvu';
import { parseConfig } from '../../bridge/base/config';
import type { Device } from '../../bridge/device/device';
import { createLogger } from '../../bridge/base/log';
import { DeviceRuntime } from '../../bridge/device/runtime';
import { StartGate } from '../../bridge/device/start-gate';
import { runOut, withFakeTime } from '../helpers/fake-time';

const test = suite('bridge runtime');
const quiet = createLogger({ sink: () => undefined });
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
      const p: { start: number; end?: number } = { start: Date.now() };
      polls.push(p);
      await delay(ms);
      p.end = Date.now();
      if (fail) throw new Error('connection refused');
    },
    invalidate() {
      invalidations++;
    },
    readAllSettings() {},
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

test('a flood of reads (one every 30 ms for 3 s): one poll per second, each caller answered by a poll that started after it asked', () =>
  withFakeTime(async (clock) => {
    const fake = fakeDevice(150);
    const rt = runtime(fake, 1000);
    rt.start();
    await clock.tickAsync(150); // the first poll
    assert.equal(rt.online, true);
    const calls: Array<Promise<{ asked: number; done: number }>> = [];
    for (let i = 0; i < 100; i++) {
      const asked = Date.now();
      calls.push(rt.read().then(() => ({ asked, done: Date.now() })));
      await clock.tickAsync(30);
    }
    await clock.tickAsync(2_000);
    const results = await Promise.all(calls);
    const reads = fake.polls.slice(1);
    // The first read starts at once; every later one a full gap after the previous start.
    assert.deepEqual(
      reads.map((p) => p.start),
      [150, 1150, 2150, 3150],
      '100 requests, 4 device reads',
    );
    for (const r of results) {
      assert.ok(
        reads.some((p) => p.start >= r.asked && p.end !== undefined && p.end <= r.done),
        `asked at ${r.asked}, answered at ${r.done}: by a fresh poll`,
      );
    }
    await runOut(clock, rt.stop());
  }));

test('refresh: one invalidation per read, however many asked for it', () =>
  withFakeTime(async (clock) => {
    const fake = fakeDevice(20);
    const rt = runtime(fake, 0);
    rt.start();
    await clock.tickAsync(20);
    const asked = Promise.all(Array.from({ length: 10 }, () => rt.read(true)));
    await clock.tickAsync(100);
    await asked;
    assert.equal(fake.invalidations(), 1);
    assert.equal(fake.polls.length, 2, 'ten refreshes asked at once: one read');
    await runOut(clock, rt.stop());
  }));

test('stop() ends a read waiting for its turn at once', () =>
  withFakeTime(async (clock) => {
    const fake = fakeDevice(1);
    const rt = runtime(fake, 10_000);
    rt.start();
    await clock.tickAsync(1);
    const first = rt.read();
    await clock.tickAsync(1);
    await first;
    const waiting = rt.read(); // must wait 10 s for its turn
    await clock.tickAsync(100);
    await rt.stop();
    await waiting;
    assert.equal(Date.now(), 102, 'no wait for its turn');
    assert.equal(fake.polls.length, 2, 'and no read after stop');
  }));

test('ready(): resolves at the first poll outcome, online or offline; bounded otherwise', () =>
  withFakeTime(async (clock) => {
    const ok = runtime(fakeDevice(30), 0);
    assert.equal(ok.started, false);
    ok.start();
    const okReady = ok.ready(2000);
    await clock.tickAsync(30);
    await okReady;
    assert.equal(Date.now(), 30, 'at the first answer');
    assert.equal(ok.started, true);
    assert.equal(ok.online, true);
    await runOut(clock, ok.stop());

    const bad = runtime(fakeDevice(1, true), 0, 2);
    const seen: boolean[] = [];
    bad.on('availability', (online) => seen.push(online));
    const t0 = Date.now();
    bad.start();
    const badReady = bad.ready(2000);
    await clock.tickAsync(100);
    await badReady;
    assert.deepEqual(seen, [false], 'offline after its second failed poll');
    assert.ok(Date.now() - t0 < 2000);
    assert.equal(bad.online, false);
    await runOut(clock, bad.stop());

    const never = runtime(fakeDevice(1), 0); // not started
    const t1 = Date.now();
    const neverReady = never.ready(15_000);
    await clock.tickAsync(14_999);
    let settled = false;
    void neverReady.then(() => (settled = true));
    await clock.tickAsync(0);
    assert.equal(settled, false, 'still waiting at 14.999 s');
    await clock.tickAsync(1);
    await neverReady;
    assert.equal(Date.now() - t1, 15_000);
    assert.equal(never.started, false);
  }));

test('start gate: 10 devices, 3 slots: at most 3 first polls at once, every device polled, no missed poll for the wait', () =>
  withFakeTime(async (clock) => {
    const gate = new StartGate(3);
    const fakes = Array.from({ length: 10 }, (_, i) => fakeDevice(100, i === 4)); // one device refuses: it frees its slot too
    const rts = fakes.map(
      (fake) =>
        new DeviceRuntime(
          { ...cfg, poll_interval: 150 },
          { log: quiet, offlineAfter: 1, minBackoffMs: 60_000, maxBackoffMs: 60_000, deviceFactory: () => fake.device, startGate: gate },
        ),
    );
    rts.forEach((rt) => rt.start());
    let most = 0;
    for (let t = 0; t < 500; t += 10) {
      await clock.tickAsync(10);
      const busy = fakes.filter((f) => f.polls.length === 1 && f.polls[0].end === undefined).length; // first polls only

      most = Math.max(most, busy);
    }
    assert.equal(most, 3, 'never more than 3 first polls at once');
    assert.ok(
      fakes.every((f) => f.polls.length >= 1),
      'every device had its first poll',
    );
    // The last devices waited 300 ms at the gate (2 poll intervals): that wait is no missed poll.
    assert.deepEqual(
      rts.map((rt) => rt.poller.stats.missed),
      rts.map(() => 0),
    );
    await runOut(clock, Promise.all(rts.map((rt) => rt.stop())));
  }));

test.run();
