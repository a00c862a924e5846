/**
 * When a request may leave for the device: a free connection (at most `slots` on the wire) and, with a budget, a
 * token of its rate (devices answer `frequent_operation` and `device_busy` to bursts). Requests that cannot leave
 * wait in one line per priority: every waiting command before any poll, every poll before any request asked for
 * from outside. The budget's queue bounds requests from outside: past it, the newest request from outside waiting
 * (or the newcomer, when it is one) is refused with `device_busy`, never sent. The bridge's own commands and polls are
 * never refused by their own budget (a 64-channel recorder's first poll must finish): they take the place of a
 * request from outside, or wait beyond the bound when none waits (their number is bounded by how they are made: a
 * poll reads a few pages at a time, writes to one page merge).
 */
import { DeviceError } from './errors';

/** Queued 'command' calls leave before queued 'poll' calls, which leave before queued 'request' calls. */
export type Priority = 'command' | 'poll' | 'request';

const ORDER: readonly Priority[] = ['command', 'poll', 'request'];

export interface RequestBudget {
  /** Requests a second at most (bursts up to one second's worth). */
  rate: number;
  /** Requests waiting for their turn at most. */
  queue: number;
}

interface Waiter {
  grant: () => void;
  refuse: (err: DeviceError) => void;
}

function deviceBusy(budget: RequestBudget): DeviceError {
  return new DeviceError({
    kind: 'busy',
    error_code: 'device_busy',
    reason: `device busy: ${budget.queue} requests already wait for their turn (budget ${budget.rate} requests a second); not sent`,
  });
}

export class RequestGate {
  private active = 0;
  private tokens: number;
  private refilledAt = Date.now();
  private timer?: NodeJS.Timeout;
  private readonly lines: Record<Priority, Waiter[]> = { command: [], poll: [], request: [] };
  private readonly burst: number;

  constructor(
    private readonly slots: number,
    private readonly budget?: RequestBudget,
  ) {
    this.burst = budget ? Math.max(1, budget.rate) : 0;
    this.tokens = this.burst;
  }

  /** Requests waiting for their turn. */
  get queued(): number {
    return this.lines.command.length + this.lines.poll.length + this.lines.request.length;
  }

  /** Takes a slot (and a token) now when nobody waits and both are free. */
  tryEnter(): boolean {
    if (this.queued || !this.free()) return false;
    this.take();
    return true;
  }

  /**
   * Waits in the line of `priority`: `grant` once the request may leave, `refuse` when a command or poll took its
   * place in a full queue (requests from outside only). Throws `device_busy` for a request from outside when the queue
   * is full. Returns the way out of the line (an aborted call).
   */
  wait(priority: Priority, grant: () => void, refuse: (err: DeviceError) => void): () => void {
    if (this.budget && this.queued >= this.budget.queue) {
      if (priority === 'request') throw deviceBusy(this.budget);
      this.lines.request.pop()?.refuse(deviceBusy(this.budget));
    }
    const waiter: Waiter = { grant, refuse };
    const line = this.lines[priority];
    line.push(waiter);
    this.pump();
    return () => {
      const i = line.indexOf(waiter);
      if (i >= 0) line.splice(i, 1);
    };
  }

  /** A request left the wire: its slot goes to the next one waiting. */
  leave(): void {
    this.active--;
    this.pump();
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private free(): boolean {
    if (this.active >= this.slots) return false;
    if (!this.budget) return true;
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.budget.rate) / 1000);
    this.refilledAt = now;
    return this.tokens >= 1;
  }

  private take(): void {
    this.active++;
    if (this.budget) this.tokens--;
  }

  private pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queued && this.free()) {
      const line = ORDER.map((p) => this.lines[p]).find((l) => l.length)!;
      this.take();
      line.shift()!.grant();
    }
    // Waiting for a token, not for a connection: come back when the next token is due.
    if (this.queued && this.budget && this.active < this.slots) {
      this.timer = setTimeout(() => this.pump(), Math.ceil(((1 - this.tokens) * 1000) / this.budget.rate));
      this.timer.unref?.();
    }
  }
}
