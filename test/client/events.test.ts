import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NvrClient, type ClientOptions } from '../../core/client';
import { DeviceError } from '../../core/errors';
import { eventsOf, type DeviceEvent } from '../../core/events';
import { fakeDevice, type FakeDevice, type Handler } from './fake-device';

const PASSWORD = 'Ev3nts-pw';
const CHECK = '/API/Event/Check';

/** Event source of the fake device: subscribe, hold polls, keep-alives, invalidation. */
class Alarms {
  reader = 100;
  sequence = 0;
  queue: unknown[] = [];
  subscribes = 0;
  failNext?: string;
  private waiter?: () => void;
  private timers = new Set<NodeJS.Timeout>();

  constructor(private holdMs: number) {}

  raise(alarm_list: unknown): void {
    this.queue.push(alarm_list);
    this.waiter?.();
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.waiter?.();
  }

  handler: Handler = async (data) => {
    if (this.failNext) {
      const fail = this.failNext;
      this.failNext = undefined;
      return { fail };
    }
    const cursor = () => ({ reader_id: this.reader, sequence: ++this.sequence, lap_number: 0 });
    if (data.reader_id === undefined) {
      this.subscribes++;
      this.reader++;
      return { ...cursor(), alarm_list: [] };
    }
    if (data.reader_id !== this.reader) return { fail: 'readerID_invalid' };
    if (!this.queue.length) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, this.holdMs);
        this.timers.add(t);
        function done() {
          clearTimeout(t);
          resolve();
        }
        this.waiter = () => {
          this.timers.delete(t);
          done();
        };
      });
      this.waiter = undefined;
    }
    const next = this.queue.shift();
    return next === undefined ? { ...cursor(), alarm_list: [], heat_alarm: true } : { ...cursor(), alarm_list: next };
  };
}

const test = suite('events');

const open: Array<{ close(): Promise<void> }> = [];
async function setup(holdMs = 100, client: Partial<ClientOptions> = {}) {
  const alarms = new Alarms(holdMs);
  const dev = await fakeDevice({ password: PASSWORD, handlers: { [CHECK]: alarms.handler } });
  const c = new NvrClient({ url: dev.url, username: 'admin', password: PASSWORD, heartbeatMs: 0, timeoutMs: 2_000, ...client });
  open.push({ close: async () => alarms.stop() }, dev, c);
  return { dev, c, alarms };
}

test.after.each(async () => {
  while (open.length) await open.pop()!.close();
});

