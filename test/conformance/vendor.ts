/**
 * Recorded answers in the exact shapes of the vendor's reference ("HTTP API Protocol For IP Media Device"), with
 * our own values. Each constant names the vendor page it copies. Not a test file.
 */

/** Login > ChannelInfo > Get, table 2 member set; `channel_param` wrapped as in the vendor's sample. */
export const channelParamItems = [
  {
    channel: 'CH1',
    connect_status: 'Online',
    channel_name: 'Driveway',
    channel_alias: 'CH1',
    ability: ['Mainstream', 'Substream', 'Mobilestream', 'FloodLight', 'AudioAlarm', 'Pir', 'TalkFull', 'Color'],
    intelligent_ability: ['PVD', 'LCD', 'PID'],
    alarm_in_num: 1,
    alarm_out_num: 1,
    videoloss: false,
  },
  {
    channel: 'CH2',
    connect_status: 'Online',
    channel_name: 'Garden',
    channel_alias: 'CH2',
    ability: ['Mainstream', 'Substream', 'Ptz', 'AudioAlarm', 'RedBlueLight', 'Cover'],
    intelligent_ability: ['CrossCount', 'HeatMap', 'SOD', 'FD'],
    alarm_in_num: 0,
    alarm_out_num: 0,
    videoloss: false,
  },
  {
    channel: 'CH3',
    connect_status: 'FailConnectNetwork',
    channel_name: 'Camera3',
    channel_alias: 'CH3',
    ability: [],
    intelligent_ability: [],
    alarm_in_num: 0,
    alarm_out_num: 0,
    videoloss: true,
  },
  {
    channel: 'CH4',
    connect_status: 'NotConfigured',
    channel_name: '',
    channel_alias: '',
    ability: [],
    intelligent_ability: [],
    alarm_in_num: 0,
    alarm_out_num: 0,
    videoloss: true,
  },
  {
    channel: 'IP_CH1',
    connect_status: 'Offline',
    channel_name: 'Porch',
    channel_alias: 'IP_CH1',
    ability: [],
    intelligent_ability: [],
    alarm_in_num: 0,
    alarm_out_num: 0,
    videoloss: true,
  },
  {
    channel: 'WIFI_CH1',
    connect_status: 'Sleep',
    channel_name: 'Shed',
    channel_alias: 'WIFI_CH1',
    ability: [],
    intelligent_ability: [],
    alarm_in_num: 0,
    alarm_out_num: 0,
    videoloss: true,
    wireless_ipc_type: 1,
  },
  {
    channel: 'WIFI_CH2',
    connect_status: 'NotPaired',
    channel_name: '',
    channel_alias: '',
    ability: [],
    intelligent_ability: [],
    alarm_in_num: 0,
    alarm_out_num: 0,
    videoloss: true,
  },
];
export const channelInfoWrapped = { channel_param: { type: 'array', min_size: 0, max_size: 16, items: channelParamItems } };
export const channelInfoArray = { channel_param: channelParamItems };

/** SystemInfo > Base > Get (member set of the vendor's table; `serialNum` only on some builds). */
export const systemInfo = {
  device_id: '1',
  device_name: 'Recorder',
  device_type: 'N7516',
  hardware_version: 'DM-448',
  software_version: 'V8.2.3-20221014',
  build_time: 'Oct 14 2022',
  ie_client_version: 'V1.0.0',
  mcu_software_version: '',
  video_format: 'PAL',
  hdd_volume: '2TB',
  ip_address: '192.168.1.20',
  ipv6_address: '',
  web: '80,80',
  client: '9000,9000',
  mac_address: '88-26-1D-AA-8E-E0',
  wireless_mac: '',
  p2p_id: 'RSV123456789',
  p2p_switch: true,
  network_state: 'Connected',
  serialNum: 'B18ABCDEF0123',
  language: 'English',
  iot_id: '',
};

/** Login > DeviceInfo > Get: raw text, since `dev_type` is a u64 beyond 2^53 (JSON.stringify cannot write it). */
export const DEV_TYPE = '18446744073709551557';
export const deviceInfoText =
  `{"result":"success","data":{"device_type":"N7516","dev_type":${DEV_TYPE},"channel_num":16,` +
  `"analog_channel_num":0,"sys_channel_num":16,"local_alarmin_num":4,"local_alarmout_num":1,"mac_addr":"88-26-1D-AA-8E-E0",` +
  `"local_ip":"192.168.1.20","ptz_support":true,"support_flood_light":true,"support_siren_audio":true,"support_disarming":true,` +
  `"client_logout_time":"5m","upgrade_file_max_size":100,"pushinfo_type":{"type":"string","items":["Motion"]}}}`;

