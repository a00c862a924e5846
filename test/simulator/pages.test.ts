import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, SimulatorOptions, startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';

type Obj = Record<string, any>;

async function withDevice(opts: Partial<SimulatorOptions>, fn: (c: RawClient, sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ password: PASSWORD, ...opts });
  try {
    const c = new RawClient(sim.url);
    const res = await c.login();
    assert.is(res.status, 200);
    await fn(c, sim);
  } finally {
    await sim.stop();
  }
}

async function ok(c: RawClient, path: string, data: unknown = {}): Promise<Obj> {
  const res = await c.post(path, data);
  assert.is(res.status, 200, `${path}: ${res.text.slice(0, 300)}`);
  assert.is(res.json.result, 'success', path);
  return res.json.data;
}

const PAGES = [
  'StreamConfig/MainStream',
  'AlarmConfig/PTZLinkage',
  'AlarmConfig/Intelligent/CC',
  'Maintenance/DeveloperMode',
  'AlarmConfig/VoiceAlarm',
  'DeviceConfig/Audio',
  'AlarmConfig/Deterrence',
  'LinkageConfig/LinkageManage',
  'AlarmConfig/Disarming',
];
/** Old firmware has no Disarming page (default per profile). */
const pagesOf = (firmware: string) => PAGES.filter((p) => firmware !== '8.2.3' || p !== 'AlarmConfig/Disarming');

async function get(c: RawClient, page: string): Promise<Obj> {
  if (page === 'AlarmConfig/Intelligent/CC') {
    const res = await c.post(`/API/${page}/Get`, { page_type: 'AlarmConfig' });
    assert.is(res.status, 200);
    assert.is(res.json.version, '1.0', 'cross counting Get: version envelope');
    assert.is(res.json.result, undefined);
    return res.json.data;
  }
  return ok(c, `/API/${page}/Get`, page === 'AlarmConfig/Deterrence' ? { page_type: 'ChannelConfig' } : {});
}

const isDesc = (x: any) => x && typeof x === 'object' && !Array.isArray(x) && typeof x.type === 'string';
/** Test-side writable subset: what a Get block may send back (rw fields the Range lists). */
function writable(value: Obj, members: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    const d = members[k];
    if (!isDesc(d) || d.mode === 'r') continue;
    if (d.type === 'object' && v && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = writable(v, d.items);
    } else out[k] = v;
  }
  return out;
}

const test = suite('simulator pages');

for (const profile of ['nvr', 'ipc'] as const) {
  for (const firmware of ['8.2.3', '8.2.4']) {
    test(`${profile} ${firmware}: every endpoint answers; telnet/ssh and PTZ index form follow the firmware`, () =>
      withDevice({ profile, firmware }, async (c) => {
        const info = await ok(c, '/API/SystemInfo/Base/Get');
        assert.is(info.software_version, `V${firmware}-20221014`);
        assert.match(info.device_type, profile === 'nvr' ? /^N75\d\d$/ : /^I\d+$/);
        assert.match(info.mac_address, /^([0-9A-F]{2}-){5}[0-9A-F]{2}$/, 'vendor: dash-separated upper case');
        const legacy = firmware === '8.2.3';
        assert.is(typeof info.serialNum, legacy ? 'undefined' : 'string', 'serialNum only on some builds');
        const cp = (await ok(c, '/API/Login/ChannelInfo/Get')).channel_param;
        assert.is(Array.isArray(cp), legacy, 'channel_param: array (table) on old firmware, wrapped (sample) on new');
        const list = Array.isArray(cp) ? cp : cp.items;
        if (!Array.isArray(cp)) assert.equal([cp.type, cp.min_size, cp.max_size], ['array', 0, list.length]);
        assert.equal(
          list.map((e: Obj) => e.channel),
          profile === 'nvr' ? ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'IP_CH3', 'WIFI_CH1'] : ['CH1'],
        );
        for (const page of pagesOf(firmware)) {
          const range = await ok(c, `/API/${page}/Range`);
          assert.is(range.channel_info.type, 'object', page);
          await get(c, page);
        }
        const dev = await ok(c, '/API/Maintenance/DeveloperMode/Range');
        assert.is(dev.telnet_switch !== undefined, legacy);
        assert.is(dev.ssh_switch !== undefined, !legacy);
        assert.equal(dev[legacy ? 'telnet_switch' : 'ssh_switch'], { type: 'bool', mode: 'rw' });
        const devGet = await get(c, 'Maintenance/DeveloperMode');
        assert.type(devGet[legacy ? 'telnet_switch' : 'ssh_switch'], 'boolean');
        const ptz = await ok(c, '/API/AlarmConfig/PTZLinkage/Range');
        const idx = ptz.ptz_info.items[0].items.linkage_ptz_point_index;
        assert.is(idx.type, 'int32');
        assert.is(idx.min, 0);
        assert.is(idx.max, 255);
        if (legacy) assert.is(idx.items, undefined);
        else assert.is(idx.items, 'ff01' + '0'.repeat(60), 'None + presets 1-8, little-endian');
        const ptzGet = await get(c, 'AlarmConfig/PTZLinkage');
        assert.type(ptzGet.ptz_info[0].linkage_ptz_point_index, 'number');
        const es = await ok(c, '/API/Event/SettingConfig/Range', { channel: 'CH1', abilities: ['FaceDetection'] });
        assert.ok(es.channel_info.items.CH1);
        const token = await ok(c, '/API/Maintenance/SystemUpgrade/Token', upgradeBody());
        assert.type(token.upgrade_token, 'string');
      }));
  }
}

