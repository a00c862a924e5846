/**
 * Discovery payloads Home Assistant accepts, also for what the simulator never answers: fields a device
 * reports read-only (a switch becomes a binary_sensor, a number or select a sensor), a Range with min equal
 * to max, system info with null or structured values. Checked with test/bridge/homeassistant.ts.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import type { RangeDescriptor } from '../../core';
import type { Device } from '../../bridge/device/device';
import { ABBREVIATIONS as SENT_AS, component, Discovery } from '../../bridge/homeassistant/discovery';
import { createLogger } from '../../bridge/base/log';
import { TABLE } from '../../bridge/device/table';
import { Topics } from '../../bridge/mqtt/topics';
import { alarmSensorKeys } from '../../bridge/device/event-sensors';
import { labelledOptions, optionLabel } from '../../bridge/homeassistant/option-labels';
import { ABBREVIATIONS, asHomeAssistantReads, componentProblems, deviceDiscoveryProblems, selectSends, selectShows } from './homeassistant';

const test = suite('bridge home assistant payloads');

/** A Range descriptor of the kind the row's platform needs. */
function descriptorFor(platform: string, extra: Partial<RangeDescriptor> = {}): RangeDescriptor {
  if (platform === 'number') return { type: 'int32', min: 1, max: 10, ...extra };
  if (platform === 'select') return { type: 'string', items: ['A', 'B'], ...extra };
  return { type: 'bool', ...extra };
}

test('every row of the table, writable and read-only, is a component Home Assistant accepts', () => {
  for (const row of TABLE) {
    for (const mode of [undefined, 'r'] as const) {
      if (!row.platform) continue; // a state key of another entity (the light's brightness)
      const desc = row.source.kind === 'page' ? descriptorFor(row.platform, mode ? { mode } : {}) : undefined;
      const c = component(row, desc, 'nvr2mqtt/nvr/ch1', `nvr2mqtt_nvr_${row.key}`, {
        brightness: { min: 1, max: 100 },
        volume: { min: 1, max: 10 },
      });
      assert.ok(c, `${row.level} ${row.key}`);
      assert.deepEqual(componentProblems(`${row.level} ${row.key} ${mode ?? 'rw'}`, c), []);
      if (mode === 'r' && row.source.kind === 'page')
        assert.ok(c.p === 'sensor' || c.p === 'binary_sensor', `${row.key} read-only: ${String(c.p)}`);
    }
  }
});

test('a number whose Range has min equal to max gets no entity (Home Assistant refuses max <= min)', () => {
  const row = TABLE.find((r) => r.key === 'siren_volume')!;
  assert.equal(component(row, descriptorFor('number', { min: 5, max: 5 }), 's', 'u'), undefined);
  assert.ok(component(row, descriptorFor('number', { min: 5, max: 6 }), 's', 'u'));
});

test('a whole device: read-only fields, degenerate bounds, odd system info; every payload accepted', () => {
  const topics = new Topics('nvr2mqtt', 'homeassistant');
  const ch = (items: Record<string, RangeDescriptor>) => ({
    type: 'object',
    items: { CH1: { type: 'object', items }, CH2: { type: 'object', items } },
  });
  const model = {
    info: { model: null, firmware: { major: 8 }, hardware: 3, serial: 'SN1', mac: '88-26-1D-AA-8E-E0' },
    live: new Map(),
    disarmPage: 'LinkageConfig/LinkageManage',
    channelList: new Map([
      ['CH1', true],
      ['CH2', true],
    ]),
    ranges: new Map<string, unknown>([
      [
        'AlarmConfig/VoiceAlarm',
        {
          channel_info: ch({
            siren_switch: { type: 'bool' },
            siren_time: { type: 'int32', min: 5, max: 5 },
            siren_value: { type: 'int32', min: 1, max: 10, mode: 'r' },
            siren_type: { type: 'string', items: ['Alarm1'], mode: 'r' },
          }),
        },
      ],
      [
        'LinkageConfig/LinkageManage',
        { enable: { type: 'bool' }, linkage_info: { type: 'object', items: { linkage_siren: { type: 'bool', mode: 'r' } } } },
      ],
    ]),
    gets: new Map<string, unknown>([
      [
        'AlarmConfig/VoiceAlarm',
        {
          channel_info: {
            CH1: { siren_switch: false, siren_time: 5, siren_value: 5, siren_type: 'Alarm1' },
            CH2: { siren_switch: true, siren_time: 5, siren_value: 3, siren_type: 'Alarm1' },
          },
        },
      ],
      ['LinkageConfig/LinkageManage', { enable: true, linkage_info: { linkage_siren: true } }],
    ]),
  };
  const device = {
    id: 'nvr',
    name: 'Garage',
    cfg: { url: 'http://192.168.1.20' },
    facts: model,
    channels: () => ['CH1', 'CH2'],
  } as unknown as Device;
  const discovery = new Discovery({
    link: {} as never,
    topics,
    enabled: true,
    log: createLogger({ sink: () => undefined }),
    publish: () => true,
  });
  const configs = discovery.build(device);
  assert.equal(configs.size, 3);
  for (const [topic, payload] of configs) assert.deepEqual(deviceDiscoveryProblems(payload), [], topic);
  const recorder = asHomeAssistantReads(configs.get(topics.discovery('nvr2mqtt_nvr'))!);
  assert.deepEqual(recorder.dev, {
    ids: ['nvr2mqtt_nvr'],
    name: 'Garage',
    mf: 'Raysharp-based',
    hw: '3',
    sn: 'SN1',
    cu: 'http://192.168.1.20',
    cns: [['mac', '88:26:1d:aa:8e:e0']],
  });
  const cmps = recorder.cmps as Record<string, Record<string, unknown>>;
  assert.equal(cmps.disarm_siren.p, 'binary_sensor');
  assert.equal(cmps.disarm_siren.entity_category, 'diagnostic');
  const ch1 = asHomeAssistantReads(configs.get(topics.discovery('nvr2mqtt_nvr_ch1'))!).cmps as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(ch1).sort(), ['online', 'siren_on_alarm', 'siren_tone', 'siren_volume']);
  assert.equal(ch1.siren_volume.p, 'sensor');
});