/** PreviewChannel > Floodlight2AudioAlarm > Get: a channel with floodlight and siren (all table members). */
export const liveFull = {
  channel: 'CH1',
  floodlight_switch: false,
  floodlight_mode: 0,
  floodlight_value: 50,
  floodlight_value_range: { type: 'int32', min: 10, max: 90 },
  floodlight_strobe_frequency: 1,
  audioAlarm_switch: false,
  audioAlarm_value: 5,
  audioAlarm_value_range: { type: 'int32', min: 1, max: 10 },
  audioAlarm_value_adjustable: true,
};
/** The vendor's sample answer: siren and red/blue light only (no floodlight members). */
export const liveSirenOnly = {
  channel: 'CH2',
  redBlueLight_switch: false,
  audioAlarm_switch: false,
  audioAlarm_value: 5,
  audioAlarm_value_range: { type: 'int32', min: 1, max: 10 },
  audioAlarm_value_adjustable: true,
};

/** PreviewChannel > ManualAlarm > Get. */
export const manualAlarm = { 'Local->1': false, 'IP_CH1->1': false, 'IP_CH12->1': true };

const int = (min: number, max: number, extra: Record<string, unknown> = {}) => ({ type: 'int32', min, max, ...extra });

/** AlarmConfig > Deterrence > Range / Get (vendor field table). */
export const deterrenceRange = {
  channel_max: 2,
  channel_info: {
    type: 'object',
    items: {
      CH1: {
        type: 'object',
        items: {
          flood_light_switch: { type: 'bool' },
          flood_light_mode: { type: 'string', items: ['Warninglight', 'Strobe'] },
          flood_light_value: int(1, 100),
          bright_time: int(5, 180, { default_value: 60 }),
          strobe_frequency: { type: 'string', items: ['Low', 'Middle', 'High'] },
          siren_switch: { type: 'bool' },
          siren_value: int(1, 10),
          siren_time: int(5, 180),
          flood_light_disable: { type: 'bool', mode: 'r' },
          warning_light_disable: { type: 'bool', mode: 'r' },
        },
      },
    },
  },
};
export const deterrenceGet = {
  page_type: 'ChannelConfig',
  channel_info: {
    CH1: {
      flood_light_switch: true,
      flood_light_mode: 'Warninglight',
      flood_light_value: 80,
      bright_time: 60,
      strobe_frequency: 'Middle',
      siren_switch: false,
      siren_value: 5,
      siren_time: 10,
      flood_light_disable: false,
      warning_light_disable: false,
      param_video: { show: true, disable: false },
    },
    CH2: { reason: 'Not configured' },
  },
};

/** AlarmConfig > VoiceAlarm > Range / Get. CH1 holds siren_time 300, outside its own Range (a stale value). */
export const voiceAlarmRange = {
  channel_max: 3,
  channel_info: {
    type: 'object',
    items: {
      CH1: {
        type: 'object',
        items: {
          siren_switch: { type: 'bool' },
          siren_time: int(5, 180, { default_value: 10 }),
          siren_value: int(1, 10, { default_value: 5 }),
          siren_type: { type: 'string', items: ['Alarm1', 'Alarm2', 'User-defined1'] },
          siren_file_name: { type: 'string', min_len: 0, max_len: 127 },
          siren_support_format: { type: 'array', mode: 'r', items: ['.wav', '.pcm'] },
        },
      },
    },
  },
};
export const voiceAlarmGet = {
  channel_info: {
    CH1: {
      siren_switch: true,
      siren_time: 300,
      siren_value: 5,
      siren_mode: 'Fixed_Volume',
      siren_type: 'Alarm1',
      siren_type_content: { Alarm1: {}, 'User-defined1': { delete_button: true, siren_file_name: 'bark.wav', siren_file: '' } },
      siren_file_name: '',
    },
    IP_CH1: { status: 'Offline', reason: 'Not support' },
    CH3: { reason: 'Not configured' },
  },
};

