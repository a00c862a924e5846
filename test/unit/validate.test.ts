import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateAgainstRange, writableSubset } from '../../core/validate';
import { violationText, type Violation } from '../../core/errors';
import { mainStreamRangeFixture, mainStreamSetFixture } from '../../bench/validator';

const test = suite('validateAgainstRange');

/** Voice alarm Range shaped like spec 2.6, CH4 without a siren (absent), IP_CH6 offline. */
const sirenBlock = (offline = false) => ({
  type: 'object',
  items: {
    ...(offline ? { status: { type: 'string', mode: 'r', items: ['Offline', 'Online'] } } : {}),
    siren_switch: { type: 'bool', mode: 'rw' },
    siren_time: { type: 'int32', mode: 'rw', min: 5, max: 180, default_value: 10 },
    siren_value: { type: 'int32', mode: 'rw', min: 1, max: 10, default_value: 5 },
    siren_type: { type: 'string', mode: 'rw', items: ['Alarm1', 'Alarm2', 'User-defined1'] },
    siren_file_name: { type: 'string', mode: 'rw', min_len: 0, max_len: 127 },
    siren_support_format: { type: 'array', mode: 'r', items: ['.wav', '.pcm'] },
  },
});
const voiceRange = {
  channel_max: 8,
  channel_info: { type: 'object', items: { CH1: sirenBlock(), CH2: sirenBlock(), IP_CH6: sirenBlock(true) } },
};

/** PTZ linkage Range shaped like spec 2.3 (new firmware: preset set as hex in `items`). */
const presets = '0f' + '00'.repeat(31); // None, 1, 2, 3
const ptzRange = {
  channel_max: 4,
  support_copy: true,
  ptz_info: {
    type: 'array',
    min_size: 0,
    max_size: 16,
    items: [
      {
        type: 'object',
        items: {
          ptz_chn: { type: 'string', items: ['CH1', 'CH2'] },
          linkage_ptz_point_index: { type: 'int32', min: 0, max: 255, items: presets },
        },
      },
    ],
  },
  channel_info: {
    type: 'object',
    items: {
      CH1: {
        type: 'object',
        items: {
          switch: { type: 'bool', mode: 'rw' },
          ptz_info: { type: 'array', min_size: 0, max_size: 4, items: [{ type: 'object', items: { ptz_switch: { type: 'bool' } } }] },
          all_alarm: { type: 'object', items: { motion: { type: 'bool' }, pir: { type: 'bool' } } },
          copy_ch: { type: 'string', items: ['digit', 'analog', 'wifi', 'local', 'all'] },
        },
      },
    },
  },
};

const one = (vs: Violation[]): Violation => {
  assert.is(vs.length, 1, `expected one violation, got ${JSON.stringify(vs)}`);
  return vs[0];
};

test('a full main-stream Set of 8 channels with every writable field passes', () => {
  assert.equal(validateAgainstRange(mainStreamSetFixture(8), mainStreamRangeFixture(8)), []);
});

test('unsupported field (R2): top level and inside a channel, with the R2 wording', () => {
  const vs = validateAgainstRange({ channel_info: { CH1: { siren_switch: true, siren_colour: 'red' } }, siren_master: true }, voiceRange);
  assert.equal(
    vs.map((x) => [x.path, x.problem]),
    [
      ['channel_info.CH1.siren_colour', 'unsupported'],
      ['siren_master', 'unsupported'],
    ],
  );
  assert.is(vs[0].message, 'is not a setting this device offers');
});

test('read-only field (mode r) is refused even with a valid value', () => {
  const v = one(validateAgainstRange({ channel_info: { IP_CH6: { status: 'Online' } } }, voiceRange));
  assert.is(v.path, 'channel_info.IP_CH6.status');
  assert.is(v.problem, 'read_only');
  assert.match(v.message, /read-only/);
});

test('string enum: the message lists the allowed values', () => {
  const v = one(validateAgainstRange({ channel_info: { CH1: { siren_type: 'Alarm3' } } }, voiceRange));
  assert.is(v.path, 'channel_info.CH1.siren_type');
  assert.is(v.problem, 'enum');
  assert.match(v.message, '"Alarm1", "Alarm2", "User-defined1"');
  assert.match(v.message, 'got "Alarm3"');
});

