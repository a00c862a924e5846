/**
 * Range responses, one declarative description per page, following the specification's tables (bounds and
 * value lists as given there). Pages the specification shows no Range for (Deterrence, LinkageManage, Audio,
 * Intelligent/CC) get one shaped like the others. Range data depends only on the profile and on which channels
 * are online, so it is built once per (profile, online set) and shared.
 */
import type { ChannelSpec, Profile } from './profiles';
import { RangeMap, arr, bool, int, intOf, list, obj, ro, text } from './descriptors';
import { DAYS } from './days';
import type { RangePage } from './page-def';

export const COPY_CH = ['digit', 'analog', 'wifi', 'local', 'all'];
const RESOLUTIONS_ANALOG = ['320 x 240', '640 x 480', '1280x720', '1280x960', '1920x1080'];
const RESOLUTIONS_IP = ['1280x720', '1920x1080', '2304x1296', '2592x1520', '2592 x 1944', '3072 x 1728', '3840 x 2160'];
const RESOLUTIONS_IPC = ['1280x720', '1920x1080', '2592x1520', '3840 x 2160'];
const ENCODE_TYPES = ['H.264', 'H.265', 'H.264+', 'H.265+'];
const QUALITY = ['Lowest', 'Lower', 'Low', 'Medium', 'Higher', 'Highest'];
const BITRATES = [
  8, 16, 24, 32, 48, 64, 80, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048, 3072, 4096, 5120,
  6144, 7168, 8192, 10240, 12288, 16384, 100000,
];
const ETR_SYNC = [
  'etr_resolution',
  'etr_video_encode_type',
  'etr_bitrate_control',
  'etr_video_quality',
  'etr_audio',
  'etr_i_frame_interval',
];
export const LINKAGE_KEYS = [
  'linkage_siren',
  'linkage_floodlight',
  'linkage_enforcerlight',
  'linkage_alarmout',
  'linkage_ptz',
  'linkage_voiceprompt',
  'linkage_mobile_push',
] as const;
const AI_ALARMS = [
  'linkage_pid',
  'linkage_lcd',
  'linkage_sod',
  'linkage_pd',
  'linkage_fd',
  'linkage_cc',
  'linkage_intrusion',
  'linkage_region_entrance',
  'linkage_region_exiting',
];
export const FACE_ABILITIES = [
  'FaceDetection',
  'HumanVehicle',
  'LicensePlate',
  'LineCrossing',
  'Intrusion',
  'ExitRegion',
  'ObjectDetection',
  'CrossCounting',
  'QueueLength',
  'CrowdDensity',
  'RareSound',
  'MotionDetection',
  'VideoTampering',
  'HumanDetection',
  'ParcelDetection',
  'WanderDetection',
];

/** Presets available on a PTZ camera: None (bit 0) and presets 1-8, 256-bit little-endian hex (spec 2.3). */
const PTZ_PRESETS = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const PTZ_PRESETS_HEX = (() => {
  const bytes = Buffer.alloc(32);
  for (const i of PTZ_PRESETS) bytes[i >> 3] |= 1 << (i & 7);
  return bytes.toString('hex');
})();

const nvr = (p: Profile) => p.name === 'nvr';
const copy = (p: Profile): RangeMap => (nvr(p) ? { copy_ch: list(COPY_CH) } : {});
const channelMax = (p: Profile) => ({ channel_max: p.channels.length });

function mainStreamChannel(ch: ChannelSpec, p: Profile): RangeMap {
  const resolutions = p.name === 'ipc' ? RESOLUTIONS_IPC : ch.kind === 'analog' ? RESOLUTIONS_ANALOG : RESOLUTIONS_IP;
  const encode = p.name === 'ipc' ? [...ENCODE_TYPES, 'MJPEG'] : ENCODE_TYPES;
  const m: RangeMap = {
    resolution: list(resolutions),
    fps: int(1, 30),
    video_encode_type: list(encode),
    bitrate_control: list(['CBR', 'VBR']),
    video_quality: list(QUALITY),
    bitrate_mode: list(['Predefined', 'UserDefined']),
    bitrate: intOf(BITRATES),
    bitrate_default: ro(
      obj({
        '1280 * 720': { '25': { default_value: 2048 }, '30': { default_value: 2048 } },
        '1920 * 1080': { '25': { default_value: 4096 }, '30': { default_value: 4096 } },
      }),
    ),
    custom_bitrate: int(8, 16384),
    audio: bool(),
    i_frame_interval: int(1, 150),
    record_switch: bool(),
    stream_mode: list(['Mainstream', 'DualStream']),
    prerecord: bool(),
  };
  if (p.name === 'ipc') {
    m.video_encode_level = list(['Baseline', 'MainProfile', 'HighProfile']);
    m.enable_stream = bool();
    return m;
  }
  if (ch.index === 1) m.anr = bool(); // first channel only
  if (ch.kind === 'analog') m.resolution_mode = ro(list(['SUPPORT_8W']));
  else m.rtsp_enable = ro(bool());
  Object.assign(
    m,
    {
      etr: bool(),
      etr_resolution: list(resolutions),
      etr_fps: int(1, 30),
      etr_bitrate: intOf(BITRATES),
      etr_stream_type: list(['Alarm']),
      etr_video_encode_type: list(encode),
      etr_bitrate_control: list(['CBR', 'VBR']),
      etr_video_quality: list(QUALITY),
      etr_bitrate_mode: list(['Predefined', 'UserDefined']),
      etr_audio: bool(),
    },
    copy(p),
  );
  return m;
}

