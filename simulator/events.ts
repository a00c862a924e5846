/**
 * `/API/Event/Check` as the vendor describes it. The first call (no `reader_id`; `plus_eventchk:"eventAiPushPic"`
 * with `ext_data.subscribe_type`, or a bare `{}` as the project spec has it) subscribes and answers at once with
 * the alarms active now and a cursor. Later calls send the cursor back and are answered at once: the entries raised
 * since (`alarm_list:[{time, channel_alarm:[...], system_alarm:[...]}]`) or the keep-alive `heat_alarm:"HeatAlarm"`.
 * With `holdMs > 0` a call with nothing to report is held up to that long (the long poll of some firmwares).
 * Entries sit in a ring of RING; a position is (lap_number, sequence) = divmod(absolute index, RING).
 * An entry may carry pictures (pictures.ts): its `alarm_snap_data` item goes into the answer's `alarm_snap_data`
 * (not for a reader subscribed with `snap_resolution: "no_snapshot"`: its entries lose `take_alarm_snap`), its AI
 * picture into `ai_snap_picture` for readers subscribed with `aipushpic`, one per answer (an answer ends before
 * the second entry with an AI picture; the next answer starts there).
 */
import type { EventClass } from './alarms';
import { isPlainObject } from './descriptors';

export type Obj = Record<string, unknown>;

/** One `alarm_list` item and the subscribe class that selects it ('system': disk alarms, always sent). */
interface RingEntry {
  item: { time: string; channel_alarm?: Obj[]; system_alarm?: Obj[] };
  cls: EventClass | 'system';
  /** The picture of the alarm (`alarm_snap_data` item) and its AI picture (`ai_snap_picture` member). */
  pictures?: EntryPictures;
}

interface EntryPictures {
  snap?: Obj;
  ai?: Obj;
}

interface EventAnswer {
  status: number;
  data?: Obj;
  error_code?: string;
  reason?: string;
}

interface Reader {
  id: number;
  lastUsed: number;
  /** Subscribed classes; 'status' and 'system' entries are always sent. */
  classes: ReadonlySet<string>;
  recordFlags: boolean;
  /** `snap_resolution` is not `no_snapshot`: alarm pictures are sent. */
  snapshots: boolean;
  /** Subscribed with `aipushpic`: AI pictures are sent. */
  aiPictures: boolean;
  /** Last lap answered: used when a client sends `lap_number: null` (vendor sample). */
  lap: number;
}

interface Waiter {
  reader: Reader;
  position: number;
  timer: NodeJS.Timeout;
  resolve: (a: EventAnswer) => void;
}

const RING = 1024;
const MAX_ITEMS_PER_ANSWER = 64;
const MAX_READERS = 32;
const EVENT_VALUES = ['all', 'motion', 'io', 'videoloss', 'videohide', 'int', 'sound_dectet'];
const ALL_CLASSES = ['motion', 'io', 'videoloss', 'videohide', 'int', 'sound_dectet'];

interface EventHubOptions {
  /** > 0: hold a call with nothing to report up to this long. 0: answer at once (vendor). */
  holdMs: number;
  /** Channel entries of the alarms active now (the subscribe answer). */
  current(): Obj[];
  /** `time` of an alarm_list item. */
  time(now: Date): string;
}

const fail = (error_code: string, reason: string): EventAnswer => ({ status: 400, error_code, reason });