test('nvr: hardware per channel; offline and empty slots as vendor markers in Get, absent/status in Range', () =>
  withDevice({}, async (c) => {
    const detR = (await ok(c, '/API/AlarmConfig/Deterrence/Range')).channel_info.items;
    assert.equal(Object.keys(detR), ['CH1', 'CH2', 'CH4', 'IP_CH1', 'IP_CH2'], 'floodlight channels only; no empty slot');
    assert.equal(detR.IP_CH2.items, { status: { type: 'string', mode: 'r', items: ['Offline', 'Online'], default_value: 'Offline' } });
    assert.equal(detR.CH1.items.flood_light_mode.items, ['Warninglight', 'Strobe']);
    assert.equal(detR.CH1.items.strobe_frequency.items, ['Low', 'Middle', 'High']);
    assert.equal([detR.CH1.items.bright_time.min, detR.CH1.items.bright_time.max, detR.CH1.items.bright_time.default_value], [5, 180, 60]);
    assert.equal([detR.CH1.items.flood_light_value.min, detR.CH1.items.flood_light_value.max], [1, 100]);
    assert.equal([detR.CH1.items.sensitivity.min, detR.CH1.items.sensitivity.max], [1, 8]);
    assert.ok(detR.CH1.items.siren_switch && detR.CH1.items.enforcer_light_switch, 'CH1: siren and red/blue light');
    assert.ok(detR.CH2.items.siren_switch);
    assert.not.ok(detR.CH2.items.enforcer_light_switch, 'CH2 has no red/blue light');
    assert.not.ok(detR.CH4.items.siren_switch, 'CH4: floodlight only');
    // Vendor Range: only `status` is read-only; the UI members its Set sample sends are settable.
    assert.is(detR.CH1.items.flood_light_disable.mode, 'rw');
    assert.equal(detR.IP_CH2.items.status.mode, 'r');
    const det = (await get(c, 'AlarmConfig/Deterrence')).channel_info;
    assert.equal(det.CH3, { reason: 'Not support' });
    assert.equal(det.IP_CH2, { status: 'Offline', reason: 'Not support' });
    assert.equal(det.IP_CH3, { reason: 'Not configured' });
    assert.equal(det.CH4, {
      flood_light_switch: false,
      flood_light_mode: 'Warninglight',
      flood_light_value: 50,
      bright_time: 60,
      strobe_frequency: 'Middle',
      sensitivity: 4,
      param_video: { show: true, disable: false },
      flood_light_disable: false,
      warning_light_disable: false,
    });
    const vaR = await ok(c, '/API/AlarmConfig/VoiceAlarm/Range');
    assert.is(vaR.channel_max, 8);
    assert.equal(Object.keys(vaR.channel_info.items), ['CH1', 'CH2', 'CH3', 'IP_CH1', 'IP_CH2', 'WIFI_CH1'], 'siren channels only');
    const va = (await get(c, 'AlarmConfig/VoiceAlarm')).channel_info;
    assert.equal(va.CH4, { reason: 'Not support' });
    assert.equal(va.IP_CH2, { status: 'Offline', reason: 'Not support' });
    assert.equal(va.IP_CH3, { reason: 'Not configured' });
    assert.equal(va.CH1, { siren_switch: false, siren_time: 10, siren_value: 5, siren_type: 'Alarm1', siren_file_name: '' });
    const audio = (await get(c, 'DeviceConfig/Audio')).channel_info;
    assert.equal(audio.CH2, { reason: 'Not support' });
    assert.equal(audio.WIFI_CH1, { reason: 'Not support' });
    assert.is(audio.CH1.audio_enable, undefined, 'audio_enable present on some channels only');
    assert.is(audio.IP_CH1.audio_enable, true);
    const cc = await get(c, 'AlarmConfig/Intelligent/CC');
    assert.is(cc.page_type, 'AlarmConfig');
    assert.is(cc.channel_info.CH1.chn_index, 'CH1');
    assert.equal(cc.channel_info.CH2, { reason: 'Not support' });
    assert.is(cc.channel_info.CH1.voice_prompts_index.length, 12);
    const ms = (await get(c, 'StreamConfig/MainStream')).channel_info;
    assert.equal(ms.IP_CH2, { status: 'Offline', reason: 'Not support' });
    assert.equal(ms.IP_CH3, { reason: 'Not configured' });
    const ptz = await ok(c, '/API/AlarmConfig/PTZLinkage/Range');
    assert.ok(ptz.channel_info.items.CH1.items.pir, 'PIR linkage where the camera has PIR');
    assert.not.ok(ptz.channel_info.items.CH2.items.pir);
  }));

