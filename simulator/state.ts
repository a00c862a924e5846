/**
 * In-memory Get/Set state per page. A page's state has the shape of its Get `data` (top-level fields plus
 * `channel_info` of the channels the page covers) and is initialised from the Range defaults of the profile, so
 * that Get and Range can never disagree. Offline and unsupported channels are rendered by the Get view, not
 * stored: a channel that comes back online shows its settings again.
 */
import type { ChannelSpec, Profile } from './profiles';
import { RANGE_PAGES, coveredChannels } from './ranges';
import { DAYS } from './days';
import { defaultsOf, isPlainObject } from './descriptors';
import { isGetMarker } from './check';

export type Obj = Record<string, unknown>;
export interface PageState extends Obj {
  channel_info?: Record<string, Obj>;
}
export type SimState = Record<string, PageState>;

export interface GetPage {
  /** Range fields a fresh device does not show in Get (capabilities, write-only uploads, copy actions). */
  omit?: readonly string[];
  /** Stored when set, never shown by Get (an uploaded siren file). */
  writeOnly?: readonly string[];
  /** Initial top-level values beyond the Range defaults. */
  top?(p: Profile): Obj;
  /** Initial channel values beyond the Range defaults. */
  channel?(ch: ChannelSpec, p: Profile): Obj;
  /** Get shape of a channel the page does not cover; undefined: the channel is left out of the Get. */
  absent?: Obj;
  /** false: offline channels and empty slots are left out of the Get instead of shown as markers (vendor Disarming Get). */
  markers?: boolean;
  /** How a stored channel is shown (never echo a stored password). */
  view?(stored: Obj): Obj;
  /** Derived fields after a Set. */
  afterSet?(state: PageState): void;
}

/** Get shapes (vendor): an offline digital channel, an empty slot, an online channel without the hardware. */
export const OFFLINE_GET: Obj = Object.freeze({ status: 'Offline', reason: 'Not support' });
export const NOT_CONFIGURED_GET: Obj = Object.freeze({ reason: 'Not configured' });
const NOT_SUPPORT: Obj = Object.freeze({ reason: 'Not support' });
/** Keys of a channel block that are not parameters: checked for their value, never stored. */
export const CHANNEL_META = new Set(['chn_index', 'copy_ch', 'page']);

