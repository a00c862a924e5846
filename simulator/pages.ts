/**
 * Every configuration page of the simulator, each declared once: its operations, its Range (built in ranges.ts and
 * alarm-ranges.ts from the specification's and the vendor's tables), its Get state and the rules its routes follow.
 * Range, state and routes all read this one list.
 */
import { DAYS } from './days';
import { RangeMap, isPlainObject, obj } from './descriptors';
import { IO_RANGE, MOTION_RANGE, PIR_RANGE } from './alarm-ranges';
import { IMAGE_CONTROL_RANGE, RECORD_RANGE, VIDEO_COVER_RANGE } from './care-ranges';
import { DISK_SIM_PAGE } from './storage';
import { ALARM_PAGE_TYPES, NOT_CONFIGURED_GET, NOT_SUPPORT_GET, Obj, Op, SimPage } from './page-def';
import type { ChannelSpec, Profile } from './profiles';
import {
  AUDIO_RANGE,
  CROSS_COUNTING_RANGE,
  DETERRENCE_RANGE,
  DEVELOPER_MODE_RANGE,
  DISARMING_RANGE,
  LINKAGE_MANAGE_RANGE,
  MAIN_STREAM_RANGE,
  OFFLINE_RANGE,
  PTZ_LINKAGE_RANGE,
  VOICE_ALARM_RANGE,
} from './ranges';

const ALL: readonly Op[] = ['Range', 'Get', 'Set'];

/**
 * The vendor's Disarming Set sample sends 47 half-hours a day where its Range and Get say 48: accepted, the last
 * half-hour taken as off.
 */
function padHalfHours(data: Obj): Obj {
  const ci = data.channel_info;
  if (!isPlainObject(ci)) return data;
  const out: Record<string, unknown> = {};
  for (const [id, block] of Object.entries(ci)) {
    const schedules = isPlainObject(block) ? block.disarming_schedule : undefined;
    out[id] =
      !isPlainObject(block) || !Array.isArray(schedules)
        ? block
        : {
            ...block,
            disarming_schedule: schedules.map((sc: unknown) =>
              isPlainObject(sc) && Array.isArray(sc.week)
                ? {
                    ...sc,
                    week: sc.week.map((d: unknown) =>
                      isPlainObject(d) && Array.isArray(d.time) && d.time.length === 47 ? { ...d, time: [...(d.time as unknown[]), 0] } : d,
                    ),
                  }
                : sc,
            ),
          };
  }
  return { ...data, channel_info: out };
}

