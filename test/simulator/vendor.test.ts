/**
 * The requests a vendor-documented client sends (exact shapes of the vendor's pages), answered in the vendor's
 * answer shapes: channel list, device/system information, live light/siren, manual alarm, Disarming, snapshot, RTSP.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, SimulatorOptions, startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';

type Obj = Record<string, any>;
const LIVE = '/API/PreviewChannel/Floodlight2AudioAlarm';

async function withDevice(opts: Partial<SimulatorOptions>, fn: (c: RawClient, sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ password: PASSWORD, ...opts });
  try {
    const c = new RawClient(sim.url);
    assert.is((await c.login()).status, 200);
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

async function refused(c: RawClient, path: string, data: unknown, code: string, reason?: RegExp): Promise<void> {
  const res = await c.post(path, data);
  assert.equal([res.status, res.json.result, res.json.error_code], [400, 'failed', code], `${path}: ${res.text}`);
  if (reason) assert.match(res.json.reason, reason);
}

const test = suite('simulator vendor endpoints');

test('ChannelInfo: every slot in channel_param with the vendor members; abilities follow the hardware', () =>
  withDevice({}, async (c) => {
    const cp = (await ok(c, '/API/Login/ChannelInfo/Get')).channel_param;
    assert.equal([cp.type, cp.min_size, cp.max_size, cp.items.length], ['array', 0, 8, 8]);
    const by = Object.fromEntries(cp.items.map((e: Obj) => [e.channel, e]));
    for (const e of cp.items) {
      for (const k of [
        'channel',
        'connect_status',
        'channel_name',
        'channel_alias',
        'ability',
        'intelligent_ability',
        'alarm_in_num',
        'alarm_out_num',
        'videoloss',
      ]) {
        assert.ok(k in e, `${e.channel}.${k}`);
      }
    }
    assert.equal(by.CH1.ability, [
      'Mainstream',
      'Substream',
      'Mobilestream',
      'FloodLight',
      'AudioAlarm',
      'AlarmOutNum',
      'TalkHalf',
      'Color',
      'RedBlueLight',
      'Pir',
    ]);
    assert.equal(by.CH1.intelligent_ability, ['PVD', 'LCD', 'PID', 'FD', 'CrossCount']);
    assert.equal([by.CH1.alarm_in_num, by.CH1.alarm_out_num, by.CH1.videoloss, by.CH1.connect_status], [1, 1, false, 'Online']);
    assert.equal(
      by.CH2.ability.filter((a: string) => ['FloodLight', 'AudioAlarm', 'RedBlueLight', 'Pir'].includes(a)),
      ['FloodLight', 'AudioAlarm'],
    );
    assert.equal(by.IP_CH2, {
      channel: 'IP_CH2',
      connect_status: 'Offline',
      channel_name: 'Camera6',
      channel_alias: 'IP_CH2',
      ability: [],
      intelligent_ability: [],
      alarm_in_num: 0,
      alarm_out_num: 0,
      videoloss: true,
    });
    assert.equal(by.IP_CH3, {
      channel: 'IP_CH3',
      connect_status: 'NotConfigured',
      channel_name: '',
      channel_alias: '',
      ability: [],
      intelligent_ability: [],
      alarm_in_num: 0,
      alarm_out_num: 0,
      videoloss: true,
    });
    assert.ok(by.IP_CH1.ability.includes('Ptz'));
    assert.is(by.WIFI_CH1.wireless_ipc_type, 1, 'battery camera');
    assert.ok(by.WIFI_CH1.ability.includes('Pir'));
  }));

test('channelParamForm: array (vendor table form) by option', () =>
  withDevice({ channelParamForm: 'array' }, async (c) => {
    const cp = (await ok(c, '/API/Login/ChannelInfo/Get')).channel_param;
    assert.ok(Array.isArray(cp));
    assert.is(cp[0].channel, 'CH1');
  }));

test('DeviceInfo: dev_type a raw u64 beyond 2^53, dash MAC; SystemInfo serialNum and dash mac_address', () =>
  withDevice({}, async (c) => {
    const res = await c.post('/API/Login/DeviceInfo/Get', {});
    const raw = /"dev_type":(\d+)/.exec(res.text)?.[1];
    assert.ok(raw, 'dev_type is a JSON number');
    assert.ok(BigInt(raw) > BigInt(Number.MAX_SAFE_INTEGER), 'beyond 2^53: JSON.parse would lose digits');
    const d = res.json.data;
    assert.match(d.mac_addr, /^([0-9A-F]{2}-){5}[0-9A-F]{2}$/);
    assert.equal([d.device_type, d.channel_num, d.analog_channel_num, d.support_disarming], ['N7508', 8, 4, true]);
    const sys = await ok(c, '/API/SystemInfo/Base/Get');
    assert.is(sys.mac_address, d.mac_addr);
    assert.match(sys.serialNum, /^SIM[0-9A-F]{12}$/);
    assert.is(sys.serial_number, undefined, 'the vendor calls it serialNum');
  }));

test('live page: Get lists only the hardware; Set with operation_type changes that part only, announced as Floodlight_AudioAlarm', () =>
  withDevice({}, async (c, sim) => {
    // The vendor's Get request (PTZ Get parameters: channel, command_flag).
    const ch1 = await ok(c, `${LIVE}/Get`, { channel: 'CH1', command_flag: false });
    assert.equal(ch1, {
      channel: 'CH1',
      floodlight_switch: false,
      floodlight_mode: 0,
      floodlight_value: 50,
      floodlight_value_range: { type: 'int32', min: 1, max: 100 },
      floodlight_strobe_frequency: 1,
      audioAlarm_switch: false,
      audioAlarm_value: 5,
      audioAlarm_value_range: { type: 'int32', min: 1, max: 10 },
      audioAlarm_value_adjustable: true,
      redBlueLight_switch: false,
    });
    const ch3 = await ok(c, `${LIVE}/Get`, { channel: 'CH3', command_flag: false });
    assert.equal(
      Object.keys(ch3),
      ['channel', 'audioAlarm_switch', 'audioAlarm_value', 'audioAlarm_value_range', 'audioAlarm_value_adjustable'],
      'siren only',
    );
    const ch4 = await ok(c, `${LIVE}/Get`, { channel: 'CH4' });
    assert.not.ok('audioAlarm_switch' in ch4 || 'redBlueLight_switch' in ch4, 'floodlight only');
    assert.is((await ok(c, `${LIVE}/Get`, { channel: 'WIFI_CH1' })).audioAlarm_value_adjustable, false);

    const sub = await ok(c, '/API/Event/Check', { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }] } });
    // The vendor's Set: the Get object sent back with the change and operation_type.
    await ok(c, `${LIVE}/Set`, {
      ...ch1,
      floodlight_switch: true,
      floodlight_value: 90,
      audioAlarm_switch: true,
      operation_type: 'Floodlight',
    });
    const live = sim.state['PreviewChannel/Floodlight2AudioAlarm'].channel_info!.CH1;
    assert.equal(
      [live.floodlight_switch, live.floodlight_value, live.audioAlarm_switch],
      [true, 90, false],
      'only the Floodlight part changed',
    );
    await ok(c, `${LIVE}/Set`, { channel: 'CH1', audioAlarm_switch: true, audioAlarm_value: 10, operation_type: 'AudioAlarm' });
    await ok(c, `${LIVE}/Set`, { channel: 'CH1', redBlueLight_switch: true, operation_type: 'RedBlueLight' });
    assert.equal([live.audioAlarm_switch, live.audioAlarm_value, live.redBlueLight_switch], [true, 10, true]);
    const ev = await ok(c, '/API/Event/Check', { reader_id: sub.reader_id, sequence: sub.sequence, lap_number: sub.lap_number });
    assert.equal(
      ev.alarm_list.map((i: Obj) => i.channel_alarm[0].Floodlight_AudioAlarm),
      [
        {
          floodlight_switch: true,
          flood_light_value: 90,
          floodlight_value_range: { type: 'int32', min: 1, max: 100 },
          audioAlarm_switch: false,
          audioAlarm_value: 5,
          audioAlarm_value_range: { type: 'int32', min: 1, max: 10 },
        },
        {
          floodlight_switch: true,
          flood_light_value: 90,
          floodlight_value_range: { type: 'int32', min: 1, max: 100 },
          audioAlarm_switch: true,
          audioAlarm_value: 10,
          audioAlarm_value_range: { type: 'int32', min: 1, max: 10 },
        },
        {
          floodlight_switch: true,
          flood_light_value: 90,
          floodlight_value_range: { type: 'int32', min: 1, max: 100 },
          audioAlarm_switch: true,
          audioAlarm_value: 10,
          audioAlarm_value_range: { type: 'int32', min: 1, max: 10 },
        },
      ],
    );
  }));

test('live page: bad requests are refused with the path named and nothing changes', () =>
  withDevice({}, async (c, sim) => {
    const before = JSON.stringify(sim.state['PreviewChannel/Floodlight2AudioAlarm']);
    await refused(
      c,
      `${LIVE}/Set`,
      { channel: 'CH1', floodlight_value: 101, operation_type: 'Floodlight' },
      'param_error',
      /floodlight_value: 101 is out of range 1-100/,
    );
    await refused(
      c,
      `${LIVE}/Set`,
      { channel: 'CH1', floodlight_switch: 'on', operation_type: 'Floodlight' },
      'param_error',
      /floodlight_switch: wrong type/,
    );
    await refused(c, `${LIVE}/Set`, { channel: 'CH1', floodlight_switch: true }, 'param_error', /operation_type/);
    await refused(
      c,
      `${LIVE}/Set`,
      { channel: 'CH3', floodlight_switch: true, operation_type: 'All' },
      'param_error',
      /CH3 has no Floodlight/,
    );
    await refused(
      c,
      `${LIVE}/Set`,
      { channel: 'CH2', redBlueLight_switch: true, operation_type: 'RedBlueLight' },
      'param_error',
      /CH2 has no RedBlueLight/,
    );
    await refused(
      c,
      `${LIVE}/Set`,
      { channel: 'WIFI_CH1', audioAlarm_value: 9, operation_type: 'AudioAlarm' },
      'param_error',
      /fixed volume/,
    );
    await refused(
      c,
      `${LIVE}/Set`,
      { channel: 'CH1', laser_switch: true, operation_type: 'All' },
      'param_error',
      /laser_switch: unsupported/,
    );
    await refused(c, `${LIVE}/Get`, { channel: 'IP_CH2' }, 'no_support', /offline/);
    await refused(c, `${LIVE}/Get`, { channel: 'IP_CH3' }, 'no_support');
    await refused(c, `${LIVE}/Get`, { channel: 'CH99' }, 'param_error');
    assert.is(JSON.stringify(sim.state['PreviewChannel/Floodlight2AudioAlarm']), before);
    assert.throws(() => sim.setLive('CH3', { floodlight_switch: true }), /CH3 has no Floodlight/);
  }));

test('ManualAlarm: recorder outputs and camera outputs; Set changes only the named ones', () =>
  withDevice({}, async (c, sim) => {
    assert.equal(await ok(c, '/API/PreviewChannel/ManualAlarm/Get', {}), { 'Local->1': false, 'Local->2': false, 'IP_CH1->1': false });
    await ok(c, '/API/PreviewChannel/ManualAlarm/Set', { 'Local->1': true });
    assert.equal(await ok(c, '/API/PreviewChannel/ManualAlarm/Get', {}), { 'Local->1': true, 'Local->2': false, 'IP_CH1->1': false });
    await refused(c, '/API/PreviewChannel/ManualAlarm/Set', { 'Local->9': true }, 'param_error', /Local->9: unknown alarm output/);
    await refused(c, '/API/PreviewChannel/ManualAlarm/Set', { 'Local->2': 1 }, 'param_error', /wrong type/);
    sim.setOnline('IP_CH1', false);
    assert.equal(
      Object.keys(await ok(c, '/API/PreviewChannel/ManualAlarm/Get', {})),
      ['Local->1', 'Local->2'],
      'an offline camera has no outputs',
    );
  }));

test('Disarming and LinkageManage can each be switched off (404 not_found), so both fall-backs are testable', async () => {
  await withDevice({ disarming: false }, async (c) => {
    const res = await c.post('/API/AlarmConfig/Disarming/Get', {});
    assert.equal([res.status, res.json.error_code], [404, 'not_found']);
    assert.is((await ok(c, '/API/Login/DeviceInfo/Get')).support_disarming, false);
    await ok(c, '/API/LinkageConfig/LinkageManage/Get');
  });
  await withDevice({ linkageManage: false }, async (c) => {
    assert.is((await c.post('/API/LinkageConfig/LinkageManage/Range', {})).status, 404);
    const range = await ok(c, '/API/AlarmConfig/Disarming/Range');
    assert.equal(range.action.items.buzzer, { type: 'bool', mode: 'rw' });
    // Range: every channel the device supports (vendor sample: all 16 of a 16-channel device), empty slots too.
    assert.equal(range.disarming_channel.items[0].items, ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'IP_CH3', 'WIFI_CH1']);
    const get = await ok(c, '/API/AlarmConfig/Disarming/Get', {});
    assert.is(get.disarming, false);
    assert.is(get.channel_info.CH1.disarming_schedule[0].week.length, 7);
    // Vendor Get: schedules of some channels, no `{reason}` markers for offline channels or empty slots.
    assert.equal(Object.keys(get.channel_info), ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'WIFI_CH1']);
  });
  await withDevice({ firmware: '8.2.3' }, async (c) => {
    assert.is((await c.post('/API/AlarmConfig/Disarming/Get', {})).status, 404, 'old firmware: no Disarming by default');
  });
});

test('Snapshot: Range lists online channels; Get answers a base64 JPEG', () =>
  withDevice({}, async (c) => {
    const range = await ok(c, '/API/Snapshot/Range', { reset_session_timeout: false });
    assert.is(range.channel_info.type, 'array');
    assert.equal(
      range.channel_info.items.map((e: Obj) => e.channel),
      ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'WIFI_CH1'],
    );
    assert.equal(range.channel_info.items[0].snapshot_resolution.items, ['1280x720', '640x480', '320x240']);
    const snap = await ok(c, '/API/Snapshot/Get', { channel: 'CH1', snapshot_resolution: '640x480', reset_session_timeout: false });
    assert.equal([snap.img_encodes, snap.img_format, typeof snap.img_time], ['base64', 'image/jpeg', 'number']);
    const jpeg = Buffer.from(snap.img_data, 'base64');
    assert.is(jpeg.subarray(0, 2).toString('hex'), 'ffd8');
    assert.is(jpeg.subarray(-2).toString('hex'), 'ffd9');
    // The Get page's own sample spells it with spaces.
    const spaced = await ok(c, '/API/Snapshot/Get', { channel: 'CH1', snapshot_resolution: '1280 x 720', reset_session_timeout: false });
    assert.is(spaced.img_format, 'image/jpeg');
    await refused(c, '/API/Snapshot/Get', { channel: 'CH1', snapshot_resolution: '4000x3000' }, 'param_error', /snapshot_resolution/);
    await refused(c, '/API/Snapshot/Get', { channel: 'CH1', snapshot_resolution: '4000 x 3000' }, 'param_error', /snapshot_resolution/);
    await refused(c, '/API/Snapshot/Get', { channel: 'IP_CH2' }, 'no_support');
  }));

test('StreamUrl: channel_info array of rtsp URLs; channel filter; old firmware spells mobile_stream_url', async () => {
  await withDevice({}, async (c, sim) => {
    const all = (await ok(c, '/API/Preview/StreamUrl/Get', {})).channel_info;
    assert.equal(
      all.map((e: Obj) => e.channel),
      ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'WIFI_CH1'],
    );
    assert.equal(all[4], {
      channel: 'IP_CH1',
      // The vendor sample: the web port, and the digital channel numbered after the analog ones (IP_CH1 -> 5).
      mainstream_url: `rtsp://127.0.0.1:${sim.port}/rtsp/streaming?channel=5&subtype=0`,
      substream_url: `rtsp://127.0.0.1:${sim.port}/rtsp/streaming?channel=5&subtype=1`,
      mobilestream_url: `rtsp://127.0.0.1:${sim.port}/rtsp/streaming?channel=5&subtype=2`,
    });
    const one = (await ok(c, '/API/Preview/StreamUrl/Get', { channel: ['CH2'] })).channel_info;
    assert.equal(
      one.map((e: Obj) => e.channel),
      ['CH2'],
    );
    await refused(c, '/API/Preview/StreamUrl/Get', { channel: 'CH2' }, 'param_error');
  });
  await withDevice({ firmware: '8.2.3' }, async (c) => {
    const [first] = (await ok(c, '/API/Preview/StreamUrl/Get', {})).channel_info;
    assert.ok(first.mobile_stream_url && !first.mobilestream_url);
  });
  // Slot numbering names the same slot IP_CH5; its stream channel is the same slot number.
  await withDevice({ channelNumbering: 'slot' }, async (c) => {
    const all = (await ok(c, '/API/Preview/StreamUrl/Get', {})).channel_info;
    assert.equal(
      all.map((e: Obj) => e.channel),
      ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH5', 'IP_CH6', 'WIFI_CH8'],
    );
    assert.match(all[4].mainstream_url, /channel=5&subtype=0$/);
  });
  // Vendor sample: IP_CH1 is stream channel 17 after 16 analog ones.
  await withDevice({ channels: 20, analog: 16 }, async (c) => {
    const ip1 = (await ok(c, '/API/Preview/StreamUrl/Get', { channel: ['IP_CH1'] })).channel_info[0];
    assert.match(ip1.mainstream_url, /channel=17&subtype=0$/);
  });
});

test('Motion / PIR / IO Range: a channel supports the alarm iff the page lists it; page_type required for Motion and PIR', () =>
  withDevice({}, async (c) => {
    await refused(c, '/API/AlarmConfig/Motion/Range', {}, 'param_error', /page_type: required/);
    const motion = await ok(c, '/API/AlarmConfig/Motion/Range', { page_type: 'AlarmConfig' });
    assert.equal(Object.keys(motion.channel_info.items), ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'WIFI_CH1']);
    assert.equal(Object.keys(motion.channel_info.items.IP_CH2.items), ['status'], 'offline: status only');
    const m1 = motion.channel_info.items.CH1.items;
    assert.ok(m1.light_linkage && m1.siren_linkage && m1.enforcerlight_linkage && m1.target_type);
    assert.not.ok(motion.channel_info.items.CH4.items.siren_linkage, 'CH4 has no siren');
    assert.equal([m1.sensitivity.min, m1.sensitivity.max], [1, 8]);
    for (const path of ['/API/AlarmConfig/PIR/Range', '/API/AlarmConfig/Intelligent/PIR/Range']) {
      const pir = await ok(c, path, { page_type: 'ChannelConfig' });
      assert.equal(Object.keys(pir.channel_info.items), ['CH1', 'IP_CH1', 'WIFI_CH1'], `${path}: PIR cameras only`);
    }
    const io = await ok(c, '/API/AlarmConfig/IO/Range', {});
    assert.equal(Object.keys(io.channel_info.items), ['Local<-1', 'Local<-2', 'Local<-3', 'Local<-4', 'IP_CH1<-1']);
    assert.equal(io.channel_info.items['Local<-1'].items.alarm_type.items, ['NormallyOpen', 'NormallyClose', 'Off']);
  }));

test('the request log counts each endpoint call', () =>
  withDevice({}, async (c, sim) => {
    sim.clearLog();
    await ok(c, `${LIVE}/Get`, { channel: 'CH1' });
    await ok(c, `${LIVE}/Set`, { channel: 'CH1', floodlight_switch: true, operation_type: 'Floodlight' });
    await ok(c, `${LIVE}/Get`, { channel: 'CH1' });
    assert.equal(
      sim.log.map((e) => [e.path, e.status]),
      [
        [`${LIVE}/Get`, 200],
        [`${LIVE}/Set`, 200],
        [`${LIVE}/Get`, 200],
      ],
    );
    assert.equal(sim.log[1].data, { channel: 'CH1', floodlight_switch: true, operation_type: 'Floodlight' });
  }));

test('ipc profile: one camera with all hardware; no recorder-only outputs', () =>
  withDevice({ profile: 'ipc' }, async (c) => {
    const cp = (await ok(c, '/API/Login/ChannelInfo/Get')).channel_param.items;
    assert.is(cp.length, 1);
    assert.ok(['FloodLight', 'AudioAlarm', 'RedBlueLight', 'Pir'].every((a) => cp[0].ability.includes(a)));
    assert.equal(await ok(c, '/API/PreviewChannel/ManualAlarm/Get', {}), { 'Local->1': false });
  }));

test.run();
