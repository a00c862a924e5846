/** EventState with a fake event source: alarm edges, the clear timer, live values against polled ones, disk, keys. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import type { ChannelModel, DeviceEvent } from '../../core';
import { alarmKeys } from '../../bridge/event-sensors';
import { channelEventState, emptyEventValues, EventState, type EventChange, type EventValues } from '../../bridge/event-state';

const test = suite('bridge event state');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function harness(clearAfterMs = 60_000, keys: Record<string, string[]> = { CH1: ['motion', 'person'] }) {
  let values: EventValues = emptyEventValues(new Map(Object.entries(keys)) as EventValues['keys']);
  const polled: Record<string, Record<string, unknown>> = {};
  /** When the read behind `polled` started (DeviceModel.readAt). */
  const read = { at: -Infinity };
  const timeouts: EventChange[] = [];
  const state = new EventState({
    clearAfterMs,
    get: () => values,
    set: (v) => (values = v),
    onTimeout: (c) => timeouts.push(c),
  });
  // As channelState builds it: the polled keys, then the event keys.
  const view = (ch = 'CH1') => ({ ...polled[ch], ...channelEventState(values, ch, polled[ch] ?? {}, read.at) });
  /** A read that started at `at` (default: now) brought these polled values. */
  const poll = (ch: string, v: Record<string, unknown>, at = Date.now()) => {
    polled[ch] = v;
    read.at = at;
  };
  return { state, view, poll, timeouts, values: () => values };
}

const alarm = (type: string, active: boolean, extra: Partial<DeviceEvent> = {}): DeviceEvent =>
  ({ kind: 'alarm', channel: 'CH1', type, active, ...extra }) as DeviceEvent;

test('start sets the key and gives an edge; a repeated start changes nothing; the end clears it', () => {
  const h = harness();
  assert.deepEqual(h.view(), { motion: false, person: false }, 'every key the channel can raise, off');
  assert.deepEqual(h.state.apply(alarm('person', true, { time: '2026-11-23T15:00:00', subtype: 'pd' })), {
    channel: 'CH1', edge: { type: 'person', active: true, time: '2026-11-23T15:00:00' },
  });
  assert.deepEqual(h.view(), { motion: false, person: true });
  assert.equal(h.state.apply(alarm('person', true)), undefined, 'still active: no edge, no publish');
  assert.deepEqual(h.state.apply(alarm('person', false)), { channel: 'CH1', edge: { type: 'person', active: false } });
  assert.deepEqual(h.view(), { motion: false, person: false });
  assert.equal(h.state.apply(alarm('person', false)), undefined, 'an end without a start: nothing');
  h.state.close();
});

test('an alarm whose end never comes is cleared after clearAfterMs, with a timed_out edge', async () => {
  const h = harness(80);
  h.state.apply(alarm('motion', true));
  await sleep(40);
  h.state.apply(alarm('motion', true)); // the device repeats it: the timer starts again
  await sleep(60);
  assert.equal(h.view().motion, true, 'not cleared while the device keeps reporting it');
  await sleep(60);
  assert.deepEqual(h.timeouts, [{ channel: 'CH1', edge: { type: 'motion', active: false, timed_out: true } }]);
  assert.equal(h.view().motion, false);
  // An end that arrives later changes nothing.
  assert.equal(h.state.apply(alarm('motion', false)), undefined);
  h.state.close();
});

test('an ended alarm is not cleared again by its timer; close() stops every timer', async () => {
  const h = harness(30);
  h.state.apply(alarm('motion', true));
  h.state.apply(alarm('motion', false));
  h.state.apply(alarm('person', true));
  h.state.close();
  await sleep(60);
  assert.deepEqual(h.timeouts, []);
  assert.equal(h.view().person, true, 'values stay as they are');
});

test('a type the channel was not known to raise gets its key (and new entities)', () => {
  const h = harness();
  const change = h.state.apply(alarm('avd', true, { subtype: 'avd' }));
  assert.equal(change?.structure, true);
  assert.deepEqual(h.view(), { motion: false, person: false, avd: true });
  assert.equal(h.state.apply(alarm('avd', false))?.structure, undefined);
  h.state.close();
});