test('Range bounds and value lists follow the specification tables', () =>
  withDevice({ profile: 'ipc' }, async (c) => {
    const va = (await ok(c, '/API/AlarmConfig/VoiceAlarm/Range')).channel_info.items.CH1.items;
    assert.equal(va.siren_time, { type: 'int32', mode: 'rw', min: 5, max: 180, default_value: 10 });
    assert.equal(va.siren_value, { type: 'int32', mode: 'rw', min: 1, max: 10, default_value: 5 });
    assert.equal(va.siren_type.items, ['Alarm1', 'Alarm2', 'User-defined1', 'User-defined2', 'User-defined3']);
    assert.equal([va.siren_file_name.min_len, va.siren_file_name.max_len], [0, 127]);
    assert.equal([va.siren_file.min_len, va.siren_file.max_len], [0, 524288]);
    assert.equal([va.siren_file_type.min_len, va.siren_file_type.max_len], [0, 127]);
    assert.equal(va.siren_support_format, { type: 'array', mode: 'r', items: ['.wav', '.pcm'] });
    assert.is(va.siren_switch.type, 'bool');

    const dev = await ok(c, '/API/Maintenance/DeveloperMode/Range');
    assert.equal(dev.export_disk_switch.items, ['Shut Off', 'Output To Terminal', 'Output To Disk']);
    assert.equal(dev.export_days.items, ['all', '1', '2', '3', '4', '5']);
    const rs = dev.channel_info.items.CH1.items.remote_server.items;
    assert.is(rs.username.max_len, 63);
    assert.is(rs.password.max_len, 63);
    assert.is(rs.server_address.max_len, 127);
    assert.is(rs.password_empty.mode, 'r');
    assert.equal(dev.channel_info.items.CH1.items.log_collect_mode.items, ['NVR', 'SD_Card', 'FTP']);

    const ptz = await ok(c, '/API/AlarmConfig/PTZLinkage/Range');
    assert.equal([ptz.ptz_info.type, ptz.ptz_info.min_size, ptz.ptz_info.max_size], ['array', 0, 16]);
    const ch = ptz.channel_info.items.CH1.items;
    assert.equal([ch.ptz_info.min_size, ch.ptz_info.max_size], [0, 4]);
    assert.is(ch.pir.type, 'bool');

    const ms = (await ok(c, '/API/StreamConfig/MainStream/Range')).channel_info.items.CH1.items;
    assert.ok(ms.video_encode_level, 'IPC only field');
    assert.equal(ms.video_encode_level.items, ['Baseline', 'MainProfile', 'HighProfile']);
    assert.ok(ms.bitrate.items.includes(100000));
    assert.equal(ms.bitrate_control.items, ['CBR', 'VBR']);
    assert.equal(ms.video_quality.items, ['Lowest', 'Lower', 'Low', 'Medium', 'Higher', 'Highest']);

    const es = await ok(c, '/API/Event/SettingConfig/Range', { channel: 'CH1', ability: 'FaceDetection', oper_type: 'get_default_data' });
    assert.equal([es.statement_file_name.min_len, es.statement_file_name.max_len], [1, 48]);
    const face = es.channel_info.items.CH1.items;
    assert.equal(face.snap_frequency, { type: 'int32', mode: 'rw', min: 1, max: 255 });
    assert.equal(face.sensitivity, { type: 'int32', mode: 'r', min: 0, max: 100, default_value: 60 });
    assert.equal(face.roll_range, {
      type: 'int32',
      mode: 'r',
      min: 0,
      max: 180,
      default_value: 30,
      default_value_frontal: 30,
      default_value_multi: 180,
    });
    assert.equal(face.yaw_range.default_value_multi, 180);
    assert.equal(face.yaw_range.default_value_frontal, 45);
    assert.equal(face.min_pixel.default_value, 64);
    assert.equal(face.max_pixel.default_value, 640);
    const r1 = face.rule_info.items.rule_number1.items;
    assert.equal([r1.rule_rect.items.x8.max, r1.rule_rect.items.y8.max], [704, 576]);
    assert.equal([r1.rule_line.items.x2.max, r1.rule_line.items.y2.max], [704, 576]);
    assert.is(r1.rule_type.mode, 'r');
    assert.is(r1.point_num.size, 2);
    assert.not.ok('rule_line' in face.rule_info.items.rule_number2.items);
  }));

test('MainStream nvr Range meta values', () =>
  withDevice({}, async (c) => {
    const ms = await ok(c, '/API/StreamConfig/MainStream/Range');
    assert.is(ms.channel_max, 8);
    assert.is(ms.support_copy, true);
    assert.is(ms.analog_max, 4);
    assert.type(ms.bandwidth.total_bandwidth, 'number');
    assert.equal(ms.channel.length, 8);
    assert.ok(ms.channel_info.items.CH1.items.anr, 'anr on the first channel only');
    assert.not.ok(ms.channel_info.items.CH2.items.anr);
    assert.not.ok(ms.channel_info.items.CH1.items.video_encode_level, 'IPC-only field absent on NVR');
  }));