/** AlarmConfig > Disarming > Range: the vendor's sample (array element shapes without `type`). */
const week = {
  type: 'array',
  size: 7,
  items: [
    {
      day: { type: 'string', items: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] },
      time: { type: 'array', size: 48, items: [{ type: 'int32', items: [0, 1] }] },
    },
  ],
};
const schedule = { type: 'array', min_size: 0, max_size: 2, items: [{ schedule_type: { type: 'string', items: ['Disarming'] }, week }] };
export const disarmingRange = {
  support_copy: true,
  disarming: { type: 'bool' },
  action: {
    type: 'object',
    items: Object.fromEntries(
      ['buzzer', 'alarm_out', 'show_message', 'send_email', 'full_screen', 'voice_prompts', 'event_push_platform', 'mobile_push'].map(
        (k) => [k, { type: 'bool' }],
      ),
    ),
  },
  disarming_channel: { type: 'array', min_size: 0, max_size: 2, items: { type: 'string', items: ['CH1', 'CH2'] } },
  channel_info: {
    type: 'object',
    items: {
      CH1: { type: 'object', items: { disarming_schedule: schedule } },
      CH2: { type: 'object', items: { disarming_schedule: schedule } },
    },
  },
};
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
export const nightSchedule = () => [
  {
    schedule_type: 'Disarming',
    week: DAYS.map((day) => ({ day, time: Array.from({ length: 48 }, (_, i): number => (i < 14 ? 1 : 0)) })),
  },
];
export const disarmingGet = () => ({
  disarming: false,
  action: {
    buzzer: true,
    alarm_out: true,
    show_message: false,
    send_email: false,
    full_screen: false,
    voice_prompts: true,
    event_push_platform: false,
    mobile_push: true,
  },
  disarming_channel: ['CH1'],
  channel_info: { CH1: { disarming_schedule: nightSchedule() }, CH2: { disarming_schedule: [] } },
});

/** Snapshot > Get: the table's spelling and the sample's (`ima_*`, time as digits). */
export const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]);
export const snapshotTable = { img_time: 1732352400, img_encodes: 'base64', img_format: 'image/jpeg', img_data: JPEG.toString('base64') };
export const snapshotSample = {
  ima_time: '1732352400',
  img_encodes: 'base64',
  img_format: 'image/jpeg',
  ima_data: JPEG.toString('base64'),
};

/** Preview > StreamUrl > Get: the vendor's sample shape (`mobile_stream_url` on one entry, none on the other). */
export const streamUrls = {
  channel_info: [
    {
      channel: 'CH1',
      mainstream_url: 'rtsp://192.168.1.20:554/rtsp/streaming?channel=1&subtype=0',
      substream_url: 'rtsp://192.168.1.20:554/rtsp/streaming?channel=1&subtype=1',
    },
    {
      channel: 'IP_CH1',
      mainstream_url: 'rtsp://192.168.1.20:554/rtsp/streaming?channel=17&subtype=0',
      substream_url: 'rtsp://192.168.1.20:554/rtsp/streaming?channel=17&subtype=1',
      mobile_stream_url: 'rtsp://192.168.1.20:554/rtsp/streaming?channel=17&subtype=2',
    },
    {
      channel: 'CH2',
      mainstream_url: 'rtsp://192.168.1.20:554/a',
      substream_url: 'rtsp://192.168.1.20:554/b',
      mobilestream_url: 'rtsp://192.168.1.20:554/c',
    },
  ],
};

/**
 * The vendor's REQUEST samples of every page the simulator serves, as the pages write them ("HTTP API Protocol For
 * IP Media Device"; C1.3 = the newer mdBook set). Each names its page, the device it addresses (simulator options
 * beyond the default 8-channel NVR) and what the page says the device answers. Where a sample names a channel the
 * simulator lays out differently, `channelAs` names the simulator's channel with the same hardware.
 */
export interface RequestSample {
  /** The vendor page, as its title reads. */
  page: string;
  path: string;
  data: Record<string, unknown>;
  /** Simulator options of the device the sample addresses. */
  device?: { profile?: 'nvr' | 'ipc'; channels?: number; analog?: number };
  channelAs?: Readonly<Record<string, string>>;
  /** The page's own verdict when it is not success: the error code and the member named. */
  refused?: { error_code: string; reason: RegExp; why: string };
  /** What differs from the page's text, and why. */
  note?: string;
}

const DVR16 = { channels: 16, analog: 16 };
const all16 = Array.from({ length: 16 }, (_, i) => `CH${i + 1}`);
/** The C1.3 Disarming Set sample: 47 half-hours a day (its Range and Get say 48), accepted as the page says. */
const halfHours47 = () => ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].map((day) => ({ day, time: new Array<number>(47).fill(1) }));

/** The exposure set of the Image Control Set sample (Daylight and Night alike). */
const imageSet = () => ({
  back_light: 'Close',
  denoising: 'Auto',
  denoising_level: 128,
  gain: 64,
  white_balance: 'Auto',
  red_tuning: 44,
  green_tuning: 27,
  blue_tuning: 54,
  exposure_mode: 'Auto',
  shutter_limit: '1/8',
});