async function take(it: AsyncIterator<DeviceEvent>, n: number): Promise<DeviceEvent[]> {
  const out: DeviceEvent[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until `cond` holds (polling every 5 ms), failing after `ms`. */
async function until(cond: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await wait(5);
  }
}

test('subscribe, poll with the cursor, one event per alarm entry, keep-alives skipped', async () => {
  const { dev, c, alarms } = await setup(60);
  const ctl = new AbortController();
  const it = c.events({ signal: ctl.signal })[Symbol.asyncIterator]();
  const first = take(it, 3);
  await wait(150); // a couple of keep-alives first
  alarms.raise([{ channel: 'CH1', alarm_type: 'motion_alarm', status: true }, { channel: 'CH2', alarm_type: 'pir_alarm', status: true }]);
  await wait(20);
  alarms.raise([{ channel: 'CH1', alarm_type: 'motion_alarm', status: false }]);
  assert.equal(await first, [
    { channel: 'CH1', type: 'motion_alarm', state: true },
    { channel: 'CH2', type: 'pir_alarm', state: true },
    { channel: 'CH1', type: 'motion_alarm', state: false },
  ]);
  assert.is(alarms.subscribes, 1);
  assert.ok(dev.ok(CHECK) >= 3);
  ctl.abort();
  const end = await it.next();
  assert.ok(end.done, 'abort ends the iterator');
});

test('readerID_invalid: subscribe again and keep going', async () => {
  const { c, alarms } = await setup(50);
  const ctl = new AbortController();
  const it = c.events({ signal: ctl.signal })[Symbol.asyncIterator]();
  const got = take(it, 1);
  await until(() => alarms.subscribes === 1);
  alarms.failNext = 'readerID_invalid'; // the device forgot the reader (next poll)
  await until(() => alarms.subscribes === 2);
  alarms.raise([{ channel: 'IP_CH5', alarm_type: 'io_alarm', status: true }]);
  assert.equal(await got, [{ channel: 'IP_CH5', type: 'io_alarm', state: true }]);
  assert.is(alarms.subscribes, 2);
  ctl.abort();
  assert.ok((await it.next()).done);
});

test('transport error: backoff, subscribe again', async () => {
  const { dev, c, alarms } = await setup(50, { timeoutMs: 2_000 });
  const ctl = new AbortController();
  const it = c.events({ signal: ctl.signal })[Symbol.asyncIterator]();
  const got = take(it, 1);
  await until(() => alarms.subscribes === 1);
  dev.faults.set(CHECK, 'http500');
  await until(() => dev.count(CHECK, 500) === 1);
  dev.faults.delete(CHECK);
  await until(() => alarms.subscribes === 2); // after the 500 ms backoff
  alarms.raise([{ channel: 'CH1', alarm_type: 'motion_alarm', status: 1 }]);
  assert.equal(await got, [{ channel: 'CH1', type: 'motion_alarm', state: true }]);
  assert.ok(alarms.subscribes >= 2);
  assert.is(dev.count(CHECK, 500), 1, 'no tight retry loop');
  ctl.abort();
});

test('close ends the iterator cleanly while a poll is held', async () => {
  const { c } = await setup(5_000);
  const it = c.events()[Symbol.asyncIterator]();
  const pending = it.next();
  await wait(80);
  const t0 = Date.now();
  await c.close();
  const r = await pending;
  assert.ok(r.done);
  assert.ok(Date.now() - t0 < 2_000);
});

test('close during the backoff ends the iterator at once', async () => {
  const { dev, c } = await setup(50);
  await c.login();
  dev.faults.set(CHECK, 'http500');
  const it = c.events()[Symbol.asyncIterator]();
  const pending = it.next();
  await wait(80); // first poll failed, now in the 500 ms backoff
  const t0 = Date.now();
  await c.close();
  assert.ok((await pending).done);
  assert.ok(Date.now() - t0 < 200, `took ${Date.now() - t0} ms`);
});

test('abort during a held poll ends at once', async () => {
  const { c } = await setup(5_000, { timeoutMs: 10_000 });
  const ctl = new AbortController();
  const it = c.events({ signal: ctl.signal })[Symbol.asyncIterator]();
  const pending = it.next();
  await wait(80);
  const t0 = Date.now();
  ctl.abort();
  assert.ok((await pending).done);
  assert.ok(Date.now() - t0 < 500);
});

test('lock-out ends the iterator with the error', async () => {
  const alarms = new Alarms(50);
  const dev: FakeDevice = await fakeDevice({ password: PASSWORD, handlers: { [CHECK]: alarms.handler } });
  const c = new NvrClient({ url: dev.url, username: 'admin', password: 'wrong', heartbeatMs: 0 });
  open.push(dev, c);
  try {
    for await (const _ of c.events()) assert.unreachable();
    assert.unreachable();
  } catch (err) {
    assert.instance(err, DeviceError);
    assert.is((err as DeviceError).kind, 'lockout');
  }
  assert.is(dev.count('/API/Web/Login'), 2);
});

test('eventsOf: list form, per-channel map form, keep-alive', () => {
  assert.equal(eventsOf({ reader_id: 1, alarm_list: [], heat_alarm: true }), []);
  assert.equal(eventsOf({ alarm_list: [{ channel: 'CH1', alarm_type: 'heat_alarm', status: true }] }), []);
  assert.equal(eventsOf({ alarm_list: { CH1: { motion_alarm: true, pir_alarm: false } } }), [
    { channel: 'CH1', type: 'motion_alarm', state: true }, { channel: 'CH1', type: 'pir_alarm', state: false },
  ]);
  assert.equal(eventsOf({ reader_id: 1, sequence: 2, CH3: { io_alarm: 'true' } }), [{ channel: 'CH3', type: 'io_alarm', state: true }]);
  assert.equal(eventsOf(null), []);
});

test.run();
