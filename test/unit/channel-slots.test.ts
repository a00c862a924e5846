import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { channelSlots, channelSlotsFromPages } from '../../core/channel-slots';
import * as v from 'valibot';
import { identityFrom, macColon } from '../../core/identity';
import { DeviceInfo } from '../../core/pages/device-info';
import { liveState, planLiveSet } from '../../core/live';
import { quoteBigIntegers } from '../../core/json';
import { parseBody } from '../../core/envelope';

const test = suite('channel slots, identity, live (pure)');

test('channelSlots: older forms (map, list, items) still give models; bad ids left out (R3)', () => {
  const map = channelSlots({
    channel_info: { CH1: { connect_status: 'Online' }, CH2: { status: 'Offline' }, CH3: { reason: 'Not configured' }, ch4: {} },
  });
  assert.equal(
    map?.map((m) => [m.id, m.status, m.online, m.configured]),
    [
      ['CH1', 'Online', true, true],
      ['CH2', 'Offline', false, true],
      ['CH3', 'NotConfigured', false, false],
    ],
  );
  const list = channelSlots({ channel_info: { items: [{ channel: 'IP_CH2', online: true }, { channel: 'bogus' }] } });
  assert.equal(
    list?.map((m) => [m.id, m.online]),
    [['IP_CH2', true]],
  );
  assert.is(channelSlots({ other: 1 }), undefined);
  assert.is(channelSlots('x'), undefined);
});

test('channelSlots: a frozen (reused) answer gives the same frozen models every time; a fresh answer fresh ones', () => {
  const answer = () => ({ channel_param: [{ channel: 'CH1', connect_status: 'Online', ability: ['FloodLight'] }] });
  const reused = Object.freeze(answer());
  const first = channelSlots(reused)!;
  assert.is(channelSlots(reused), first, 'built once per answer object');
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first[0]) && Object.isFrozen(first[0].hardware), 'shared, so frozen');
  assert.equal(first[0].hardware.floodlight, true);
  // A caller's own (unfrozen) answer: its own models, which it may change.
  const own = answer();
  const a = channelSlots(own)!;
  assert.is.not(channelSlots(own), a);
  assert.not.ok(Object.isFrozen(a));
  // Another answer with other content: other models.
  const offline = Object.freeze({ channel_param: [{ channel: 'CH1', connect_status: 'Offline' }] });
  assert.equal(channelSlots(offline)![0].online, false);
});

test('channelSlots: channel_param entries keep unknown statuses as the device wrote them', () => {
  const [m] = channelSlots({
    channel_param: [{ channel: 'CH1', connect_status: 'Upgrading', ability: ['FloodLight', 7], alarm_out_num: -1 }],
  })!;
  assert.equal(
    [m.status, m.online, m.configured, m.hardware.floodlight, m.abilities, m.hardware.alarmOut],
    ['Upgrading', false, true, true, ['FloodLight'], 0],
  );
});

test('channelSlotsFromPages: best status wins, hardware from the pages listing parameters, sorted', () => {
  const models = channelSlotsFromPages([
    {
      hardware: 'floodlight',
      data: { channel_info: { IP_CH1: { status: 'Offline', reason: 'Not support' }, CH10: { x: 1 }, CH2: { reason: 'Not configured' } } },
    },
    { hardware: 'siren', data: { channel_info: { IP_CH1: { siren_switch: true }, CH2: { reason: 'Not configured' } } } },
  ]);
  assert.equal(
    models.map((m) => [m.id, m.status, m.hardware.floodlight, m.hardware.siren]),
    [
      ['CH2', 'NotConfigured', false, false],
      ['CH10', 'Online', true, false],
      ['IP_CH1', 'Online', false, true],
    ],
  );
});

test('dev_type beyond 2^53: digits kept through the envelope; small values and other members untouched', () => {
  const body = parseBody(
    200,
    '{"result":"success","data":{"dev_type": 18446744073709551615,"n":12345678901234567890,"t":"\\"dev_type\\":1"}}',
    null,
  );
  const data = body.data as Record<string, unknown>;
  assert.is(data.dev_type, '18446744073709551615');
  assert.is(typeof data.n, 'number', 'only the listed u64 members');
  assert.is(quoteBigIntegers('{"dev_type":42}'), '{"dev_type":42}');
  assert.equal(identityFrom(undefined, { dev_type: 42 }), { devType: '42' });
  assert.is(macColon('88-26-1D-AA-8E-E0'), '88:26:1d:aa:8e:e0');
  assert.is(macColon('nope'), undefined);
});

test('identity: firmware from DeviceInfo software_version where SystemInfo/Base is absent; SystemInfo wins where both', () => {
  const dev = v.parse(DeviceInfo, { device_type: 'N7516', software_version: 'V8.2.3-20221014', mac_addr: '88-26-1D-AA-8E-E0' });
  assert.is(identityFrom(undefined, dev).firmware, 'V8.2.3-20221014');
  assert.is(identityFrom({ software_version: 'V9.1.0-20250101' }, dev).firmware, 'V9.1.0-20250101');
  assert.is(identityFrom(undefined, { software_version: '  ' }).firmware, undefined);
});

test('live: documented bounds when the page gives no _range; nothing to send when nothing changes', () => {
  const a = { channel: 'CH1', floodlight_switch: true, floodlight_value: 40, audioAlarm_switch: false, audioAlarm_value: 3 };
  assert.equal(liveState('CH1', a), {
    channel: 'CH1',
    floodlight: true,
    brightness: 40,
    brightnessRange: { min: 1, max: 100 },
    siren: false,
    volume: 3,
    volumeRange: { min: 1, max: 10 },
    volumeAdjustable: true,
  });
  assert.equal(planLiveSet('CH1', a, { floodlight: true }), { violations: [] });
  assert.equal(
    planLiveSet('CH1', a, { volume: 11 }).violations.map((v) => v.problem),
    ['max'],
  );
  assert.equal(
    planLiveSet('CH1', a, { mode: 1 }).violations.map((v) => v.problem),
    ['unsupported'],
  );
  assert.is(planLiveSet('CH1', a, { brightness: 100 }).data?.operation_type, 'Floodlight');
});

test.run();