test('int32 enum (bitrate list)', () => {
  const payload = mainStreamSetFixture(8) as { channel_info: Record<string, Record<string, unknown>> };
  payload.channel_info.IP_CH5.bitrate = 4000;
  const v = one(validateAgainstRange(payload, mainStreamRangeFixture(8)));
  assert.is(v.path, 'channel_info.IP_CH5.bitrate');
  assert.is(v.problem, 'enum');
  assert.match(v.message, '4096');
});

test('numeric bounds: min and max are inclusive', () => {
  const check = (siren_time: number) => validateAgainstRange({ channel_info: { CH1: { siren_time } } }, voiceRange);
  assert.equal(check(5), []);
  assert.equal(check(180), []);
  const low = one(check(4));
  assert.equal([low.path, low.problem, low.message], ['channel_info.CH1.siren_time', 'min', 'must be at least 5 (got 4)']);
  const high = one(check(181));
  assert.equal([high.problem, high.message], ['max', 'must be at most 180 (got 181)']);
});

test('int32 must be a 32-bit integer, not a float, a numeric string or out of int32', () => {
  for (const bad of [10.5, '10', 2 ** 31, Number.NaN, null]) {
    const v = one(validateAgainstRange({ channel_info: { CH1: { siren_time: bad } } }, voiceRange));
    assert.is(v.problem, 'type', `value ${String(bad)}`);
  }
});

test('wrong JS types for bool, string, object and array', () => {
  const vs = validateAgainstRange(
    { channel_info: { CH1: { switch: 'true', copy_ch: 1, all_alarm: [true], ptz_info: { ptz_switch: true } } } },
    ptzRange,
  );
  assert.equal(
    vs.map((x) => [x.path, x.problem]),
    [
      ['channel_info.CH1.switch', 'type'],
      ['channel_info.CH1.copy_ch', 'type'],
      ['channel_info.CH1.all_alarm', 'type'],
      ['channel_info.CH1.ptz_info', 'type'],
    ],
  );
  assert.is(vs[0].message, 'must be a boolean (got "true")');
  assert.is(vs[2].message, 'must be an object (got array)');
});

test('string length: max_len inclusive, min_len enforced', () => {
  const range = {
    name: { type: 'string', min_len: 1, max_len: 48 },
  };
  assert.equal(validateAgainstRange({ name: 'x'.repeat(48) }, range), []);
  const long = one(validateAgainstRange({ name: 'x'.repeat(49) }, range));
  assert.equal([long.path, long.problem, long.message], ['name', 'length', 'must be at most 48 bytes long (got 49)']);
  assert.is(one(validateAgainstRange({ name: '' }, range)).problem, 'length');
});

test('string length is counted in UTF-8 bytes, as the device stores it', () => {
  const range = { username: { type: 'string', max_len: 63 } };
  assert.equal(validateAgainstRange({ username: 'a'.repeat(63) }, range), []);
  // 32 two-byte characters: 32 characters but 64 bytes, one more than the device keeps.
  const v = one(validateAgainstRange({ username: 'é'.repeat(32) }, range));
  assert.equal([v.path, v.problem, v.message], ['username', 'length', 'must be at most 63 bytes long (got 64)']);
});

test('arrays: max_size, element descriptor applied to each element with its index in the path', () => {
  const vs = validateAgainstRange(
    { channel_info: { CH1: { ptz_info: [{ ptz_switch: true }, { ptz_switch: 1 }, {}, {}, { ptz_switch: false }] } } },
    ptzRange,
  );
  assert.equal(
    vs.map((x) => [x.path, x.problem]),
    [
      ['channel_info.CH1.ptz_info', 'size'],
      ['channel_info.CH1.ptz_info.1.ptz_switch', 'type'],
    ],
  );
  assert.is(vs[0].message, 'must have at most 4 elements (got 5)');
});