export const GET_PAGES: Readonly<Record<string, GetPage>> = {
  'StreamConfig/MainStream': {
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
  'AlarmConfig/PTZLinkage': {
    omit: ['copy_ch'],
    top: (p) => ({
      ptz_info: p.channels
        .filter((c) => c.ptz)
        .slice(0, 16)
        .map((c) => ({ ptz_chn: c.id, linkage_ptz_point_index: 0 })),
    }),
    channel: () => ({ switch: true, motion: true, ptz_info: [0, 1, 2, 3].map(() => ({ ptz_switch: false })) }),
  },
  'AlarmConfig/Intelligent/CC': {
    omit: ['copy_ch'],
    top: () => ({ page_type: 'AlarmConfig' }),
    channel: (ch) => ({ record_channel: [ch.id], chn_index: ch.id }),
    absent: NOT_SUPPORT,
  },
  'Maintenance/DeveloperMode': {
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
  'AlarmConfig/VoiceAlarm': {
    omit: ['siren_file', 'siren_file_type', 'siren_support_format', 'support_siren_schedule_hub'],
    writeOnly: ['siren_file', 'siren_file_type'],
    absent: NOT_SUPPORT,
  },
  'DeviceConfig/Audio': {
    omit: ['copy_ch'],
    absent: NOT_SUPPORT,
  },
  'AlarmConfig/Deterrence': {
    absent: NOT_SUPPORT,
  },
  'AlarmConfig/Disarming': {
    // The vendor's Get lists schedules of some channels only, never a `{reason}` marker (vendor-facts-more n).
    markers: false,
    top: (p) => ({ disarming_channel: p.channels.filter((c) => c.configured).map((c) => c.id) }),
    channel: () => ({
      disarming_schedule: [{ schedule_type: 'Disarming', week: DAYS.map((day) => ({ day, time: new Array<number>(48).fill(0) })) }],
    }),
  },
  'LinkageConfig/LinkageManage': {},
};

/** Fresh state of every Get/Set page for a profile (all channels configured as if online). */
export function initialState(p: Profile): SimState {
  const state: SimState = {};
  for (const [page, def] of Object.entries(GET_PAGES)) {
    const range = RANGE_PAGES[page];
    const omit = new Set(def.omit ?? []);
    const s: PageState = { ...defaultsOf(range.top(p), omit), ...def.top?.(p) };
    if (range.channel) {
      const ci: Record<string, Obj> = {};
      for (const ch of coveredChannels(page, p)) {
        ci[ch.id] = { ...defaultsOf(range.channel(ch, p), omit), ...def.channel?.(ch, p) };
      }
      s.channel_info = ci;
    }
    state[page] = s;
  }
  return state;
}

function withoutKeys(o: Obj, keys: readonly string[]): Obj {
  let copy: Obj | undefined;
  for (const k of keys) {
    if (k in o) {
      copy ??= { ...o };
      delete copy[k];
    }
  }
  return copy ?? o;
}

/**
 * The Get `data` of a page: a shallow view over the state (no deep copy per request). Channels the page does not
 * cover get the page's marker, offline ones `{status: "Offline", reason: "Not support"}`, empty slots
 * `{reason: "Not configured"}` (vendor Get shapes).
 */
export function getView(page: string, state: PageState, p: Profile, isOnline: (id: string) => boolean): Obj {
  const def = GET_PAGES[page];
  const out: Obj = {};
  for (const key of Object.keys(state)) if (key !== 'channel_info') out[key] = state[key];
  const stored = state.channel_info;
  if (stored) {
    const ci: Obj = {};
    for (const ch of p.channels) {
      const block = stored[ch.id];
      if (!ch.configured) {
        if (def.markers !== false) ci[ch.id] = NOT_CONFIGURED_GET;
      } else if (!isOnline(ch.id)) {
        if (def.markers !== false) ci[ch.id] = OFFLINE_GET;
      } else if (block === undefined) {
        if (def.absent) ci[ch.id] = def.absent;
      } else {
        const shown = def.writeOnly ? withoutKeys(block, def.writeOnly) : block;
        ci[ch.id] = def.view ? def.view(shown) : shown;
      }
    }
    out.channel_info = ci;
  }
  return out;
}

function mergeField(target: Obj, key: string, value: unknown): void {
  const current = target[key];
  if (isPlainObject(value) && isPlainObject(current)) {
    for (const k of Object.keys(value)) mergeField(current, k, value[k]);
  } else {
    // Copy objects in, so the request (kept in the log) and the state never share structure.
    target[key] = typeof value === 'object' && value !== null ? structuredClone(value) : value;
  }
}

/**
 * Merge a checked Set `data` into the page state (objects merged, arrays and scalars replaced). `meta`: top-level
 * keys that are not parameters (page_type, UI leftovers); Get markers sent back are not settings either.
 */
export function applySet(page: string, state: PageState, data: Obj, meta: readonly string[]): void {
  for (const key of Object.keys(data)) {
    if (meta.includes(key)) continue;
    const value = data[key];
    if (key === 'channel_info' && isPlainObject(value) && state.channel_info) {
      for (const ch of Object.keys(value)) {
        const block = value[ch];
        const target = state.channel_info[ch];
        if (!isPlainObject(block) || !target || isGetMarker(block)) continue;
        for (const f of Object.keys(block)) if (!CHANNEL_META.has(f)) mergeField(target, f, block[f]);
      }
    } else {
      mergeField(state, key, value);
    }
  }
  GET_PAGES[page].afterSet?.(state);
}
