/**
 * Writes to one page of one device, serialised. Per page a queue: while a write runs, new changes wait;
 * then ALL waiting changes are merged into one `client.update()` (read, merge, Set, read back). Two commands that arrive
 * together (siren on CH1, siren volume on CH2) both take effect: nothing is lost, nothing is optimistic.
 * A raw Set (request API) is a write of its own, in arrival order.
 */
import type { DeviceError } from '../../core';
import { isPlainObject } from '../../core/json';
import { valueAt, type Json } from './state';

export interface Change {
  /** Dotted position inside the page's Get `data`, e.g. ['channel_info', 'CH1', 'siren_switch']. */
  path: readonly string[];
  /** The value at `path`; with `member`: whether `member` is in the list at `path` (a boolean). */
  value: unknown;
  /** Channel touched (channel-shaped Sets send only touched channel blocks). */
  channel?: string;
  /** A list membership (`disarming_channel`): `member` is added to or removed from the list the device holds. */
  member?: string;
}

export type Job = { kind: 'changes'; changes: Change[] } | { kind: 'raw'; data: Json };

/**
 * What a write came to: the page read back; `late`, the timeout its Set outlived when the device answered too late
 * but the read-back showed it applied (core/late.ts).
 */
export interface Written {
  readBack: Json;
  late?: DeviceError;
}

/** Runs one write: a batch of merged change jobs, or one raw job. */
export type WriteExecutor = (page: string, batch: Job[]) => Promise<Written>;

interface Waiter {
  job: Job;
  resolve: (written: Written) => void;
  reject: (err: unknown) => void;
}

export class WriteQueue {
  private readonly queues = new Map<string, { waiting: Waiter[]; running: boolean }>();
  private closed = false;

  constructor(private readonly exec: WriteExecutor) {}

  /** Queue a write on `page`; resolves with the read-back `data` once the device confirmed it. */
  enqueue(page: string, job: Job): Promise<Written> {
    if (this.closed) return Promise.reject(new Error('bridge stopping'));
    let q = this.queues.get(page);
    if (!q) {
      q = { waiting: [], running: false };
      this.queues.set(page, q);
    }
    const promise = new Promise<Written>((resolve, reject) => q.waiting.push({ job, resolve, reject }));
    if (!q.running) void this.drain(page, q);
    return promise;
  }

  /** Writes waiting or running, all pages. */
  get size(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.waiting.length + (q.running ? 1 : 0);
    return n;
  }

  close(): void {
    this.closed = true;
    for (const q of this.queues.values()) for (const w of q.waiting.splice(0)) w.reject(new Error('bridge stopping'));
  }

  private async drain(page: string, q: { waiting: Waiter[]; running: boolean }): Promise<void> {
    q.running = true;
    try {
      while (q.waiting.length) {
        // All leading change jobs merge into one write; a raw job goes alone.
        const batch: Waiter[] = [];
        if (q.waiting[0].job.kind === 'raw') batch.push(q.waiting.shift()!);
        else while (q.waiting.length && q.waiting[0].job.kind === 'changes') batch.push(q.waiting.shift()!);
        try {
          const written = await this.exec(
            page,
            batch.map((w) => w.job),
          );
          for (const w of batch) w.resolve(written);
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      q.running = false;
      if (q.waiting.length && !this.closed) void this.drain(page, q);
    }
  }
}

/** Sets `value` at `path` inside `target`, creating objects on the way. */
export function setAt(target: Json, path: readonly string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    const next = node[k];
    if (!isPlainObject(next)) node[k] = {};
    node = node[k] as Json;
  }
  node[path[path.length - 1]] = value;
}

/** `list` with `member` added (at the end) or removed; the same elements when it already holds. */
export function withMember(list: readonly unknown[], member: string, present: boolean): unknown[] {
  // Unchanged stays unchanged (same order): update() then finds nothing to send.
  if (list.includes(member) === present) return [...list];
  return present ? [...list, member] : list.filter((x) => x !== member);
}

/**
 * The `changes` of one `client.update()` for merged change jobs. Memberships apply, one after the other, to the
 * list in `current` (the page as the device holds it now): two channels toggled together both land.
 */
export function mergeChanges(changes: readonly Change[], current: Json | undefined): Json {
  const out: Json = {};
  for (const c of changes) {
    if (c.member === undefined) {
      setAt(out, c.path, c.value);
      continue;
    }
    const list = valueAt(out, c.path) ?? valueAt(current, c.path);
    setAt(out, c.path, withMember(Array.isArray(list) ? list : [], c.member, c.value === true));
  }
  return out;
}

/** What a read-back says for a change: the value at its path, or whether its member is listed. */
export function readBackValue(readBack: Json, c: Change): unknown {
  const got = valueAt(readBack, c.path);
  if (c.member === undefined) return got;
  return Array.isArray(got) ? got.includes(c.member) : undefined;
}

/** The field a change writes, as reported: `channel_info.CH1.siren_switch`, `disarming_channel.CH1`. */
export function changeField(c: Change): string {
  return [...c.path, ...(c.member === undefined ? [] : [c.member])].join('.');
}
