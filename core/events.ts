import { DeviceError } from './errors';
import { isPlainObject } from './json';
import type { LogFn, Session } from './session';

/**
 * Device events from the `/API/Event/Check` long poll (field notes): the first call subscribes, later calls
 * send back `reader_id`, `sequence`, `lap_number` and are held until an alarm happens or a keep-alive.
 */

export interface DeviceEvent {
  channel: string;
  /** `motion_alarm`, `pir_alarm`, `io_alarm`, AI alarms, floodlight/siren state... as the device names it. */
  type: string;
  state: boolean;
}

export interface EventStreamOptions {
  signal?: AbortSignal;
  /** Per-request deadline; longer than the device's hold (about 30 s). */
  pollTimeoutMs?: number;
  /** Backoff after a failure: starts here, doubles, capped at `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  log?: LogFn;
}

export const EVENT_PATH = '/API/Event/Check';
const CTX = { page: 'Event', operation: 'Check', envelope: 'any' } as const;
/** Answers that mean: the subscription is gone, subscribe again. */
const RESUBSCRIBE_CODES = new Set(['readerID_invalid', 'position_invalid', 'reader_id_invalid']);
/** Errors after which polling cannot help: the iterator ends with the error. */
const FATAL_KINDS = new Set<DeviceError['kind']>(['lockout', 'unsupported', 'invalid_request']);
/** Keys of an answer that are bookkeeping, not alarms. */
const NOT_ALARMS = new Set(['heat_alarm', 'reader_id', 'sequence', 'lap_number']);

type Cursor = { reader_id: unknown; sequence: unknown; lap_number: unknown };

/** `true`, 1, "true", "on", "start", "alarm" are on; everything else is off. */
function truthy(x: unknown): boolean {
  if (typeof x === 'string') return /^(true|1|on|start|alarm|active)$/i.test(x.trim());
  return x === true || (typeof x === 'number' && x !== 0);
}

/**
 * Alarm entries of one answer. Accepts the list form `[{channel, alarm_type, status}]` and, tolerantly,
 * a per-channel map `{CH1: {motion_alarm: true}}` (as `alarm_list` or as the answer itself).
 */
export function eventsOf(data: unknown): DeviceEvent[] {
  if (!isPlainObject(data)) return [];
  const out: DeviceEvent[] = [];
  const list = data.alarm_list ?? data.alarm_info ?? data.alarms;
  if (Array.isArray(list)) {
    for (const e of list) {
      if (!isPlainObject(e)) continue;
      const type = e.alarm_type ?? e.type ?? e.event_type;
      const channel = e.channel ?? e.chn ?? e.channel_id;
      if (typeof type !== 'string' || NOT_ALARMS.has(type) || channel === undefined) continue;
      out.push({ channel: String(channel), type, state: truthy(e.status ?? e.state ?? e.value ?? true) });
    }
    return out;
  }
  const map = isPlainObject(list) ? list : data;
  for (const [channel, alarms] of Object.entries(map)) {
    if (NOT_ALARMS.has(channel) || !isPlainObject(alarms)) continue;
    for (const [type, state] of Object.entries(alarms)) {
      if (NOT_ALARMS.has(type)) continue;
      const value = isPlainObject(state) ? (state.status ?? state.state) : state;
      if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') out.push({ channel, type, state: truthy(value) });
    }
  }
  return out;
}

function cursorOf(data: unknown, previous?: Cursor): Cursor | undefined {
  if (!isPlainObject(data)) return previous;
  if (data.reader_id === undefined) return previous;
  return { reader_id: data.reader_id, sequence: data.sequence ?? previous?.sequence, lap_number: data.lap_number ?? previous?.lap_number };
}

/** Sleep that any of the signals cuts short; never leaves a timer behind. */
function sleep(ms: number, signals: Array<AbortSignal | undefined>): Promise<void> {
  const live = signals.filter((s): s is AbortSignal => !!s);
  return new Promise((resolve) => {
    if (live.some((s) => s.aborted)) return resolve();
    const done = () => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of live) s.addEventListener('abort', done, { once: true });
  });
}

/**
 * Async iterator of device events. Subscribes, then polls; re-subscribes on `readerID_invalid` /
 * `position_invalid` and after transport errors (with a short capped backoff). Ends cleanly when
 * `signal` aborts or the client closes; ends with the error on lock-out or when the device has no events.
 */
export async function* eventStream(session: Session, opts: EventStreamOptions = {}): AsyncGenerator<DeviceEvent, void, undefined> {
  const { signal, log } = opts;
  const pollTimeoutMs = opts.pollTimeoutMs ?? 40_000;
  const firstBackoff = opts.backoffMs ?? 500;
  const maxBackoff = opts.maxBackoffMs ?? 5_000;
  let backoff = firstBackoff;
  let cursor: Cursor | undefined;
  const closing = session.closedSignal;
  while (!signal?.aborted && !closing.aborted) {
    let data: unknown;
    try {
      const request = cursor ?? {};
      data = await session.exchange(EVENT_PATH, request, { ...CTX, timeoutMs: pollTimeoutMs, signal });
    } catch (err) {
      if (signal?.aborted || closing.aborted) return;
      if (!(err instanceof DeviceError)) throw err;
      if (err.error_code === 'closed') return;
      if (FATAL_KINDS.has(err.kind)) throw err;
      const resubscribe = RESUBSCRIBE_CODES.has(err.error_code);
      log?.(resubscribe ? 'info' : 'warn', `events: ${err.message}; subscribing again${resubscribe ? '' : ` in ${backoff} ms`}`);
      cursor = undefined;
      if (!resubscribe || backoff > firstBackoff) await sleep(backoff, [signal, closing]);
      backoff = Math.min(backoff * 2, maxBackoff);
      continue;
    }
    cursor = cursorOf(data, cursor);
    if (!cursor) {
      // Subscribed but no reader_id to poll with: the next subscribe would answer at once, so wait.
      log?.('warn', `events: answer without reader_id; subscribing again in ${backoff} ms`);
      await sleep(backoff, [signal, closing]);
      backoff = Math.min(backoff * 2, maxBackoff);
    } else {
      backoff = firstBackoff;
    }
    for (const event of eventsOf(data)) {
      if (signal?.aborted) return;
      yield event;
    }
  }
}
