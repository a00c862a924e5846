/** EventState with a fake event source: alarm edges, the clear timer, disk, keys (live events: Device.applyLive, events.test.ts). */
import * as assert from 'node:assert/strict';
import { alarmTypesOf, type AlarmType } from '../../core/alarm-types';
import { suite } from 'uvu';
import type { ChannelSlot, DeviceEvent } from '../../core';
import { alarmKeys } from '../../bridge/device/event-sensors';
import { withFakeTime } from '../helpers/fake-time';
import { channelEventState, emptyEventValues, EventState, type EventChange, type EventValues } from '../../bridge/device/event-state';

const test = suite('bridge event state');

function harness(clearAfterMs = 60_000, keys: Record<string, string[]> = { CH1: ['motion', 'person'] }) {
  let values: EventValues = emptyEventValues(new Map(Object.entries(keys)) as EventValues['keys']);
  const timeouts: EventChange[] = [];
  const state = new EventState({
    clearAfterMs,
    get: () => values,
    set: (v) => (values = v),
    onTimeout: (c) => timeouts.push(c),
  });
  const view = (ch = 'CH1') => channelEventState(values, ch);
  return { state, view, timeouts, values: () => values };
}

type AlarmEvent = Extract<DeviceEvent, { kind: 'alarm' }>;
const alarm = (type: string, active: boolean, extra: Partial<AlarmEvent> = {}): AlarmEvent =>
  ({ kind: 'alarm', channel: 'CH1', type, active, ...extra }) as AlarmEvent;

test('start sets the key and gives an edge; a repeated start changes nothing; the end clears it', () => {
  const h = harness();
  assert.deepEqual(h.view(), { motion: false, person: false }, 'every key the channel can raise, off');
  assert.deepEqual(h.state.apply(alarm('person', true, { time: '2026-11-23T15:00:00', subtype: 'pd' })), {
    channel: 'CH1',
    edge: { type: 'person', active: true, time: '2026-11-23T15:00:00' },
  });
  assert.deepEqual(h.view(), { motion: false, person: true });
  assert.equal(h.state.apply(alarm('person', true)), undefined, 'still active: no edge, no publish');
  assert.deepEqual(h.state.apply(alarm('person', false)), { channel: 'CH1', edge: { type: 'person', active: false } });
  assert.deepEqual(h.view(), { motion: false, person: false });
  assert.equal(h.state.apply(alarm('person', false)), undefined, 'an end without a start: nothing');
  h.state.close();
});

test('an alarm whose end never comes is cleared clearAfterMs after its last report, with a timed_out edge', () =>
  withFakeTime(async (clock) => {
    const h = harness(80);
    h.state.apply(alarm('motion', true));
    await clock.tickAsync(40);
    h.state.apply(alarm('motion', true)); // the device repeats it: the timer starts again
    await clock.tickAsync(79);
    assert.equal(h.view().motion, true, 'not cleared while the device keeps reporting it (79 ms after the repeat)');
    assert.deepEqual(h.timeouts, []);
    await clock.tickAsync(1);
    assert.deepEqual(h.timeouts, [{ channel: 'CH1', edge: { type: 'motion', active: false, timed_out: true } }]);
    assert.equal(h.view().motion, false);
    assert.equal(Date.now(), 120, 'cleared 80 ms after the last report');
    // An end that arrives later changes nothing.
    assert.equal(h.state.apply(alarm('motion', false)), undefined);
    h.state.close();
  }));

test('an ended alarm is not cleared again by its timer; close() stops every timer', () =>
  withFakeTime(async (clock) => {
    const h = harness(30);
    h.state.apply(alarm('motion', true));
    h.state.apply(alarm('motion', false));
    h.state.apply(alarm('person', true));
    h.state.close();
    assert.equal(clock.countTimers(), 0, 'no timer left behind');
    await clock.tickAsync(60);
    assert.deepEqual(h.timeouts, []);
    assert.equal(h.view().person, true, 'values stay as they are');
  }));

test('a type the channel was not known to raise gets its key (and new entities)', () => {
  const h = harness();
  const change = h.state.apply(alarm('avd', true, { subtype: 'avd' }));
  assert.equal(change?.structure, true);
  assert.deepEqual(h.view(), { motion: false, person: false, avd: true });
  assert.equal(h.state.apply(alarm('avd', false))?.structure, undefined);
  h.state.close();
});

test('disk: problem on an error, cleared on Ok; an unchanged disk state changes nothing', () => {
  const h = harness();
  assert.equal(h.values().diskProblem, false);
  assert.deepEqual(h.state.apply({ kind: 'disk', ok: false, info: 'NoDisk' }), {});
  assert.equal(h.values().diskProblem, true);
  assert.equal(h.state.apply({ kind: 'disk', ok: false, info: 'NoDisk' }), undefined);
  h.state.apply({ kind: 'disk', ok: true });
  assert.equal(h.values().diskProblem, false);
});

const model = (id: string, status: string, ai: string[] = [], abilities: string[] = []): ChannelSlot => ({
  id: id as ChannelSlot['id'],
  name: id,
  status,
  online: status === 'Online',
  configured: status !== 'NotConfigured',
  hardware: { floodlight: false, siren: false, redBlueLight: false, pir: abilities.includes('Pir'), alarmIn: 0, alarmOut: 0 },
  ai,
  abilities,
});

test('alarm keys: what the channel can raise; none for an empty slot; an offline channel keeps its keys', () => {
  const models = [
    model('CH1', 'Online', ['PVD', 'LCD'], ['Pir']),
    model('CH2', 'Online'),
    model('IP_CH7', 'NotConfigured'),
    model('IP_CH6', 'Offline'),
  ];
  const keys = alarmKeys(['CH1', 'CH2', 'IP_CH7', 'IP_CH6'], models, 0, undefined, () => true);
  // What a channel can raise is core's table (ALARM_TYPES, its own guard test in client/events.test.ts).
  assert.deepEqual(keys.get('CH1'), alarmTypesOf(models[0]));
  assert.ok(
    ['pir', 'person', 'line_crossing'].every((k) => keys.get('CH1')!.includes(k as AlarmType)),
    'its abilities count',
  );
  assert.deepEqual(keys.get('CH2'), alarmTypesOf(models[1]));
  assert.deepEqual(keys.get('IP_CH7'), [], 'empty slot: no alarm entities');
  assert.deepEqual(keys.get('IP_CH6'), ['video_loss'], 'offline, never seen online: only video loss');
  const later = alarmKeys(['CH1'], [model('CH1', 'Offline', ['PVD', 'LCD'], ['Pir'])], 0, keys, () => false);
  assert.deepEqual(later.get('CH1'), keys.get('CH1'), 'offline now: keeps its entities');
  assert.deepEqual(alarmKeys(['CH2'], models, 4, undefined, () => true).get('CH2'), alarmTypesOf(models[1], 4), 'recorder inputs: io');
  assert.deepEqual(alarmKeys(['CH1'], undefined, 0, undefined, () => true).get('CH1'), alarmTypesOf({ online: true }), 'no channel list');
});

test.run();
