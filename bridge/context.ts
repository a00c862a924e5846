/** What command and request handlers need from the running bridge. */
import type { Device } from './device';
import type { Logger } from './log';
import type { MqttLink } from './mqtt';
import type { Poller } from './poller';
import type { Json } from './state';
import type { Topics } from './topics';

export interface DeviceHandle {
  device: Device;
  poller: Poller;
  /** Availability as published: true after a successful poll, false after repeated failures. */
  readonly online: boolean;
}

export interface BridgeContext {
  topics: Topics;
  link: MqttLink;
  log: Logger;
  devices: ReadonlyMap<string, DeviceHandle>;
  /** Publish `{"type", "data"}` on `<base>/bridge/event`. */
  event(type: string, data: Json): void;
  /** Publish a device's state topics (`force`: even when unchanged). */
  publishState(handle: DeviceHandle, opts?: { force?: boolean; channel?: string }): void;
  /** Re-read system info and Ranges, poll, republish discovery and state. */
  refresh(handle: DeviceHandle): Promise<void>;
  /** True once stop() began: commands and requests are refused. */
  readonly stopping: boolean;
  /** Work a command or request started: stop() waits for it before logging out of the devices. */
  track<T>(work: Promise<T>): Promise<T>;
}

/** A command was refused: nothing was sent to the device. */
export class Refusal extends Error {
  constructor(readonly reason: string, readonly details: Json = {}) {
    super(reason);
    this.name = 'Refusal';
  }
}
