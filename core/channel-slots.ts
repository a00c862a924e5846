import { channelKind, channelNumber, isChannelId, type ChannelId } from './channels';
import { DeviceError } from './errors';
import { deepFreeze, isPlainObject } from './json';
import type { Invoker, OperationDef } from './operation';
import { channelInfoGet } from './pages/channel-info';
import { isChannelMarker } from './pages/common';
import { deterrenceGet } from './pages/deterrence';
import { voiceAlarmGet } from './pages/voice-alarm';

/**
 * The typed channel slots the bridge and the nodes use: connection status, hardware and AI abilities, from the
 * vendor's channel list (`Login/ChannelInfo/Get` `channel_param`, plain array or `{type: "array", items}`), from the
 * older `channel_info` forms, or (devices without the page) from the channels the configuration pages report.
 */

export type ConnectStatus = 'Online' | 'Offline' | 'NotConfigured' | 'Sleep' | 'NotPaired' | 'FailConnectNetwork' | (string & {});

export interface ChannelHardware {
  floodlight: boolean;
  siren: boolean;
  redBlueLight: boolean;
  pir: boolean;
  alarmIn: number;
  alarmOut: number;
}

export interface ChannelSlot {
  id: ChannelId;
  name: string;
  status: ConnectStatus;
  /** Status Online. A sleeping battery camera is not online, but configured. */
  online: boolean;
  /** Status other than NotConfigured. */
  configured: boolean;
  hardware: ChannelHardware;
  /** `intelligent_ability` as the device lists it (PID, LCD, PVD, FD...). */
  ai: string[];
  /** `ability` as the device lists it. */
  abilities: string[];
}

/** `ability` names to hardware flags: one table. */
const HARDWARE_BY_ABILITY = {
  FloodLight: 'floodlight',
  AudioAlarm: 'siren',
  RedBlueLight: 'redBlueLight',
  Pir: 'pir',
} as const satisfies Record<string, keyof ChannelHardware>;

const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);
const count = (x: unknown): number => (typeof x === 'number' && Number.isInteger(x) && x > 0 ? x : 0);

function model(id: ChannelId, status: ConnectStatus, e: Record<string, unknown> = {}): ChannelSlot {
  const abilities = strings(e.ability);
  const hardware: ChannelHardware = {
    floodlight: false,
    siren: false,
    redBlueLight: false,
    pir: false,
    alarmIn: count(e.alarm_in_num),
    alarmOut: count(e.alarm_out_num),
  };
  for (const [ability, flag] of Object.entries(HARDWARE_BY_ABILITY)) if (abilities.includes(ability)) hardware[flag] = true;
  const name = [e.channel_name, e.channel_alias].find((n): n is string => typeof n === 'string' && n !== '') ?? id;
  return {
    id,
    name,
    status,
    online: status === 'Online',
    configured: status !== 'NotConfigured',
    hardware,
    ai: strings(e.intelligent_ability),
    abilities,
  };
}

/** Status of an older-form entry: `connect_status`/`status` text, an `online` flag, or a `{reason}` marker. */
function legacyStatus(e: Record<string, unknown>): ConnectStatus {
  const s = e.connect_status ?? e.status ?? e.online;
  if (typeof s === 'boolean') return s ? 'Online' : 'Offline';
  if (typeof s === 'string' && s) return /^(online|connected|true|1)$/i.test(s) ? 'Online' : /^offline$/i.test(s) ? 'Offline' : s;
  return isChannelMarker(e) ? 'NotConfigured' : 'Online';
}

/** The entries of `channel_param` in either form; undefined when the answer has none. */
function channelParam(data: Record<string, unknown>): unknown[] | undefined {
  const p = data.channel_param;
  if (Array.isArray(p)) return p as unknown[];
  if (isPlainObject(p) && Array.isArray(p.items)) return p.items as unknown[];
  return undefined;
}

/**
 * Channel slots from a `Login/ChannelInfo/Get` answer (`channel_param` in both forms, or the older `channel_info`
 * map / list / `items`). Entries whose id is not a channel id (R3) are left out. Undefined when there is no list.
 */
export function channelSlots(data: unknown): ChannelSlot[] | undefined {
  if (!isPlainObject(data)) return undefined;
  // An answer a poller gets again unchanged is the same frozen object (reads with `reuse`): its models, frozen too,
  // are built once, and an unchanged channel list compares by identity.
  if (!Object.isFrozen(data)) return buildChannelSlots(data);
  if (!FROZEN_MODELS.has(data)) FROZEN_MODELS.set(data, deepFreeze(buildChannelSlots(data)));
  return FROZEN_MODELS.get(data);
}

const FROZEN_MODELS = new WeakMap<object, ChannelSlot[] | undefined>();

function buildChannelSlots(data: Record<string, unknown>): ChannelSlot[] | undefined {
  const param = channelParam(data);
  if (param) {
    return param
      .filter(isPlainObject)
      .filter((e) => isChannelId(e.channel))
      .map((e) => {
        const status = typeof e.connect_status === 'string' && e.connect_status ? e.connect_status : 'Online';
        return model(e.channel as ChannelId, status, e);
      });
  }
  let info: unknown = data.channel_info ?? data.items ?? data.channels;
  if (info === undefined) return undefined;
  if (isPlainObject(info) && (Array.isArray(info.items) || isPlainObject(info.items))) info = info.items;
  const entries: Array<[unknown, unknown]> = Array.isArray(info)
    ? info.filter(isPlainObject).map((e) => [e.channel ?? e.chn_index ?? e.channel_id ?? e.id, e])
    : isPlainObject(info)
      ? Object.entries(info)
      : [];
  return entries
    .filter((pair): pair is [ChannelId, Record<string, unknown>] => isChannelId(pair[0]) && isPlainObject(pair[1]))
    .map(([id, e]) => model(id, legacyStatus(e), e));
}

