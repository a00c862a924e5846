import type { NvrClient } from '../../core/client';
import type { DeviceError } from '../../core/errors';
import type { LiveState } from '../../core/live';
import { alarmEventOf, type AlarmEvent } from './alarm-event';
import { CLOSE_TIMEOUT_MS, settleWithin } from './device-session';
import { asDeviceError } from './errors';
import { liveStateOf } from './live-parts';

/** After the event stream ends with an error: wait, doubling, up to the cap (documented in the help). */
export const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

export interface EventSubscriber {
  event(e: AlarmEvent): void;
  /**
   * Listening failed (again: on every attempt of a failure streak; the subscriber reports once), also
   * while core's stream keeps trying by itself (a lost device); `retryAt`: the next try (epoch ms).
   */
  failed(err: DeviceError, retryAt: number): void;
  /** The stream works again after a failure (an answer arrived): a new streak may be reported. */
  recovered(): void;
}

/** Waits `ms` or until `signal` aborts; leaves no timer behind. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const finish = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal.addEventListener('abort', finish, { once: true });
  });
}

/**
 * One event stream per device, shared by every nvr-event node of a config node (devices allow
 * few connections): starts with the first subscriber, stops when the last one leaves.
 */
export class SharedEventStream {
  private readonly subscribers = new Map<string, EventSubscriber>();
  private stop?: AbortController;
  private running: Promise<void> = Promise.resolve();

  /** `onLive`: the device's live part events (`Floodlight_AudioAlarm`), which are not alarms. */
  constructor(
    private readonly client: () => NvrClient | undefined,
    private readonly onLive?: (state: Partial<LiveState> & { channel: string }) => void,
  ) {}

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  subscribe(id: string, subscriber: EventSubscriber): void {
    this.subscribers.set(id, subscriber);
    if (!this.stop) {
      const stop = (this.stop = new AbortController());
      this.running = this.listen(stop.signal).catch(() => undefined);
    }
  }

  /** Resolves when the stream has stopped (last subscriber) or at once. */
  unsubscribe(id: string): Promise<void> {
    this.subscribers.delete(id);
    return this.subscribers.size === 0 ? this.close() : Promise.resolve();
  }

  close(): Promise<void> {
    this.stop?.abort();
    this.stop = undefined;
    return settleWithin(this.running, CLOSE_TIMEOUT_MS);
  }

  private each(fn: (s: EventSubscriber) => void) {
    for (const s of [...this.subscribers.values()]) {
      try {
        fn(s);
      } catch {
        // one node's failure must not stop the others' events
      }
    }
  }

  private async listen(signal: AbortSignal): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    let failing = false;
    while (!signal.aborted) {
      try {
        const client = this.client();
        if (!client) return;
        // The first answer after a failure (a keep-alive will do) ends the failure streak, not the next alarm.
        const answered = () => {
          retryMs = FIRST_RETRY_MS;
          if (failing) this.each((s) => s.recovered());
          failing = false;
        };
        const lost = (e: DeviceError, nextCheckAt: number) => {
          failing = true;
          const err = asDeviceError(e, { page: 'Event', operation: 'Check' });
          this.each((s) => s.failed(err, Math.max(nextCheckAt, client.loginHeldUntil ?? 0)));
        };
        // With the AI pictures: an nvr-event node may attach the alarm's picture (they come only with AI alarm starts).
        for await (const raw of client.events({ signal, onAnswer: answered, onFailure: lost, pictures: true })) {
          if (signal.aborted) return;
          const e = alarmEventOf(raw);
          if (e) this.each((s) => s.event(e));
          const live = liveStateOf(raw);
          if (live) this.onLive?.(live);
        }
      } catch (e) {
        if (signal.aborted) return;
        const err = asDeviceError(e, { page: 'Event', operation: 'Check' });
        failing = true;
        const retryAt = Math.max(Date.now() + retryMs, this.client()?.loginHeldUntil ?? 0);
        this.each((s) => s.failed(err, retryAt));
      }
      await pause(retryMs, signal);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
  }
}