for (const profile of ['nvr', 'ipc'] as const) {
  test(`${profile}: every page's Get, sent back as its writable subset, is accepted and changes nothing`, () =>
    withDevice({ profile }, async (c) => {
      for (const page of PAGES) {
        const range = await ok(c, `/API/${page}/Range`);
        const before = await get(c, page);
        const data: Obj = {};
        for (const [k, v] of Object.entries(before)) {
          if (k === 'channel_info') {
            data.channel_info = {};
            for (const [ch, block] of Object.entries(v as Obj)) {
              const d = range.channel_info.items[ch];
              if (!d || 'reason' in block) continue;
              data.channel_info[ch] = writable(block, d.items);
            }
          } else if (isDesc(range[k]) && range[k].mode !== 'r') data[k] = v;
        }
        await ok(c, `/API/${page}/Set`, data);
        assert.equal(await get(c, page), before, page);
      }
    }));
}

test('valid Sets change the following Get', () =>
  withDevice({}, async (c, sim) => {
    await ok(c, '/API/AlarmConfig/VoiceAlarm/Set', {
      channel_info: { CH1: { siren_switch: true, siren_time: 180, siren_value: 1, siren_type: 'User-defined3' } },
    });
    assert.equal((await get(c, 'AlarmConfig/VoiceAlarm')).channel_info.CH1, {
      siren_switch: true,
      siren_time: 180,
      siren_value: 1,
      siren_type: 'User-defined3',
      siren_file_name: '',
    });
    assert.is((sim.state['AlarmConfig/VoiceAlarm'].channel_info as Obj).CH1.siren_time, 180, 'state exposed to tests');

    await ok(c, '/API/AlarmConfig/Deterrence/Set', {
      page_type: 'ChannelConfig',
      channel_info: {
        CH2: {
          flood_light_switch: true,
          bright_time: 5,
          flood_light_mode: 'Strobe',
          strobe_frequency: 'High',
          siren_time: 180,
          chn_index: 'CH2',
          page: 'chn_floodlight',
        },
      },
    });
    const det = (await get(c, 'AlarmConfig/Deterrence')).channel_info.CH2;
    assert.equal(
      [det.flood_light_switch, det.bright_time, det.flood_light_mode, det.strobe_frequency, det.siren_time],
      [true, 5, 'Strobe', 'High', 180],
    );
    assert.not.ok('chn_index' in det);
    assert.not.ok('page' in det);

    await ok(c, '/API/LinkageConfig/LinkageManage/Set', {
      enable: true,
      linkage_info: { linkage_siren: false, linkage_mobile_push: true },
      channel_info: { CH1: { enable: true, linkage_info: { linkage_floodlight: true } } },
    });
    let lm = await get(c, 'LinkageConfig/LinkageManage');
    assert.is(lm.enable, true);
    assert.is(lm.linkage_info.linkage_siren, false);
    assert.is(lm.linkage_info.linkage_mobile_push, true);
    assert.is(lm.linkage_info.linkage_floodlight, true, 'objects merge');
    assert.equal(lm.channel_info.CH1, {
      enable: true,
      linkage_info: {
        linkage_siren: false,
        linkage_floodlight: true,
        linkage_enforcerlight: false,
        linkage_alarmout: false,
        linkage_voiceprompt: false,
        linkage_mobile_push: false,
      },
    });

    // The spec sample puts channel_info beside version: accepted too.
    const beside = await c.post('/API/LinkageConfig/LinkageManage/Set', undefined, {
      body: JSON.stringify({ version: '1.0', data: { enable: false }, channel_info: { CH2: { enable: true } } }),
    });
    assert.is(beside.status, 200, beside.text);
    lm = await get(c, 'LinkageConfig/LinkageManage');
    assert.is(lm.enable, false);
    assert.is(lm.channel_info.CH2.enable, true);
    const badBeside = await c.post('/API/LinkageConfig/LinkageManage/Set', undefined, {
      body: JSON.stringify({ version: '1.0', data: {}, channel_info: { CH2: { enable: 'yes' } } }),
    });
    assert.is(badBeside.json.error_code, 'param_error', 'beside-version channel_info is checked too');

    await ok(c, '/API/StreamConfig/MainStream/Set', {
      channel_info: { IP_CH1: { resolution: '3840 x 2160', bitrate: 8192, fps: 30, copy_ch: 'digit' } },
    });
    const ms = (await get(c, 'StreamConfig/MainStream')).channel_info.IP_CH1;
    assert.equal([ms.resolution, ms.bitrate, ms.fps], ['3840 x 2160', 8192, 30]);
    assert.not.ok('copy_ch' in ms, 'copy_ch is an action, not stored');

    await ok(c, '/API/AlarmConfig/PTZLinkage/Set', { ptz_info: [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: 8 }] });
    assert.equal((await get(c, 'AlarmConfig/PTZLinkage')).ptz_info, [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: 8 }]);

    await ok(c, '/API/AlarmConfig/Disarming/Set', { disarming: true, action: { buzzer: true }, disarming_channel: ['CH1', 'IP_CH1'] });
    const dis = await get(c, 'AlarmConfig/Disarming');
    assert.equal([dis.disarming, dis.action.buzzer, dis.action.mobile_push, dis.disarming_channel], [true, true, false, ['CH1', 'IP_CH1']]);

    await ok(c, '/API/AlarmConfig/Intelligent/CC/Set', {
      page_type: 'AlarmConfig',
      channel_info: { CH1: { buzzer: '20', chn_index: 'CH1' } },
    });
    assert.is((await get(c, 'AlarmConfig/Intelligent/CC')).channel_info.CH1.buzzer, '20');

    await ok(c, '/API/DeviceConfig/Audio/Set', { channel_info: { IP_CH1: { in_volume: 0, out_volume: 100, audio_enable: false } } });
    const au = (await get(c, 'DeviceConfig/Audio')).channel_info.IP_CH1;
    assert.equal([au.in_volume, au.out_volume, au.audio_enable], [0, 100, false]);

    await ok(c, '/API/Maintenance/DeveloperMode/Set', { ssh_switch: true, channel_info: { IP_CH1: { log_collect_enable: true } } });
    const dm = await get(c, 'Maintenance/DeveloperMode');
    assert.is(dm.ssh_switch, true);
    assert.is(dm.channel_info.IP_CH1.log_collect_enable, true);
  }));

