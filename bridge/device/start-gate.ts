/**
 * The default limit. Each device's first poll (about 35 requests on 16 channels) is paced by its own request budget
 * (8 a second: 4-5 s), so the limit, not the CPU, set the pace of a large start: 16 at once published 200 recorders
 * in 37 s and 64 in 15 s; at 1,000 recorders, 64 at once took 69 s (the bridge's main thread idle a third of the
 * time) and 128 took 50 s, its memory peak 6 % above the steady state (bench `scale_1000_push`, this machine).
 */
export const START_CONCURRENCY = 128;

/**
 * Start-up at scale: at most `limit` devices in their first poll at once (login, identity, Ranges, first
 * reads: the heavy part of a device's life). A thousand recorders then come in a few at a time, each
 * published as it comes, instead of a thousand logins and Range reads at once (a memory peak far above
 * the steady state, and devices that time out while queued behind each other).
 */
export class StartGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Resolves once a slot is free, with the function that frees it (call it once; later calls do nothing). */
  async enter(): Promise<() => void> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}
