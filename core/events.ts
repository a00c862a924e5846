import { setTimeout as sleep } from 'node:timers/promises';
import type { AlarmType } from './alarm-types';
import { DeviceError } from './errors';
import { cursorOf, eventsOf, VehicleTracker, type Cursor, type DeviceEvent } from './event-answer';
import type { LogFn, Session } from './session';

export { cursorOf, eventsOf, normalizeTime, VehicleTracker, type Cursor, type DeviceEvent } from './event-answer';
export { aiPictures, alarmSnaps, jpegOf, pictureTarget, type AiPicture, type AlarmPicture, type PictureTarget } from './event-pictures';

/**
 * Device events from `/API/Event/Check` (vendor facts d). The device answers at once (alarms, or the
 * keep-alive `heat_alarm`), some firmwares hold the call: either way calls are paced, at most one per
 * `intervalMs` counted from the start of the previous call, also after errors (which back off further).
 * Every call carries the subscription (`plus_eventchk`, `ext_data`); all but the first after a
 * (re-)subscription also carry the cursor (`reader_id`, `sequence`, `lap_number`).
 */

export interface EventStreamOptions {
  /** At most one Event/Check call per this period. Default 1000, at least 100. */
  intervalMs?: number;
  signal?: AbortSignal;
  /** Only alarms of these types (live and disk events always pass). */
  types?: readonly AlarmType[];
  /** Deadline of one call on the wire; above the hold of firmwares that hold the call. Default 40000. */
  pollTimeoutMs?: number;
  /** Backoff after a failure: starts here (at least `intervalMs`), doubles, capped at `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Also subscribe to the AI pictures (`{"aipushpic":["all"]}`, vendor facts o.2): AI alarms then carry their
   * picture (scene and object), and vehicles are reported (`motor_vehicle`). Pictures of ordinary alarms
   * (`alarm_snap_data`) come as the device sends them either way. Default false.
   */
  pictures?: boolean;
  /** Called after every Event/Check the device answered (keep-alives too): the stream works. */
  onAnswer?: () => void;
  /** Called when a check failed and the stream keeps trying: the error and when the next check goes out (epoch ms). */
  onFailure?: (err: DeviceError, nextCheckAt: number) => void;
  /** Lets the caller ask for a check before the interval is over (the device pushed an alarm). */
  checkNow?: CheckNow;
  log?: LogFn;
}

export const EVENT_PATH = '/API/Event/Check';
export const MIN_EVENT_INTERVAL_MS = 100;
/**
 * After an answer that carried alarms the next check comes this soon (or at `intervalMs`, when shorter): the device
 * may hold more than one answer gives (the simulator gives at most 64 entries), and in an alarm storm checks once a
 * second fall behind until the device's ring of events overruns and edges are lost. An answer with nothing new
 * (the keep-alive) waits the whole interval again, so an idle device sees no more checks than before.
 */
export const BUSY_EVENT_INTERVAL_MS = 250;
/**
 * A check asked for (a device's push) comes at once, but no sooner than this after the previous one: a flood of
 * pushes, from the device or from anyone who learnt its path, costs the device one check a second at most (the
 * default pace without push), where checks back to back cost about seven.
 */
export const PUSH_CHECK_GAP_MS = 1_000;
const CTX = { page: 'Event', operation: 'Check', envelope: 'any', priority: 'poll' } as const;
/** The subscription every call carries (vendor sample: all events; no AI picture pushes). */
export const EVENT_SUBSCRIPTION = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }] } } as const;
/** The same with the AI pictures (vendor table 1.2: `aipushpic` takes `all` only). */
export const PICTURE_SUBSCRIPTION = {
  plus_eventchk: 'eventAiPushPic',
  ext_data: { subscribe_type: [{ event: ['all'] }, { aipushpic: ['all'] }] },
} as const;
/** Answers that mean: the subscription is gone, subscribe again. */
const RESUBSCRIBE_CODES = new Set(['readerID_invalid', 'position_invalid']);
/** Errors after which polling cannot help: the stream ends with the error. */
const FATAL_KINDS = new Set<DeviceError['kind']>(['lockout', 'unsupported', 'invalid_request']);

/** The request `data` of the next call: the subscription, plus the cursor once there is one. */
export function eventCheckRequest(cursor: Cursor | undefined, pictures = false): Record<string, unknown> {
  const sub = pictures ? PICTURE_SUBSCRIPTION : EVENT_SUBSCRIPTION;
  if (!cursor) return { ...sub };
  return { ...sub, reader_id: cursor.reader_id, sequence: cursor.sequence ?? null, lap_number: cursor.lap_number ?? null };
}

function badOption(reason: string): DeviceError {
  return new DeviceError({ kind: 'invalid_request', error_code: 'bad_option', reason });
}