test('siren file: stored by Set, not echoed by Get', () =>
  withDevice({}, async (c, sim) => {
    const file = 'A'.repeat(524288);
    await ok(c, '/API/AlarmConfig/VoiceAlarm/Set', {
      channel_info: { CH1: { siren_file: file, siren_file_name: 'bark.wav', siren_file_type: '.wav' } },
    });
    const ch1 = (await get(c, 'AlarmConfig/VoiceAlarm')).channel_info.CH1;
    assert.is(ch1.siren_file_name, 'bark.wav');
    assert.not.ok('siren_file' in ch1);
    assert.is((sim.state['AlarmConfig/VoiceAlarm'].channel_info as Obj).CH1.siren_file.length, 524288);
  }));

test('developer mode (ipc): remote server password stored, never echoed; password_empty follows', () =>
  withDevice({ profile: 'ipc', firmware: '8.2.3' }, async (c) => {
    await ok(c, '/API/Maintenance/DeveloperMode/Set', {
      telnet_switch: true,
      channel_info: {
        CH1: {
          log_collect_mode: 'FTP',
          remote_server: { username: 'u'.repeat(63), password: 'ftp-Secret-9', server_address: 's'.repeat(127) },
        },
      },
    });
    const dm = await get(c, 'Maintenance/DeveloperMode');
    assert.is(dm.telnet_switch, true);
    assert.equal(dm.channel_info.CH1.remote_server, {
      username: 'u'.repeat(63),
      password: '',
      password_empty: false,
      server_address: 's'.repeat(127),
    });
    const ssh = await c.post('/API/Maintenance/DeveloperMode/Set', { ssh_switch: true });
    assert.is(ssh.json.error_code, 'param_error', 'ssh_switch is not on 8.2.3');
  }));

test('PTZ point index: hex form accepts only available presets; int form 0-255', async () => {
  await withDevice({ firmware: '8.2.4' }, async (c) => {
    await ok(c, '/API/AlarmConfig/PTZLinkage/Set', { ptz_info: [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: 0 }] });
    const bad = await c.post('/API/AlarmConfig/PTZLinkage/Set', { ptz_info: [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: 9 }] });
    assert.is(bad.json.error_code, 'param_error');
    assert.match(bad.json.reason, 'ptz_info.0.linkage_ptz_point_index');
  });
  await withDevice({ firmware: '8.2.3' }, async (c) => {
    await ok(c, '/API/AlarmConfig/PTZLinkage/Set', { ptz_info: [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: 200 }] });
    const bad = await c.post('/API/AlarmConfig/PTZLinkage/Set', { ptz_info: [{ ptz_chn: 'IP_CH1', linkage_ptz_point_index: 256 }] });
    assert.is(bad.json.error_code, 'param_error');
  });
});

test('ptzIndexForm overrides the firmware default (spec: hex from 8.2.3 itself)', () =>
  withDevice({ firmware: '8.2.3', ptzIndexForm: 'hex' }, async (c, sim) => {
    assert.is(sim.profile.ptzHex, true);
    const ptz = await ok(c, '/API/AlarmConfig/PTZLinkage/Range');
    assert.type(ptz.ptz_info.items[0].items.linkage_ptz_point_index.items, 'string');
    assert.ok((await ok(c, '/API/Maintenance/DeveloperMode/Range')).telnet_switch);
  }));

