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
  /** Recognitions only (any of these set): face names, plate texts (as `plateKey`), list names (lower case), policies. */
  names: readonly string[];
  plates: readonly string[];
  lists: readonly string[];
  policies: readonly string[];
}

/** A plate as compared: upper case, without spaces, dashes or dots ("ab-123 cd" is AB123CD). */
export const plateKey = (s: string) => s.toUpperCase().replace(/[\s.-]/g, '');

/** The node asks for recognitions only: a name, plate, list or policy is set. */
export const identityFiltered = (f: AlarmFilter) => f.names.length + f.plates.length + f.lists.length + f.policies.length > 0;

/** A recognition (core's recognitionFields) against the node's identity filter: each list set must match. */
export function passesIdentity(f: AlarmFilter, r: Record<string, unknown>): boolean {
  const text = (x: unknown) => (typeof x === 'string' ? x : '');
  if (f.names.length && !f.names.includes(text(r.name).toLowerCase())) return false;
  if (f.plates.length && !f.plates.includes(plateKey(text(r.plate)))) return false;
  if (f.lists.length && !f.lists.includes(text(r.group).toLowerCase())) return false;
  return !f.policies.length || f.policies.includes(text(r.policy));
}

export function passes(filter: AlarmFilter, e: AlarmEvent): boolean {
  if (filter.startOnly && !e.active) return false;
  if (filter.channels.length && !filter.channels.includes(e.channel)) return false;
  return !filter.types.length || filter.types.includes(e.type);
}

const list = (x: unknown): string[] =>
  (Array.isArray(x) ? x.map(String) : typeof x === 'string' ? x.split(/[\s,]+/) : []).map((s) => s.trim()).filter(Boolean);

/** Names, plates and lists may hold spaces ("Allow List", "AB 123"): split on commas only. */
const listOfNames = (x: unknown): string[] =>
  (Array.isArray(x) ? x.map(String) : typeof x === 'string' ? x.split(',') : []).map((s) => s.trim()).filter(Boolean);

/** An nvr-event node's saved filter; version 1 flows (no filter properties) pass every alarm, as before. */
export function filterOf(def: Record<string, unknown>): AlarmFilter {
  return {
    channels: list(def.channels).map((c) => c.toUpperCase()),
    types: list(def.types),
    startOnly: def.startOnly === true || def.startOnly === 'true',
    names: listOfNames(def.names).map((n) => n.toLowerCase()),
    plates: listOfNames(def.plates).map(plateKey),
    lists: listOfNames(def.lists).map((n) => n.toLowerCase()),
    policies: list(def.policies).map((p) => p.toLowerCase()),
  };
}