/**
 * Asks an event stream to check at once instead of at the end of its interval: a device that pushes its alarms
 * (AlarmConfig/EventPush) says when there is something to read. Asks that come together make one check (one in
 * flight, one pending), and an asked check comes no sooner than PUSH_CHECK_GAP_MS after the previous one, so a
 * burst of pushes cannot turn into a burst of calls.
 */
export class CheckNow {
  private pending = false;
  private wake?: () => void;

  now(): void {
    this.pending = true;
    this.wake?.();
  }

  /** Waits until `due`, or until asked (then no earlier than `soonest`); false when aborted. */
  async until(due: number, soonest: number, signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if (this.pending) {
        this.pending = false;
        return waitUntil(soonest, signal);
      }
      const ms = due - Date.now();
      if (ms <= 0) return true;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wake = undefined;
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
    return false;
  }
}

/** Waits until `at` (epoch ms) or an abort; false when aborted. */
async function waitUntil(at: number, signal: AbortSignal): Promise<boolean> {
  const ms = at - Date.now();
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * Async iterator of device events. Re-subscribes on `readerID_invalid` / `position_invalid` and after
 * a re-login. Ends cleanly when `signal` aborts or the session closes; ends with the error on a
 * lock-out or when the device has no Event/Check.
 */
export async function* eventStream(session: Session, opts: EventStreamOptions = {}): AsyncGenerator<DeviceEvent, void, undefined> {
  const intervalMs = opts.intervalMs ?? 1_000;
  if (typeof intervalMs !== 'number' || !(intervalMs >= MIN_EVENT_INTERVAL_MS)) {
    throw badOption(`intervalMs must be a number >= ${MIN_EVENT_INTERVAL_MS} (a faster poll floods the device)`);
  }
  const { log } = opts;
  const types = opts.types ? new Set<string>(opts.types) : undefined;
  const firstBackoff = Math.max(opts.backoffMs ?? 1_000, intervalMs);
  const maxBackoff = Math.max(opts.maxBackoffMs ?? 30_000, firstBackoff);
  const stop = opts.signal ? AbortSignal.any([opts.signal, session.closedSignal]) : session.closedSignal;
  let backoff = 0;
  let cursor: Cursor | undefined;
  let cursorGeneration = -1;
  let lastStart = -Infinity;
  /** The last answer carried alarms: more may be waiting. */
  let busy = false;
  const busyInterval = Math.min(intervalMs, BUSY_EVENT_INTERVAL_MS);
  const { checkNow } = opts;
  const vehicles = new VehicleTracker();
  const nextCheck = () => {
    const due = lastStart + Math.max(busy ? busyInterval : intervalMs, backoff);
    // After errors the backoff holds, pushes or not.
    return checkNow && !backoff ? checkNow.until(due, Math.min(due, lastStart + PUSH_CHECK_GAP_MS), stop) : waitUntil(due, stop);
  };
  while (await nextCheck()) {
    lastStart = Date.now();
    // A re-login ends the device's subscriptions: subscribe again under the new session.
    if (cursor && session.generation !== cursorGeneration) cursor = undefined;
    const polled = cursor !== undefined;
    let data: unknown;
    try {
      data = await session.exchange(EVENT_PATH, eventCheckRequest(cursor, opts.pictures), {
        ...CTX,
        timeoutMs: opts.pollTimeoutMs ?? 40_000,
        signal: stop,
      });
    } catch (err) {
      if (stop.aborted) return;
      busy = false;
      if (!(err instanceof DeviceError)) throw err;
      if (err.error_code === 'closed') return;
      if (FATAL_KINDS.has(err.kind)) throw err;
      if (RESUBSCRIBE_CODES.has(err.error_code)) {
        log?.('info', `events: ${err.error_code}; subscribing again`);
        cursor = undefined;
        continue; // at the next interval: a device that keeps refusing the cursor sees one call per interval
      }
      backoff = backoff ? Math.min(backoff * 2, maxBackoff) : firstBackoff;
      log?.('warn', `events: ${err.message}; next check in ${backoff} ms`);
      opts.onFailure?.(err, lastStart + Math.max(intervalMs, backoff));
      continue;
    }
    backoff = 0;
    opts.onAnswer?.();
    // A poll repeated after a re-login answered for the old subscription: subscribe next time.
    const stale = polled && session.generation !== cursorGeneration;
    const next = stale ? undefined : cursorOf(data, cursor);
    if (!next && !stale) log?.('debug', 'events: answer without reader_id; subscribing again');
    cursor = next;
    cursorGeneration = session.generation;
    const events = vehicles.apply(eventsOf(data));
    busy = events.length > 0;
    for (const event of events) {
      if (stop.aborted) return;
      if (event.kind === 'alarm' && types && !types.has(event.type)) continue;
      yield event;
    }
  }
}
