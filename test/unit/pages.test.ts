import * as v from 'valibot';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { OperationDef } from '../../core/operation';
import {
  audioGet,
  channelInfoGet,
  crossCountingGet,
  deterrenceGet,
  deterrenceRange,
  deterrenceSet,
  deterrenceSetData,
  developerModeGet,
  developerModeRange,
  developerModeSet,
  eventSettingsRange,
  findOperation,
  findPage,
  isChannelMarker,
  linkageManageGet,
  linkageManageSet,
  mainStreamRange,
  pages,
  ptzLinkageGet,
  ptzLinkageRange,
  shellSwitchKey,
  systemInfoGet,
  upgradeToken,
  voiceAlarmGet,
  voiceAlarmRange,
  voiceAlarmSet,
  firmwareAfter,
} from '../../core/pages';
import * as pageDecls from '../../core/pages';
import type { PageDef } from '../../core/page';
import { describeIssues } from '../../core/envelope';
import { mainStreamRangeFixture } from '../../bench/validator';

const test = suite('pages');

const VENDOR = { vendor_extra: { nested: [1, 2] } };

/** For each response schema: a spec-shaped sample, and one with a wrong shape plus the path it fails at. */
const samples: Array<{ op: OperationDef; good: Record<string, unknown>; bad: unknown; badPath: string }> = [
  {
    op: upgradeToken,
    good: { upgrade_token: 'a1b2c3', upgrade_timeout: 600 },
    bad: { upgrade_token: 42, upgrade_timeout: 600 },
    badPath: 'upgrade_token',
  },
  {
    op: mainStreamRange,
    good: mainStreamRangeFixture(8),
    bad: { channel_info: 'CH1' },
    badPath: 'channel_info',
  },
  {
    op: ptzLinkageRange,
    good: {
      channel_max: 8,
      support_copy: true,
      ptz_info: {
        type: 'array',
        min_size: 0,
        max_size: 16,
        items: [
          {
            type: 'object',
            items: {
              ptz_chn: { type: 'string', items: ['CH1'] },
              linkage_ptz_point_index: { type: 'int32', min: 0, max: 255, items: '0f' + '00'.repeat(31) },
            },
          },
        ],
      },
      channel_info: { type: 'object', items: { CH1: { type: 'object', items: { switch: { type: 'bool', mode: 'rw' } } } } },
    },
    bad: { channel_info: { type: 'object', items: { CH1: { type: 'bool', mode: 7 } } } },
    badPath: 'channel_info.items.CH1.mode',
  },
  {
    op: ptzLinkageGet,
    good: {
      ptz_info: [
        { ptz_chn: 'CH1', linkage_ptz_point_index: 3 },
        { ptz_chn: 'CH2', linkage_ptz_point_index: 'ff' + '00'.repeat(31) },
      ],
      channel_info: {
        CH1: { switch: true, motion: true, ptz_info: [{ ptz_switch: true }], all_alarm: { motion: true, linkage_fd: false } },
      },
    },
    bad: { ptz_info: [{ ptz_chn: 'CH1', linkage_ptz_point_index: true }] },
    badPath: 'ptz_info.0.linkage_ptz_point_index',
  },
  {
    op: crossCountingGet,
    good: {
      page_type: 'AlarmConfig',
      channel_info: {
        CH1: {
          buzzer: 'off',
          alarm_out: [],
          latch_time: '10',
          record_enable: true,
          record_channel: ['CH1'],
          voice_prompts_index: Array(12).fill(0),
          voice_prompts_select: [0, 1],
          voice_prompts_time: [{ start_hour: 0, start_minute: 0, start_second: 0, end_hour: 23, end_minute: 59, end_second: 59 }],
          chn_index: 'CH1',
        },
        IP_CH2: { reason: 'Not support' },
      },
    },
    bad: { channel_info: { CH1: { record_channel: 'CH1' } } },
    badPath: 'channel_info.CH1.record_channel',
  },
  {
    op: developerModeRange,
    good: {
      telnet_switch: { type: 'bool', mode: 'rw' },
      export_disk_switch: { type: 'string', items: ['Shut Off', 'Output To Terminal', 'Output To Disk'] },
      enable_export: true,
      export_days: { type: 'string', items: ['all', '1', '2'] },
      default_timeout: 30,
      channel_info: { type: 'object', items: { CH1: { type: 'object', items: { log_collect_enable: { type: 'bool', mode: 'rw' } } } } },
    },
    bad: { enable_export: 'yes' },
    badPath: 'enable_export',
  },
  {
    op: developerModeGet,
    good: {
      ssh_switch: false,
      export_disk_switch: 'Shut Off',
      channel_info: { CH1: { log_collect_enable: true, remote_server: { username: 'ftp', password_empty: true } } },
    },
    bad: { ssh_switch: 'off' },
    badPath: 'ssh_switch',
  },
  {
    op: voiceAlarmRange,
    good: {
      channel_max: 8,
      channel_info: {
        type: 'object',
        items: {
          CH1: {
            type: 'object',
            items: {
              siren_time: { type: 'int32', mode: 'rw', min: 5, max: 180, default_value: 10 },
              siren_support_format: { type: 'array', mode: 'r', items: ['.wav', '.pcm'] },
            },
          },
        },
      },
    },
    bad: { channel_info: { type: 'bool' } },
    badPath: 'channel_info',
  },
  {
    op: voiceAlarmGet,
    good: {
      channel_info: {
        CH1: { siren_switch: false, siren_time: 10, siren_value: 5, siren_type: 'Alarm1', siren_file_name: '' },
        CH4: { status: 'Offline', reason: 'Not support' },
      },
    },
    bad: { channel_info: { CH1: { siren_time: '10' } } },
    badPath: 'channel_info.CH1.siren_time',
  },
  {
    op: audioGet,
    good: {
      channel_info: {
        CH1: { copy_ch: 'all', audio_enable: true, audio_type: 'G711A', in_volume: 50, out_volume: 80 },
        CH2: { reason: 'Not support' },
      },
    },
    bad: { channel_info: { CH1: { in_volume: 5.5 } } },
    badPath: 'channel_info.CH1.in_volume',
  },
  {
    op: deterrenceRange,
    good: {
      channel_max: 8,
      channel_info: {
        type: 'object',
        items: {
          CH1: {
            type: 'object',
            items: {
              flood_light_switch: { type: 'bool', mode: 'rw' },
              bright_time: { type: 'int32', min: 5, max: 180 },
            },
          },
        },
      },
    },
    bad: { channel_info: { type: 'object', items: { CH1: { type: 'int32', max: 'ten' } } } },
    badPath: 'channel_info.items.CH1.max',
  },
  {
    op: deterrenceGet,
    good: {
      page_type: 'ChannelConfig',
      channel_info: {
        CH1: {
          flood_light_switch: true,
          bright_time: 60,
          flood_light_mode: 'Warninglight',
          strobe_frequency: 'Middle',
          param_video: { show: true, disable: false },
          flood_light_disable: false,
          warning_light_disable: false,
        },
        CH3: { reason: 'Not configured' },
      },
    },
    bad: { channel_info: { CH1: { param_video: { show: 'yes' } } } },
    badPath: 'channel_info.CH1.param_video.show',
  },
  {
    op: linkageManageGet,
    good: {
      enable: true,
      linkage_info: { linkage_siren: true, linkage_floodlight: true, linkage_mobile_push: false },
      channel_info: { CH1: { enable: true, linkage_info: { linkage_siren: false } }, IP_CH6: { status: 'Offline', reason: 'Not support' } },
    },
    bad: { linkage_info: { linkage_siren: 1 } },
    badPath: 'linkage_info.linkage_siren',
  },
  {
    op: eventSettingsRange,
    good: {
      default_timeout: 30,
      page_type: 'ChannelConfig',
      channel_max: 1,
      agreed_to_agreement: false,
      statement_file_name: { type: 'string', min_len: 1, max_len: 48 },
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
            },
          },
        },
      },
    },
    bad: { channel_max: 'one' },
    badPath: 'channel_max',
  },
  {
    op: systemInfoGet,
    good: {
      device_type: 'N7516',
      hardware_version: 'DM-1',
      software_version: 'V8.2.3-20221014',
      mac_address: '00:11:22:33:44:55',
      serial_number: 'X1',
      channel_max: 16,
    },
    bad: { software_version: 823 },
    badPath: 'software_version',
  },
  {
    op: channelInfoGet,
    good: { channel_info: { CH1: { connect_status: 'Online' }, IP_CH6: { connect_status: 'Offline' } } },
    bad: { channel_info: { CH1: { connect_status: false } } },
    badPath: 'channel_info.CH1.connect_status',
  },
];