function ptzLinkageChannel(ch: ChannelSpec, p: Profile): RangeMap {
  const pir = ch.pir;
  const alarms = ['motion', ...(pir ? ['pir'] : []), 'io', 'ptz_motion', ...(ch.intelligent ? AI_ALARMS : [])];
  return {
    switch: bool(),
    motion: bool(),
    ...(pir ? { pir: bool() } : {}),
    io: bool(),
    ptz_info: arr(obj({ ptz_switch: bool() }), { min_size: 0, max_size: 4 }),
    all_alarm: obj(Object.fromEntries(alarms.map((k) => [k, bool()]))),
    ...copy(p),
  };
}

function crossCountingChannel(_ch: ChannelSpec, p: Profile): RangeMap {
  const clock = (max: number, def?: number) => int(0, max, def === undefined ? undefined : { default_value: def });
  return {
    buzzer: list(['Off', '10', '20', '40', '60']),
    alarm_out: arr(list(['Local->1', 'Local->2']), { min_size: 0, max_size: 2 }),
    latch_time: list(['10', '20', '40', '60']),
    record_enable: bool({ default_value: true }),
    http_listening: bool(),
    record_channel: arr(list(p.channels.map((c) => c.id)), { min_size: 0, max_size: p.channels.length }),
    post_recording: list(['10', '15', '20', '30', '60', '120', '300', '600'], { default_value: '30' }),
    show_message: bool({ default_value: true }),
    send_email: bool(),
    full_screen: bool(),
    ftp_picture_upload: bool(),
    ftp_video_upload: bool(),
    picture_to_cloud: bool(),
    video_to_cloud: bool(),
    voice_prompts_index: arr(int(0, 255), { size: 12 }),
    voice_prompts_select: arr(int(0, 12), { size: 2 }),
    voice_prompts_time: arr(
      obj({
        start_hour: clock(23),
        start_minute: clock(59),
        start_second: clock(59),
        end_hour: clock(23, 23),
        end_minute: clock(59, 59),
        end_second: clock(59, 59),
      }),
      { size: 12 },
    ),
    ...copy(p),
  };
}

function developerModeChannel(_ch: ChannelSpec, p: Profile): RangeMap {
  const m: RangeMap = { log_collect_enable: bool(), support_logcollection: ro(bool({ default_value: true })) };
  if (p.name === 'ipc') {
    m.log_collect_mode = list(['NVR', 'SD_Card', 'FTP']);
    m.remote_server = obj({
      username: text(0, 63),
      password: text(0, 63),
      password_empty: ro(bool({ default_value: true })),
      server_address: text(0, 127),
    });
  }
  return m;
}

function linkageManageChannel(ch: ChannelSpec, _p: Profile): RangeMap {
  const has: Record<(typeof LINKAGE_KEYS)[number], boolean> = {
    linkage_siren: ch.siren,
    linkage_floodlight: ch.floodlight,
    linkage_enforcerlight: ch.redBlueLight,
    linkage_alarmout: ch.kind === 'analog',
    linkage_ptz: ch.ptz,
    linkage_voiceprompt: ch.siren,
    linkage_mobile_push: true,
  };
  return {
    enable: bool(),
    linkage_info: obj(Object.fromEntries(LINKAGE_KEYS.filter((k) => has[k]).map((k) => [k, bool()]))),
  };
}