export const REQUEST_SAMPLES: readonly RequestSample[] = [
  { page: 'Login (oem_type)', path: '/API/Web/Login', data: { oem_type: 114 } },
  { page: 'Login > Heartbeat', path: '/API/Login/Heartbeat', data: { keep_alive: true } },
  { page: 'System > Channel Information > Get (vendor-facts c)', path: '/API/Login/ChannelInfo/Get', data: {} },
  { page: 'Login > DeviceInfo > Get (vendor-facts c)', path: '/API/Login/DeviceInfo/Get', data: {} },
  { page: 'System > System Information > Get (vendor-facts c)', path: '/API/SystemInfo/Base/Get', data: {} },
  { page: 'System > Record Information > Get (vendor-facts-next 1.1)', path: '/API/SystemInfo/Record/Get', data: {} },
  {
    page: 'Record > Month Search > Get (vendor-facts-next 1.1)',
    path: '/API/Playback/SearchMonth/Get',
    data: { channel: [], stream_type: 'Substream', start_date: '05/31/2023', search_type: 'Record' },
  },
  {
    page: 'Record > Search Record > Search (vendor-facts-next 1.2)',
    path: '/API/Playback/SearchRecord/Search',
    data: {
      channel: ['CH1'],
      start_date: '06/28/2023',
      start_time: '00:00:00',
      end_date: '06/28/2023',
      end_time: '23:59:59',
      record_type: 4294967295,
      smart_region: [],
      enable_smart_search: 0,
      record_type_ex: [4294967295],
      stream_mode: 'Substream',
    },
  },
  {
    page: 'Event > Check',
    path: '/API/Event/Check',
    data: {
      plus_eventchk: 'eventAiPushPic',
      ext_data: { subscribe_type: [{ event: ['all'] }] },
      reader_id: 1,
      sequence: 9595,
      lap_number: null,
    },
    note: "reader_id and sequence are the sample's cursor: the test takes them from the device's subscribe answer",
  },
  {
    page: 'PreviewChannel > Floodlight2AudioAlarm > Get',
    path: '/API/PreviewChannel/Floodlight2AudioAlarm/Get',
    data: { channel: 'IP_CH4', command_flag: false },
    device: { channels: 16 },
    note: "the sample's trailing comma is not JSON: sent as the object it writes",
  },
  {
    page: 'PreviewChannel > Floodlight2AudioAlarm > Set',
    path: '/API/PreviewChannel/Floodlight2AudioAlarm/Set',
    data: {
      channel: 'CH8',
      redBlueLight_switch: true,
      audioAlarm_switch: false,
      audioAlarm_value: 5,
      audioAlarm_value_range: { type: 'int32', min: 1, max: 10 },
      audioAlarm_value_adjustable: true,
      operation_type: 'RedBlueLight',
    },
    channelAs: { CH8: 'CH1' },
    note: 'CH8 of the sample has a red/blue light and a siren: CH1 here',
  },
  { page: 'PreviewChannel > ManualAlarm > Get (vendor-facts e)', path: '/API/PreviewChannel/ManualAlarm/Get', data: {} },
  {
    page: 'PreviewChannel > ManualAlarm > Set',
    path: '/API/PreviewChannel/ManualAlarm/Set',
    data: { 'Local->1': true, 'Local->2': true, 'IP_CH1->1': true },
  },
  {
    page: 'PreviewChannel > PTZ > Get',
    path: '/API/PreviewChannel/PTZ/Get',
    data: { channel: 'CH1', disable_ManualHumanTrace: false, current_cruise_mode: 'Mode_Default_Cruise', zoom_step: 5, focus_step: 5 },
    channelAs: { CH1: 'IP_CH1' },
    note: 'the PTZ camera of the default NVR is IP_CH1',
  },
  {
    page: 'PreviewChannel > PTZ > Control (sample 1, refresh)',
    path: '/API/PreviewChannel/PTZ/Control',
    data: { channel: 'CH2', cmd: 'Ptz_Btn_Refresh', speed: 50, zoom_step: 5, zoom_slider: 1, focus_step: 1, focus_slider: 180 },
    channelAs: { CH2: 'IP_CH1' },
    note: 'speed 50 is a DVR/NVR speed (0-100): sent to the NVR, whose PTZ camera is IP_CH1',
  },
  {
    page: 'PreviewChannel > PTZ > Control (sample 2, focus+ released)',
    path: '/API/PreviewChannel/PTZ/Control',
    data: {
      channel: 'CH2',
      cmd: 'Ptz_Cmd_FocusAdd',
      state: 'Stop',
      speed: 50,
      zoom_step: 5,
      zoom_slider: 2,
      focus_step: 1,
      focus_slider: 126,
    },
    channelAs: { CH2: 'IP_CH1' },
  },
  {
    page: 'PreviewChannel > PTZ > Control (sample 3, auto focus)',
    path: '/API/PreviewChannel/PTZ/Control',
    data: { channel: 'CH2', cmd: 'Ptz_Btn_AutoFocus', speed: 50, zoom_step: 5, zoom_slider: 2, focus_step: 1, focus_slider: 127 },
    channelAs: { CH2: 'IP_CH1' },
  },
  {
    page: 'PreviewChannel > PTZ > Control > Progress',
    path: '/API/PreviewChannel/PTZ/Control/Progress',
    data: { channel: 'CH1' },
    device: { profile: 'ipc' },
    note: 'sent to the IPC, whose one channel CH1 has PTZ',
  },
  { page: 'Alarm > Disarming > Range', path: '/API/AlarmConfig/Disarming/Range', data: {} },
  { page: 'Alarm > Disarming > Get (C1.3)', path: '/API/AlarmConfig/Disarming/Get', data: {} },
  {
    page: 'Alarm > Disarming > Set (C1.3)',
    path: '/API/AlarmConfig/Disarming/Set',
    device: DVR16,
    data: {
      disarming: false,
      action: {
        buzzer: false,
        alarm_out: false,
        show_message: true,
        send_email: true,
        full_screen: false,
        voice_prompts: false,
        event_push_platform: false,
        mobile_push: false,
      },
      disarming_channel: all16,
      channel_info: { CH1: { disarming_schedule: [{ schedule_type: 'Disarming', week: halfHours47() }] } },
      schedule_chn_index: 'CH1',
      chn_index: 'CH1',
      selectedChn: 'CH1',
      schedule: {
        data: [Array.from({ length: 7 }, () => new Array<number>(47).fill(1))],
        colors: ['#50A037'],
        words: ['Disarming'],
        titlewords: ['Disarming'],
        cells: { width: '20px', height: '20px' },
        weeks: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
        radio: -1,
        defaultSelType: { default: 0 },
      },
    },
  },
  { page: 'Snapshot > Range (vendor-facts g)', path: '/API/Snapshot/Range', data: { reset_session_timeout: false } },
  {
    page: 'Snapshot > Get (vendor-facts g)',
    path: '/API/Snapshot/Get',
    data: { channel: 'CH1', snapshot_resolution: '1280 x 720', reset_session_timeout: false },
  },
  { page: 'Stream > Rtsp Url > Get', path: '/API/Preview/StreamUrl/Get', data: {} },
  { page: 'Alarm > Motion > Range (vendor-facts f)', path: '/API/AlarmConfig/Motion/Range', data: { page_type: 'AlarmConfig' } },
  { page: 'Alarm > PIR > Range (vendor-facts f)', path: '/API/AlarmConfig/Intelligent/PIR/Range', data: { page_type: 'AlarmConfig' } },
  { page: 'Alarm > IO > Range (vendor-facts f)', path: '/API/AlarmConfig/IO/Range', data: {} },
  { page: 'Alarm > Motion > Get (C1.3)', path: '/API/AlarmConfig/Motion/Get', data: { page_type: 'AlarmConfig' } },
  {
    page: 'Alarm > Motion > Set (C1.3)',
    path: '/API/AlarmConfig/Motion/Set',
    data: {
      channel_info: {
        CH1: {
          alarm_out: [],
          latch_time: '10',
          record_enable: true,
          record_channel: ['CH1'],
          http_listening: false,
          post_recording: '30',
          show_message: true,
          send_email: false,
          copy_ch: 'all',
          chn_index: 'CH1',
        },
      },
      page_type: 'AlarmConfig',
    },
    note: 'the linkage members the simulator serves (vendor-facts-more l); the sample\'s buzzer "0", ftp_*, *_to_cloud, full_screen and voice_prompts_* are left out',
  },
  { page: 'Alarm > PIR > Get (C1.3)', path: '/API/AlarmConfig/PIR/Get', data: { page_type: 'AlarmConfig' } },
  {
    page: 'Alarm > PIR > Set (C1.3)',
    path: '/API/AlarmConfig/PIR/Set',
    data: {
      channel_info: { CH4: { switch: true, sensitivity: 5, light_linkage: false }, CH18: { switch: true, sensitivity: 5 } },
      page_type: 'AlarmConfig',
    },
    channelAs: { CH4: 'CH1', CH18: 'IP_CH1' },
    note: 'two channels in one call as the sample sends them, with the detection members of the PIR Get sample (region_setting, mbrow, mbcol left out)',
  },
  { page: 'Login > TransKey > Get', path: '/API/Login/TransKey/Get', data: { type: ['base_salt', 'base_x_public'] } },
  { page: 'Maintenance > TransKey > Get', path: '/API/Maintenance/TransKey/Get', data: { type: ['base_salt', 'base_x_public'] } },
  {
    page: 'Maintenance > Reboot > Set',
    path: '/API/Maintenance/DeviceReboot/Set',
    data: { cipher: '0bjEvTI4Lr8jsytAHx8bSXPNk7cuvIFYGCQjIUH2S/sVPnNQO', seq: 0 },
    refused: {
      error_code: 'current_pwd_error',
      reason: /secondary authentication failed/,
      why: "the flat shape is taken; the sample's cipher and seq were built from another device's salt (test/simulator/reboot.test.ts sends both shapes with a valid cipher)",
    },
  },
  { page: 'IPCMaintenance > Reboot > Range', path: '/API/IPCMaintaint/IPCReboot/Range', data: {} },
  { page: 'IPCMaintenance > Reboot > Get', path: '/API/IPCMaintaint/IPCReboot/Get', data: {} },
  {
    page: 'IPCMaintenance > Reboot > Set (C1.3)',
    path: '/API/IPCMaintaint/IPCReboot/Set',
    data: {
      password: '1111qqqq',
      channel_info: { CH1: { reboot_switch: true } },
      base_secondary_authentication: { seq: 1, cipher: 'r8zCQd+EQpuhKY2bKSZhEK/mkpeEzTRVlgDwiepew8k=' },
    },
    channelAs: { CH1: 'IP_CH1' },
    refused: {
      error_code: 'current_pwd_error',
      reason: /secondary authentication failed/,
      why: "the shape is taken (the sample's request line names IPCReset: sent to the reboot page it documents); its cipher and password are another device's",
    },
  },
  { page: 'Storage > Disk > Range', path: '/API/StorageConfig/Disk/Range', data: {} },
  { page: 'Storage > Disk > Get', path: '/API/StorageConfig/Disk/Get', data: {} },
  {
    page: 'Storage > Disk > Set',
    path: '/API/StorageConfig/Disk/Set',
    data: { ...diskGetSample(), diskArr: [] },
    note: "the Get sample sent back with the UI's diskArr (vendor-facts-more j); the simulator's NVR holds the sample's disk",
  },
  { page: 'Channel > Image Control > Range', path: '/API/ChannelConfig/ImageControl/Range', data: {} },
  { page: 'Channel > Image Control > Get', path: '/API/ChannelConfig/ImageControl/Get', data: {} },
  {
    page: 'Channel > Image Control > Set',
    path: '/API/ChannelConfig/ImageControl/Set',
    data: {
      channel_info: {
        CH3: {
          support_default: true,
          ir_cut_mode: 'ImageMode',
          image_sensitivity: 1,
          ir_led: 'Auto',
          mirror_mode: 'Close',
          corridor_mode: 'Close',
          angle_rotation: '0',
          Daylight: imageSet(),
          wdr_hide_ai_area: false,
          Night: imageSet(),
          camera_param_mode: 'Daylight',
          chn_index: 'CH3',
          page: 'chn_imgCtrl',
        },
      },
    },
  },
  { page: 'Record > Record Configuration > Range', path: '/API/RecordConfig/Range', data: {} },
  { page: 'Record > Record Configuration > Get', path: '/API/RecordConfig/Get', data: {} },
  {
    page: 'Record > Record Configuration > Set',
    path: '/API/RecordConfig/Set',
    device: DVR16,
    data: {
      channel_info: Object.fromEntries(
        all16
          .filter((ch) => ch !== 'CH7' && ch !== 'CH15')
          .map((ch, i) => [
            ch,
            {
              record_switch: true,
              stream_mode: 'DualStream',
              prerecord: true,
              ...(i === 0 ? { anr: false } : {}),
              copy_ch: 'all',
              ...(i === 0 || i === 2 ? { chn_index: ch } : {}),
            },
          ]),
      ),
    },
    note: "CH1 alone carries anr; CH1 and CH3 alone carry chn_index (as in the sample); CH7 and CH15 are left out: the simulator's pattern makes them empty slots",
  },
  { page: 'Alarm > Flood-light > Range', path: '/API/AlarmConfig/Deterrence/Range', data: {} },
  { page: 'Alarm > Flood-light > Get (vendor-facts f)', path: '/API/AlarmConfig/Deterrence/Get', data: { page_type: 'ChannelConfig' } },
  {
    page: 'Alarm > Flood-light > Set',
    path: '/API/AlarmConfig/Deterrence/Set',
    data: {
      channel_info: {
        CH1: {
          flood_light_switch: true,
          bright_time: 60,
          flood_light_mode: 'Warninglight',
          strobe_frequency: 'Middle',
          param_video: { show: false, disable: true },
          flood_light_disable: false,
          warning_light_disable: false,
          chn_index: 'CH1',
          page: 'chn_floodlight',
        },
      },
      page_type: 'ChannelConfig',
    },
    note: 'the sample shows the path …/Deterrence/Get; sent to …/Set, the page it documents',
  },
  { page: 'Alarm > Voice Alarm > Range (vendor-facts f)', path: '/API/AlarmConfig/VoiceAlarm/Range', data: {} },
  { page: 'Alarm > Voice Alarm > Get (vendor-facts f)', path: '/API/AlarmConfig/VoiceAlarm/Get', data: {} },
  {
    page: 'Alarm > Voice Alarm > Set',
    path: '/API/AlarmConfig/VoiceAlarm/Set',
    data: { channel_info: { CH1: { siren_switch: true, siren_time: 62, siren_value: 62, siren_type: 'Alarm1' } } },
    refused: {
      error_code: 'param_error',
      reason: /channel_info\.CH1\.siren_value: 62 is above the maximum 10/,
      why: "the page's own Range and table give siren_value 1-10; the sample's 62 is outside it (vendor-facts f: ignore)",
    },
  },
  {
    page: 'Alarm > Voice Prompts > Range',
    path: '/API/AlarmConfig/VoicePrompts/Range',
    data: { control_type: 'Normal' },
    note: "the sample's request line says /VoicePrompts/Get (a copy slip, vendor-facts-next 3.1); the next entry sends it there",
  },
  { page: 'Alarm > Voice Prompts > Range (its request line)', path: '/API/AlarmConfig/VoicePrompts/Get', data: { control_type: 'Normal' } },
  {
    page: 'Alarm > Voice Prompts > Get',
    path: '/API/AlarmConfig/VoicePrompts/Get',
    data: { command: 'GetAudioFilesList ' },
    note: "the sample's trailing comma makes it invalid JSON; sent without it (its trailing space kept)",
  },
  {
    page: 'Alarm > Voice Prompts > Set (Sample 1, delete audio file)',
    path: '/API/AlarmConfig/VoicePrompts/Set',
    data: { control_type: 'Normal', command: 'Remove', download_mode: 'mp3', index: 45 },
  },
  {
    page: 'Alarm > Voice Prompts > Set (Sample 2, import audio files)',
    path: '/API/AlarmConfig/VoicePrompts/Set',
    data: {
      fileIndex: 0,
      fileName: 'CC.mp3',
      chunkSize: 1,
      chunkIndex: 0,
      data: '//MoxAAM+F...qqqqqqqqq',
      control_type: 'Normal',
      command: 'Upload',
      convert_mode: 'File',
      download_mode: 'mp3',
      file_count: 1,
      packet_index: 0,
      package_size: 10560,
      file_name: 'CC.mp3',
      file_data: Buffer.alloc(10560, 0xaa).toString('base64'),
    },
    note: "the sample elides file_data ('//MoxAq...qqqqqqq'): sent as the 10560 bytes its package_size says; the browser's duplicate members kept as written",
  },
  {
    page: 'Alarm > Voice Prompts > Set (Sample 3, server switch)',
    path: '/API/AlarmConfig/VoicePrompts/Set',
    data: {
      control_type: 'Normal',
      command: 'Upload',
      convert_mode: 'NetworkText',
      download_mode: 'mp3',
      language: 'ENGLISH',
      text: 'test',
      file_name: 'name',
    },
  },
  {
    page: 'Alarm > Voice Prompts > Set (Sample 4, audition audio)',
    path: '/API/AlarmConfig/VoicePrompts/Set',
    data: { control_type: 'Normal', command: 'Transform', download_mode: 'mp3', index: 46 },
  },
  { page: 'Extended > IPCVoicePrompts > Get (files)', path: '/API/Extended/IPCVoicePrompts/Get', data: { command: 'GetAudioFilesList' } },
  { page: 'Extended > IPCVoicePrompts > Get (index)', path: '/API/Extended/IPCVoicePrompts/Get', data: { command: 'GetAudioIndex' } },
  {
    page: 'Extended > IPCVoicePrompts > Set (configure audio index)',
    path: '/API/Extended/IPCVoicePrompts/Set',
    data: { command: 'ConfigureAudioIndex', channel_info: { IP_CH1: { audio_index: 2 }, IP_CH2: { audio_index: 3 } } },
  },
  ...(['PlayAudio', 'StopPlaying'] as const).map((command): RequestSample => ({
    page: `Extended > IPCVoicePrompts > Set (${command})`,
    path: '/API/Extended/IPCVoicePrompts/Set',
    data: { command, channel: ['CH1', 'CH2'] },
    device: { channels: 16, analog: 8 },
    channelAs: { CH2: 'CH3' },
    note: "the sample's CH1, CH2 are IP cameras (the table: IP_CH names); the simulator's IP_CH2 is offline, its IP_CH3 an online camera with a speaker",
  })),
  { page: 'IPCMaintaint > IPCUpgrade > Range', path: '/API/IPCMaintaint/IPCUpgrade/Range', data: {} },
  { page: 'IPCMaintaint > IPCUpgrade > Get', path: '/API/IPCMaintaint/IPCUpgrade/Get', data: {} },
  { page: 'Maintenance > FtpUpgrade > Check', path: '/API/Maintenance/FtpUpgrade/Check', data: {} },
  { page: 'Maintenance > FtpUpgrade > Progress', path: '/API/Maintenance/FtpUpgrade/Progress', data: {} },
  {
    page: 'Maintenance > FtpUpgrade > Upgrade',
    path: '/API/Maintenance/FtpUpgrade/Upgrade',
    data: {},
    refused: {
      error_code: 'no_need_upgrade',
      reason: /No newer firmware found/,
      why: 'the sample alone, with no Check before it that found a newer version: nothing to install (Upgrade group of the common codes)',
    },
  },
  {
    page: 'Maintenance > SystemUpgrade > Upgrade',
    path: '/API/Maintenance/SystemUpgrade/Upgrade',
    data: {},
    refused: {
      error_code: 'token_invalid',
      reason: /Upgrade token invalid or missing/,
      why: 'the body is the file ("File data"); the sample sends an envelope without asking for a token first (SystemUpgrade/Token)',
    },
  },
];

