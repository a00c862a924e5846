/** Timers a part of the device runs (progress steps, a reboot's end), all cancelled at once when the simulator stops. */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();

  /** Run `fn` after `ms`, unless cleared first. */
  later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.pending.delete(t);
      fn();
    }, ms);
    this.pending.add(t);
  }

  clear(): void {
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
  }
}