/** Face detection channel shape (spec 2.10); the other abilities are "not shown". */
function faceDetectionChannel(): RangeMap {
  const X = int(0, 704);
  const Y = int(0, 576);
  const rect: RangeMap = {};
  for (let i = 1; i <= 8; i++) rect[`x${i}`] = X;
  for (let i = 1; i <= 8; i++) rect[`y${i}`] = Y;
  const rule = (first: boolean) =>
    obj({
      rule_switch: bool(),
      point_num: arr(int(0, 8), { size: 2 }),
      detection_range: list(['FullScreen', 'UserDefined']),
      rule_rect: obj(rect),
      ...(first
        ? {
            rule_line: obj({ x1: X, y1: Y, x2: X, y2: Y }),
            rule_type: ro(list(['A->B', 'B->A'])),
            trigger_mode: list(['Rect', 'Line']),
          }
        : {}),
    });
  const angle = (def: number, frontal: number, multi: number) =>
    ro(int(0, 180, { default_value: def, default_value_frontal: frontal, default_value_multi: multi }));
  return {
    btn_get_default_data: bool(),
    draw_add_btn: obj({ visible: bool() }),
    trigger_mode: list(['Rect', 'Line']),
    switch: bool(),
    iva_lines: bool(),
    face_attribute: bool(),
    face_enhance: bool(),
    sensitivity: ro(int(0, 100, { default_value: 60 })),
    face_angle: list(['FrontalView', 'Multiangle', 'UserDefined']),
    snap_mode: list(['OptimalMode', 'RealTimeMode', 'IntervalMode']),
    snap_num: list(['1', '2', '3', 'Unlimited']),
    snap_frequency: int(1, 255),
    min_pixel: ro(int(32, 1080, { default_value: 64 })),
    max_pixel: ro(int(320, 1080, { default_value: 640 })),
    detection_mode: list(['HybridMode', 'MotionMode']),
    roll_range: angle(30, 30, 180),
    pitch_range: angle(30, 30, 180),
    yaw_range: angle(45, 45, 180),
    picture_quality: ro(int(0, 100, { default_value: 100, default_value_frontal: 100, default_value_multi: 100 })),
    rule_info: obj({ rule_number1: rule(true), rule_number2: rule(false), rule_number3: rule(false), rule_number4: rule(false) }),
  };
}

/** Deterrence (Alarm > Flood-light) per the vendor table: siren and red/blue members only where the hardware is. */
function deterrenceChannel(ch: ChannelSpec): RangeMap {
  return {
    flood_light_switch: bool(),
    flood_light_mode: list(ch.floodModes, { default_value: 'Warninglight' }),
    flood_light_value: int(1, 100, { default_value: 50 }),
    bright_time: int(5, 180, { default_value: 60 }),
    strobe_frequency: list(['Low', 'Middle', 'High'], { default_value: 'Middle' }),
    sensitivity: int(1, 8, { default_value: 4 }),
    ...(ch.siren
      ? { siren_switch: bool(), siren_value: int(1, 10, { default_value: 5 }), siren_time: int(5, 180, { default_value: 10 }) }
      : {}),
    ...(ch.redBlueLight ? { enforcer_light_switch: bool(), enforcer_bright_time: int(5, 180, { default_value: 10 }) } : {}),
    // Settable per the vendor's Range (only `status` is read-only there); its Set sample sends them.
    param_video: obj({ show: bool({ default_value: true }), disable: bool() }),
    flood_light_disable: bool(),
    warning_light_disable: bool(),
  };
}

export const DISARM_ACTIONS = [
  'buzzer',
  'alarm_out',
  'show_message',
  'send_email',
  'full_screen',
  'voice_prompts',
  'event_push_platform',
  'mobile_push',
];
/** `[{schedule_type, week: 7 x {day, time: 48 half-hours 0/1}}]` element. */
const schedule = (type: string) =>
  obj({
    schedule_type: list([type]),
    week: arr(obj({ day: list(DAYS), time: arr(intOf([0, 1]), { size: 48 }) }), { size: 7 }),
  });

/** Range of each configuration page (`pages.ts` puts them with the page's Get state and route rules). */
/** StreamConfig/MainStream */
export const MAIN_STREAM_RANGE: RangePage = {
  top: (p) => ({
    channel: p.channels.map((c) => c.id),
    ...channelMax(p),
    ...(nvr(p)
      ? {
          support_copy: true,
          analog_max: p.channels.filter((c) => c.kind === 'analog').length,
          bandwidth: { total_bandwidth: 16 * 8192, remaining_bandwidth: 8 * 8192 },
          etr_sync_items: ETR_SYNC,
        }
      : {}),
  }),
  channel: mainStreamChannel,
};

/** AlarmConfig/PTZLinkage */
export const PTZ_LINKAGE_RANGE: RangePage = {
  top: (p) => ({
    ...channelMax(p),
    ...(nvr(p) ? { support_copy: true } : {}),
    ptz_info: arr(
      obj({
        ptz_chn: list(p.channels.filter((c) => c.ptz).map((c) => c.id)),
        // Old form: a plain int index 0-255; new form: items carries the available presets as hex bits.
        linkage_ptz_point_index: p.ptzHex ? int(0, 255, { items: PTZ_PRESETS_HEX }) : int(0, 255),
      }),
      { min_size: 0, max_size: 16 },
    ),
  }),
  channel: ptzLinkageChannel,
};