for (const { op, good, bad, badPath } of samples) {
  test(`${op.path}: accepts a spec-shaped answer and keeps unknown fields`, () => {
    const out = v.parse(op.response, { ...good, ...VENDOR }) as Record<string, unknown>;
    assert.equal(out.vendor_extra, VENDOR.vendor_extra);
    for (const key of Object.keys(good)) assert.ok(key in out, `${key} kept`);
  });
  test(`${op.path}: rejects a wrong shape at ${badPath}`, () => {
    const r = v.safeParse(op.response, bad);
    assert.not.ok(r.success);
    assert.is(v.getDotPath(r.issues![0]), badPath);
  });
}

test('unknown fields inside a channel block are kept too', () => {
  const out = v.parse(deterrenceGet.response, { channel_info: { CH1: { flood_light_switch: true, red_blue_light: true } } });
  assert.equal(out.channel_info!.CH1, { flood_light_switch: true, red_blue_light: true });
});

test('reason-only channels are markers; parameter blocks are not', () => {
  const out = v.parse(voiceAlarmGet.response, {
    channel_info: { CH1: { siren_switch: true }, CH3: { reason: 'Not configured' }, CH4: { status: 'Offline', reason: 'Not support' } },
  });
  const ci = out.channel_info!;
  assert.equal([isChannelMarker(ci.CH1), isChannelMarker(ci.CH3), isChannelMarker(ci.CH4)], [false, true, true]);
  const ch4 = ci.CH4;
  if (isChannelMarker(ch4)) assert.equal([ch4.status, ch4.reason], ['Offline', 'Not support']);
  assert.not.ok(v.safeParse(voiceAlarmGet.response, { channel_info: { CH3: { reason: 5 } } }).success);
});

