import { validateAgainstRange } from '../core/validate';

/**
 * Validator cost for a full main-stream Set of 8 channels against its Range (goal: under 50 microseconds).
 * Fixtures follow spec 2.2: every channel field as a descriptor, informational ones read-only.
 */

const RESOLUTIONS = [
  '320 x 240',
  '640 x 480',
  '1280x720',
  '1280x960',
  '1920x1080',
  '2304x1296',
  '2048x1520',
  '2592x1520',
  '2592 x 1944',
  '3072 x 1728',
  '3840 x 2160',
];
const ENCODE_TYPES = ['H.264', 'H.265', 'H.264+', 'H.265+', 'MJPEG'];
const QUALITIES = ['Lowest', 'Lower', 'Low', 'Medium', 'Higher', 'Highest'];
const BITRATES = [
  8, 16, 24, 32, 48, 64, 80, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048, 3072, 4096, 5120,
  6144, 7168, 8192, 10240, 12288, 16384, 100000,
];
const COPY = ['digit', 'analog', 'wifi', 'local', 'all'];

const str = (items: string[], mode = 'rw') => ({ type: 'string', mode, items });
const int = (min: number, max: number, mode = 'rw') => ({ type: 'int32', mode, min, max });
const bool = (mode = 'rw') => ({ type: 'bool', mode });

function channelRange(first: boolean): Record<string, unknown> {
  return {
    resolution: str(RESOLUTIONS),
    fps: int(1, 30),
    video_encode_type: str(ENCODE_TYPES),
    bitrate_control: str(['CBR', 'VBR']),
    video_quality: str(QUALITIES),
    bitrate_mode: str(['Predefined', 'UserDefined']),
    bitrate: { type: 'int32', mode: 'rw', items: BITRATES },
    bitrate_default: {
      type: 'object',
      mode: 'r',
      items: { '1920 * 1080': { type: 'object', items: { '30': { type: 'int32', default_value: 4096 } } } },
    },
    custom_bitrate: int(8, 16384),
    audio: bool(),
    i_frame_interval: int(1, 200),
    i_frame_interval_rate: int(1, 8),
    etr: bool(),
    etr_resolution: str(RESOLUTIONS),
    etr_fps: int(1, 30),
    etr_bitrate: { type: 'int32', mode: 'rw', items: BITRATES },
    etr_custom_bitrate: int(8, 16384),
    etr_stream_type: str(['Alarm']),
    etr_video_encode_type: str(ENCODE_TYPES),
    etr_bitrate_control: str(['CBR', 'VBR']),
    etr_video_quality: str(QUALITIES),
    etr_bitrate_mode: str(['Predefined', 'UserDefined']),
    etr_audio: bool(),
    etr_i_frame_interval: { type: 'string', mode: 'rw', min_len: 1, max_len: 8 },
    copy_ch: str(COPY),
    enable_stream: bool(),
    video_encode_level: str(['Baseline', 'MainProfile', 'HighProfile']),
    resolution_mode: str(['SUPPORT_1080P', 'SUPPORT_5W', 'SUPPORT_8W'], 'r'),
    rtsp_enable: bool('r'),
    video_encode_type_resolution_range: { type: 'string', mode: 'r' },
    codeparam_setting_notice: str(['noticeRule_1', 'noticeRule_2'], 'r'),
    btn_get_default_data: bool(),
    mutual_exclusion: str(['PID', 'LineCrossing', 'H264+', 'H265+'], 'r'),
    etr_fps_unbind_etr_i_frame_interval: bool('r'),
    etr_disable: str(['etr_resolution', 'etr_audio'], 'r'),
    record_switch: bool(),
    stream_mode: str(['Mainstream', 'DualStream']),
    prerecord: bool(),
    ...(first ? { anr: bool() } : {}),
  };
}