/** Channel > Image Control > Get (vendor sample, offline channels shortened to two): CH14 legacy, CH15 full colour. */
export const imageControlGet = {
  channel_info: {
    CH13: { status: 'Offline' },
    CH14: {
      support_default: true,
      ir_cut_mode: 'AutoMode',
      start_time: '00:00',
      end_time: '00:00',
      ir_cut_delay: 2,
      ir_led: 'Auto',
      mirror_mode: 'Close',
      angle_rotation: '0',
      Daylight: {
        back_light: 'Close',
        denoising: 'Auto',
        denoising_level: 128,
        gain: 64,
        white_balance: 'Auto',
        red_tuning: 44,
        green_tuning: 27,
        blue_tuning: 54,
        exposure_mode: 'Auto',
        shutter_limit: '1/8',
        defog_mode: 'Disable',
        defogging_level: 128,
      },
      wdr_hide_ai_area: false,
    },
    CH15: {
      support_default: true,
      mirror_mode: 'Close',
      corridor_mode: 'Close',
      angle_rotation: '0',
      Daylight: { back_light: 'Close', exposure_mode: 'Auto', iris_max: 100, iris_min: 0, shutter_max: '1/5', shutter_min: '1/20000' },
      wdr_hide_ai_area: false,
      image_setting: 'FullColorMode',
      FullColorMode: { white_light: 'Auto', image_sensitivity: 1 },
    },
    CH16: { status: 'Offline' },
  },
};

