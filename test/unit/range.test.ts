import * as v from 'valibot';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deepFreeze } from '../../core/json';
import {
  RangeDescriptor,
  boundsOf,
  channelFields,
  defaultFor,
  descriptorAt,
  isDescriptor,
  nestFlatGroups,
  supportedChannels,
} from '../../core/range';
import { mainStreamRangeFixture } from '../../bench/validator';

const test = suite('range model');

/** Event settings face channel (spec 2.10), with frontal/multi defaults. */
const faceRange = {
  channel_max: 1,
  page_type: 'ChannelConfig',
  channel_info: {
    type: 'object',
    items: {
      CH1: {
        type: 'object',
        items: {
          sensitivity: { type: 'int32', mode: 'r', min: 0, max: 100, default_value: 60 },
          roll_range: {
            type: 'int32',
            mode: 'r',
            min: 0,
            max: 180,
            default_value: 30,
            default_value_frontal: 30,
            default_value_multi: 180,
          },
          yaw_range: { type: 'int32', mode: 'r', min: 0, max: 180, default_value: 45, default_value_multi: 180 },
          face_angle: { type: 'string', mode: 'rw', items: ['FrontalView', 'Multiangle', 'UserDefined'] },
          rule_info: {
            type: 'object',
            items: {
              rule_number1: {
                type: 'object',
                items: {
                  point_num: { type: 'array', size: 2, items: [{ type: 'int32' }] },
                  rule_rect: { type: 'object', items: { x1: { type: 'int32', min: 0, max: 704 } } },
                },
              },
            },
          },
          vendor_flag: 7,
        },
      },
      layout: 'grid',
    },
  },
};

test('the schema parses nested Range descriptors and keeps fields it does not know', () => {
  const parsed = v.parse(RangeDescriptor, { ...faceRange.channel_info, vendor_hint: 'x' });
  assert.is((parsed as Record<string, unknown>).vendor_hint, 'x');
  const ch1 = (parsed.items as Record<string, RangeDescriptor>).CH1;
  assert.is((ch1.items as Record<string, unknown>).vendor_flag, 7); // plain value inside items kept
});

test('the schema accepts both int32 items forms: a number list and a PTZ hex string', () => {
  assert.ok(v.safeParse(RangeDescriptor, { type: 'int32', items: [8, 16, 4096] }).success);
  assert.ok(v.safeParse(RangeDescriptor, { type: 'int32', min: 0, max: 255, items: 'ff'.repeat(32) }).success);
});

test('the schema rejects a malformed descriptor and names the path', () => {
  const r = v.safeParse(RangeDescriptor, { type: 'object', items: { CH1: { type: 'int32', min: '5' } } });
  assert.not.ok(r.success);
  assert.equal(v.getDotPath(r.issues![0]), 'items.CH1.min');
  assert.not.ok(v.safeParse(RangeDescriptor, { items: [] }).success); // no type
});

test('isDescriptor tells descriptors from plain meta values', () => {
  assert.ok(isDescriptor({ type: 'bool' }));
  assert.not.ok(isDescriptor(8));
  assert.not.ok(isDescriptor(['CH1']));
  assert.not.ok(isDescriptor({ total_bandwidth: 100 }));
  assert.not.ok(isDescriptor(null));
});

test('descriptorAt follows objects and arrays; undefined for plain values and missing paths', () => {
  assert.equal(descriptorAt(faceRange, ['channel_info', 'CH1', 'sensitivity'])?.max, 100);
  assert.equal(descriptorAt(faceRange, ['channel_info', 'CH1', 'rule_info', 'rule_number1', 'rule_rect', 'x1'])?.max, 704);
  assert.is(descriptorAt(faceRange, ['channel_info', 'CH1', 'rule_info', 'rule_number1', 'point_num', '1'])?.type, 'int32');
  assert.is(descriptorAt(faceRange, ['channel_info', 'CH1', 'vendor_flag']), undefined);
  assert.is(descriptorAt(faceRange, ['channel_max']), undefined);
  assert.is(descriptorAt(faceRange, ['channel_info', 'CH2', 'sensitivity']), undefined);
  assert.is(descriptorAt(faceRange, ['channel_info', 'constructor']), undefined);
});