test('a Range whose channel_info is not an object descriptor is refused', () => {
  const r = v.safeParse(deterrenceRange.response, { channel_info: { type: 'bool' } });
  assert.not.ok(r.success);
  assert.match(r.issues![0].message, 'channel_info must be an object descriptor');
});

test('cross counting Get is the one operation with the version envelope', () => {
  const withVersion = pages.flatMap((p) => Object.values(p.operations)).filter((op) => op.envelope === 'version');
  assert.equal(
    withVersion.map((op) => op.path),
    ['/API/AlarmConfig/Intelligent/CC/Get'],
  );
  assert.equal(v.parse(crossCountingGet.request, {}), { page_type: 'AlarmConfig' });
});

test('PTZ point index: an int 0-255 or a 64-hex-digit preset set; anything else is a wrong shape at its path', () => {
  const answer = (linkage_ptz_point_index: unknown) => ({ ptz_info: [{ ptz_chn: 'IP_CH5', linkage_ptz_point_index }] });
  for (const ok of [0, 3, 255, '0f' + '00'.repeat(31), 'FF'.repeat(32)]) {
    assert.ok(v.safeParse(ptzLinkageGet.response, answer(ok)).success, JSON.stringify(ok));
  }
  for (const bad of ['3', 'zz', '0f', '0g' + '00'.repeat(31), 256, -1, 2.5]) {
    const r = v.safeParse(ptzLinkageGet.response, answer(bad));
    assert.not.ok(r.success, `${JSON.stringify(bad)} accepted`);
    assert.match(describeIssues(r.issues!), /^data\.ptz_info\.0\.linkage_ptz_point_index: /);
  }
});

test('deterrence: page_type defaults to ChannelConfig; Set blocks carry chn_index and page (vendor)', () => {
  assert.equal(v.parse(deterrenceGet.request, {}), { page_type: 'ChannelConfig' });
  const data = deterrenceSetData({ CH1: { flood_light_switch: true, bright_time: 30 } });
  assert.equal(data, {
    page_type: 'ChannelConfig',
    channel_info: { CH1: { flood_light_switch: true, bright_time: 30, chn_index: 'CH1', page: 'chn_floodlight' } },
  });
  assert.ok(v.safeParse(deterrenceSet.request, data).success);
  const noIndex = v.safeParse(deterrenceSet.request, { channel_info: { CH1: { flood_light_switch: true } } });
  assert.not.ok(noIndex.success);
  assert.is(v.getDotPath(noIndex.issues![0]), 'channel_info.CH1.chn_index');
  assert.equal(deterrenceSet.metaKeys, ['page_type', 'chn_index', 'page']);
});

test('Set requests refuse keys that are not channel ids', () => {
  const r = v.safeParse(voiceAlarmSet.request, { channel_info: { ch1: { siren_switch: true } } });
  assert.not.ok(r.success);
  assert.ok(v.safeParse(voiceAlarmSet.request, { channel_info: { WIFI_CH8: { siren_switch: true } } }).success);
});

test('linkage manage Set keeps channel_info inside data with enable and linkage_info', () => {
  const data = { enable: true, linkage_info: { linkage_siren: true }, channel_info: { IP_CH5: { enable: false } } };
  assert.equal(v.parse(linkageManageSet.request, data), data);
  assert.not.ok(v.safeParse(linkageManageSet.request, { channel_info: { IP_CH5: { enable: 'no' } } }).success);
});

