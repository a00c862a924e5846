import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyedQueue, SharedCalls } from '../../core/concurrency';
import { definePage } from '../../core/page';
import { findPage } from '../../core/pages';
import { buildSet, changedPaths, channelProblems, mergeChanges } from '../../core/update';
import { nearestField, validateAgainstRange } from '../../core/validate';

const test = suite('update (pure)');

const need = (name: string) => {
  const p = findPage(name);
  if (!p) throw new Error(`no page ${name}`);
  return p;
};

test('changedPaths: only what differs, nested member by member, arrays as a whole', () => {
  const current = { a: 1, o: { x: 1, y: [1, 2] }, channel_info: { CH1: { s: true, t: 300 } } };
  assert.equal(changedPaths(current, { a: 1, o: { x: 2, y: [1, 2] }, channel_info: { CH1: { s: true, t: 300, v: 3 } } }), {
    o: { x: 2 },
    channel_info: { CH1: { v: 3 } },
  });
  assert.equal(changedPaths(current, { o: { y: [2, 1] } }), { o: { y: [2, 1] } });
  assert.equal(changedPaths(current, { a: 1, skip: undefined }), {});
});

test('mergeChanges: a copy; inputs untouched', () => {
  const base = { a: { b: 1, c: 2 }, l: [1] };
  const merged = mergeChanges(base, { a: { b: 5 }, l: [2, 3] });
  assert.equal(merged, { a: { b: 5, c: 2 }, l: [2, 3] });
  assert.equal(base, { a: { b: 1, c: 2 }, l: [1] });
});

test("channelProblems: not a channel id, absent, a marker (with the device's words)", () => {
  const page = need('AlarmConfig/VoiceAlarm');
  const current = {
    channel_info: { CH1: { s: 1 }, CH2: { reason: 'Not configured' }, IP_CH1: { status: 'Offline', reason: 'Not support' } },
  };
  const problems = channelProblems(page, current, { channel_info: { ch1: {}, CH9: {}, CH2: { s: 2 }, IP_CH1: { s: 2 }, CH1: { s: 2 } } });
  assert.equal(
    problems.map((p) => [p.path, p.message]),
    [
      ['channel_info.ch1', 'is not a channel id (CH<n>, IP_CH<n>, WIFI_CH<n>)'],
      ['channel_info.CH9', 'is not a channel of this page on the device'],
      ['channel_info.CH2', 'has no settings here: the device answers "Not configured"'],
      ['channel_info.IP_CH1', 'has no settings here: the device answers Offline, "Not support"'],
    ],
  );
});

const range = {
  channel_info: {
    type: 'object',
    items: {
      CH1: { type: 'object', items: { a: { type: 'bool' }, b: { type: 'int32', min: 0, max: 9 }, ro: { type: 'bool', mode: 'r' } } },
    },
  },
  top: { type: 'bool' },
};
const current = {
  page_type: 'ChannelConfig',
  top: false,
  channel_info: { CH1: { a: false, b: 1, ro: true, ui: { x: 1 } }, CH2: { reason: 'Not configured' } },
};

test('buildSet per write rule: changed, block (Deterrence members), whole (markers dropped)', () => {
  const changed = definePage({ name: 'X/Changed', title: 'x', operations: {}, channelScoped: true, write: 'changed' });
  assert.equal(buildSet(changed, current, { channel_info: { CH1: { b: 5 } } }, range, []), { channel_info: { CH1: { b: 5 } } });

  const deterrence = need('AlarmConfig/Deterrence');
  assert.equal(buildSet(deterrence, current, { channel_info: { CH1: { b: 5 } } }, range, ['page_type', 'chn_index', 'page']), {
    channel_info: { CH1: { a: false, b: 5, chn_index: 'CH1', page: 'chn_floodlight' } },
    page_type: 'ChannelConfig',
  });

  const whole = definePage({ name: 'X/Whole', title: 'x', operations: {}, channelScoped: true, write: 'whole' });
  assert.equal(buildSet(whole, current, { top: true }, range, ['page_type']), {
    page_type: 'ChannelConfig',
    top: true,
    channel_info: { CH1: { a: false, b: 1 } },
  });
  // Without a Range (skipRangeCheck on a device without one) the merged block goes back as read.
  assert.equal(buildSet(deterrence, current, { channel_info: { CH1: { b: 5 } } }, undefined, []).channel_info, {
    CH1: { a: false, b: 5, ro: true, ui: { x: 1 }, chn_index: 'CH1', page: 'chn_floodlight' },
  });
});

