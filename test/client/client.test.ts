import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { channelList } from '../../core/client';
import { crossCountingGet } from '../../core/pages/cross-counting';
import { deterrenceGet } from '../../core/pages/deterrence';
import { voiceAlarmGet, voiceAlarmSet } from '../../core/pages/voice-alarm';
import type { Handler } from './fake-device';
import { clientRig, rejection, VOICE_ALARM as VA, VOICE_RANGE } from './harness';

const PASSWORD = 'Cl1ent-pw';

function voiceHandlers(getAnswer: () => unknown): Record<string, Handler> {
  return {
    [`${VA}/Range`]: () => VOICE_RANGE,
    [`${VA}/Get`]: getAnswer,
    [`${VA}/Set`]: () => ({}),
  };
}

const test = suite('client');

const { setup, closeAll } = clientRig(PASSWORD);
test.after.each(closeAll);

const goodGet = () => ({
  channel_info: {
    CH1: { siren_switch: false, siren_time: 10, siren_value: 5, siren_type: 'Alarm1', siren_file_name: '', extra: 1 },
    CH2: { status: 'Offline', reason: 'Not support' },
  },
});

test('invoke: envelope unwrapped, answer validated, unknown fields kept', async () => {
  const { c } = await setup({ handlers: voiceHandlers(goodGet) });
  const data = await c.invoke(voiceAlarmGet);
  assert.equal(data.channel_info?.CH1, goodGet().channel_info.CH1);
  assert.equal(data.channel_info?.CH2, { status: 'Offline', reason: 'Not support' });
});

test('invoke: wrong answer shape names page, operation and path', async () => {
  const { c } = await setup({ handlers: voiceHandlers(() => ({ channel_info: { CH1: { siren_time: 'x' } } })) });
  const e = await rejection(c.invoke(voiceAlarmGet));
  assert.is(e.kind, 'invalid_answer');
  assert.is(e.message, 'AlarmConfig/VoiceAlarm/Get: invalid_answer (data.channel_info.CH1.siren_time: expected number, got "x")');
});

test('generic get of a typed page uses the registry schema', async () => {
  const { c } = await setup({ handlers: voiceHandlers(() => ({ channel_info: { CH1: { siren_time: 'x' } } })) });
  const e = await rejection(c.get('AlarmConfig/VoiceAlarm'));
  assert.is(e.kind, 'invalid_answer');
});

test('failed envelope: code, reason, status, channel errors; busy not retried', async () => {
  let calls = 0;
  const { c } = await setup({
    handlers: {
      '/API/Some/Page/Get': () => ({ fail: 'part_failed', ch_error_code: [{ error_code: 'no_support', channel: 'IP_CH1' }] }),
      '/API/Busy/Page/Get': () => (calls++, { fail: 'device_busy' }),
    },
  });
  const e = await rejection(c.get('Some/Page'));
  assert.is(e.error_code, 'part_failed');
  assert.is(e.status, 400);
  assert.is(e.page, 'Some/Page');
  assert.is(e.operation, 'Get');
  assert.equal(e.channel_errors, [{ channel: 'IP_CH1', error_code: 'no_support' }]);
  const busy = await rejection(c.get('Busy/Page'));
  assert.is(busy.kind, 'busy');
  assert.is(calls, 1);
  const missing = await rejection(c.get('No/Such'));
  assert.is(missing.kind, 'unsupported');
  assert.is(missing.error_code, 'not_found');
});

test('version envelope (cross counting Get) accepted where declared', async () => {
  const { dev, c } = await setup({
    handlers: {
      '/API/AlarmConfig/Intelligent/CC/Get': (data) => ({ raw: { version: '1.0', data: { page_type: data.page_type, channel_info: {} } } }),
      '/API/Other/Get': () => ({ raw: { version: '1.0', data: {} } }),
    },
  });
  const data = await c.invoke(crossCountingGet, { page_type: 'AlarmConfig' });
  assert.is(data.page_type, 'AlarmConfig');
  assert.ok(dev.ok('/API/AlarmConfig/Intelligent/CC/Get') === 1);
  const e = await rejection(c.get('Other'));
  assert.is(e.kind, 'invalid_answer');
  assert.equal(await c.call('/API/Other/Get'), {}, 'raw calls accept both envelopes');
});

