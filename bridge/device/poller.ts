/**
 * Independent poll schedule per device: each device has its own timer, so a slow or dead device never
 * delays another. After `offlineAfter` consecutive failed polls the device is offline; failed polls are
 * retried with capped exponential backoff and jitter; the first successful poll brings it back online.
 */
import { errorText, type Logger } from '../base/log';

export interface PollerOptions {
  intervalMs: number;
  /** First retry delay after a failure (then doubling). Default min(2000, intervalMs). */
  minBackoffMs?: number;
  /** Cap of the retry delay. Default 300000 (5 min). */
  maxBackoffMs?: number;
  /** Consecutive failures before the device is marked offline. Default 3. */
  offlineAfter?: number;
  log: Logger;
}

export interface PollStats {
  completed: number;
  failed: number;
  /** Poll slots that passed without a poll starting in them (the device or the bridge was too slow). */
  missed: number;
  /** Slots due since start: completed + failed + missed + in progress. */
  due: number;
}

export class Poller {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private forced?: Promise<void>;
  private stopped = true;
  private failures = 0;
  private online?: boolean;
  private nextDue = 0;
  private lastError = '';
  readonly stats: PollStats = { completed: 0, failed: 0, missed: 0, due: 0 };
  private readonly minBackoff: number;
  private readonly maxBackoff: number;
  private readonly offlineAfter: number;

  constructor(
    private readonly poll: () => Promise<void>,
    private readonly opts: PollerOptions,
    private readonly onAvailability: (online: boolean, error?: unknown) => void,
  ) {
    this.minBackoff = opts.minBackoffMs ?? Math.min(2000, opts.intervalMs);
    this.maxBackoff = opts.maxBackoffMs ?? 300_000;
    this.offlineAfter = opts.offlineAfter ?? 3;
  }

  get isOnline(): boolean | undefined {
    return this.online;
  }

  /** Start polling after `delayMs` (the bridge spreads devices' first polls: no thundering herd). */
  start(delayMs = 0): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.nextDue = Date.now() + delayMs;
    this.schedule(delayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Poll now (after the poll in progress, if any); resolves when that poll finished. */
  pollNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.forced) return this.forced;
    this.forced = (async () => {
      await this.running?.catch(() => undefined);
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      await this.tick(true);
    })().finally(() => {
      this.forced = undefined;
    });
    return this.forced;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.tick(false);
      },
      Math.max(0, delay),
    );
  }

  /** Doubling from the minimum, +-25 % jitter (devices that failed together do not retry together), capped. */
  private backoff(): number {
    const base = Math.min(this.maxBackoff, this.minBackoff * 2 ** Math.min(30, this.failures - 1));
    return Math.min(this.maxBackoff, Math.round(base * (0.75 + Math.random() * 0.5)));
  }

  private async tick(forced: boolean): Promise<void> {
    if (this.stopped) return;
    if (this.running) return;
    const start = Date.now();
    if (!forced) this.stats.due++;
    let ok = false;
    this.running = this.poll().then(
      () => {
        ok = true;
      },
      (err: unknown) => this.failed(err),
    );
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
    if (this.stopped) return;
    if (ok) {
      this.stats.completed++;
      this.failures = 0;
      this.lastError = '';
      if (this.online !== true) {
        this.online = true;
        this.onAvailability(true);
      }
      // Fixed cadence: slots are anchored at the start; a slot that has already passed is missed.
      if (!forced) this.nextDue = Math.max(this.nextDue, start) + this.opts.intervalMs;
      const now = Date.now();
      while (this.nextDue + this.opts.intervalMs <= now) {
        this.nextDue += this.opts.intervalMs;
        this.stats.missed++;
        this.stats.due++;
      }
      this.schedule(this.nextDue - now);
    } else {
      this.nextDue = Date.now();
      this.schedule(this.backoff());
    }
  }

  private failed(err: unknown): void {
    this.failures++;
    this.stats.failed++;
    const text = errorText(err);
    if (text !== this.lastError) this.opts.log.warn(`poll failed: ${text}`);
    this.lastError = text;
    if (this.failures >= this.offlineAfter && this.online !== false) {
      this.online = false;
      this.onAvailability(false, err);
    }
  }
}
