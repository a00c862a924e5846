/**
 * Contract: the device quirks that differ between firmwares or that the schemas must tolerate, and the generic
 * `range/get/set/call` API for pages given as strings.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  crossCountingGet,
  developerModeGet,
  developerModeSet,
  ptzLinkageGet,
  ptzLinkageRange,
  ptzLinkageSet,
  shellSwitchKey,
  voiceAlarmGet,
  voiceAlarmRange,
} from '../../core/pages';
import { ptzIndexToHex, ptzPresetIndices } from '../../core/ptz';
import { boundsOf, descriptorAt } from '../../core/range';
import { entries, obj, rejection, withRig, type Obj } from './harness';

const test = suite('contract: quirks');

test('linkage_ptz_point_index: int form (8.2.3) and hex form (8.2.4) normalise to the same preset set', async () => {
  const seen: Record<string, number[]> = {};
  for (const firmware of ['8.2.3', '8.2.4']) {
    await withRig({ firmware }, {}, async ({ sim, client }) => {
      if (firmware === '8.2.3') {
        // Old form: the index travels as an int.
        await client.invoke(ptzLinkageSet, { ptz_info: [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: 3 }] });
      } else {
        // New form: the device reports the 256-bit little-endian preset set as 64 hex digits.
        (sim.state['AlarmConfig/PTZLinkage'] as Obj).ptz_info = [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: ptzIndexToHex([3]) }];
      }
      const g = await client.invoke(ptzLinkageGet);
      const raw = g.ptz_info![0].linkage_ptz_point_index!;
      assert.type(raw, firmware === '8.2.3' ? 'number' : 'string');
      seen[firmware] = ptzPresetIndices(raw);
    });
  }
  assert.equal(seen['8.2.3'], [3]);
  assert.equal(seen['8.2.4'], seen['8.2.3']);
  // Hex digits read little-endian: first byte first, bit 0 = None.
  assert.equal(ptzPresetIndices('0f' + '0'.repeat(62)), [0, 1, 2, 3]);
  assert.equal(ptzPresetIndices('0'.repeat(62) + '80'), [255]);
});

test('linkage_ptz_point_index: a preset outside the 8.2.4 preset set is refused locally, nothing sent', () =>
  withRig({ firmware: '8.2.4' }, {}, async ({ sim, client }) => {
    const range = await client.invoke(ptzLinkageRange);
    assert.equal(boundsOf(descriptorAt(range, ['ptz_info', '0', 'linkage_ptz_point_index'])!).options, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const err = await rejection(client.set('AlarmConfig/PTZLinkage', { ptz_info: [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: 9 }] }));
    assert.is(err.kind, 'invalid_request');
    assert.equal(
      err.violations.map((x) => [x.path, x.problem]),
      [['ptz_info.0.linkage_ptz_point_index', 'enum']],
    );
    assert.is(entries(sim, '/API/AlarmConfig/PTZLinkage/Set').length, 0);
  }));

test('telnet_switch on 8.2.3, ssh_switch later: the other key is refused locally as unsupported', async () => {
  for (const [firmware, has, lacks] of [
    ['8.2.3', 'telnet_switch', 'ssh_switch'],
    ['8.2.4', 'ssh_switch', 'telnet_switch'],
  ] as const) {
    await withRig({ firmware }, {}, async ({ sim, client }) => {
      const g = await client.invoke(developerModeGet);
      assert.is(shellSwitchKey(g), has);
      const err = await rejection(client.invoke(developerModeSet, { [lacks]: true }));
      assert.is(err.kind, 'invalid_request');
      assert.equal(
        err.violations.map((x) => [x.path, x.problem]),
        [[lacks, 'unsupported']],
      );
      assert.is(entries(sim, '/API/Maintenance/DeveloperMode/Set').length, 0, 'nothing sent');
      // The device agrees: sent anyway, it refuses the key.
      const sent = await rejection(client.invoke(developerModeSet, { [lacks]: true }, { skipRangeCheck: true }));
      assert.equal([sent.kind, sent.error_code], ['rejected', 'param_error']);
      assert.match(sent.reason, new RegExp(`${lacks}: unsupported field`));
      await client.invoke(developerModeSet, { [has]: true });
      assert.is((await client.invoke(developerModeGet))[has], true);
    });
  }
});

test('unknown extra fields are kept in the output, at every level and through the version envelope', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const va = sim.state['AlarmConfig/VoiceAlarm'] as Obj & { channel_info: Record<string, Obj> };
    va.future_top = { nested: [1, 'two'] };
    va.channel_info.CH1.siren_led = 'blue';
    va.channel_info.CH1.siren_extra = { level: 3 };
    const g = await client.invoke(voiceAlarmGet);
    assert.equal(g.future_top, { nested: [1, 'two'] });
    const ch1 = obj(g.channel_info!.CH1, 'CH1');
    assert.equal([ch1.siren_led, ch1.siren_extra, ch1.siren_time], ['blue', { level: 3 }, 10]);

    const cc = sim.state['AlarmConfig/Intelligent/CC'] as Obj & { channel_info: Record<string, Obj> };
    cc.channel_info.CH1.buzzer_pattern = 'long';
    const c = await client.invoke(crossCountingGet, {});
    assert.is(obj(c.channel_info!.CH1, 'CH1').buzzer_pattern, 'long');

    // Markers keep their extras too.
    const r = await client.invoke(voiceAlarmRange);
    assert.is(r.channel_max, 8);
    assert.equal(obj(g.channel_info!.CH4, 'CH4'), { reason: 'Not support' });
  }));

test('generic range/get/set/call take a page string in any spelling', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const r = await client.range('AlarmConfig/VoiceAlarm');
    assert.equal(r, await client.invoke(voiceAlarmRange));
    const d = await client.get('/API/AlarmConfig/Deterrence/', { page_type: 'ChannelConfig' });
    assert.equal(obj(obj(d.channel_info, 'channel_info').CH3, 'CH3'), { reason: 'Not support' }); // no floodlight
    assert.equal(obj(obj(d.channel_info, 'channel_info').IP_CH3, 'IP_CH3'), { reason: 'Not configured' }); // empty slot
    assert.is(entries(sim, '/API/AlarmConfig/Deterrence/Get').length, 1);

    await client.set('AlarmConfig/VoiceAlarm', { channel_info: { CH2: { siren_value: 8 } } });
    const after = await client.get('API/AlarmConfig/VoiceAlarm');
    assert.is(obj(obj(after.channel_info, 'channel_info').CH2, 'CH2').siren_value, 8);

    // set() checks the Range like invoke() does.
    const err = await rejection(client.set('AlarmConfig/VoiceAlarm', { channel_info: { CH2: { siren_value: 11 } } }));
    assert.equal([err.kind, err.error_code, err.page, err.operation], ['invalid_request', 'out_of_range', 'AlarmConfig/VoiceAlarm', 'Set']);
    assert.equal(
      err.violations.map((x) => x.path),
      ['channel_info.CH2.siren_value'],
    );
    assert.is(entries(sim, '/API/AlarmConfig/VoiceAlarm/Set').length, 1, 'only the valid Set reached the device');

    // Raw call: any envelope, data unvalidated.
    const raw = obj(await client.call('/API/AlarmConfig/Intelligent/CC/Get', { page_type: 'AlarmConfig' }), 'CC data');
    assert.is(raw.page_type, 'AlarmConfig');

    // A page the device does not have: unsupported (R2), named in the error.
    const missing = await rejection(client.get('Foo/Bar'));
    assert.equal(
      [missing.kind, missing.error_code, missing.page, missing.operation, missing.status],
      ['unsupported', 'not_found', 'Foo/Bar', 'Get', 404],
    );
    assert.match(missing.message, /Foo\/Bar\/Get/);
  }));

test('a digital channel that comes back online shows its settings again', () =>
  withRig({}, {}, async ({ sim, client }) => {
    assert.equal((await client.invoke(voiceAlarmGet)).channel_info!.IP_CH2, { status: 'Offline', reason: 'Not support' });
    sim.setOnline('IP_CH2', true);
    const ch = obj((await client.invoke(voiceAlarmGet)).channel_info!.IP_CH2, 'IP_CH2');
    assert.equal([ch.siren_time, ch.siren_value], [10, 5]);
    const range = await client.invoke(voiceAlarmRange);
    assert.equal(descriptorAt(range, ['channel_info', 'IP_CH2', 'siren_time'])?.max, 180);
  }));

test('a device that rotates its CSRF token (opt-in fault): 20 Sets at once all pass on one login, at most 2 connections in use', () =>
  withRig({ rotateCsrf: true }, {}, async ({ sim, client }) => {
    await client.cachedRange('AlarmConfig/VoiceAlarm');
    const sets = Array.from({ length: 20 }, (_, i) =>
      client.set('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_time: 10 + i } } }),
    );
    await Promise.all(sets);
    const setEntries = entries(sim, '/API/AlarmConfig/VoiceAlarm/Set');
    assert.is(setEntries.length, 20);
    assert.equal(
      setEntries.filter((e) => e.status !== 200).map((e) => e.error_code),
      [],
      'no Set refused (stale token)',
    );
    assert.is(entries(sim, '/API/Web/Login').length, 2, 'one login (challenge + answer), no re-login');
  }));

test.run();