/** One rejected Set per check kind: 400 param_error, the reason names the path, and nothing changes. */
const REJECTS: Array<[string, string, Obj, string]> = [
  [
    'unknown field',
    'AlarmConfig/VoiceAlarm',
    { channel_info: { CH1: { siren_colour: 'red' } } },
    'channel_info.CH1.siren_colour: unsupported',
  ],
  ['unknown top-level field', 'LinkageConfig/LinkageManage', { armed: true }, 'armed: unsupported'],
  ['plain Range value is not settable', 'AlarmConfig/VoiceAlarm', { channel_max: 4 }, 'channel_max: not a settable'],
  [
    'read-only field changed',
    'Maintenance/DeveloperMode',
    { channel_info: { IP_CH1: { support_logcollection: false } } },
    'channel_info.IP_CH1.support_logcollection: read-only',
  ],
  [
    'read-only object',
    'StreamConfig/MainStream',
    { channel_info: { CH1: { bitrate_default: {} } } },
    'channel_info.CH1.bitrate_default: read-only',
  ],
  [
    'value not in list',
    'AlarmConfig/VoiceAlarm',
    { channel_info: { CH1: { siren_type: 'Alarm3' } } },
    'channel_info.CH1.siren_type: "Alarm3" is not one of',
  ],
  [
    'value not in the vendor list',
    'AlarmConfig/Deterrence',
    { channel_info: { CH1: { flood_light_mode: 'Smartlight' } } },
    'channel_info.CH1.flood_light_mode',
  ],
  [
    'hardware the channel lacks',
    'AlarmConfig/Deterrence',
    { channel_info: { CH4: { siren_switch: true } } },
    'channel_info.CH4.siren_switch: unsupported',
  ],
  ['empty slot', 'AlarmConfig/VoiceAlarm', { channel_info: { IP_CH3: { siren_switch: true } } }, 'channel_info.IP_CH3: unknown channel'],
  ['disarming channel not on the device', 'AlarmConfig/Disarming', { disarming_channel: ['IP_CH9'] }, 'disarming_channel.0'],
  [
    'disarming schedule shape',
    'AlarmConfig/Disarming',
    { channel_info: { CH1: { disarming_schedule: [{ schedule_type: 'Disarming', week: [] }] } } },
    'disarming_schedule.0.week: array size 0, must be exactly 7',
  ],
  [
    'int not in list',
    'StreamConfig/MainStream',
    { channel_info: { CH1: { bitrate: 1000 } } },
    'channel_info.CH1.bitrate: 1000 is not one of',
  ],
  [
    'below min',
    'AlarmConfig/VoiceAlarm',
    { channel_info: { CH1: { siren_time: 4 } } },
    'channel_info.CH1.siren_time: 4 is below the minimum 5',
  ],
  [
    'above max',
    'AlarmConfig/VoiceAlarm',
    { channel_info: { CH1: { siren_value: 11 } } },
    'channel_info.CH1.siren_value: 11 is above the maximum 10',
  ],
  [
    'wrong type (string for int)',
    'AlarmConfig/VoiceAlarm',
    { channel_info: { CH1: { siren_time: '10' } } },
    'channel_info.CH1.siren_time: wrong type',
  ],
  [
    'wrong type (float)',
    'AlarmConfig/Deterrence',
    { channel_info: { CH1: { bright_time: 10.5 } } },
    'channel_info.CH1.bright_time: wrong type',
  ],
  [
    'wrong type (int for bool)',
    'AlarmConfig/Deterrence',
    { channel_info: { CH1: { flood_light_switch: 1 } } },
    'channel_info.CH1.flood_light_switch: wrong type',
  ],
  ['wrong type (object)', 'LinkageConfig/LinkageManage', { linkage_info: true }, 'linkage_info: wrong type'],
  [
    'string too long',
    'AlarmConfig/VoiceAlarm',
    { channel_info: { CH1: { siren_file_name: 'x'.repeat(128) } } },
    'channel_info.CH1.siren_file_name: length 128 is above max_len 127',
  ],
  [
    'array too long',
    'AlarmConfig/PTZLinkage',
    { channel_info: { CH1: { ptz_info: [1, 2, 3, 4, 5].map(() => ({ ptz_switch: true })) } } },
    'channel_info.CH1.ptz_info: array size 5 is above max_size 4',
  ],
  [
    'array wrong size',
    'AlarmConfig/Intelligent/CC',
    { channel_info: { CH1: { voice_prompts_select: [0] } } },
    'channel_info.CH1.voice_prompts_select: array size 1, must be exactly 2',
  ],
  ['array element', 'AlarmConfig/PTZLinkage', { ptz_info: [{ ptz_chn: 'CH1', linkage_ptz_point_index: 0 }] }, 'ptz_info.0.ptz_chn'],
  [
    'nested object member',
    'LinkageConfig/LinkageManage',
    { linkage_info: { linkage_laser: true } },
    'linkage_info.linkage_laser: unsupported',
  ],
  [
    'channel member the channel lacks',
    'LinkageConfig/LinkageManage',
    { channel_info: { CH3: { linkage_info: { linkage_floodlight: true } } } },
    'channel_info.CH3.linkage_info.linkage_floodlight',
  ],
  ['unknown channel', 'AlarmConfig/VoiceAlarm', { channel_info: { CH9: { siren_switch: true } } }, 'channel_info.CH9: unknown channel'],
  [
    'channel absent from the page',
    'AlarmConfig/VoiceAlarm',
    { channel_info: { CH4: { siren_switch: true } } },
    'channel_info.CH4: unknown channel',
  ],
  [
    'offline channel',
    'AlarmConfig/VoiceAlarm',
    { channel_info: { IP_CH2: { siren_switch: true } } },
    'channel_info.IP_CH2.siren_switch: unsupported',
  ],
  [
    'wrong chn_index',
    'AlarmConfig/Deterrence',
    { channel_info: { CH1: { flood_light_switch: true, chn_index: 'CH2' } } },
    'channel_info.CH1.chn_index: must be "CH1"',
  ],
  [
    'wrong page_type',
    'AlarmConfig/Deterrence',
    { page_type: 'AlarmConfig', channel_info: { CH1: { flood_light_switch: true } } },
    'page_type: must be one of ChannelConfig',
  ],
  ['channel_info not an object', 'AlarmConfig/VoiceAlarm', { channel_info: [] }, 'channel_info: wrong type'],
];

