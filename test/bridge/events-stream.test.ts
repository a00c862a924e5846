/** DeviceEvents with a fake client: events applied and reported, restart after a failure, end without Event/Check. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { DeviceError, type DeviceEvent } from '../../core';
import type { Device } from '../../bridge/device/device';
import { emptyEventValues, type EventChange } from '../../bridge/device/event-state';
import { DeviceEvents } from '../../bridge/device/events';
import { createLogger } from '../../bridge/base/log';
import { emptyFacts } from '../../bridge/device/state';
import { withFakeTime } from '../helpers/fake-time';

const test = suite('bridge event stream');

/** A device whose event streams are scripted: each call of `client.events()` plays the next script. */
function fakeDevice(scripts: Array<(signal: AbortSignal) => AsyncGenerator<DeviceEvent>>) {
  let calls = 0;
  const live: Array<[string, unknown]> = [];
  let liveEveryPoll = false;
  const device = {
    reportedLive: async (ch: string, change: unknown) => void live.push([ch, change]),
    readLiveEveryPoll: () => (liveEveryPoll = true),
    facts: {
      ...emptyFacts(),
      events: emptyEventValues(
        new Map([
          ['CH1', ['motion', 'person']],
          ['CH2', ['motion']],
        ]),
      ),
    },
    channels: () => ['CH1', 'CH2'],
    client: {
      events: (o: { signal: AbortSignal }) => {
        const script = scripts[Math.min(calls++, scripts.length - 1)];
        return script(o.signal);
      },
    },
  };
  return { device: device as unknown as Device, calls: () => calls, live, liveEveryPoll: () => liveEveryPoll };
}

function harness(scripts: Array<(signal: AbortSignal) => AsyncGenerator<DeviceEvent>>, retryMs = 20) {
  const fake = fakeDevice(scripts);
  const changes: EventChange[] = [];
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', sink: (level, line) => lines.push(`${level} ${line}`) });
  const events = new DeviceEvents(fake.device, { intervalMs: 1000, clearAfterMs: 60_000, log, retryMs, onChange: (c) => changes.push(c) });
  return { ...fake, events, changes, lines };
}

/** Yields the events, then stays open until aborted (a stream with nothing more to say). */
const play = (...events: DeviceEvent[]) =>
  async function* (signal: AbortSignal) {
    for (const e of events) yield e;
    await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
  };

test('events are applied to the model and reported at once; a channel left out by the config is ignored', () =>
  withFakeTime(async (clock) => {
    const h = harness([
      play(
        { kind: 'alarm', channel: 'CH1', type: 'person', active: true, time: '2026-11-23T15:00:00' },
        { kind: 'alarm', channel: 'CH9', type: 'motion', active: true },
        { kind: 'disk', ok: false, info: 'Full' },
        { kind: 'live', channel: 'CH2', floodlight: true, brightness: 70 },
      ),
    ]);
    h.events.start();
    h.events.start(); // once only
    await clock.tickAsync(0); // no time passes: applied as they come
    assert.deepEqual(h.changes, [{ channel: 'CH1', edge: { type: 'person', active: true, time: '2026-11-23T15:00:00' } }, {}]);
    assert.ok(h.device.facts.events!.active.get('CH1')!.has('person'));
    assert.equal(h.device.facts.events!.active.get('CH9'), undefined);
    assert.equal(h.device.facts.events!.diskProblem, true);
    // Live state has one home, the device's live page model: the event goes to reportedLive, not into event values.
    assert.deepEqual(h.live, [['CH2', { floodlight: true, brightness: 70, siren: undefined, volume: undefined }]]);
    assert.equal(h.changes.length, 2, "a live event is published by the device's own update, not as an event change");
    assert.equal(h.calls(), 1);
    await h.events.stop();
  }));

test('a stream that fails starts again after retryMs; one without Event/Check ends with one line', () =>
  withFakeTime(async (clock) => {
    const h = harness(
      [
        // eslint-disable-next-line require-yield
        async function* () {
          throw new DeviceError({ kind: 'lockout', error_code: 'login_failed_or_block', reason: 'blocked' });
        },
        // eslint-disable-next-line require-yield
        async function* () {
          throw new DeviceError({ kind: 'unsupported', error_code: 'not_found', reason: 'no such page' });
        },
      ],
      30_000,
    );
    h.events.start();
    await clock.tickAsync(29_999);
    assert.equal(h.calls(), 1, 'locked out: no second try before retryMs');
    await clock.tickAsync(1);
    assert.equal(h.calls(), 2, 'started again after the lock-out, at retryMs');
    await clock.tickAsync(3_600_000);
    assert.equal(h.calls(), 2, 'no Event/Check: not tried again (an hour later)');
    assert.equal(h.lines.filter((l) => /starting again in 30 s/.test(l)).length, 1);
    assert.equal(h.lines.filter((l) => /has no event check/.test(l)).length, 1);
    assert.equal(h.liveEveryPoll(), true, 'no events: the live pages are read on every poll again');
    await h.events.stop();
  }));

test('stop() ends a stream waiting for events, and a retry wait, at once', () =>
  withFakeTime(async (clock) => {
    const h = harness([play()]);
    h.events.start();
    await clock.tickAsync(0);
    assert.equal(h.calls(), 1, 'stream started');
    await h.events.stop();
    assert.equal(Date.now(), 0, 'stopped without waiting');
    const failing = harness(
      [
        // eslint-disable-next-line require-yield
        async function* () {
          throw new Error('socket hang up');
        },
      ],
      60_000,
    );
    failing.events.start();
    await clock.tickAsync(10);
    assert.ok(
      failing.lines.some((l) => /starting again in 60 s/.test(l)),
      'waiting to retry',
    );
    await failing.events.stop();
    assert.equal(Date.now(), 10, 'the retry wait ended at once');
    await clock.tickAsync(120_000);
    assert.equal(failing.calls(), 1, 'and no retry after stop');
  }));

test.run();
