/**
 * The device runtime: one configured device with its client and facts (`Device`, the one place its state
 * lives: polls and confirmed writes write into it; phase 2 adds the event stream), its poll schedule and one
 * online flag. Reads asked for from outside (`<dev>/get`, `refresh`) are coalesced here: at most one read in
 * flight, the requests arriving meanwhile share one follow-up read, and follow-ups start at least `readGapMs`
 * apart, so a flood of `get` costs the device a bounded number of reads.
 */
import { EventEmitter } from 'node:events';
import { ANOTHER_USER_SESSION, isAnotherUserSession } from '../../core';
import { setTimeout as delay } from 'node:timers/promises';
import type { DeviceConfig } from '../base/config';
import { Device, type DeviceOptions } from './device';
import type { EventChange } from './event-state';
import { DeviceEvents, type DeviceEventsOptions } from './events';
import { errorText, type Logger } from '../base/log';
import { Poller } from './poller';
import type { StartGate } from './start-gate';
import type { StateFile } from '../base/state-file';

export interface RuntimeOptions {
  log: Logger;
  clientFactory?: DeviceOptions['clientFactory'];
  timeoutMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  offlineAfter?: number;
  /** Least time between the starts of two reads asked for from outside. Default 1000 ms. */
  readGapMs?: number;
  /** Wait before the event stream starts again after it ended with an error. Default 30 s. */
  eventRetryMs?: number;
  /** `events: push`: the bridge's alarm push listener and the address and port devices call it at. */
  push?: DeviceEventsOptions['push'];
  /** What the bridge keeps across its own restarts (the owner's push settings). */
  state?: StateFile;
  /** Bounds the devices in their first poll at once (the bridge shares one among all devices). */
  startGate?: StartGate;
  /** Build the device (unit tests: a fake); default `new Device(cfg, ...)`. */
  deviceFactory?: (cfg: DeviceConfig, opts: DeviceOptions) => Device;
}

export interface DeviceRuntimeEvents {
  /** The published availability changed: a poll succeeded after failures, or `offlineAfter` polls failed. */
  availability: [online: boolean, error?: unknown];
  /** The device's events changed its state (publish at once); with `events` on. */
  events: [change: EventChange];
}

export class DeviceRuntime extends EventEmitter<DeviceRuntimeEvents> {
  readonly device: Device;
  readonly poller: Poller;
  /** The event stream (config `events`, default on): started when the device first answers. */
  readonly events?: DeviceEvents;
  /** Availability as published: true after a successful poll, false after repeated failures. */
  online = false;
  /** Why the device is offline where a user can act on it (ANOTHER_USER_SESSION); undefined otherwise. */
  offlineReason?: string;
  private readonly readGapMs: number;
  /** The read in progress (or waiting for its turn). */
  private reading?: Promise<void>;
  /** A read not started yet: callers arriving now join it. */
  private queued?: Promise<void>;
  private lastReadStart = -Infinity;
  private refreshWanted = false;
  private readonly stopper = new AbortController();
  /** Frees this device's start-up slot: after its first poll, whatever its outcome. */
  private leaveGate?: () => void;
  private answered!: () => void;
  /** Settles at the device's first poll outcome (online, or offline after the failures that make it so). */
  private readonly firstOutcome = new Promise<void>((resolve) => (this.answered = resolve));

