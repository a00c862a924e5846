/**
 * A part of the running bridge, in the manner of zigbee2mqtt's extensions: parts start in the order listed and stop
 * in the reverse order, so each stops while what it relies on still runs.
 */
export interface Part {
  start?(): void;
  stop?(): void | Promise<void>;
}

/** Parts started in order and stopped in reverse, once; `done` settles with why they stopped. */
export class Parts {
  private stopping?: Promise<void>;
  private since?: number;
  private ended!: (reason: Error | undefined) => void;
  readonly done = new Promise<Error | undefined>((resolve) => (this.ended = resolve));

  constructor(
    private readonly list: readonly Part[],
    private readonly onStopped: () => void,
  ) {}

  get stopped(): boolean {
    return !!this.stopping;
  }

  /** When stop() was first called (performance.now()), or undefined. */
  get stopSince(): number | undefined {
    return this.since;
  }

  start(): void {
    for (const part of this.list) part.start?.();
  }

  /** Every part's stop, in reverse order (without settling `done`: a start that failed). */
  async stopAll(): Promise<void> {
    for (const part of [...this.list].reverse()) await part.stop?.();
  }

  /** Stops once; `done` then settles with `reason`. */
  stop(reason?: Error): Promise<void> {
    this.since ??= performance.now();
    this.stopping ??= this.stopAll().then(() => {
      this.onStopped();
      this.ended(reason);
    });
    return this.stopping;
  }
}