for (const [name, page, data, reason] of REJECTS) {
  test(`Set rejected (${name}): 400 param_error naming the path; state unchanged`, () =>
    withDevice({}, async (c, sim) => {
      const before = JSON.stringify(sim.state[page]);
      const res = await c.post(`/API/${page}/Set`, data);
      assert.is(res.status, 400);
      assert.is(res.json.result, 'failed');
      assert.is(res.json.error_code, 'param_error');
      assert.equal(res.json.data, {});
      assert.ok(res.json.reason.includes(reason), `reason ${JSON.stringify(res.json.reason)} should contain ${JSON.stringify(reason)}`);
      assert.is(JSON.stringify(sim.state[page]), before);
    }));
}

test('Set: a valid and an invalid field together change nothing; every problem is listed', () =>
  withDevice({}, async (c, sim) => {
    const before = JSON.stringify(sim.state['AlarmConfig/VoiceAlarm']);
    const res = await c.post('/API/AlarmConfig/VoiceAlarm/Set', {
      channel_info: { CH1: { siren_switch: true, siren_time: 1, siren_value: 99 } },
    });
    assert.is(res.json.error_code, 'param_error');
    assert.match(res.json.reason, 'siren_time');
    assert.match(res.json.reason, 'siren_value');
    assert.is(JSON.stringify(sim.state['AlarmConfig/VoiceAlarm']), before);
  }));

test('string limits count UTF-8 bytes (spec: "max 63 bytes")', () =>
  withDevice({ profile: 'ipc' }, async (c) => {
    const res = await c.post('/API/Maintenance/DeveloperMode/Set', {
      channel_info: { CH1: { remote_server: { username: 'é'.repeat(32) } } },
    });
    assert.is(res.json.error_code, 'param_error');
    assert.match(res.json.reason, 'length 64 is above max_len 63');
  }));

test('Get with a wrong page_type is refused', () =>
  withDevice({}, async (c) => {
    const res = await c.post('/API/AlarmConfig/Deterrence/Get', { page_type: 'AlarmConfig' });
    assert.is(res.json.error_code, 'param_error');
  }));

function upgradeBody(over: Obj = {}): Obj {
  return {
    file_name: 'NVR_V8.2.4.bin',
    file_size: 50 << 20,
    upgrade_head: new Array(3072).fill(7),
    base_secondary_authentication: { seq: 1, cipher: 'abc=' },
    ...over,
  };
}

test('upgrade token: limits of spec 2.1', async () => {
  await withDevice({}, async (c) => {
    const t = await ok(c, '/API/Maintenance/SystemUpgrade/Token', upgradeBody({ file_name: 'n'.repeat(256), file_size: 100 << 20 }));
    assert.match(t.upgrade_token, /^[0-9a-f]{32}$/);
    assert.ok(t.upgrade_timeout >= 0 && t.upgrade_timeout <= 3600);
    const cases: Array<[Obj, string]> = [
      [{ file_name: 'n'.repeat(257) }, 'file_name'],
      [{ file_size: (100 << 20) + 1 }, 'file_size'],
      [{ file_size: -1 }, 'file_size'],
      [{ upgrade_head: new Array(3071).fill(0) }, 'upgrade_head: array size 3071'],
      [{ upgrade_head: [...new Array(3071).fill(0), 256] }, 'upgrade_head.3071'],
      [{ base_secondary_authentication: undefined }, 'base_secondary_authentication'],
      [{ base_secondary_authentication: { seq: 'x', cipher: 'y' } }, 'base_secondary_authentication.seq'],
      [{ extra: 1 }, 'extra: unsupported'],
    ];
    for (const [over, reason] of cases) {
      const res = await c.post('/API/Maintenance/SystemUpgrade/Token', upgradeBody(over));
      assert.is(res.status, 400, reason);
      assert.is(res.json.error_code, 'param_error');
      assert.match(res.json.reason, reason);
    }
  });
  await withDevice({ largeCapacity: true }, async (c) => {
    await ok(c, '/API/Maintenance/SystemUpgrade/Token', upgradeBody({ file_size: 200 << 20 }));
    const res = await c.post('/API/Maintenance/SystemUpgrade/Token', upgradeBody({ file_size: (200 << 20) + 1 }));
    assert.is(res.json.error_code, 'param_error');
  });
});