/** AlarmConfig/Intelligent/CC */
export const CROSS_COUNTING_RANGE: RangePage = {
  top: (p) => ({ ...channelMax(p), page_type: 'AlarmConfig' }),
  channel: crossCountingChannel,
  covers: (ch) => ch.intelligent,
};

/** Maintenance/DeveloperMode */
export const DEVELOPER_MODE_RANGE: RangePage = {
  top: (p) => ({
    [p.legacy ? 'telnet_switch' : 'ssh_switch']: bool(),
    export_disk_switch: list(['Shut Off', 'Output To Terminal', 'Output To Disk']),
    enable_export: true,
    enable_delete: true,
    support_ipc_log_export: true,
    support_ipc_log_delete: true,
    export_days: list(['all', '1', '2', '3', '4', '5']),
    default_timeout: 60,
    ...(p.name === 'ipc'
      ? {
          search_log_enable: true,
          support_ipc_log_pack: true,
          log_collect_tips: 'ftp://192.168.1.100:21/log',
          download_type: list(['IPC_Local']),
        }
      : {}),
  }),
  channel: developerModeChannel,
  covers: (ch, p) => p.name === 'ipc' || ch.kind === 'digital',
};

/** AlarmConfig/VoiceAlarm */
export const VOICE_ALARM_RANGE: RangePage = {
  top: channelMax,
  channel: (ch) => ({
    siren_switch: bool(),
    siren_time: int(5, 180, { default_value: 10 }),
    siren_value: int(1, 10, { default_value: 5 }),
    siren_type: list(ch.sirenTypes),
    siren_file_name: text(0, 127),
    siren_file: text(0, 524288),
    siren_file_type: text(0, 127),
    siren_support_format: { type: 'array', mode: 'r', items: ['.wav', '.pcm'] },
    support_siren_schedule_hub: ro(bool({ default_value: true })),
  }),
  covers: (ch) => ch.siren,
};

/** DeviceConfig/Audio */
export const AUDIO_RANGE: RangePage = {
  top: channelMax,
  channel: (ch, p) => ({
    ...(ch.audioEnable ? { audio_enable: bool({ default_value: true }) } : {}),
    audio_type: list(['G711A', 'G711U', 'G726', 'AAC']),
    in_volume: int(0, 100, { default_value: 50 }),
    out_volume: int(0, 100, { default_value: 50 }),
    ...copy(p),
  }),
  covers: (ch) => ch.audio,
};

/** AlarmConfig/Deterrence */
export const DETERRENCE_RANGE: RangePage = {
  top: channelMax,
  channel: deterrenceChannel,
  covers: (ch) => ch.floodlight,
};

/** AlarmConfig/Disarming */
export const DISARMING_RANGE: RangePage = {
  top: (p) => ({
    ...(nvr(p) ? { support_copy: true } : {}),
    disarming: bool(),
    action: obj(Object.fromEntries(DISARM_ACTIONS.map((k) => [k, bool()]))),
    // "The channel supported by the device": every slot (the vendor's sample lists all 16 of a 16-channel device).
    disarming_channel: arr(list(p.channels.map((c) => c.id)), { min_size: 0, max_size: p.channels.length }),
  }),
  channel: () => ({ disarming_schedule: arr(schedule('Disarming'), { min_size: 0, max_size: 2 }) }),
};

/** LinkageConfig/LinkageManage */
export const LINKAGE_MANAGE_RANGE: RangePage = {
  top: (p) => ({
    ...channelMax(p),
    enable: bool(),
    linkage_info: obj(
      Object.fromEntries(LINKAGE_KEYS.map((k) => [k, bool({ default_value: k === 'linkage_siren' || k === 'linkage_floodlight' })])),
    ),
  }),
  channel: linkageManageChannel,
};
/** What Range shows for an offline digital channel: only its status (spec 2.2: present only when offline). */
export const OFFLINE_RANGE = obj({ status: ro(list(['Offline', 'Online'], { default_value: 'Offline' })) });

/** Event settings Range (spec 2.10) for the requested intelligent channels. */
export function eventSettingsRange(
  p: Profile,
  channels: readonly ChannelSpec[],
  faceShape: boolean,
  isOnline: (id: string) => boolean,
): RangeMap {
  const items: RangeMap = {};
  for (const ch of channels) {
    items[ch.id] = !isOnline(ch.id) ? OFFLINE_RANGE : obj(faceShape ? faceDetectionChannel() : { switch: bool() });
  }
  return {
    default_timeout: 60,
    page_type: 'ChannelConfig',
    channel_max: p.channels.length,
    agreed_to_agreement: bool({ default_value: true }),
    statement_file_name: text(1, 48),
    channel_info: obj(items),
  };
}