test('arrays: exact size, min_size, tuple of element descriptors, allowed element values', () => {
  const range = {
    point_num: {
      type: 'array',
      size: 2,
      items: [
        { type: 'int32', min: 0, max: 704 },
        { type: 'int32', min: 0, max: 576 },
      ],
    },
    formats: { type: 'array', min_size: 1, items: ['.wav', '.pcm'] },
  };
  assert.equal(validateAgainstRange({ point_num: [704, 576], formats: ['.pcm'] }, range), []);
  const vs = validateAgainstRange({ point_num: [700, 600, 1], formats: ['.mp3'] }, range);
  assert.equal(
    vs.map((x) => [x.path, x.problem]),
    [
      ['point_num', 'size'],
      ['point_num.1', 'max'],
      ['formats.0', 'enum'],
    ],
  );
  assert.is(vs[0].message, 'must have exactly 2 elements (got 3)');
  assert.is(one(validateAgainstRange({ formats: [] }, range)).message, 'must have at least 1 elements (got 0)');
});

test('nested objects: members checked and unknown members reported with their full path', () => {
  const vs = validateAgainstRange({ channel_info: { CH1: { all_alarm: { motion: true, pir: 'yes', linkage_fr: true } } } }, ptzRange);
  assert.equal(
    vs.map((x) => [x.path, x.problem]),
    [
      ['channel_info.CH1.all_alarm.pir', 'type'],
      ['channel_info.CH1.all_alarm.linkage_fr', 'unsupported'],
    ],
  );
});

test('per-channel maps: a channel absent from Range is a channel problem', () => {
  const vs = validateAgainstRange(
    { channel_info: { CH1: { siren_switch: true }, CH4: { siren_switch: true }, IP_CH9: { siren_switch: true } } },
    voiceRange,
  );
  assert.equal(
    vs.map((x) => [x.path, x.problem]),
    [
      ['channel_info.CH4', 'channel'],
      ['channel_info.IP_CH9', 'channel'],
    ],
  );
  assert.is(violationText(vs[0]), 'channel_info.CH4 is not a channel of this page on the device');
});

test('an offline channel (Range shows only its status) says so for the fields it lacks', () => {
  const range = {
    channel_info: {
      type: 'object',
      items: {
        CH1: sirenBlock(),
        IP_CH6: { type: 'object', items: { status: { type: 'string', mode: 'r', items: ['Offline', 'Online'] } } },
      },
    },
  };
  const v = one(validateAgainstRange({ channel_info: { IP_CH6: { siren_switch: true } } }, range));
  assert.equal([v.path, v.problem], ['channel_info.IP_CH6.siren_switch', 'unsupported']);
  assert.is(v.message, 'is not available while the channel is offline');
  assert.is(
    one(validateAgainstRange({ channel_info: { CH1: { siren_colour: 'red' } } }, range)).message,
    'is not a setting this device offers',
  );
});

test('metaKeys are skipped at the top level and inside channel blocks; without them they are unsupported', () => {
  const payload = { page_type: 'ChannelConfig', channel_info: { CH1: { chn_index: 'CH1', siren_switch: false } } };
  assert.equal(validateAgainstRange(payload, voiceRange, { metaKeys: ['page_type', 'chn_index'] }), []);
  assert.equal(
    validateAgainstRange(payload, voiceRange).map((x) => [x.path, x.problem]),
    [
      ['page_type', 'unsupported'],
      ['channel_info.CH1.chn_index', 'unsupported'],
    ],
  );
});

test('plain Range values (channel_max, support_copy) are not fields: sending them is refused (issue 17)', () => {
  assert.equal(
    validateAgainstRange({ channel_max: 99, support_copy: 'whatever' }, ptzRange).map((v) => [v.path, v.problem]),
    [
      ['channel_max', 'not_described'],
      ['support_copy', 'not_described'],
    ],
  );
});

test('every violation is returned, across channels, in payload order', () => {
  const vs = validateAgainstRange(
    {
      channel_info: {
        CH1: { siren_time: 1, siren_value: 11, siren_type: 'Horn' },
        CH2: { siren_switch: 'on', siren_file_name: 'x'.repeat(128) },
      },
    },
    voiceRange,
  );
  assert.equal(
    vs.map((x) => `${x.path}:${x.problem}`),
    [
      'channel_info.CH1.siren_time:min',
      'channel_info.CH1.siren_value:max',
      'channel_info.CH1.siren_type:enum',
      'channel_info.CH2.siren_switch:type',
      'channel_info.CH2.siren_file_name:length',
    ],
  );
});