test('event settings Range: channel filter, abilities, errors', () =>
  withDevice({}, async (c) => {
    const all = await ok(c, '/API/Event/SettingConfig/Range', {});
    assert.equal(Object.keys(all.channel_info.items), ['CH1', 'IP_CH1']);
    assert.is(all.page_type, 'ChannelConfig');
    const other = await ok(c, '/API/Event/SettingConfig/Range', { channel: 'IP_CH1', abilities: ['LineCrossing'] });
    assert.equal(Object.keys(other.channel_info.items), ['IP_CH1']);
    assert.not.ok(other.channel_info.items.IP_CH1.items.face_angle);
    assert.is((await c.post('/API/Event/SettingConfig/Range', { abilities: ['Teleport'] })).json.error_code, 'param_error');
    assert.is((await c.post('/API/Event/SettingConfig/Range', { channel: 'CH2' })).json.error_code, 'no_support');
    assert.is((await c.post('/API/Event/SettingConfig/Range', { channel: 'CH99' })).json.error_code, 'param_error');
    assert.is((await c.post('/API/Event/SettingConfig/Range', { oper_type: 'reset' })).json.error_code, 'param_error');
  }));

test('setOnline: a digital channel goes offline and back; its settings survive', () =>
  withDevice({}, async (c, sim) => {
    await ok(c, '/API/AlarmConfig/VoiceAlarm/Set', { channel_info: { IP_CH1: { siren_value: 9 } } });
    sim.setOnline('IP_CH1', false);
    assert.equal((await get(c, 'AlarmConfig/VoiceAlarm')).channel_info.IP_CH1, { status: 'Offline', reason: 'Not support' });
    assert.equal(Object.keys((await ok(c, '/API/AlarmConfig/VoiceAlarm/Range')).channel_info.items.IP_CH1.items), ['status']);
    const ip5 = (await ok(c, '/API/Login/ChannelInfo/Get')).channel_param.items.find((e: Obj) => e.channel === 'IP_CH1');
    assert.equal([ip5.connect_status, ip5.videoloss, ip5.ability, ip5.intelligent_ability], ['Offline', true, [], []]);
    sim.setOnline('IP_CH1', true);
    sim.setOnline('IP_CH2', true);
    const va = (await get(c, 'AlarmConfig/VoiceAlarm')).channel_info;
    assert.is(va.IP_CH1.siren_value, 9);
    assert.is(va.IP_CH2.siren_time, 10);
    assert.ok((await ok(c, '/API/AlarmConfig/VoiceAlarm/Range')).channel_info.items.IP_CH2.items.siren_time);
    assert.throws(() => sim.setOnline('CH1', false), /not a configured IP_CH\/WIFI_CH/);
    assert.throws(() => sim.setOnline('IP_CH3', false), /not a configured IP_CH\/WIFI_CH/);
    sim.setOnline('WIFI_CH1', false);
    const wifi = (await ok(c, '/API/Login/ChannelInfo/Get')).channel_param.items.find((e: Obj) => e.channel === 'WIFI_CH1');
    assert.equal([wifi.connect_status, wifi.ability, wifi.wireless_ipc_type], ['Sleep', [], 1], 'a battery camera away is asleep');
    assert.throws(() => sim.setOnline('IP_CH9', false), /no channel/);
  }));

test('16-channel bench device: layout and feature holes repeat', () =>
  withDevice({ channels: 16 }, async (c, sim) => {
    assert.equal(sim.profile.channels, [
      'CH1',
      'CH2',
      'CH3',
      'CH4',
      'CH5',
      'CH6',
      'CH7',
      'CH8',
      'IP_CH1',
      'IP_CH2',
      'IP_CH3',
      'IP_CH4',
      'IP_CH5',
      'IP_CH6',
      'IP_CH7',
      'WIFI_CH1',
    ]);
    const info = await ok(c, '/API/SystemInfo/Base/Get');
    assert.is(info.device_type, 'N7516');
    assert.is((await ok(c, '/API/Login/DeviceInfo/Get')).channel_num, 16);
    const det = (await get(c, 'AlarmConfig/Deterrence')).channel_info;
    assert.equal(det.CH3, { reason: 'Not support' });
    assert.equal(det.IP_CH3, { reason: 'Not support' });
    assert.equal(det.IP_CH6, { status: 'Offline', reason: 'Not support' });
    assert.equal(det.CH7, { reason: 'Not configured' });
    assert.equal(det.IP_CH7, { reason: 'Not configured' });
    assert.ok(det.IP_CH1.flood_light_switch !== undefined, 'IP_CH1 repeats CH1');
  }));

test('ipc profile refuses more channels; bad firmware string refused', async () => {
  for (const opts of [{ profile: 'ipc' as const, channels: 2 }, { firmware: 'latest' }]) {
    const outcome = await startSimulator({ password: PASSWORD, ...opts }).then(
      async (sim) => {
        await sim.stop();
        return 'started';
      },
      (err: Error) => err.message,
    );
    assert.is.not(outcome, 'started', JSON.stringify(opts));
  }
});

test.run();
