import type { DeviceEvent } from '../core/events';

/**
 * What an `nvr-event` message carries about one alarm. `type` is one of the alarm type keys of the
 * project (CONTRACTS.md AlarmType: motion, pir, io, video_loss, person, vehicle, ...).
 */
export interface AlarmEvent {
  channel: string;
  type: string;
  active: boolean;
  /** Device time when the device names one, else the time it arrived (ISO 8601). */
  time: string;
}

/** Alarm type keys the editor offers as filters, with their labels (the contract's AlarmType keys). */
export const ALARM_TYPE_KEYS = [
  'motion', 'pir', 'io', 'video_loss', 'person', 'vehicle', 'line_crossing', 'intrusion', 'face', 'tamper',
  'object', 'sound', 'region_entrance', 'region_exiting', 'crowd', 'queue', 'plate', 'fire', 'cross_count',
  'attribute', 'temperature', 'avd',
] as const;

/** Vendor alarm names (without `_alarm`) that differ from their key. */
const VENDOR_NAMES: Readonly<Record<string, string>> = {
  md: 'motion', motion_detection: 'motion', alarm_in: 'io', alarm_input: 'io', videoloss: 'video_loss',
  pd: 'person', human: 'person', pd_vd: 'vehicle', vd: 'vehicle', lcd: 'line_crossing', pid: 'intrusion',
  fd: 'face', video_tamper: 'tamper', sod: 'object', rsd: 'sound', cd: 'crowd', qd: 'queue', lpd: 'plate',
  firedetect: 'fire', cc: 'cross_count', ad: 'attribute', measure: 'temperature',
};

/**
 * Today's core event (`{channel, type: 'motion_alarm', state}`) -> the node's event. The ONE place
 * that knows the core's event shape: phase 2 maps core's typed `{kind:'alarm', type, active, time}` here.
 */
export function alarmEventOf(event: DeviceEvent, now: () => Date = () => new Date()): AlarmEvent {
  const name = event.type.toLowerCase().replace(/_alarm$/, '');
  const time = (event as { time?: unknown }).time;
  return {
    channel: event.channel,
    type: VENDOR_NAMES[name] ?? name,
    active: event.state,
    time: typeof time === 'string' && time ? time : now().toISOString(),
  };
}

/** Which alarms an `nvr-event` node passes on (empty lists mean all). */
export interface AlarmFilter {
  channels: readonly string[];
  types: readonly string[];
  startOnly: boolean;
}

export function passes(filter: AlarmFilter, e: AlarmEvent): boolean {
  if (filter.startOnly && !e.active) return false;
  if (filter.channels.length && !filter.channels.includes(e.channel)) return false;
  return !filter.types.length || filter.types.includes(e.type);
}

const list = (x: unknown): string[] =>
  (Array.isArray(x) ? x.map(String) : typeof x === 'string' ? x.split(/[\s,]+/) : []).map((s) => s.trim()).filter(Boolean);

/** An nvr-event node's saved filter; version 1 flows (no filter properties) pass every alarm, as before. */
export function filterOf(def: Record<string, unknown>): AlarmFilter {
  return {
    channels: list(def.channels).map((c) => c.toUpperCase()),
    types: list(def.types),
    startOnly: def.startOnly === true || def.startOnly === 'true',
  };
}
