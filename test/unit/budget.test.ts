/** The device's request budget (core/budget.ts): rate, priorities, bounded queue, on fake time. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RequestGate, type Priority } from '../../core/budget';
import type { DeviceError } from '../../core/errors';
import { withFakeTime } from '../helpers/fake-time';

const test = suite('request budget');

/** A gate and what happened to each request: when it left (ms), or that it was refused. */
function rig(slots: number, rate: number, queue: number) {
  const gate = new RequestGate(slots, { rate, queue });
  const left: Array<{ name: string; at: number }> = [];
  const refused: string[] = [];
  const ask = (name: string, priority: Priority, onWire = true) => {
    const go = () => {
      left.push({ name, at: Date.now() });
      if (!onWire) gate.leave();
    };
    if (gate.tryEnter()) return go();
    try {
      gate.wait(priority, go, (err: DeviceError) => refused.push(`${name}: ${err.error_code}`));
    } catch (err) {
      refused.push(`${name}: ${(err as DeviceError).error_code}`);
    }
  };
  return { gate, left, refused, ask };
}

test('at most `rate` requests a second leave (a burst of one second), the rest wait their turn', () =>
  withFakeTime(async (clock) => {
    const r = rig(2, 4, 100);
    for (let i = 0; i < 20; i++) r.ask(`p${i}`, 'poll', false);
    assert.is(r.left.length, 4, 'the burst');
    await clock.tickAsync(1000);
    assert.is(r.left.length, 8);
    await clock.tickAsync(4000);
    assert.is(r.left.length, 20);
    // After the burst, one every 1/rate: no second holds more than the burst and that second's rate.
    for (const { at } of r.left) assert.ok(r.left.filter((x) => x.at >= at && x.at < at + 1000).length <= 8);
    assert.equal(
      r.left.slice(4, 8).map((x) => x.at),
      [250, 500, 750, 1000],
    );
    r.gate.close();
  }));

test('waiting commands leave before waiting polls, polls before requests from outside', () =>
  withFakeTime(async (clock) => {
    const r = rig(1, 10, 100);
    r.ask('first', 'poll'); // holds the only connection
    r.ask('request', 'request');
    r.ask('poll', 'poll');
    r.ask('command', 'command');
    for (let i = 0; i < 3; i++) {
      r.gate.leave();
      await clock.tickAsync(200);
    }
    assert.equal(
      r.left.map((x) => x.name),
      ['first', 'command', 'poll', 'request'],
    );
    r.gate.close();
  }));

test('past the queue: requests from outside are refused (device_busy, never sent); commands and polls never, they take their place', () =>
  withFakeTime(async (clock) => {
    const r = rig(1, 1, 3);
    r.ask('on wire', 'poll');
    for (let i = 1; i <= 5; i++) r.ask(`r${i}`, 'request');
    assert.equal(r.refused, ['r4: device_busy', 'r5: device_busy']);
    r.ask('cmd', 'command');
    assert.equal(r.refused.at(-1), 'r3: device_busy');
    r.ask('poll', 'poll'); // nothing below a poll but requests: r2 goes
    assert.equal(r.refused.at(-1), 'r2: device_busy');
    r.ask('cmd2', 'command');
    assert.equal(r.refused.at(-1), 'r1: device_busy');
    // Full of the bridge's own: a command and a poll wait beyond the bound, a request from outside is refused.
    r.ask('cmd3', 'command');
    r.ask('poll2', 'poll');
    r.ask('r6', 'request');
    assert.equal(r.refused, [
      'r4: device_busy',
      'r5: device_busy',
      'r3: device_busy',
      'r2: device_busy',
      'r1: device_busy',
      'r6: device_busy',
    ]);
    for (let i = 0; i < 5; i++) {
      r.gate.leave();
      await clock.tickAsync(1000);
    }
    assert.equal(
      r.left.map((x) => x.name),
      ['on wire', 'cmd', 'cmd2', 'cmd3', 'poll', 'poll2'],
    );
    r.gate.close();
  }));

test.run();