/** Subscribed classes from `ext_data`, or a message naming what is wrong. */
function subscription(data: Obj): { classes: Set<string>; recordFlags: boolean; snapshots: boolean; aiPictures: boolean } | string {
  if (data.plus_eventchk !== undefined && data.plus_eventchk !== 'eventAiPushPic') return 'plus_eventchk: must be "eventAiPushPic"';
  for (const k of ['subscribe_record_sign', 'subscribe_intelligence']) {
    if (data[k] !== undefined && typeof data[k] !== 'boolean') return `${k}: must be a bool`;
  }
  const classes = new Set<string>();
  let aiPictures = false;
  let snapshots = true;
  const ext = data.ext_data;
  let types: unknown[] | undefined;
  if (ext !== undefined) {
    if (!isPlainObject(ext)) return 'ext_data: must be an object';
    if (ext.subscribe_type !== undefined && !Array.isArray(ext.subscribe_type)) return 'ext_data.subscribe_type: must be an array';
    types = ext.subscribe_type as unknown[] | undefined;
    const res = ext.snap_resolution;
    if (res !== undefined && !['640x480', '1280x720', 'no_snapshot'].includes(res as string))
      return 'ext_data.snap_resolution: must be 640x480, 1280x720 or no_snapshot';
    snapshots = res !== 'no_snapshot';
  }
  for (const [i, t] of (types ?? []).entries()) {
    if (!isPlainObject(t)) return `ext_data.subscribe_type.${i}: must be an object`;
    for (const [key, values] of Object.entries(t)) {
      if (!Array.isArray(values)) return `ext_data.subscribe_type.${i}.${key}: must be an array`;
      const allowed = key === 'event' ? EVENT_VALUES : key === 'aipushpic' ? ['all'] : undefined;
      if (!allowed) return `ext_data.subscribe_type.${i}.${key}: unknown subscription (event, aipushpic)`;
      const bad: unknown = values.find((v: unknown) => !allowed.includes(v as string));
      if (bad !== undefined) return `ext_data.subscribe_type.${i}.${key}: ${JSON.stringify(bad)} is not one of ${allowed.join(', ')}`;
      for (const v of values as string[]) {
        if (key === 'aipushpic') {
          classes.add('int');
          aiPictures = true;
        } else if (v === 'all') ALL_CLASSES.forEach((c) => classes.add(c));
        else classes.add(v);
      }
    }
  }
  if (types === undefined) ALL_CLASSES.forEach((c) => classes.add(c));
  if (data.subscribe_intelligence === false) classes.delete('int');
  classes.add('status');
  classes.add('system');
  return { classes, recordFlags: data.subscribe_record_sign !== false, snapshots, aiPictures };
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;

export class EventHub {
  private readonly ring: RingEntry[] = new Array<RingEntry>(RING);
  private total = 0;
  private nextReaderId = 1;
  private readonly readers = new Map<number, Reader>();
  private readonly waiters = new Set<Waiter>();
  private stopped = false;
  private flushQueued = false;

  constructor(private readonly o: EventHubOptions) {}

  /** Calls held now, waiting for an event or the end of the hold. */
  get held(): number {
    return this.waiters.size;
  }

  private cursor(reader: Reader, end: number): Obj {
    reader.lap = Math.floor(end / RING);
    return { reader_id: reader.id, sequence: end % RING, lap_number: reader.lap };
  }

  private answer(reader: Reader, position: number): EventAnswer {
    let end = Math.min(this.total, position + MAX_ITEMS_PER_ANSWER);
    const alarm_list: Obj[] = [];
    const snaps: Obj[] = [];
    let ai: Obj | undefined;
    for (let i = position; i < end; i++) {
      const e = this.ring[i % RING];
      if (!reader.classes.has(e.cls)) continue;
      const aiHere = reader.aiPictures ? e.pictures?.ai : undefined;
      if (aiHere && ai) {
        end = i; // one AI picture per answer: this entry opens the next one
        break;
      }
      ai ??= aiHere;
      let item = reader.recordFlags ? e.item : withoutMember(e.item, 'record_flag');
      if (e.pictures?.snap && reader.snapshots) snaps.push(e.pictures.snap);
      else if (e.pictures?.snap) item = withoutMember(item, 'take_alarm_snap');
      alarm_list.push(item);
    }
    const data = this.cursor(reader, end);
    if (alarm_list.length) data.alarm_list = alarm_list;
    else data.heat_alarm = 'HeatAlarm';
    if (snaps.length) data.alarm_snap_data = snaps;
    if (ai) data.ai_snap_picture = ai;
    return { status: 200, data };
  }

  private subscribe(data: Obj, now: number): EventAnswer {
    const sub = subscription(data);
    if (typeof sub === 'string') return fail('param_error', sub);
    if (this.readers.size >= MAX_READERS) {
      // Drop the reader idle the longest: its client gets readerID_invalid and subscribes again.
      let oldest: Reader | undefined;
      for (const r of this.readers.values()) if (!oldest || r.lastUsed < oldest.lastUsed) oldest = r;
      if (oldest) this.readers.delete(oldest.id);
    }
    const reader: Reader = { id: this.nextReaderId++, lastUsed: now, lap: 0, ...sub };
    this.readers.set(reader.id, reader);
    const out = this.cursor(reader, this.total);
    const current = this.o.current();
    if (current.length) out.alarm_list = [{ time: this.o.time(new Date(now)), channel_alarm: current }];
    else out.heat_alarm = 'HeatAlarm';
    return { status: 200, data: out };
  }

  /** One Event/Check call. `onAbort` registers a callback for a client that goes away while held. */
  check(data: Obj, onAbort: (cb: () => void) => void, now = Date.now()): EventAnswer | Promise<EventAnswer> {
    if (data.reader_id === undefined || data.reader_id === null) return this.subscribe(data, now);
    if (!isCount(data.reader_id)) return fail('param_error', 'reader_id: must be an unsigned int');
    const { sequence, lap_number } = data;
    if (!isCount(sequence)) return fail('param_error', 'sequence: must be an unsigned int');
    if (lap_number !== undefined && lap_number !== null && !isCount(lap_number))
      return fail('param_error', 'lap_number: must be an unsigned int or null');
    const reader = this.readers.get(data.reader_id);
    if (!reader) return fail('readerID_invalid', 'Unknown reader_id: subscribe again');
    const lap = isCount(lap_number) ? lap_number : reader.lap;
    const position = lap * RING + sequence;
    if (sequence >= RING || position > this.total || position < this.total - RING) {
      return fail('position_invalid', 'Position out of the event ring: subscribe again');
    }
    reader.lastUsed = now;
    if (position < this.total || this.stopped || this.o.holdMs <= 0) return this.answer(reader, position);
    return new Promise<EventAnswer>((resolve) => {
      const waiter: Waiter = { reader, position, resolve, timer: setTimeout(() => this.release(waiter), this.o.holdMs) };
      this.waiters.add(waiter);
      onAbort(() => {
        clearTimeout(waiter.timer);
        this.waiters.delete(waiter);
      });
    });
  }

  private release(w: Waiter): void {
    if (!this.waiters.delete(w)) return;
    clearTimeout(w.timer);
    w.reader.lastUsed = Date.now();
    w.resolve(this.answer(w.reader, w.position));
  }

  /** Append one alarm_list item; held readers are answered (a synchronous burst reaches them in one answer). */
  push(cls: RingEntry['cls'], part: { channel_alarm?: Obj[]; system_alarm?: Obj[] }, now = new Date(), pictures?: EntryPictures): void {
    this.ring[this.total % RING] = { cls, item: { time: this.o.time(now), ...part }, ...(pictures ? { pictures } : {}) };
    this.total++;
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      for (const w of [...this.waiters]) this.release(w);
    });
  }

  /** Answer every held request so that the server can close. */
  stop(): void {
    this.stopped = true;
    for (const w of [...this.waiters]) this.release(w);
  }
}

/**
 * An item without one member of its channel alarms: `record_flag` for a reader that did not ask for record flags,
 * `take_alarm_snap` (picture ids) for one that asked for no pictures.
 */
function withoutMember(item: RingEntry['item'], member: 'record_flag' | 'take_alarm_snap'): RingEntry['item'] {
  if (!item.channel_alarm) return item;
  return {
    ...item,
    channel_alarm: item.channel_alarm.map((e) => {
      if (!(member in e)) return e;
      const { [member]: _, ...rest } = e;
      return rest;
    }),
  };
}

/** `time` of an item: the vendor table's `MM/DD/YYYYhh:mm:ss`, no space (old firmware), or its sample's ISO form. */
export function eventTime(legacy: boolean) {
  const two = (n: number) => String(n).padStart(2, '0');
  return (d: Date): string =>
    legacy
      ? `${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}/${d.getUTCFullYear()}${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
      : `${d.toISOString().slice(0, 19)}Z+00:00`;
}
