import * as v from 'valibot';
import { alarmTypeOfMember, alarmTypeOfSubtype, type AlarmType } from './alarm-types';
import { aiPictures, alarmSnaps, type AiPicture, type AlarmPicture } from './event-pictures';

/**
 * Reading one `/API/Event/Check` answer (vendor facts d) into typed events. Tolerant by field: a member
 * of the wrong type is dropped, never the whole answer. Keep-alives (`heat_alarm`) and status-only
 * members (`record_flag`, `camera_connect_status`, ...) produce no event.
 *
 * Pictures (event-pictures.ts): an alarm start whose entry names a picture (`take_alarm_snap` = an `img_id` of
 * `alarm_snap_data`) carries it as `picture`; an AI picture (`ai_snap_picture`) goes with the AI alarm start of its
 * channel in the same answer, or, without one, comes as a `picture` event of its own. An AI picture of a vehicle
 * also reports the `motor_vehicle` alarm (its end: the end of the AI alarm it came with, see {@link VehicleTracker}).
 */

export type DeviceEvent =
  | { kind: 'alarm'; channel: string; type: AlarmType; active: boolean; time?: string; subtype?: string; picture?: AlarmPicture }
  | { kind: 'picture'; channel: string; picture: AlarmPicture; time?: string }
  | { kind: 'live'; channel: string; floodlight?: boolean; brightness?: number; siren?: boolean; volume?: number }
  | { kind: 'disk'; ok: boolean; info?: string; time?: string };

/** Optional, and dropped (undefined) when the device sends it in another type. */
const opt = <T extends v.GenericSchema>(schema: T) => v.fallback(v.optional(schema), undefined);
const IntAlarm = v.looseObject({ alarm_val: v.boolean(), int_subtype: v.string(), take_alarm_snap: opt(v.number()) });

const ChannelAlarm = v.looseObject({
  channel: v.string(),
  /** The `img_id` of this alarm's picture in `alarm_snap_data` (vendor table 5). */
  take_alarm_snap: opt(v.number()),
  motion_alarm: opt(v.boolean()),
  pir_alarm: opt(v.boolean()),
  io_alarm: opt(v.boolean()),
  videoloss: opt(v.boolean()),
  int_alarm: opt(IntAlarm),
  alarm_state: opt(v.array(v.unknown())),
  Floodlight_AudioAlarm: opt(
    v.looseObject({
      floodlight_switch: opt(v.boolean()),
      flood_light_value: opt(v.number()),
      audioAlarm_switch: opt(v.boolean()),
      audioAlarm_value: opt(v.number()),
    }),
  ),
  /** Separate motion form (vendor tables 21/22): `{alarm_state: bool, alarm_type: "smd"}`. */
  motion_report: opt(v.looseObject({ alarm_state: v.boolean(), alarm_type: opt(v.string()) })),
});

const SystemAlarm = v.looseObject({
  hdd: v.looseObject({ hdd_alarm_type: v.string(), hdd_alarm_info: opt(v.string()) }),
});

const AlarmItem = v.looseObject({
  time: opt(v.string()),
  channel_alarm: opt(v.array(v.unknown())),
  system_alarm: opt(v.array(v.unknown())),
});

const Answer = v.looseObject({
  reader_id: opt(v.number()),
  sequence: opt(v.number()),
  lap_number: opt(v.nullable(v.number())),
  time: opt(v.string()),
  alarm_list: opt(v.array(v.unknown())),
  /** Single-level form of some answers (vendor table 2 lists them beside `alarm_list`). */
  channel_alarm: opt(v.array(v.unknown())),
  system_alarm: opt(v.array(v.unknown())),
  alarm_snap_data: opt(v.array(v.unknown())),
  ai_snap_picture: opt(v.unknown()),
});

export type Cursor = { reader_id: number; sequence?: number; lap_number?: number | null };

/** Items of `list` that match `schema`; the others are dropped one by one. */
function items<T extends v.GenericSchema>(schema: T, list: unknown[] | undefined): Array<v.InferOutput<T>> {
  const out: Array<v.InferOutput<T>> = [];
  for (const x of list ?? []) {
    const r = v.safeParse(schema, x);
    if (r.success) out.push(r.output);
  }
  return out;
}

/**
 * Both `time` forms to ISO 8601 without losing what the device said:
 * `MM/DD/YYYYhh:mm:ss` (vendor table, device local time) -> `YYYY-MM-DDThh:mm:ss` (no offset: local time);
 * `2023-08-25T08:38:58Z+08:00` (vendor sample) -> `2023-08-25T08:38:58+08:00` (the offset is kept, the stray `Z` dropped).
 * Anything else is kept as the device sent it.
 */