export const PAGES: readonly SimPage[] = [
  {
    page: 'StreamConfig/MainStream',
    ops: ALL,
    range: MAIN_STREAM_RANGE,
    get: {
      omit: ['bitrate_default', 'copy_ch'],
      channel: (ch, p) => ({
        resolution: p.name === 'ipc' || ch.kind !== 'analog' ? '2592x1520' : '1920x1080',
        fps: 25,
        video_encode_type: 'H.265',
        bitrate_control: 'VBR',
        video_quality: 'Medium',
        bitrate: 4096,
        custom_bitrate: 4096,
        i_frame_interval: 50,
        audio: true,
        record_switch: true,
        stream_mode: 'DualStream',
        prerecord: true,
        ...(p.name === 'ipc'
          ? { video_encode_level: 'MainProfile', enable_stream: true }
          : {
              etr_resolution: '1920x1080',
              etr_fps: 25,
              etr_bitrate: 4096,
              etr_video_encode_type: 'H.265',
              etr_bitrate_control: 'VBR',
              etr_video_quality: 'Medium',
              etr_audio: true,
            }),
      }),
    },
  },
  {
    page: 'AlarmConfig/PTZLinkage',
    ops: ALL,
    range: PTZ_LINKAGE_RANGE,
    get: {
      omit: ['copy_ch'],
      top: (p) => ({
        ptz_info: p.channels
          .filter((c) => c.ptz)
          .slice(0, 16)
          .map((c) => ({ ptz_chn: c.id, linkage_ptz_point_index: 0 })),
      }),
      channel: () => ({ switch: true, motion: true, ptz_info: [0, 1, 2, 3].map(() => ({ ptz_switch: false })) }),
    },
  },
  {
    page: 'AlarmConfig/Intelligent/CC',
    ops: ALL,
    range: CROSS_COUNTING_RANGE,
    get: {
      omit: ['copy_ch'],
      top: () => ({ page_type: 'AlarmConfig' }),
      channel: (ch) => ({ record_channel: [ch.id], chn_index: ch.id }),
      absent: NOT_SUPPORT_GET,
    },
    meta: { page_type: ['AlarmConfig'] },
    versionEnvelope: true,
  },
  {
    page: 'Maintenance/DeveloperMode',
    ops: ALL,
    range: DEVELOPER_MODE_RANGE,
    get: {
      view: (stored) => {
        const rs = stored.remote_server;
        return isPlainObject(rs) ? { ...stored, remote_server: { ...rs, password: '' } } : stored;
      },
      afterSet: (state) => {
        for (const block of Object.values(state.channel_info ?? {})) {
          const rs = block.remote_server;
          if (isPlainObject(rs)) rs.password_empty = rs.password === undefined || rs.password === '';
        }
      },
    },
  },
  {
    page: 'AlarmConfig/VoiceAlarm',
    ops: ALL,
    range: VOICE_ALARM_RANGE,
    get: {
      omit: ['siren_file', 'siren_file_type', 'siren_support_format', 'support_siren_schedule_hub'],
      writeOnly: ['siren_file', 'siren_file_type'],
      absent: NOT_SUPPORT_GET,
    },
  },
  {
    page: 'DeviceConfig/Audio',
    ops: ALL,
    range: AUDIO_RANGE,
    get: {
      omit: ['copy_ch'],
      absent: NOT_SUPPORT_GET,
    },
  },
  {
    page: 'AlarmConfig/Deterrence',
    ops: ALL,
    range: DETERRENCE_RANGE,
    get: {
      absent: NOT_SUPPORT_GET,
    },
    meta: { page_type: ['ChannelConfig'] },
    channelMeta: { page: ['chn_floodlight'] },
  },
  {
    page: 'AlarmConfig/Disarming',
    ops: ALL,
    range: DISARMING_RANGE,
    get: {
      // The vendor's Get lists schedules of some channels only, never a `{reason}` marker (vendor-facts-more n).
      markers: false,
      top: (p) => ({ disarming_channel: p.channels.filter((c) => c.configured).map((c) => c.id) }),
      channel: () => ({
        disarming_schedule: [{ schedule_type: 'Disarming', week: DAYS.map((day) => ({ day, time: new Array<number>(48).fill(0) })) }],
      }),
    },
    optional: 'disarming',
    // The vendor's Set sample carries the UI's channel selectors and schedule grid (vendor-facts-more n).
    meta: { schedule_chn_index: 'channel', chn_index: 'channel', selectedChn: 'channel', schedule: 'any' },
    normalizeSet: padHalfHours,
  },
  {
    page: 'LinkageConfig/LinkageManage',
    ops: ALL,
    range: LINKAGE_MANAGE_RANGE,
    get: {},
    optional: 'linkageManage',
    channelInfoBesideVersion: true,
  },
  // Which alarms a channel supports, and their settings (vendor: page_type required in practice; PIR also at the
  // sample's path). Get answers channels without the alarm with `{reason: "Not configured"}` (vendor Motion Get).
  {
    page: 'AlarmConfig/Motion',
    ops: ALL,
    range: MOTION_RANGE,
    rangeNeedsPageType: true,
    get: { omit: ['schedule', 'copy_ch'], absent: NOT_CONFIGURED_GET },
    meta: { page_type: ALARM_PAGE_TYPES },
  },
  {
    page: 'AlarmConfig/PIR',
    ops: ALL,
    range: PIR_RANGE,
    rangeNeedsPageType: true,
    alias: 'AlarmConfig/Intelligent/PIR',
    get: { omit: ['schedule', 'copy_ch'], absent: NOT_CONFIGURED_GET },
    meta: { page_type: ALARM_PAGE_TYPES },
  },
  { page: 'AlarmConfig/IO', ops: ['Range'], range: IO_RANGE },
  // Day/night, IR LEDs, white light (vendor-facts-more k); the Set sample carries the UI's `page: "chn_imgCtrl"`.
  // A full-colour camera's Get nests its white light in `FullColorMode` (vendor Get sample CH15), the Range is flat.
  {
    page: 'ChannelConfig/ImageControl',
    ops: ALL,
    range: IMAGE_CONTROL_RANGE,
    get: {
      omit: ['Night', 'camera_param_mode', 'corridor_mode', 'image_sensitivity', 'white_light', 'light_distance'],
      channel: (ch) => (ch.fullColour ? { FullColorMode: { white_light: 'Auto', image_sensitivity: 1 } } : {}),
    },
    channelMeta: { page: ['chn_imgCtrl'] },
    flatGroups: ['FullColorMode'],
  },
  { page: 'RecordConfig', ops: ALL, range: RECORD_RANGE, get: { omit: ['copy_ch', 'manual_record'] } },
  { page: 'ChannelConfig/VideoCover', ops: ALL, range: VIDEO_COVER_RANGE, get: {} },
  DISK_SIM_PAGE,
];

export const PAGE_BY_NAME: ReadonlyMap<string, SimPage> = new Map(PAGES.map((p) => [p.page, p]));

/** Channel ids of a page, in device order. */
export function coveredChannels(page: string, p: Profile): ChannelSpec[] {
  const def = PAGE_BY_NAME.get(page)?.range;
  if (!def?.channel) return [];
  return p.channels.filter((c) => c.configured && (def.covers ? def.covers(c, p) : true));
}

export function buildRange(page: string, p: Profile, isOnline: (id: string) => boolean): RangeMap {
  const def = PAGE_BY_NAME.get(page)!.range;
  const data = def.top(p);
  if (def.channel) {
    const items: RangeMap = {};
    for (const ch of coveredChannels(page, p)) {
      items[ch.id] = isOnline(ch.id) ? obj(def.channel(ch, p)) : OFFLINE_RANGE;
    }
    data.channel_info = obj(items);
  }
  return data;
}