/** Storage > Disk > Get (vendor sample). */
export const diskGet = diskGetSample();
function diskGetSample() {
  return {
    disk_info: [
      {
        id: 1,
        display_id: 1,
        model: 'TOSHIBA MQ01ABD050V',
        serial_no: 'Z68ES299S',
        firmware: 'AX0U1Q',
        device_type: 'Normal',
        status: 'Full',
        total_size: 476940,
        free_size: 0,
        total_time: 724487,
        free_time: 0,
        format_enable: true,
        delete_enable: false,
        disk_type: 'ReadAndWriteDisk',
      },
    ],
    NasMaxCount: 1,
    over_write: 'Auto',
    hdd_format_type: 'AllHddData',
    support_format: true,
  };
}

/**
 * PreviewChannel > PTZ > Get, response sample: every member as the page writes it (255 slots `point N`, none stored,
 * no capability member); slots 1 and 4 stored here, 4 without a name, to show a camera with presets.
 */
export const ptzGetSample = (stored: Readonly<Record<number, string>> = {}) => ({
  channel: 'CH1',
  preset_point: new Array<number>(255).fill(0),
  belt_times_use: 0,
  preset_point_obj: Array.from({ length: 255 }, (_, i) => ({
    no: i + 1,
    name: stored[i + 1] ?? `point ${i + 1}`,
    add: stored[i + 1] !== undefined,
  })),
  watch_mode_time: 20,
  watch_mode_mode: 'Mode_Default_Cruise',
  watch_mode_num: 0,
  line_scan_area: false,
  line_scan_speed: 'low',
  trace_interval: 20,
  trace_number: 0,
  trace_preset_point: [[], [], [], []],
  pattern_scan_number_isset: [true, false, false, false],
  pattern_scan_number: 0,
  current_cruise_mode: 'No_Cruise',
});