test('developer mode: telnet_switch on 8.2.3, ssh_switch after', () => {
  assert.is(shellSwitchKey(v.parse(developerModeGet.response, { telnet_switch: true })), 'telnet_switch');
  assert.is(shellSwitchKey(v.parse(developerModeGet.response, { ssh_switch: false })), 'ssh_switch');
  assert.is(shellSwitchKey({ export_days: 'all' }), undefined);
  assert.equal(
    [firmwareAfter('V8.2.3-20221014', [8, 2, 3]), firmwareAfter('V8.2.4-20230101', [8, 2, 3]), firmwareAfter('V9.0-1', [8, 2, 3])],
    [false, true, true],
  );
  assert.is(firmwareAfter('unknown', [8, 2, 3]), undefined);
  // FTP credentials: limits in bytes (63), so 32 two-byte characters are too many.
  assert.not.ok(v.safeParse(developerModeSet.request, { channel_info: { CH1: { remote_server: { username: 'é'.repeat(32) } } } }).success);
  assert.ok(v.safeParse(developerModeSet.request, { channel_info: { CH1: { remote_server: { username: 'e'.repeat(63) } } } }).success);
});

test('upgrade token request: spec limits on name and head', () => {
  const ok = { file_name: 'fw.sw', file_size: 1000, upgrade_head: Array(3072).fill(255) };
  assert.ok(v.safeParse(upgradeToken.request, ok).success);
  assert.ok(v.safeParse(upgradeToken.request, { ...ok, base_secondary_authentication: { seq: 3, cipher: 'AbC=' } }).success);
  assert.not.ok(v.safeParse(upgradeToken.request, { ...ok, upgrade_head: Array(3073).fill(0) }).success);
  assert.not.ok(v.safeParse(upgradeToken.request, { ...ok, upgrade_head: [256] }).success);
  assert.not.ok(v.safeParse(upgradeToken.request, { ...ok, file_name: 'a'.repeat(257) }).success);
  assert.not.ok(v.safeParse(upgradeToken.request, { ...ok, base_secondary_authentication: { seq: '3', cipher: 'x' } }).success);
});

test('event settings request: abilities list or single ability, from the spec list', () => {
  assert.ok(
    v.safeParse(eventSettingsRange.request, { channel: 'CH1', abilities: ['FaceDetection', 'LineCrossing'], oper_type: 'get_default_data' })
      .success,
  );
  assert.ok(v.safeParse(eventSettingsRange.request, { channel: 'CH1', ability: 'CrossCounting' }).success);
  assert.not.ok(v.safeParse(eventSettingsRange.request, { channel: 'CH1', abilities: ['Teleport'] }).success);
  assert.not.ok(v.safeParse(eventSettingsRange.request, { channel: 'channel 1' }).success);
});

test('channel list: a map, or a list or map wrapped in items', () => {
  const list = v.parse(channelInfoGet.response, { channel_info: { items: [{ channel: 'CH1', connect_status: 'Online', ability: 1 }] } });
  assert.equal(list.channel_info, { items: [{ channel: 'CH1', connect_status: 'Online', ability: 1 }] });
  assert.ok(v.safeParse(channelInfoGet.response, { channel_info: { items: { CH1: { connect_status: 'Online' } } } }).success);
  assert.not.ok(v.safeParse(channelInfoGet.response, { channel_info: { items: 'CH1' } }).success);
});

test('registry: every page of the contract with its operations and paths', () => {
  // Every page core/pages declares (each export shaped as a page) is in the registry, once.
  const declared = Object.values(pageDecls).filter(
    (x): x is PageDef => typeof x === 'object' && x !== null && 'name' in x && 'operations' in x && 'write' in x,
  );
  assert.equal(pages.map((p) => p.name).sort(), [...new Set(declared.map((p) => p.name))].sort());
  for (const p of pages) {
    for (const [verb, op] of Object.entries(p.operations)) {
      assert.is(op.page, p.name);
      assert.is(op.operation, verb);
      assert.is(op.path, `/API/${p.name}/${verb}`);
      assert.ok(op.description.length > 0);
    }
  }
  assert.is(findPage('/API/AlarmConfig/Deterrence/')?.title, 'Deterrence (floodlight)');
  assert.is(findOperation('AlarmConfig/Deterrence', 'Set'), deterrenceSet);
  assert.is(findOperation('Maintenance/SystemUpgrade', 'Token'), upgradeToken);
  assert.is(findOperation('AlarmConfig/Deterrence', 'Reboot'), undefined);
  assert.is(findOperation('AlarmConfig/Deterrence', 'constructor'), undefined);
  assert.is(findPage('No/Such/Page'), undefined);
});

test.run();
