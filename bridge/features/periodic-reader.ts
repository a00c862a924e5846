/**
 * A page of one device read on its own slow schedule while the device is online (the disks, which channels record):
 * the first read once the device answered, then every `intervalMs`; reads asked meanwhile share the one under way; a
 * device without the page (R2: `unsupported` set by `read`) stops being asked.
 */
import { DeviceError } from '../../core';
import { errorText, type Logger } from '../base/log';

/** 10 minutes: what such pages change by (schedules, disks), not by the second. */
const DEFAULT_INTERVAL_MS = 600_000;

export abstract class PeriodicReader {
  protected timer?: NodeJS.Timeout;
  protected reading?: Promise<void>;
  protected stopped = false;
  protected unsupported = false;
  /** Device reads made (tests, figures). */
  reads = 0;

  constructor(protected readonly opts: { intervalMs?: number; log: Logger }) {}

  /** One read of the page, its result applied to the device. */
  protected abstract readPage(): Promise<void>;
  /** What the log says once when the device has no such page. */
  protected abstract readonly absent: string;
  /** What a failed read is, in the log. */
  protected abstract readonly what: string;

  /** The device answered (again): read now unless a read is due later anyway, then keep the schedule. */
  online(): void {
    if (this.stopped || this.unsupported || this.timer || this.reading) return;
    this.schedule(0);
  }

  /** The device went offline: no reads until it is back. */
  offline(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.offline();
    await this.reading;
  }

  /** Read now (a `get` or refresh asked for it); resolves when done. */
  readNow(): Promise<void> {
    if (this.stopped || this.unsupported) return Promise.resolve();
    return (this.reading ??= this.read().finally(() => (this.reading = undefined)));
  }

  /** Reads now, then keeps the schedule (from this read on). */
  protected readThenKeepSchedule(): Promise<void> {
    const p = this.readNow();
    void p.finally(() => {
      if (!this.stopped && !this.unsupported && !this.timer) this.schedule(this.opts.intervalMs || DEFAULT_INTERVAL_MS);
    });
    return p;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.readThenKeepSchedule();
    }, delay);
  }

  private async read(): Promise<void> {
    this.reads++;
    try {
      await this.readPage();
    } catch (err) {
      if (err instanceof DeviceError && err.kind === 'unsupported') {
        this.unsupported = true;
        this.opts.log.info(this.absent);
        return;
      }
      this.opts.log.warn(`${this.what}: ${errorText(err)}`);
    }
  }
}
