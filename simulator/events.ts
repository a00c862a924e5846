/**
 * `/API/Event/Check` long poll (field notes, CONTRACT "Events"). Alarms go into a ring of RING entries; a
 * reader's position is (lap_number, sequence) = divmod(absolute index, RING). The first call (`data: {}`)
 * subscribes and answers at once; later calls answer at once when alarms are waiting, otherwise they are held
 * up to `holdMs` and then answered with the keep-alive `heat_alarm: true`.
 */

export interface Alarm {
  channel: string;
  alarm_type: string;
  status: boolean;
}

export interface EventAnswer {
  status: number;
  /** Success `data`, or a failure code. */
  data?: Record<string, unknown>;
  error_code?: string;
  reason?: string;
}

interface Reader {
  id: number;
  lastUsed: number;
}

interface Waiter {
  reader: Reader;
  position: number;
  timer: NodeJS.Timeout;
  resolve: (a: EventAnswer) => void;
}

export const RING = 1024;
const MAX_ALARMS_PER_ANSWER = 64;
const MAX_READERS = 32;

export class EventHub {
  private readonly ring: Alarm[] = new Array<Alarm>(RING);
  private total = 0;
  private nextReaderId = 1;
  private readonly readers = new Map<number, Reader>();
  private readonly waiters = new Set<Waiter>();
  private stopped = false;
  private flushQueued = false;

  constructor(private readonly holdMs: number) {}

  private answer(reader: Reader, position: number, keepAlive: boolean): EventAnswer {
    const end = Math.min(this.total, position + MAX_ALARMS_PER_ANSWER);
    const alarm_list: Alarm[] = [];
    for (let i = position; i < end; i++) alarm_list.push(this.ring[i % RING]);
    const data: Record<string, unknown> = {
      reader_id: reader.id,
      sequence: end % RING,
      lap_number: Math.floor(end / RING),
      alarm_list,
    };
    if (keepAlive && alarm_list.length === 0) data.heat_alarm = true;
    return { status: 200, data };
  }

  private subscribe(now: number): EventAnswer {
    if (this.readers.size >= MAX_READERS) {
      // Drop the reader idle the longest: its client will get readerID_invalid and subscribe again.
      let oldest: Reader | undefined;
      for (const r of this.readers.values()) if (!oldest || r.lastUsed < oldest.lastUsed) oldest = r;
      if (oldest) this.readers.delete(oldest.id);
    }
    const reader: Reader = { id: this.nextReaderId++, lastUsed: now };
    this.readers.set(reader.id, reader);
    return this.answer(reader, this.total, false);
  }

  /**
   * One Event/Check call. `onAbort` registers a callback for a client that goes away while held.
   */
  check(data: Record<string, unknown>, onAbort: (cb: () => void) => void, now = Date.now()): EventAnswer | Promise<EventAnswer> {
    if (data.reader_id === undefined) return this.subscribe(now);
    const reader = typeof data.reader_id === 'number' ? this.readers.get(data.reader_id) : undefined;
    if (!reader) return { status: 400, error_code: 'readerID_invalid', reason: 'Unknown reader_id: subscribe again' };
    const { sequence, lap_number } = data;
    if (!Number.isInteger(sequence) || !Number.isInteger(lap_number)) {
      return { status: 400, error_code: 'param_error', reason: 'sequence and lap_number must be integers' };
    }
    const position = (lap_number as number) * RING + (sequence as number);
    if ((sequence as number) < 0 || (sequence as number) >= RING || position > this.total || position < this.total - RING) {
      return { status: 400, error_code: 'position_invalid', reason: 'Position out of the event ring: subscribe again' };
    }
    reader.lastUsed = now;
    if (position < this.total || this.stopped || this.holdMs <= 0) return this.answer(reader, position, true);
    return new Promise<EventAnswer>((resolve) => {
      const waiter: Waiter = {
        reader,
        position,
        resolve,
        timer: setTimeout(() => this.release(waiter), this.holdMs),
      };
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
    w.resolve(this.answer(w.reader, w.position, true));
  }

  raise(alarm: Alarm): void {
    this.ring[this.total % RING] = alarm;
    this.total++;
    // Alarms raised in one synchronous burst reach a held reader in one answer.
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      for (const w of [...this.waiters]) this.release(w);
    });
  }

  /** Answer every held request (keep-alive) so that the server can close. */
  stop(): void {
    this.stopped = true;
    for (const w of [...this.waiters]) this.release(w);
  }
}