test('option labels: words people say, each mapped back to the device value; none where two would show alike', () => {
  assert.deepEqual(['AutoMode', 'BlackWhiteMode', 'Warninglight', 'Alarm1', 'User-defined2', 'OFF', 'Low', 'ImageMode'].map(optionLabel), [
    'Auto',
    'Black and white',
    'Warning light',
    'Alarm 1',
    'User-defined 2',
    'Off',
    'Low',
    'Image',
  ]);
  const shown = labelledOptions('siren_tone', ['Alarm1', 'Alarm2'])!;
  assert.deepEqual(shown.options, ['Alarm 1', 'Alarm 2']);
  assert.deepEqual(selectSends({ options: shown.options, command_template: shown.command_template }), ['Alarm1', 'Alarm2']);
  assert.equal(selectShows({ value_template: shown.value_template }, 'siren_tone', 'Alarm2'), 'Alarm 2');
  assert.equal(labelledOptions('k', ['Low', 'High']), undefined, 'already words: no templates');
  assert.equal(labelledOptions('k', ['Off', 'OFF']), undefined, 'two would show alike: the values are shown');
});

test('person/vehicle detection gets a sensor only where the channel has no separate person and vehicle ones', () => {
  assert.deepEqual(alarmSensorKeys(['motion', 'person', 'vehicle', 'motor_vehicle']), ['motion', 'person', 'motor_vehicle']);
  assert.deepEqual(alarmSensorKeys(['motion', 'vehicle']), ['motion', 'vehicle']);
  assert.deepEqual(alarmSensorKeys(['motion', 'person', 'vehicle']), ['motion', 'person', 'vehicle']);
});

test("every abbreviation the bridge sends is Home Assistant's own for that option", () => {
  for (const [option, short] of Object.entries(SENT_AS)) assert.equal(ABBREVIATIONS[short], option, `${short} for ${option}`);
});

test('the checker itself catches what Home Assistant refuses', () => {
  const ok = { dev: { ids: ['x'] }, o: { name: 'nvr2mqtt' }, cmps: { a: { p: 'switch', command_topic: 'x/set' } } };
  assert.deepEqual(deviceDiscoveryProblems(ok), []);
  assert.match(deviceDiscoveryProblems({ ...ok, extra: 1 }).join(), /extra key/);
  assert.match(deviceDiscoveryProblems({ ...ok, dev: { ids: ['x'], mdl: null } }).join(), /device\.model/);
  assert.match(deviceDiscoveryProblems({ ...ok, o: {} }).join(), /origin\.name/);
  assert.match(componentProblems('n', { p: 'number', command_topic: 'x', min: 5, max: 5 }).join(), /max/);
  assert.match(componentProblems('s', { p: 'sensor', state_topic: 'x', entity_category: 'config' }).join(), /config category/);
  assert.match(componentProblems('s', { p: 'select', command_topic: 'x', options: [] }).join(), /options/);
  assert.deepEqual(componentProblems('removed', { p: 'switch' }), []);
});

test.run();