export function normalizeTime(s: string): string {
  const t = s.trim();
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})\s*(\d{1,2}):(\d{2}):(\d{2})$/.exec(t);
  if (us) {
    const [, mo, d, y, h, mi, se] = us;
    return `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}T${h.padStart(2, '0')}:${mi}:${se}`;
  }
  const iso = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2}(?:\.\d+)?)(Z)?([+-]\d{2}:?\d{2})?$/.exec(t);
  if (iso) return `${iso[1]}T${iso[2]}${iso[4] ?? iso[3] ?? ''}`;
  return t;
}

/** The cursor an answer carries; `sequence`/`lap_number` the answer omits keep their last value. */
export function cursorOf(data: unknown, previous?: Cursor): Cursor | undefined {
  const r = v.safeParse(Answer, data);
  if (!r.success || r.output.reader_id === undefined) return undefined;
  const { reader_id, sequence, lap_number } = r.output;
  const same = previous?.reader_id === reader_id;
  return {
    reader_id,
    sequence: sequence ?? (same ? previous?.sequence : undefined),
    lap_number: lap_number ?? (same ? previous?.lap_number : undefined),
  };
}

function channelEvents(
  a: v.InferOutput<typeof ChannelAlarm>,
  time: string | undefined,
  snaps: ReadonlyMap<number, AlarmPicture>,
): DeviceEvent[] {
  const out: DeviceEvent[] = [];
  const at = time === undefined ? {} : { time };
  for (const [member, value] of Object.entries(a)) {
    const type = alarmTypeOfMember(member);
    if (type && typeof value === 'boolean') out.push({ kind: 'alarm', channel: a.channel, type, active: value, ...at });
  }
  if (a.motion_report) {
    const subtype = a.motion_report.alarm_type;
    out.push({
      kind: 'alarm',
      channel: a.channel,
      type: 'motion',
      active: a.motion_report.alarm_state,
      ...at,
      ...(subtype ? { subtype } : {}),
    });
  }
  // A device may report one AI alarm in both forms (`int_alarm` and `alarm_state`) in the same entry: one change.
  const reported = new Set<string>();
  for (const int of [...(a.int_alarm ? [a.int_alarm] : []), ...items(IntAlarm, a.alarm_state)]) {
    const type = alarmTypeOfSubtype(int.int_subtype);
    const key = `${int.int_subtype}:${int.alarm_val}`;
    if (!type || reported.has(key)) continue;
    reported.add(key);
    const picture = int.alarm_val && int.take_alarm_snap !== undefined ? snaps.get(int.take_alarm_snap) : undefined;
    out.push({
      kind: 'alarm',
      channel: a.channel,
      type,
      active: int.alarm_val,
      ...at,
      subtype: int.int_subtype,
      ...(picture ? { picture } : {}),
    });
  }
  // The entry's picture goes with its first alarm start that has none yet.
  const snap = a.take_alarm_snap !== undefined ? snaps.get(a.take_alarm_snap) : undefined;
  const start = snap && out.find((e) => e.kind === 'alarm' && e.active && !e.picture);
  if (start && start.kind === 'alarm') start.picture = snap;
  const live = a.Floodlight_AudioAlarm;
  if (live) {
    const state = {
      floodlight: live.floodlight_switch,
      brightness: live.flood_light_value,
      siren: live.audioAlarm_switch,
      volume: live.audioAlarm_value,
    };
    const present = Object.fromEntries(Object.entries(state).filter(([, x]) => x !== undefined));
    if (Object.keys(present).length) out.push({ kind: 'live', channel: a.channel, ...present });
  }
  return out;
}

function diskEvents(list: unknown[] | undefined, time: string | undefined): DeviceEvent[] {
  return items(SystemAlarm, list).map(({ hdd }) => ({
    kind: 'disk' as const,
    ok: hdd.hdd_alarm_type === 'Ok',
    ...(hdd.hdd_alarm_info !== undefined ? { info: hdd.hdd_alarm_info } : {}),
    ...(time !== undefined ? { time } : {}),
  }));
}

type AlarmEvent = Extract<DeviceEvent, { kind: 'alarm' }>;

/** Seconds since 1970 of an event's time; a time without offset is the device's local time, read as ours. */
const seconds = (time: string | undefined) => (time === undefined ? NaN : Date.parse(time) / 1000);