test('descriptorAt with a prefix finds what the joined path finds, the same descriptor or none', () => {
  const cases: Array<[string[], string[]]> = [
    [['channel_info', 'CH1'], ['sensitivity']],
    [
      ['channel_info', 'CH1'],
      ['rule_info', 'rule_number1', 'point_num', '1'],
    ],
    [['channel_info', 'CH2'], ['sensitivity']],
    [['channel_info'], ['CH1', 'vendor_flag']],
    [[], ['channel_info', 'CH1', 'sensitivity']],
    [['channel_info', 'CH1', 'sensitivity'], []],
  ];
  for (const [prefix, path] of cases) assert.is(descriptorAt(faceRange, path, prefix), descriptorAt(faceRange, [...prefix, ...path]));
  assert.equal(descriptorAt(faceRange, ['sensitivity'], ['channel_info', 'CH1'])?.max, 100);
  assert.is(descriptorAt(faceRange, [], []), undefined);
});

test('supportedChannels lists channel ids of channel_info.items in device order, nothing else', () => {
  assert.equal(supportedChannels(faceRange), ['CH1']);
  assert.equal(supportedChannels(mainStreamRangeFixture(8)), ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH5', 'IP_CH6', 'IP_CH7', 'WIFI_CH8']);
  assert.equal(supportedChannels({ channel_max: 4 }), []);
});

test('channelFields returns the descriptors of one channel, undefined for an absent channel', () => {
  const f = channelFields(faceRange, 'CH1')!;
  assert.equal(Object.keys(f), ['sensitivity', 'roll_range', 'yaw_range', 'face_angle', 'rule_info']);
  assert.is(channelFields(faceRange, 'CH9'), undefined);
  assert.ok('anr' in channelFields(mainStreamRangeFixture(8), 'CH1')!);
  assert.not.ok('anr' in channelFields(mainStreamRangeFixture(8), 'CH2')!);
});

test('boundsOf: numeric bounds, read-only flag, default', () => {
  const b = boundsOf(descriptorAt(faceRange, ['channel_info', 'CH1', 'sensitivity'])!);
  assert.equal(b, { readOnly: true, min: 0, max: 100, default: 60, defaultFrontal: 60, defaultMulti: 60 });
});

test('boundsOf: options of string and int32 enums, and of a PTZ preset set', () => {
  assert.equal(boundsOf({ type: 'string', mode: 'rw', items: ['CBR', 'VBR'] }).options, ['CBR', 'VBR']);
  assert.equal(boundsOf({ type: 'int32', items: [8, 16] }).options, [8, 16]);
  assert.equal(boundsOf({ type: 'int32', min: 0, max: 255, items: '0500' + '00'.repeat(28) + '8000' }).options, [0, 2, 247]);
  assert.is(boundsOf({ type: 'bool' }).options, undefined);
  assert.is(boundsOf({ type: 'bool' }).readOnly, false);
});

test('frontal and multi-angle defaults, falling back to default_value', () => {
  const roll = descriptorAt(faceRange, ['channel_info', 'CH1', 'roll_range'])!;
  const yaw = descriptorAt(faceRange, ['channel_info', 'CH1', 'yaw_range'])!;
  assert.equal([defaultFor(roll), defaultFor(roll, 'FrontalView'), defaultFor(roll, 'Multiangle')], [30, 30, 180]);
  assert.equal([defaultFor(yaw, 'FrontalView'), defaultFor(yaw, 'Multiangle'), defaultFor(yaw, 'UserDefined')], [45, 180, 45]);
  const b = boundsOf(yaw);
  assert.equal([b.default, b.defaultFrontal, b.defaultMulti], [45, 45, 180]);
});

test('deepFreeze: equal Ranges of two devices are one shared copy, also where a descriptor is nested in its group', () => {
  // A fresh answer each time (as parsed from the wire), with a flat member also described inside its group.
  const answer = () =>
    nestFlatGroups(
      {
        channel_info: {
          type: 'object',
          items: { CH1: { type: 'object', items: { mirror_mode: { type: 'string', mode: 'rw', items: ['Close', 'Mirror'] } } } },
        },
      },
      ['FullColorMode'],
    );
  const a = deepFreeze(answer());
  const b = deepFreeze(answer());
  assert.is(a, b, 'one copy for both devices');
  assert.ok(Object.isFrozen(a));
});

test.run();
