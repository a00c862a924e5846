/** Commands and requests being carried out, and whether the bridge still takes new ones. */
export class CommandWork {
  private readonly inflight = new Set<Promise<unknown>>();
  /** Set by stop(): commands and requests are refused from then on (with a reason, like any refusal). */
  stopping = false;

  constructor(private readonly stopTimeoutMs: number) {}

  track<T>(work: Promise<T>): Promise<T> {
    this.inflight.add(work);
    const done = () => this.inflight.delete(work);
    work.then(done, done);
    return work;
  }

  refuse(): void {
    this.stopping = true;
  }

  /** The work in flight finished, or the stop timeout (or `timeoutMs`, when shorter) passed. */
  settled(timeoutMs = this.stopTimeoutMs): Promise<void> {
    return settled([...this.inflight], Math.max(0, Math.min(timeoutMs, this.stopTimeoutMs)));
  }
}

/** Resolves when every promise has settled, or after `timeoutMs`. */
async function settled(work: Promise<unknown>[], timeoutMs: number): Promise<void> {
  if (!work.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(work), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
  clearTimeout(timer);
}
