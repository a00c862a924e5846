/**
 * Switching a part off again after a duration (the live page has no duration of its own): one timer per target,
 * replaced by the next command for that target, all cleared when their owner stops. Used by the bridge (siren
 * `duration`) and by nvr-control (every switch mode).
 */

/** Longest duration honoured: a day (a timer is no schedule, and it does not survive a restart). */
export const MAX_DURATION_S = 86_400;

export class SwitchOffTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** After `seconds`, `off()` runs once, unless the target's timer was cancelled or replaced before. */
  schedule(target: string, seconds: number, off: () => void): void {
    this.cancel(target);
    const timer = setTimeout(() => {
      this.timers.delete(target);
      off();
    }, seconds * 1000);
    this.timers.set(target, timer);
  }

  /** A later command for the target: its pending switch-off no longer applies. */
  cancel(target: string): void {
    clearTimeout(this.timers.get(target));
    this.timers.delete(target);
  }

  /** Stopping: no timer fires any more. */
  clear(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