/** Channel slots from the Get answers of pages that list channels, for devices without `Login/ChannelInfo`. */
export interface PageChannels {
  /** Hardware flag a channel with parameters on this page has. */
  hardware: (typeof HARDWARE_BY_ABILITY)[keyof typeof HARDWARE_BY_ABILITY];
  /** The page's Get `data` (`channel_info.<CH>`: parameters, or a `{reason}` / `{status, reason}` marker). */
  data: unknown;
}

const STATUS_RANK: Readonly<Record<string, number>> = { Online: 3, Offline: 2, NotConfigured: 1 };

export function channelSlotsFromPages(sources: readonly PageChannels[]): ChannelSlot[] {
  const byId = new Map<ChannelId, ChannelSlot>();
  for (const { hardware, data } of sources) {
    const info = isPlainObject(data) ? data.channel_info : undefined;
    if (!isPlainObject(info)) continue;
    for (const [id, block] of Object.entries(info)) {
      if (!isChannelId(id) || !isPlainObject(block)) continue;
      const marker = isChannelMarker(block);
      // `{status: "Offline", reason: "Not support"}`: the camera is away; `{reason: "Not configured"}`: no camera.
      const status: ConnectStatus = !marker
        ? block.status === 'Offline'
          ? 'Offline'
          : 'Online'
        : block.status === 'Offline'
          ? 'Offline'
          : /not\s*config/i.test(block.reason)
            ? 'NotConfigured'
            : 'Online';
      const m = byId.get(id) ?? model(id, status);
      if ((STATUS_RANK[status] ?? 0) > (STATUS_RANK[m.status] ?? 0)) {
        Object.assign(m, { status, online: status === 'Online', configured: status !== 'NotConfigured' });
      }
      if (!marker) m.hardware[hardware] = true;
      byId.set(id, m);
    }
  }
  return [...byId.values()].sort(compareChannels);
}

const KIND_ORDER = { analog: 0, digital: 1, wifi: 2 } as const;

/** CH1 < CH2 < CH10 < IP_CH1 < WIFI_CH1. */
export function compareChannels(a: { id: ChannelId }, b: { id: ChannelId }): number {
  return KIND_ORDER[channelKind(a.id)] - KIND_ORDER[channelKind(b.id)] || channelNumber(a.id) - channelNumber(b.id);
}

/** The answer of `op`, or undefined when the device does not have the page. */
async function unlessUnsupported(c: Invoker, op: OperationDef): Promise<unknown> {
  try {
    return await c.invoke(op);
  } catch (err) {
    if (err instanceof DeviceError && err.kind === 'unsupported') return undefined;
    throw err;
  }
}

/**
 * Every channel slot from `Login/ChannelInfo/Get`; devices without that page (or without a list in it): the channels
 * the Deterrence and VoiceAlarm pages report, hardware inferred from which page lists them.
 */
export async function readChannelSlots(c: Invoker): Promise<ChannelSlot[]> {
  const models = channelSlots(await unlessUnsupported(c, channelInfoGet));
  if (models) return models;
  const [flood, siren] = await Promise.all([unlessUnsupported(c, deterrenceGet), unlessUnsupported(c, voiceAlarmGet)]);
  return channelSlotsFromPages([
    { hardware: 'floodlight', data: flood },
    { hardware: 'siren', data: siren },
  ]);
}

/** A channel and whether it is online: the older, minimal view (`client.channels()`). */
export interface ChannelState {
  channel: string;
  online: boolean;
}

/** `Online`/`Offline` from `connect_status` (or `status`); a channel without one is online (spec 2.2). */
function online(entry: unknown): boolean {
  if (!isPlainObject(entry)) return false;
  const s = entry.connect_status ?? entry.status ?? entry.online;
  if (typeof s === 'boolean') return s;
  if (typeof s === 'string') return /^(online|connected|true|1)$/i.test(s);
  return typeof entry.reason !== 'string';
}

/** Channel list from a map `{CH1: {...}}`, a list `[{channel, ...}]`, or either wrapped in `items`. */
export function channelList(data: unknown): ChannelState[] {
  if (isPlainObject(data) && data.channel_param !== undefined) {
    return (channelSlots(data) ?? []).map((m) => ({ channel: m.id, online: m.online }));
  }
  let info: unknown = isPlainObject(data) ? (data.channel_info ?? data.items ?? data.channels ?? data) : data;
  if (isPlainObject(info) && info.items !== undefined && (Array.isArray(info.items) || isPlainObject(info.items))) info = info.items;
  if (Array.isArray(info)) {
    return info
      .filter(isPlainObject)
      .map((e) => ({ channel: String(e.channel ?? e.chn_index ?? e.channel_id ?? e.id ?? ''), online: online(e) }))
      .filter((c) => c.channel);
  }
  if (!isPlainObject(info)) return [];
  return Object.entries(info)
    .filter(([, e]) => isPlainObject(e))
    .map(([channel, e]) => ({ channel, online: online(e) }));
}
