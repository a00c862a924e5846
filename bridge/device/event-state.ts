/**
 * What the device's events say, as state keys (no I/O here: the event stream in `events.ts` feeds it, unit tests
 * feed it by hand):
 * - alarms: one boolean per alarm type key (`motion`, `person`, `line_crossing`, ...) per channel, set on the
 *   alarm's start, cleared on its end, or cleared after `clearAfterMs` when the device never sends the end;
 * - disk: the device-level `disk_problem`.
 * Every change is reported once, with the edge to publish on `<ch>/event` for an alarm. Live light and siren events
 * (`{kind:'live'}`) are not kept here: `events.ts` hands them to `Device.applyLive`, so `facts.live` is the one
 * place live state lives.
 */
import type { AlarmPicture, AlarmType, DeviceEvent } from '../../core';

/** Event-derived values of one device, kept in its facts (`DeviceFacts.events`); replaced on every change. */
export interface EventValues {
  /** Alarm keys each channel can raise (the entities): from the channel slots, plus types the device reported. */
  keys: ReadonlyMap<string, readonly AlarmType[]>;
  /** Alarm keys that are on now, per channel. */
  active: ReadonlyMap<string, ReadonlySet<AlarmType>>;
  /** Device level: `disk_problem` (false until a disk alarm says otherwise). */
  diskProblem: boolean;
  diskInfo?: string;
}

export function emptyEventValues(keys: ReadonlyMap<string, readonly AlarmType[]> = new Map()): EventValues {
  return { keys, active: new Map(), diskProblem: false };
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
  /** The picture the device sent with this alarm start, or alone (then without an edge). */
  picture?: AlarmPicture;
}

export interface EventStateOptions {
  /** Clear an alarm after this long without its end. */
  clearAfterMs: number;
  /** Read the current values (the device facts'). */
  get(): EventValues;
  /** Store new values (into the device facts). */
  set(values: EventValues): void;
  /** A change made by a timer (an alarm cleared after `clearAfterMs`). */
  onTimeout(change: EventChange): void;
}

export class EventState {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly o: EventStateOptions) {}

  /** Applies one alarm or disk event; the change to publish, or undefined when nothing changed. */
  apply(e: Exclude<DeviceEvent, { kind: 'live' | 'picture' }>): EventChange | undefined {
    switch (e.kind) {
      case 'alarm':
        return this.alarm(e.channel, e.type, e.active, e.time);
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

  /** Stop the clear timers (the stream stopped; the values stay as they are). */
  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

/** Event keys of a channel's state: every alarm key it can raise, false unless on. */
export function channelEventState(values: EventValues | undefined, channel: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  if (!values) return out;
  const on = values.active.get(channel);
  for (const key of values.keys.get(channel) ?? []) out[key] = !!on?.has(key);
  return out;
}

/**
 * Any alarm active on the recorder (a device fact: Event/Check's): an upgrade, online or from a file, would reboot it
 * in the middle.
 */
export function alarmActive(values: EventValues | undefined): boolean {
  for (const types of values?.active.values() ?? []) if (types.size) return true;
  return false;
}