test('request defaults from the schema are sent (deterrence page_type)', async () => {
  let seen: unknown;
  const { c } = await setup({ handlers: { '/API/AlarmConfig/Deterrence/Get': (d) => ((seen = d), { channel_info: {} }) } });
  await c.invoke(deterrenceGet);
  assert.equal(seen, { page_type: 'ChannelConfig' });
});

test('invalid request refused locally, nothing sent', async () => {
  const { dev, c } = await setup({ handlers: voiceHandlers(goodGet) });
  const e = await rejection(c.invoke(voiceAlarmSet, { channel_info: { BOGUS: { siren_time: 10 } } } as never));
  assert.is(e.kind, 'invalid_request');
  assert.is(dev.count(`${VA}/Set`), 0);
});

test('Set outside the Range: every violation listed, nothing sent', async () => {
  const { dev, c } = await setup({ handlers: voiceHandlers(goodGet) });
  const e = await rejection(
    c.set('AlarmConfig/VoiceAlarm', {
      channel_info: { CH1: { siren_time: 200, siren_value: 0, siren_type: 'Alarm9' } },
    }),
  );
  assert.is(e.kind, 'invalid_request');
  assert.is(e.error_code, 'out_of_range');
  assert.equal(e.violations.map((x) => x.path).sort(), [
    'channel_info.CH1.siren_time',
    'channel_info.CH1.siren_type',
    'channel_info.CH1.siren_value',
  ]);
  assert.match(e.message, 'channel_info.CH1.siren_time');
  assert.is(dev.count(`${VA}/Set`), 0);

  const typed = await rejection(c.invoke(voiceAlarmSet, { channel_info: { CH2: { siren_switch: true } } }));
  assert.is(typed.error_code, 'out_of_range', 'CH2 has no siren in the Range');
  assert.is(dev.count(`${VA}/Set`), 0);

  await c.set('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_time: 30, siren_type: 'Alarm2' } } });
  assert.is(dev.ok(`${VA}/Set`), 1);
  assert.is(dev.count(`${VA}/Range`), 1, 'Range fetched once and cached');

  await c.set('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_value: 3 } } }, { skipRangeCheck: false });
  assert.is(dev.count(`${VA}/Range`), 1);
  await c.cachedRange('AlarmConfig/VoiceAlarm', { refresh: true });
  assert.is(dev.count(`${VA}/Range`), 2);

  // skipRangeCheck sends unchecked (the device judges).
  await c.set('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_time: 999 } } }, { skipRangeCheck: true });
  assert.is(dev.ok(`${VA}/Set`), 3);
});

test('Range cache expires after rangeTtlMs; concurrent Sets share one Range fetch', async () => {
  const { dev, c } = await setup({ handlers: voiceHandlers(goodGet) }, { rangeTtlMs: 40 });
  await Promise.all(Array.from({ length: 5 }, () => c.set('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_time: 30 } } })));
  assert.is(dev.count(`${VA}/Range`), 1);
  await new Promise((r) => setTimeout(r, 60)); // a time: the client's 40 ms Range TTL is the behaviour under test
  await c.set('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_time: 30 } } });
  assert.is(dev.count(`${VA}/Range`), 2);
});

test('page without a Range: Set refused unless skipRangeCheck', async () => {
  const { dev, c } = await setup({ handlers: { '/API/Custom/Thing/Set': () => ({}) } });
  const e = await rejection(c.set('Custom/Thing', { a: 1 }));
  assert.is(e.kind, 'invalid_request');
  assert.is(e.error_code, 'range_unavailable');
  assert.match(e.reason, 'skipRangeCheck');
  assert.is(dev.count('/API/Custom/Thing/Set'), 0);
  await rejection(c.set('Custom/Thing', { a: 1 }));
  assert.is(dev.count('/API/Custom/Thing/Range'), 1, 'the missing Range is remembered');
  await c.set('Custom/Thing', { a: 1 }, { skipRangeCheck: true });
  assert.is(dev.ok('/API/Custom/Thing/Set'), 1);
});

test('systemInfo and channels (map and items forms)', async () => {
  let form = 0;
  const { c } = await setup({
    handlers: {
      '/API/Login/ChannelInfo/Get': () =>
        [
          { channel_info: { CH1: { connect_status: 'Online' }, IP_CH6: { connect_status: 'Offline' } } },
          {
            channel_info: {
              items: [
                { channel: 'CH1', connect_status: 'Online' },
                { channel: 'WIFI_CH8', connect_status: 'Offline' },
              ],
            },
          },
          { items: [{ channel: 'CH2', connect_status: 'Online' }] },
        ][form++],
    },
  });
  assert.is((await c.systemInfo()).software_version, 'V8.2.4-20230101');
  assert.equal(await c.channels(), [
    { channel: 'CH1', online: true },
    { channel: 'IP_CH6', online: false },
  ]);
  assert.equal(await c.channels(), [
    { channel: 'CH1', online: true },
    { channel: 'WIFI_CH8', online: false },
  ]);
  assert.equal(await c.channels(), [{ channel: 'CH2', online: true }]);
  assert.equal(channelList({ channel_info: { CH3: { reason: 'Not configured' }, CH4: {} } }), [
    { channel: 'CH3', online: false },
    { channel: 'CH4', online: true },
  ]);
});

test('upgradeToken: head and size derived, auth passed; oversized file refused before sending', async () => {
  let seen: Record<string, unknown> = {};
  const { dev, c } = await setup({
    handlers: { '/API/Maintenance/SystemUpgrade/Token': (d) => ((seen = d), { upgrade_token: 'tok', upgrade_timeout: 600 }) },
  });
  const file = Buffer.alloc(5000, 7);
  file[0] = 1;
  const r = await c.upgradeToken({ file, file_name: 'fw.sw', auth: { seq: 3, cipher: 'abc' } });
  assert.equal(r, { upgrade_token: 'tok', upgrade_timeout: 600 });
  assert.is(seen.file_name, 'fw.sw');
  assert.is(seen.file_size, 5000);
  assert.is((seen.upgrade_head as number[]).length, 3072);
  assert.is((seen.upgrade_head as number[])[0], 1);
  assert.equal(seen.base_secondary_authentication, { seq: 3, cipher: 'abc' });

  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-fw-'));
  try {
    const big = join(dir, 'big.sw');
    writeFileSync(big, '');
    truncateSync(big, (100 << 20) + 1); // sparse
    const before = dev.log.length;
    const e = await rejection(c.upgradeToken({ file: big }));
    assert.is(e.kind, 'invalid_request');
    assert.is(dev.log.length, before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reuse (pollers): an unchanged answer is the same frozen object; a changed or failed one is read anew', async () => {
  let answer: unknown = goodGet();
  const { c, dev } = await setup({ handlers: voiceHandlers(() => answer) });
  const first = await c.invoke(voiceAlarmGet, undefined, { reuse: true });
  const second = await c.invoke(voiceAlarmGet, undefined, { reuse: true });
  assert.ok(first === second, 'identical answer text: the previous object');
  assert.ok(Object.isFrozen(second.channel_info?.CH1), 'shared, so frozen to the leaves');
  assert.throws(() => ((second.channel_info!.CH1 as Record<string, unknown>).siren_time = 1));
  assert.is(dev.log.filter((l) => l.path === `${VA}/Get`).length, 2, 'still asked the device each time');

  const changed = goodGet();
  changed.channel_info.CH1.siren_time = 30;
  answer = changed;
  const third = await c.invoke(voiceAlarmGet, undefined, { reuse: true });
  assert.ok(third !== second);
  assert.is(third.channel_info?.CH1?.siren_time, 30);

  answer = { fail: 'busy' };
  assert.is((await rejection(c.invoke(voiceAlarmGet, undefined, { reuse: true }))).error_code, 'busy');
  answer = { channel_info: { CH1: { siren_time: 'x' } } };
  assert.is((await rejection(c.invoke(voiceAlarmGet, undefined, { reuse: true }))).kind, 'invalid_answer');
  answer = changed;
  const fourth = await c.invoke(voiceAlarmGet, undefined, { reuse: true });
  assert.is(fourth.channel_info?.CH1?.siren_time, 30, 'after failures the answer is read again, not a stale one');
});

test('reuse across devices: recorders giving the same answer share one frozen object; a different answer is its own', async () => {
  const a = await setup({ handlers: voiceHandlers(goodGet) });
  const b = await setup({ handlers: voiceHandlers(goodGet) });
  const other = goodGet();
  other.channel_info.CH1.siren_value = 2;
  const c = await setup({ handlers: voiceHandlers(() => other) });
  const [ga, gb, gc] = await Promise.all([a, b, c].map(({ c }) => c.invoke(voiceAlarmGet, undefined, { reuse: true })));
  assert.ok(ga === gb, 'same text from two recorders: one object');
  assert.ok(gc !== ga);
  assert.is(gc.channel_info?.CH1?.siren_value, 2);
  assert.is(ga.channel_info?.CH1?.siren_value, 5);
  // Ranges (the largest answers) too, and each device was still asked.
  const [ra, rb] = await Promise.all([a.c.cachedRange(VA), b.c.cachedRange(VA)]);
  assert.ok(ra === rb && Object.isFrozen(ra));
  for (const { dev } of [a, b]) assert.is(dev.log.filter((l) => l.path === `${VA}/Range`).length, 1);
  // A device whose answer then changes gets its own object; the other keeps the shared one.
  const changed = goodGet();
  changed.channel_info.CH1.siren_time = 45;
  const d = await setup({ handlers: voiceHandlers(() => changed) });
  const gd = await d.c.invoke(voiceAlarmGet, undefined, { reuse: true });
  assert.is(gd.channel_info?.CH1?.siren_time, 45);
  assert.ok((await b.c.invoke(voiceAlarmGet, undefined, { reuse: true })) === gb);
});

test('without reuse every read is a fresh object the caller may change (Node-RED flows do)', async () => {
  const { c } = await setup({ handlers: voiceHandlers(goodGet) });
  await c.invoke(voiceAlarmGet, undefined, { reuse: true });
  const mine = await c.invoke(voiceAlarmGet);
  const again = await c.invoke(voiceAlarmGet);
  assert.ok(mine !== again);
  assert.not.ok(Object.isFrozen(mine));
  (mine.channel_info!.CH1 as Record<string, unknown>).siren_time = 99;
  assert.is((await c.invoke(voiceAlarmGet, undefined, { reuse: true })).channel_info?.CH1?.siren_time, 10);
});

test('state events: idle -> connecting -> connected -> error -> connected -> closed', async () => {
  const { dev, c } = await setup({}, { timeoutMs: 150 });
  const states: string[] = [];
  c.on('state', (s: string) => states.push(s));
  await c.systemInfo();
  dev.faults.set('/API/SystemInfo/Base/Get', 'hang');
  await rejection(c.systemInfo());
  dev.faults.clear();
  await c.systemInfo();
  await c.close();
  assert.equal(states, ['connecting', 'connected', 'error', 'connected', 'closed']);
  assert.is(c.lastError?.error_code, 'timeout');
});

test.run();
