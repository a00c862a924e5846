/**
 * What the device's events say, as state keys (no I/O here: the event stream in `events.ts` feeds it, unit tests
 * feed it by hand):
 * - alarms: one boolean per alarm type key (`motion`, `person`, `line_crossing`, ...) per channel, set on the
 *   alarm's start, cleared on its end, or cleared after `clearAfterMs` when the device never sends the end;
 * - live light and siren (`Floodlight_AudioAlarm`): `floodlight`, `floodlight_brightness`, `siren`;
 * - disk: the device-level `disk_problem`.
 * Every change is reported once, with the edge to publish on `<ch>/event` for an alarm.
 */
import type { AlarmType, DeviceEvent } from '../core';

type Scalar = boolean | number | string;

/** A live value an event wrote, and when (see {@link EventValues.live}). */
export interface LiveValue {
  value: Scalar;
  /** Epoch ms the event arrived. */
  at: number;
}

/** Event-derived values of one device, kept in its model (`DeviceModel.events`); replaced on every change. */
export interface EventValues {
  /** Alarm keys each channel can raise (the entities): from the channel model, plus types the device reported. */
  keys: ReadonlyMap<string, readonly AlarmType[]>;
  /** Alarm keys that are on now, per channel. */
  active: ReadonlyMap<string, ReadonlySet<AlarmType>>;
  /**
   * Live values per channel and key. A value stands over the polled value of the same key until a read that
   * started after the event (a poll, a command's read-back: `DeviceModel.readAt`) replaced the polled values.
   */
  live: ReadonlyMap<string, Readonly<Record<string, LiveValue>>>;
  /** Device level: `disk_problem` (false until a disk alarm says otherwise). */
  diskProblem: boolean;
  diskInfo?: string;
}

export function emptyEventValues(keys: ReadonlyMap<string, readonly AlarmType[]> = new Map()): EventValues {
  return { keys, active: new Map(), live: new Map(), diskProblem: false };
}

/** An alarm edge as published on `<base>/<dev>/<ch>/event`. */
export interface AlarmEdge {
  type: AlarmType;
  active: boolean;
  time?: string;
  /** Set when the bridge cleared the alarm itself (`alarm_clear_after`): the device never sent its end. */
  timed_out?: true;
}

/** One change to publish: the channel's state (or the device's: no channel), and the alarm edge if there is one. */
export interface EventChange {
  channel?: string;
  edge?: AlarmEdge;
  /** An alarm key the channel was not known to raise: its entity appears (discovery changes). */
  structure?: boolean;
}

/** `{kind:'live'}` members -> state keys: one table. */
export const LIVE_KEYS = { floodlight: 'floodlight', brightness: 'floodlight_brightness', siren: 'siren' } as const;

export interface EventStateOptions {
  /** Clear an alarm after this long without its end. */
  clearAfterMs: number;
  /** Read the current values (the device model's). */
  get(): EventValues;
  /** Store new values (into the device model). */
  set(values: EventValues): void;
  /** A change made by a timer (an alarm cleared after `clearAfterMs`). */
  onTimeout(change: EventChange): void;
}

export class EventState {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly o: EventStateOptions) {}

  /** Applies one event; the change to publish, or undefined when nothing changed. */
  apply(e: DeviceEvent): EventChange | undefined {
    switch (e.kind) {
      case 'alarm':
        return this.alarm(e.channel, e.type, e.active, e.time);
      case 'live':
        return this.live(e);
      case 'disk': {
        const cur = this.o.get();
        const problem = !e.ok;
        if (cur.diskProblem === problem && cur.diskInfo === e.info) return undefined;
        this.o.set({ ...cur, diskProblem: problem, diskInfo: e.info });
        return {};
      }
    }
  }

  private alarm(channel: string, type: AlarmType, active: boolean, time?: string, timedOut = false): EventChange | undefined {
    const timerKey = `${channel}\u0000${type}`;
    clearTimeout(this.timers.get(timerKey));
    this.timers.delete(timerKey);
    // Still active (the device repeats it): the clear timer starts again, nothing else changes.
    if (active) {
      const t = setTimeout(() => {
        this.timers.delete(timerKey);
        const change = this.alarm(channel, type, false, undefined, true);
        if (change) this.o.onTimeout(change);
      }, this.o.clearAfterMs);
      t.unref();
      this.timers.set(timerKey, t);
    }
    const cur = this.o.get();
    const on = cur.active.get(channel);
    if (!!on?.has(type) === active) return undefined;
    const next = new Set(on);
    if (active) next.add(type);
    else next.delete(type);
    const activeMap = new Map(cur.active);
    activeMap.set(channel, next);
    let keys = cur.keys;
    const known = keys.get(channel) ?? [];
    const structure = !known.includes(type);
    if (structure) keys = new Map(keys).set(channel, [...known, type]);
    this.o.set({ ...cur, keys, active: activeMap });
    const edge: AlarmEdge = { type, active, ...(time !== undefined ? { time } : {}), ...(timedOut ? { timed_out: true as const } : {}) };
    return { channel, edge, ...(structure ? { structure } : {}) };
  }

  private live(e: Extract<DeviceEvent, { kind: 'live' }>): EventChange | undefined {
    const cur = this.o.get();
    const after: Record<string, LiveValue> = { ...cur.live.get(e.channel) };
    let any = false;
    const at = Date.now();
    for (const [member, key] of Object.entries(LIVE_KEYS)) {
      const value = e[member as keyof typeof LIVE_KEYS];
      if (value === undefined) continue;
      after[key] = { value, at };
      any = true;
    }
    if (!any) return undefined;
    this.o.set({ ...cur, live: new Map(cur.live).set(e.channel, after) });
    // What shows depends on the polled values too: the publisher's change cache drops an unchanged state.
    return { channel: e.channel };
  }

  /** Stop the clear timers (the stream stopped; the values stay as they are). */
  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

/**
 * Event keys of a channel's state: every alarm key it can raise (false unless on), and the live values that stand:
 * newer than the read behind the polled values (`readAt`), or the only value of their key.
 */
export function channelEventState(
  values: EventValues | undefined, channel: string, polled: Readonly<Record<string, unknown>>, readAt = -Infinity,
): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  if (!values) return out;
  const on = values.active.get(channel);
  for (const key of values.keys.get(channel) ?? []) out[key] = !!on?.has(key);
  for (const [key, v] of Object.entries(values.live.get(channel) ?? {})) if (v.at > readAt || polled[key] === undefined) out[key] = v.value;
  return out;
}