export function channelIds(n: number): string[] {
  // Same mix as the simulator's NVR profile: analog, then digital, last one Wi-Fi.
  return Array.from({ length: n }, (_, i) => (i < n / 2 ? `CH${i + 1}` : i < n - 1 ? `IP_CH${i + 1}` : `WIFI_CH${i + 1}`));
}

/** Main stream Range `data` for `n` channels. */
export function mainStreamRangeFixture(n = 8): Record<string, unknown> {
  const items: Record<string, unknown> = {};
  channelIds(n).forEach((ch, i) => (items[ch] = { type: 'object', items: channelRange(i === 0) }));
  return {
    channel: channelIds(n),
    channel_info: { type: 'object', items },
    channel_max: n,
    support_copy: true,
    analog_max: Math.ceil(n / 2),
    bandwidth: { total_bandwidth: 80000, remaining_bandwidth: 20000 },
    etr_sync_items: {
      type: 'array',
      items: ['etr_resolution', 'etr_video_encode_type', 'etr_bitrate_control', 'etr_video_quality', 'etr_audio', 'etr_i_frame_interval'],
    },
  };
}

/** A Set `data` for every channel with every writable field of the fixture Range. */
export function mainStreamSetFixture(n = 8): Record<string, unknown> {
  const channel_info: Record<string, unknown> = {};
  channelIds(n).forEach((ch, i) => {
    channel_info[ch] = {
      resolution: '1920x1080',
      fps: 25,
      video_encode_type: 'H.265',
      bitrate_control: 'VBR',
      video_quality: 'Higher',
      bitrate_mode: 'Predefined',
      bitrate: 4096,
      custom_bitrate: 3000,
      audio: true,
      i_frame_interval: 50,
      i_frame_interval_rate: 2,
      etr: true,
      etr_resolution: '1280x720',
      etr_fps: 15,
      etr_bitrate: 2048,
      etr_custom_bitrate: 1500,
      etr_stream_type: 'Alarm',
      etr_video_encode_type: 'H.264',
      etr_bitrate_control: 'CBR',
      etr_video_quality: 'Medium',
      etr_bitrate_mode: 'UserDefined',
      etr_audio: false,
      etr_i_frame_interval: '30',
      copy_ch: 'all',
      enable_stream: true,
      video_encode_level: 'MainProfile',
      btn_get_default_data: false,
      record_switch: true,
      stream_mode: 'DualStream',
      prerecord: true,
      ...(i === 0 ? { anr: true } : {}),
    };
  });
  return { channel_info };
}

export async function benchValidator(): Promise<{ median_us: number; p99_us: number; iterations: number }> {
  // JSON round trip: the shapes the client really holds (parsed answers), not literals the engine may special-case.
  const range = JSON.parse(JSON.stringify(mainStreamRangeFixture(8))) as Record<string, unknown>;
  const payload = JSON.parse(JSON.stringify(mainStreamSetFixture(8))) as Record<string, unknown>;
  const opts = { metaKeys: ['page_type', 'chn_index'] };
  const first = validateAgainstRange(payload, range, opts);
  if (first.length !== 0) throw new Error(`bench fixture is not valid: ${JSON.stringify(first)}`);

  let sink = 0;
  for (let i = 0; i < 5000; i++) sink += validateAgainstRange(payload, range, opts).length; // warm-up (JIT)

  const batch = 100;
  const batches = 400;
  const perCall: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) sink += validateAgainstRange(payload, range, opts).length;
    perCall.push(Number(process.hrtime.bigint() - t0) / batch / 1000);
    if (b % 50 === 49) await new Promise((r) => setImmediate(r)); // let timers run; do not starve the process
  }
  if (sink !== 0) throw new Error('validator found violations during the benchmark');
  perCall.sort((a, b) => a - b);
  const at = (q: number) => perCall[Math.min(perCall.length - 1, Math.floor(q * perCall.length))];
  const round = (x: number) => Math.round(x * 100) / 100;
  return { median_us: round(at(0.5)), p99_us: round(at(0.99)), iterations: batch * batches };
}
