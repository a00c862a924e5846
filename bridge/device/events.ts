/**
 * One device's event stream (`client.events()`: paced Event/Check calls at priority 'poll', its own backoff):
 * started once the device first answered a poll, stopped with the runtime. Each event is applied to the device
 * facts at once, without waiting for a poll: alarms and disk through {@link EventState} (reported as a change to
 * publish), live light and siren through `Device.applyLive` (published by the device's own update).
 * The stream keeps running while polls fail (it backs off by itself); it ends only when the device has no
 * Event/Check (R2: no events, said once) or on a lock-out (tried again after `retryMs`).
 *
 * With `push` (config `events: push`), the device's HTTP push of alarms (AlarmConfig/EventPush) is pointed at the
 * bridge's listener first (a path of this device's own); each push makes the stream check at once, and the paced
 * check (the interval, 60 s by default then) is the safety net. On stop the device's previous push settings are
 * written back; until then they are kept in the state file, so that a run that was killed is followed by one that
 * gives the owner's settings back. A device without the page keeps the paced checks (at most 1 s apart).
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  CheckNow,
  claimEventPush,
  DeviceError,
  readEventPush,
  restoreEventPush,
  EventPushData,
  pushSettingsToKeep,
  type DeviceEvent,
  type PushTarget,
} from '../../core';
import * as v from 'valibot';
import type { StateFile } from '../base/state-file';
import { PUSH_PATH_PREFIX, type PushListener, type PushRegistration } from './push-listener';
import type { Device } from './device';
import { EventState, type EventChange } from './event-state';
import { errorText, type Logger } from '../base/log';

export interface DeviceEventsOptions {
  intervalMs: number;
  clearAfterMs: number;
  log: Logger;
  /** A change to publish (state of a channel or of the device, an alarm edge, new entities). */
  onChange: (change: EventChange) => void;
  /** Wait before starting the stream again after it ended with an error. Default 30 s. */
  retryMs?: number;
  /** `events: push`: the bridge's listener and the address and port devices call it at. */
  push?: { listener: PushListener; address: string; port: number };
  /** Keeps the owner's push settings until they are given back, across a SIGKILL too (bridge/base/state-file.ts). */
  state?: StateFile;
}

/** Paced checks where push is asked for but cannot be had. */
const NO_PUSH_INTERVAL_MS = 1_000;

export class DeviceEvents {
  private readonly state: EventState;
  private readonly stopper = new AbortController();
  private running?: Promise<void>;
  /** Events received since start (tests, bench). */
  received = 0;
  /** Alarm pushes accepted from the device since start. */
  pushes = 0;
  private readonly checkNow = new CheckNow();
  private registration?: PushRegistration;
  /** The device's push settings before the bridge took them (written back on stop). */
  private previousPush?: EventPushData;

  constructor(
    private readonly device: Device,
    private readonly o: DeviceEventsOptions,
  ) {
    this.state = new EventState({
      clearAfterMs: o.clearAfterMs,
      get: () => device.facts.events!,
      set: (events) => {
        device.facts = { ...device.facts, events };
      },
      onTimeout: (change) => {
        o.log.info(`${change.channel}: ${change.edge?.type} cleared after ${o.clearAfterMs / 1000} s without its end`);
        o.onChange(change);
      },
    });
  }

  /** Start the stream (once; later calls do nothing). */
  start(): void {
    if (this.running || this.stopper.signal.aborted || !this.device.facts.events) return;
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
      // One source of truth for live state: the device facts' live page, published by the device's own update.
      const { channel, floodlight, brightness, siren, volume } = e;
      await this.device.reportedLive(channel, { floodlight, brightness, siren, volume });
      return;
    }
    // A picture that came alone (an AI picture after its alarm): the channel's latest alarm picture.
    if (e.kind === 'picture') return this.o.onChange({ channel: e.channel, picture: e.picture });
    const change = this.state.apply(e);
    // A recognition while its alarm is on (a second face, the next plate): its picture and identity still go out.
    if (!change && e.kind === 'alarm' && e.active && e.picture?.identity)
      return this.o.onChange({ channel: e.channel, picture: e.picture });
    if (!change) return;
    // The start of an alarm carries its picture on to the cameras (no second request for it).
    if (e.kind === 'alarm' && e.picture && change.edge?.active) change.picture = e.picture;
    this.o.onChange(change);
  }

  /** Point the device's push at the listener; false when it cannot be had (then checks are paced as without push). */
  private async claimPush(push: NonNullable<DeviceEventsOptions['push']>): Promise<boolean> {
    try {
      this.registration = await push.listener.register(this.device.id, this.device.cfg.url, () => {
        this.pushes++;
        this.checkNow.now();
      });
      const target: PushTarget = { addr: push.address, port: push.port, url: this.registration.path };
      const current = await readEventPush(this.device.client);
      const table = current.params?.table;
      // Left pointing at this bridge by a run that could not give it back (killed): the owner's settings are those it
      // kept in the state file; without them, what was there before is unknown (the push is then switched off).
      const leftover = table?.addr === push.address && typeof table.url === 'string' && table.url.startsWith(PUSH_PATH_PREFIX);
      const kept = v.safeParse(EventPushData, this.o.state?.device(this.device.id).push_original);
      const previous = pushSettingsToKeep(
        leftover
          ? kept.success && kept.output.params
            ? kept.output
            : { ...current, params: { ...current.params, table: { ...table, enable: false } } }
          : current,
      );
      if (leftover && kept.success) this.o.log.info('alarm push: the owner settings kept by a run that did not end are given back on stop');
      // Kept before the device is touched: a kill from here on still finds them.
      await this.o.state?.update(this.device.id, (s) => ({ ...s, push_original: previous }));
      this.previousPush = previous;
      await claimEventPush(this.device.client, current, target);
      this.o.log.info(`alarm push on: the device calls ${push.address}:${push.port}`);
      return true;
    } catch (err) {
      // Not claimed: the device keeps its settings, nothing to give back.
      if (this.previousPush) await this.o.state?.update(this.device.id, (s) => ({ ...s, push_original: undefined }));
      this.previousPush = undefined;
      this.registration?.close();
      this.registration = undefined;
      const why = err instanceof DeviceError && err.kind === 'unsupported' ? 'the device has no AlarmConfig/EventPush' : errorText(err);
      this.o.log.warn(`alarm push not available (${why}): event checks every ${NO_PUSH_INTERVAL_MS / 1000} s instead`);
      return false;
    }
  }

  private async givePushBack(): Promise<void> {
    const previous = this.previousPush;
    this.registration?.close();
    this.registration = undefined;
    this.previousPush = undefined;
    if (!previous) return;
    try {
      await restoreEventPush(this.device.client, previous);
      this.o.log.info('alarm push settings given back');
      await this.o.state?.update(this.device.id, (s) => ({ ...s, push_original: undefined }));
    } catch (err) {
      this.o.log.warn(`could not give the alarm push settings back: ${errorText(err)}`);
    }
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    let intervalMs = this.o.intervalMs;
    if (this.o.push && !(await this.claimPush(this.o.push))) intervalMs = Math.min(intervalMs, NO_PUSH_INTERVAL_MS);
    while (!signal.aborted) {
      try {
        const events = this.device.client.events({ intervalMs, signal, checkNow: this.checkNow, pictures: true });
        for await (const e of events) await this.apply(e);
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
    await this.givePushBack();
  }
}
