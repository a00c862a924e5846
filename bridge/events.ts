/**
 * One device's event stream (`client.events()`: paced Event/Check calls at priority 'poll', its own backoff):
 * started once the device first answered a poll, stopped with the runtime. Each event is applied to the device
 * model at once, without waiting for a poll: alarms and disk through {@link EventState} (reported as a change to
 * publish), live light and siren through `Device.applyLive` (published by the device's own update).
 * The stream keeps running while polls fail (it backs off by itself); it ends only when the device has no
 * Event/Check (R2: no events, said once) or on a lock-out (tried again after `retryMs`).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { DeviceError, type DeviceEvent } from '../core';
import type { Device } from './device';
import { EventState, type EventChange } from './event-state';
import { errorText, type Logger } from './log';

export interface DeviceEventsOptions {
  intervalMs: number;
  clearAfterMs: number;
  log: Logger;
  /** A change to publish (state of a channel or of the device, an alarm edge, new entities). */
  onChange: (change: EventChange) => void;
  /** Wait before starting the stream again after it ended with an error. Default 30 s. */
  retryMs?: number;
}

export class DeviceEvents {
  private readonly state: EventState;
  private readonly stopper = new AbortController();
  private running?: Promise<void>;
  /** Events received since start (tests, bench). */
  received = 0;

  constructor(
    private readonly device: Device,
    private readonly o: DeviceEventsOptions,
  ) {
    this.state = new EventState({
      clearAfterMs: o.clearAfterMs,
      get: () => device.model.events!,
      set: (events) => {
        device.model = { ...device.model, events };
      },
      onTimeout: (change) => {
        o.log.info(`${change.channel}: ${change.edge?.type} cleared after ${o.clearAfterMs / 1000} s without its end`);
        o.onChange(change);
      },
    });
  }

  /** Start the stream (once; later calls do nothing). */
  start(): void {
    if (this.running || this.stopper.signal.aborted || !this.device.model.events) return;
    this.running = this.run();
  }

  /**
   * Apply one event as if the device had sent it (the stream's path; unit tests). Settles once it is applied: a
   * live event may first need the live page read again (`Device.reportedLive`); the stream waits for that before
   * it asks the device for more, so events are applied in the order the device sent them.
   */
  async apply(e: DeviceEvent): Promise<void> {
    this.received++;
    // A channel the config leaves out (`channels`) is not published: neither are its events.
    if (e.kind !== 'disk' && !this.device.channels().includes(e.channel)) return;
    if (e.kind === 'live') {
      // One source of truth for live state: the device model's live page, published by the device's own update.
      const { channel, floodlight, brightness, siren, volume } = e;
      await this.device.reportedLive(channel, { floodlight, brightness, siren, volume });
      return;
    }
    const change = this.state.apply(e);
    if (change) this.o.onChange(change);
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    while (!signal.aborted) {
      try {
        for await (const e of this.device.client.events({ intervalMs: this.o.intervalMs, signal })) await this.apply(e);
        return; // aborted, or the client closed
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof DeviceError && err.kind === 'unsupported') {
          this.o.log.info('the device has no event check (Event/Check): no alarm events; live light and siren read every poll');
          this.device.readLiveEveryPoll();
          return;
        }
        const retryMs = this.o.retryMs ?? 30_000;
        this.o.log.warn(`events: ${errorText(err)}; starting again in ${retryMs / 1000} s`);
        await delay(retryMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.state.close();
    await this.running;
  }
}