  constructor(
    readonly cfg: DeviceConfig,
    private readonly opts: RuntimeOptions,
  ) {
    super();
    const deviceOpts: DeviceOptions = { log: opts.log, timeoutMs: opts.timeoutMs, clientFactory: opts.clientFactory };
    this.device = opts.deviceFactory?.(cfg, deviceOpts) ?? new Device(cfg, deviceOpts);
    this.readGapMs = opts.readGapMs ?? 1000;
    this.poller = new Poller(
      () => this.device.poll().finally(() => this.leaveStart()),
      {
        intervalMs: cfg.poll_interval,
        minBackoffMs: opts.minBackoffMs,
        maxBackoffMs: opts.maxBackoffMs,
        offlineAfter: opts.offlineAfter,
        log: opts.log,
      },
      (online, err) => this.availability(online, err),
    );
    // One successful answer (the event stream logging in again) means the device is back: poll now, not at the end of
    // the poll backoff (up to 5 min). `?.`: unit tests' fake devices have no client.
    this.device.client?.on?.('state', (state: string) => {
      if (state === 'connected' && this.poller.isOnline === false) void this.poller.pollNow();
    });
    // `?.`: unit tests build the runtime around a fake device without facts.
    if (cfg.events && this.device.facts?.events) {
      this.events = new DeviceEvents(this.device, {
        intervalMs: cfg.event_interval,
        clearAfterMs: cfg.alarm_clear_after,
        log: opts.log,
        retryMs: opts.eventRetryMs,
        push: cfg.events === 'push' ? opts.push : undefined,
        state: opts.state,
        onChange: (change) => this.emit('events', change),
      });
    }
  }

  get id(): string {
    return this.device.id;
  }

  /** False until the first poll outcome: the device has not answered yet. */
  get started(): boolean {
    return this.poller.isOnline !== undefined;
  }

  /**
   * Poll from `delayMs` on; with a start gate, the first poll waits for a slot first (the poll schedule is
   * anchored when it starts, so that the wait counts as no missed poll).
   */
  start(delayMs = 0): void {
    const gate = this.opts.startGate;
    if (!gate) return this.poller.start(delayMs);
    void delay(delayMs, undefined, { signal: this.stopper.signal })
      .then(() => gate.enter())
      .then((leave) => {
        if (this.stopper.signal.aborted) return leave();
        this.leaveGate = leave;
        this.poller.start(0);
      })
      .catch(() => undefined); // stopped while waiting
  }

  private leaveStart(): void {
    this.leaveGate?.();
    this.leaveGate = undefined;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.leaveStart();
    this.answered();
    await Promise.all([this.poller.stop(), this.events?.stop()]);
  }

  /** Stop polling and log out (after stop()). */
  close(): Promise<void> {
    return this.device.close();
  }

  /** Resolves once the device answered its first poll (or failed it for good), or after `timeoutMs`. */
  async ready(timeoutMs: number): Promise<void> {
    if (this.started) return;
    const timer = new AbortController();
    await Promise.race([this.firstOutcome, delay(timeoutMs, undefined, { signal: timer.signal }).catch(() => undefined)]);
    timer.abort();
  }

  /**
   * Read the device now (`refresh`: system info and Ranges too); resolves when a read that started after
   * this call has finished. Coalesced: see the module comment.
   */
  read(refresh = false): Promise<void> {
    if (refresh) this.refreshWanted = true;
    if (this.queued) return this.queued;
    const previous = this.reading;
    // Declared first: the read compares itself with `queued`/`reading` (it always awaits before it looks).
    let next: Promise<void> | undefined = undefined;
    next = (async () => {
      await previous?.catch(() => undefined);
      const wait = this.lastReadStart + this.readGapMs - Date.now();
      if (wait > 0) await delay(wait, undefined, { signal: this.stopper.signal }).catch(() => undefined);
      // From here on the read is under way: later callers need a read of their own.
      if (this.queued === next) this.queued = undefined;
      this.lastReadStart = Date.now();
      if (this.refreshWanted) {
        this.refreshWanted = false;
        this.device.invalidate();
      }
      this.device.readAllSettings(); // asked for: every page, not one settings page in turn
      await this.poller.pollNow();
    })().finally(() => {
      if (this.reading === next) this.reading = undefined;
    });
    this.queued = next;
    this.reading = next;
    return next;
  }

  private availability(online: boolean, err?: unknown): void {
    this.answered();
    this.online = online;
    this.offlineReason = !online && isAnotherUserSession(err) ? ANOTHER_USER_SESSION : undefined;
    // Events from the first answer on; the stream then runs by itself (its own pacing and backoff).
    if (online) this.events?.start();
    if (online) this.opts.log.info('online');
    else {
      this.opts.log.warn(`offline: ${errorText(err)}`);
      this.device.invalidate(); // read system info and Ranges again when it answers
    }
    this.emit('availability', online, err);
  }
}