test('definePage refuses an operation of another page', () => {
  const deterrence = need('AlarmConfig/Deterrence');
  assert.throws(
    () => definePage({ name: 'Other/Page', title: 'x', operations: deterrence.operations }),
    /operation Range is AlarmConfig\/Deterrence\/Range/,
  );
});

test('validator: unsupported field names the nearest Range field (did you mean)', () => {
  const r = {
    channel_info: {
      type: 'object',
      items: { CH1: { type: 'object', items: { siren_value: { type: 'int32' }, siren_time: { type: 'int32' } } } },
    },
  };
  const [v] = validateAgainstRange({ channel_info: { CH1: { siren_volume: 3 } } }, r);
  assert.is(v.message, 'is not a setting this device offers; did you mean siren_value?');
  const [far] = validateAgainstRange({ channel_info: { CH1: { brightness: 3 } } }, r);
  assert.is(far.message, 'is not a setting this device offers');
  assert.is(nearestField('sirentime', ['siren_time', 'siren_value']), 'siren_time');
  assert.is(nearestField('x', []), undefined);
});

test('validator: array items as one element descriptor; element shapes given as member maps', () => {
  const r = {
    list: { type: 'array', items: { type: 'string', items: ['CH1', 'CH2'] } },
    sched: {
      type: 'array',
      items: [{ kind: { type: 'string', items: ['Disarming'] }, bits: { type: 'array', items: [{ type: 'int32', items: [0, 1] }] } }],
    },
  };
  assert.equal(validateAgainstRange({ list: ['CH1', 'CH2'], sched: [{ kind: 'Disarming', bits: [0, 1] }] }, r), []);
  const vs = validateAgainstRange({ list: ['CH3'], sched: [{ kind: 'Other', bits: [2], extra: 1 }, 5] }, r);
  assert.equal(
    vs.map((x) => [x.path, x.problem]),
    [
      ['list.0', 'enum'],
      ['sched.0.kind', 'enum'],
      ['sched.0.bits.0', 'enum'],
      ['sched.0.extra', 'unsupported'],
      ['sched.1', 'type'],
    ],
  );
});

test('KeyedQueue: same key in order, a failure does not block the next; other keys run at once', async () => {
  const q = new KeyedQueue();
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const a = q.run('p', async () => {
    await gate;
    order.push('a');
    throw new Error('a failed');
  });
  const b = q.run('p', async () => {
    order.push('b');
    return 2;
  });
  const other = q.run('x', async () => {
    order.push('x');
    return 3;
  });
  assert.is(await other, 3);
  release();
  await a.then(
    () => assert.unreachable(),
    (e: Error) => assert.is(e.message, 'a failed'),
  );
  assert.is(await b, 2);
  assert.equal(order, ['x', 'a', 'b']);
});

test('SharedCalls: one send per key in flight, copies for joiners, a new send afterwards', async () => {
  const calls = new SharedCalls();
  let sent = 0;
  const send = async () => {
    sent++;
    return { n: sent };
  };
  const [x, y] = await Promise.all([calls.run('k', send), calls.run('k', send)]);
  assert.equal([x, y, sent], [{ n: 1 }, { n: 1 }, 1]);
  assert.ok(x !== y);
  assert.equal(await calls.run('k', send), { n: 2 });
});

test.run();