/**
 * The AI alarm start an AI picture belongs to: on its channel, from a detector its `Type` names (a vehicle picture
 * never goes to a face alarm), without an AI picture yet; of several, the one whose time is nearest the picture's
 * `StartTime`, else the latest (the picture follows its alarm).
 */
function alarmOfPicture(events: DeviceEvent[], ai: AiPicture): AlarmEvent | undefined {
  const fits = (e: DeviceEvent): e is AlarmEvent =>
    e.kind === 'alarm' &&
    e.active &&
    e.channel === ai.channel &&
    e.subtype !== undefined &&
    e.picture?.source !== 'ai' &&
    // Same detector, or one reported as the same alarm type (PID and the newer intrusion are both `intrusion`).
    (ai.subtypes.length === 0 || ai.subtypes.some((s) => s === e.subtype || alarmTypeOfSubtype(s) === e.type));
  const candidates = events.filter(fits);
  if (ai.start === undefined || candidates.length < 2) return candidates.at(-1);
  const gap = (e: AlarmEvent) => Math.abs(seconds(e.time) - ai.start!);
  const timed = candidates.filter((e) => !Number.isNaN(gap(e)));
  if (timed.length === 0) return candidates.at(-1);
  return timed.reduce((best, e) => (gap(e) < gap(best) ? e : best));
}

/** Events of one answer, in the device's order. A keep-alive (`heat_alarm`) or an empty list gives none. */
export function eventsOf(data: unknown): DeviceEvent[] {
  const r = v.safeParse(Answer, data);
  if (!r.success) return [];
  const answer = r.output;
  const out: DeviceEvent[] = [];
  const snaps = alarmSnaps(answer.alarm_snap_data);
  const groups = [
    ...items(AlarmItem, answer.alarm_list),
    { time: answer.time, channel_alarm: answer.channel_alarm, system_alarm: answer.system_alarm },
  ];
  for (const g of groups) {
    const time = g.time ?? answer.time;
    const iso = time === undefined ? undefined : normalizeTime(time);
    out.push(...diskEvents(g.system_alarm, iso));
    for (const a of items(ChannelAlarm, g.channel_alarm)) out.push(...channelEvents(a, iso, snaps));
  }
  const time = answer.time === undefined ? undefined : normalizeTime(answer.time);
  for (const ai of aiPictures(answer.ai_snap_picture)) {
    const { channel, picture } = ai;
    const start = alarmOfPicture(out, ai);
    if (start) start.picture = picture;
    else out.push({ kind: 'picture', channel, picture, ...(time !== undefined ? { time } : {}) });
    if (picture.target !== 'vehicle') continue;
    const at = start?.time ?? time;
    const vehicle: DeviceEvent = {
      kind: 'alarm',
      channel,
      type: 'motor_vehicle',
      active: true,
      ...(at !== undefined ? { time: at } : {}),
      ...(start?.subtype !== undefined ? { subtype: start.subtype } : {}),
      picture,
    };
    out.splice(start ? out.indexOf(start) + 1 : out.length, 0, vehicle);
  }
  return out;
}

/**
 * The end of `motor_vehicle`: the device reports a vehicle only in an AI picture, which has no end of its own. The
 * vehicle alarm of a channel ends with the AI alarm its picture came with (same `int_subtype`), or, for a picture
 * that came alone, with the end of any AI alarm of the channel. One per event stream (it remembers what is on).
 */
export class VehicleTracker {
  /** Channel -> the `int_subtype` whose end ends its vehicle alarm (undefined: any). */
  private readonly on = new Map<string, string | undefined>();

  /** `events` with the vehicle ends they imply added after the AI alarm ends. */
  apply(events: DeviceEvent[]): DeviceEvent[] {
    const out: DeviceEvent[] = [];
    for (const e of events) {
      out.push(e);
      if (e.kind !== 'alarm') continue;
      if (e.type === 'motor_vehicle') {
        if (e.active) this.on.set(e.channel, e.subtype);
        else this.on.delete(e.channel);
        continue;
      }
      if (e.active || e.subtype === undefined || !this.on.has(e.channel)) continue;
      const by = this.on.get(e.channel);
      if (by !== undefined && by !== e.subtype) continue;
      this.on.delete(e.channel);
      out.push({
        kind: 'alarm',
        channel: e.channel,
        type: 'motor_vehicle',
        active: false,
        ...(e.time !== undefined ? { time: e.time } : {}),
        subtype: e.subtype,
      });
    }
    return out;
  }
}