test('live values: written at once; a read that started after the event wins over them', async () => {
  const h = harness();
  h.poll('CH1', { floodlight: false, floodlight_brightness: 50 });
  await sleep(2);
  const t0 = Date.now();
  assert.deepEqual(h.state.apply({ kind: 'live', channel: 'CH1', floodlight: true, brightness: 80, volume: 3 }), { channel: 'CH1' });
  assert.equal(h.state.apply({ kind: 'live', channel: 'CH1', volume: 4 }), undefined, 'a member without a state key: nothing');
  assert.deepEqual(h.view(), { motion: false, person: false, floodlight: true, floodlight_brightness: 80 });
  // A poll that started before the event and ended after it: its values are older than the event's.
  h.poll('CH1', { floodlight: false, floodlight_brightness: 50 }, t0 - 1);
  assert.equal(h.view().floodlight, true);
  await sleep(2);
  // A read that started after the event (a poll, a command's read-back) is newer and wins.
  h.poll('CH1', { floodlight: true, floodlight_brightness: 100 });
  assert.equal(h.view().floodlight_brightness, 100);
  h.poll('CH1', { floodlight: false, floodlight_brightness: 100 });
  assert.equal(h.view().floodlight, false, 'switched off by a command: the read-back wins');
  await sleep(2);
  // The device switches it on by itself: the event says so at once, whatever the last poll said.
  assert.deepEqual(h.state.apply({ kind: 'live', channel: 'CH1', floodlight: true }), { channel: 'CH1' });
  assert.equal(h.view().floodlight, true);
  // A key without a table row (nothing polled): the event is its only source.
  h.state.apply({ kind: 'live', channel: 'CH1', siren: true });
  await sleep(2);
  h.poll('CH1', { floodlight: true });
  assert.equal(h.view().siren, true);
  h.state.apply({ kind: 'live', channel: 'CH1', siren: false });
  assert.equal(h.view().siren, false);
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

const model = (id: string, status: string, ai: string[] = [], abilities: string[] = []): ChannelModel => ({
  id: id as ChannelModel['id'], name: id, status, online: status === 'Online', configured: status !== 'NotConfigured',
  hardware: { floodlight: false, siren: false, redBlueLight: false, pir: abilities.includes('Pir'), alarmIn: 0, alarmOut: 0 }, ai, abilities,
});

test('alarm keys: what the channel can raise; none for an empty slot; an offline channel keeps its keys', () => {
  const models = [model('CH1', 'Online', ['PVD', 'LCD'], ['Pir']), model('CH2', 'Online'), model('IP_CH7', 'NotConfigured'), model('IP_CH6', 'Offline')];
  const keys = alarmKeys(['CH1', 'CH2', 'IP_CH7', 'IP_CH6'], models, 0, undefined, () => true);
  assert.deepEqual(keys.get('CH1'), ['motion', 'pir', 'video_loss', 'person', 'vehicle', 'line_crossing', 'tamper']);
  assert.deepEqual(keys.get('CH2'), ['motion', 'video_loss', 'tamper']);
  assert.deepEqual(keys.get('IP_CH7'), [], 'empty slot: no alarm entities');
  assert.deepEqual(keys.get('IP_CH6'), ['video_loss'], 'offline, never seen online: only video loss');
  const later = alarmKeys(['CH1'], [model('CH1', 'Offline', ['PVD', 'LCD'], ['Pir'])], 0, keys, () => false);
  assert.deepEqual(later.get('CH1'), keys.get('CH1'), 'offline now: keeps its entities');
  assert.deepEqual(alarmKeys(['CH2'], models, 4, undefined, () => true).get('CH2'), ['motion', 'io', 'video_loss', 'tamper'], 'recorder inputs: io');
  assert.deepEqual(alarmKeys(['CH1'], undefined, 0, undefined, () => true).get('CH1'), ['motion', 'video_loss', 'tamper'], 'no channel list');
});

test.run();
