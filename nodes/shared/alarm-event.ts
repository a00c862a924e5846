import type { AlarmPicture, DeviceEvent } from '../../core/events';

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
  /** The picture the device sent with the alarm's start (Event/Check `alarm_snap_data` / `ai_snap_picture`). */
  picture?: AlarmPicture;
}

/** Alarm type keys the editor offers as filters: core's alarm type table, in its order. */
export { ALARM_TYPE_KEYS } from '../../core/alarm-types';

/**
 * Core's typed event -> the node's event; live floodlight/siren and disk events are not alarms (undefined).
 * The ONE place that knows the core's event shape.
 */
export function alarmEventOf(event: DeviceEvent, now: () => Date = () => new Date()): AlarmEvent | undefined {
  if (event.kind !== 'alarm') return undefined;
  const e: AlarmEvent = { channel: event.channel, type: event.type, active: event.active, time: event.time || now().toISOString() };
  if (event.picture) e.picture = event.picture;
  return e;
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
