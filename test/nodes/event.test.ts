/**
 * nvr-event filters (channels, alarm types, starts only) and the one event stream per device that
 * all nvr-event nodes of a config node share; a lost device reported once per failure streak.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { alarmEventOf, filterOf, passes } from '../../nodes/shared/alarm-event';
import {
  credentials,
  DEV,
  eventStreamFailures,
  flowWith,
  helper,
  load,
  newPassword,
  node,
  statusesOf,
  waitFor,
  useSimulator,
  type SimulatorContext,
} from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: nvr-event filters and the shared event stream', { password: newPassword() });
const EVENT_PATH = '/API/Event/Check';

useSimulator(test, { eventHoldMs: 2000 });

test('vendor alarm names become the alarm type keys; the filter reads version 1 nodes as "everything"', () => {
  const now = () => new Date('2026-01-02T03:04:05Z');
  assert.equal(alarmEventOf({ kind: 'alarm', channel: 'CH1', type: 'motion', active: true }, now), {
    channel: 'CH1',
    type: 'motion',
    active: true,
    time: '2026-01-02T03:04:05.000Z',
  });
  assert.equal(alarmEventOf({ kind: 'alarm', channel: 'CH1', type: 'person', active: false, time: '2026-01-02T03:04:06' }), {
    channel: 'CH1',
    type: 'person',
    active: false,
    time: '2026-01-02T03:04:06',
  });
  assert.is(alarmEventOf({ kind: 'live', channel: 'CH1', floodlight: true }), undefined, 'live state is not an alarm');
  assert.is(alarmEventOf({ kind: 'disk', ok: false, info: 'Bad' }), undefined, 'disk state is not an alarm');
  const all = filterOf({});
  assert.equal(all, { channels: [], types: [], startOnly: false, names: [], plates: [], lists: [], policies: [] });
  assert.ok(passes(all, { channel: 'IP_CH1', type: 'pir', active: false, time: '' }));
  const f = filterOf({ channels: 'ch1, IP_CH1', types: ['motion', 'person'], startOnly: true });
  assert.equal(f.channels, ['CH1', 'IP_CH1']);
  assert.ok(passes(f, { channel: 'IP_CH1', type: 'person', active: true, time: '' }));
  assert.not.ok(passes(f, { channel: 'IP_CH1', type: 'person', active: false, time: '' }), 'end of an alarm with start only');
  assert.not.ok(passes(f, { channel: 'CH2', type: 'motion', active: true, time: '' }), 'other channel');
  assert.not.ok(passes(f, { channel: 'CH1', type: 'pir', active: true, time: '' }), 'other type');
});

test('two nvr-event nodes on one device: one event stream; each passes what its filter keeps', async ({ sim, password }) => {
  await load(
    flowWith(sim!.url, [
      { id: 'all', type: 'nvr-event', name: '', device: DEV, wires: [['outAll']] },
      { id: 'ch1', type: 'nvr-event', name: '', device: DEV, channels: 'CH1', types: ['motion'], startOnly: true, wires: [['outCh1']] },
      { id: 'outAll', type: 'helper' },
      { id: 'outCh1', type: 'helper' },
    ]),
    credentials(password),
  );
  await waitFor(() => sim!.log.filter((e) => e.path === EVENT_PATH).length >= 2, 'subscribed and polling');
  const all: any[] = [];
  const ch1: any[] = [];
  node('outAll').on('input', (m: any) => all.push(m.payload));
  node('outCh1').on('input', (m: any) => ch1.push(m.payload));
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  sim!.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  sim!.raiseAlarm({ channel: 'CH1', type: 'pir', active: true });
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  await waitFor(() => all.length >= 5, 'five alarms on the unfiltered node');
  assert.equal(
    all.map((p) => `${p.channel} ${p.type} ${p.active}`),
    ['CH1 motion true', 'CH2 motion true', 'CH1 pir true', 'CH1 motion false', 'CH1 motion true'],
  );
  assert.equal(
    ch1.map((p) => `${p.channel} ${p.type} ${p.active}`),
    ['CH1 motion true', 'CH1 motion true'],
  );
  // One reader for both nodes: every Event/Check continues the same subscription.
  const subscribes = sim!.log.filter(
    (e) => e.path === EVENT_PATH && (e.data as { reader_id?: unknown } | undefined)?.reader_id === undefined,
  );
  assert.is(subscribes.length, 1, JSON.stringify(sim!.log.filter((e) => e.path === EVENT_PATH).map((e) => e.data)));
  // One long poll at a time, not one per node.
  const loginCount = sim!.log.filter((e) => e.path.includes('Login')).length;
  assert.ok(loginCount <= 2, `logins: ${loginCount}`);
});

test('a lost device: each nvr-event node reports once per failure streak (status and Catch), not every retry', async ({ sim }) => {
  await load(
    flowWith(sim!.url, [
      { id: 'e1', type: 'nvr-event', name: '', device: DEV, wires: [[]] },
      { id: 'e2', type: 'nvr-event', name: '', device: DEV, types: ['pir'], wires: [[]] },
      { id: 'catcher', type: 'catch', scope: ['e1', 'e2'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ]),
    credentials('not-the-password'),
  );
  const caught: any[] = [];
  node('caught').on('input', (m: any) => caught.push(m));
  await waitFor(() => caught.length >= 2, 'one Catch message per node');
  // The stream retries after 1 s and 2 s (documented backoff); nothing more reaches the Catch node.
  const retries = eventStreamFailures();
  await waitFor(() => retries() >= 2, 'two failed retries', 5000);
  assert.equal(caught.map((m) => m.error.source.id).sort(), ['e1', 'e2']);
  assert.is(caught[0].error.code, 'verify_failed');
  // The config node's own log lines reach the debug sidebar (level warn) once per streak, not per retry.
  const log = helper.log();
  const warnings = log.args.filter(([o]: any[]) => o.level === log.WARN && o.type === 'nvr-device');
  assert.is(warnings.length, 1, JSON.stringify(warnings.map(([o]: any[]) => o.msg)));
  for (const id of ['e1', 'e2']) assert.match(statusesOf(id).at(-1)?.text ?? '', /^wrong username or password; retry \d\d:\d\d:\d\d$/);
});

test('a device that stops answering the event poll: Catch once with the next try, one sidebar warning, not per retry', async ({
  sim,
  password,
}) => {
  await load(
    flowWith(sim!.url, [
      { id: 'e1', type: 'nvr-event', name: '', device: DEV, wires: [[]] },
      { id: 'catcher', type: 'catch', scope: ['e1'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ]),
    credentials(password),
  );
  await waitFor(() => sim!.log.some((e) => e.path === EVENT_PATH && e.status === 200), 'listening');
  const caught: any[] = [];
  node('caught').on('input', (m: any) => caught.push(m));
  const retries = eventStreamFailures();
  sim!.fault({ path: EVENT_PATH, kind: 'reset' }); // connections dropped: the device is lost
  try {
    // Core's stream tries again after 1 s, 2 s, 4 s: three failed tries.
    await waitFor(() => retries() >= 3, 'three failed tries', 12_000);
    assert.is(caught.length, 1, 'once per streak');
    assert.match(caught[0].error.message, /^Device unreachable: .*; listening again at \d{4}-\d\d-\d\dT/);
    assert.type(caught[0].payload.retry_at, 'string');
    assert.match(statusesOf('e1').at(-1)?.text ?? '', /; retry \d\d:\d\d:\d\d$/);
    const log = helper.log();
    const warnings = log.args.filter(([o]: any[]) => o.level === log.WARN && o.type === 'nvr-device');
    assert.is(warnings.length, 1, JSON.stringify(warnings.map(([o]: any[]) => o.msg)));
  } finally {
    sim!.clearFaults();
  }
  await waitFor(() => statusesOf('e1').at(-1)?.fill === 'green', 'back: the connection status again', 12_000);
});

test.run();