test('PTZ preset set in items: available presets pass, others are refused with the list', () => {
  const target = (linkage_ptz_point_index: unknown) => ({ ptz_info: [{ ptz_chn: 'CH1', linkage_ptz_point_index }] });
  assert.equal(validateAgainstRange(target(3), ptzRange), []);
  assert.equal(validateAgainstRange(target(0), ptzRange), []);
  const v = one(validateAgainstRange(target(4), ptzRange));
  assert.equal([v.path, v.problem], ['ptz_info.0.linkage_ptz_point_index', 'enum']);
  assert.match(v.message, 'available presets 0, 1, 2, 3');
  // Only the Range carries the hex preset set; a value is one int32 index, as the device checks it.
  assert.is(one(validateAgainstRange(target(presets), ptzRange)).problem, 'type');
  assert.is(one(validateAgainstRange(target('0f'), ptzRange)).problem, 'type');
});

test('keys inherited from Object.prototype are not mistaken for Range fields', () => {
  const payload = JSON.parse('{"constructor": 1, "__proto__": {"x": 1}, "toString": "a"}');
  assert.equal(
    validateAgainstRange(payload, voiceRange).map((x) => x.problem),
    ['unsupported', 'unsupported', 'unsupported'],
  );
});

test('a payload that is not an object is one type violation', () => {
  assert.is(one(validateAgainstRange([1, 2], voiceRange)).problem, 'type');
  assert.is(one(validateAgainstRange(null, voiceRange)).problem, 'type');
});

test('a descriptor type the spec does not define is left unchecked', () => {
  assert.equal(validateAgainstRange({ ratio: 0.5 }, { ratio: { type: 'float', min: 1 } }), []);
});

test('validator state does not leak between calls (path stack, metaKeys)', () => {
  validateAgainstRange({ page_type: 'x', channel_info: { CH1: { siren_time: 0 } } }, voiceRange, { metaKeys: ['page_type'] });
  const v = one(validateAgainstRange({ page_type: 'x' }, voiceRange));
  assert.equal([v.path, v.problem], ['page_type', 'unsupported']);
});

test('writableSubset keeps what a Set may carry: drops read-only, unsupported and plain Range values, keeps meta keys', () => {
  const got = {
    page_type: 'ChannelConfig',
    channel_info: {
      IP_CH6: { chn_index: 'IP_CH6', status: 'Offline', siren_switch: true, siren_support_format: ['.wav'], vendor_x: 1 },
    },
    channel_max: 8,
  };
  const opts = { metaKeys: ['page_type', 'chn_index'] };
  const out = writableSubset(got, voiceRange, opts);
  assert.equal(out, { page_type: 'ChannelConfig', channel_info: { IP_CH6: { chn_index: 'IP_CH6', siren_switch: true } } });
  assert.equal(validateAgainstRange(out, voiceRange, opts), []);
  assert.is.not(validateAgainstRange(got, voiceRange, opts).length, 0);
});

test('fields the Range lists as plain values (DeveloperMode enable_export: true, default_timeout: 60) are refused with the reason', () => {
  const range = {
    ssh_switch: { type: 'bool', mode: 'rw' },
    enable_export: true,
    default_timeout: 60,
    export_days: { type: 'string', items: ['all', '1', '2'] },
  };
  const vs = validateAgainstRange({ ssh_switch: false, enable_export: true, default_timeout: 60 }, range);
  assert.equal(
    vs.map((x) => [x.path, x.problem]),
    [
      ['enable_export', 'not_described'],
      ['default_timeout', 'not_described'],
    ],
  );
  assert.match(vs[0].message, /^cannot be set: the device reports it as a fact of the page \(true\), not as a setting/);
  assert.equal(validateAgainstRange({ ssh_switch: false, export_days: 'all' }, range), []);
});

test.run();
