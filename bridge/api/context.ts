/** What command and request handlers need from the running bridge. */
import type { Quoter } from '../../core/quote';
import type { CommandError } from '../homeassistant/command-error';
import type { Logger } from '../base/log';
import type { MqttLink } from '../mqtt/link';
import type { DeviceRuntime } from '../device/runtime';
import type { Json } from '../device/state';
import type { Topics } from '../mqtt/topics';

export interface BridgeContext {
  topics: Topics;
  link: MqttLink;
  log: Logger;
  devices: ReadonlyMap<string, DeviceRuntime>;
  /** Publish `{"type", "data"}` on `<base>/bridge/event`. */
  event(type: string, data: Json): void;
  /** Publish on `<base>/<dev>/command_error` (Home Assistant's "Command error" event entity). */
  commandError(device: string, error: CommandError): void;
  /** Publish a device's state topics (`force`: even when unchanged). */
  publishState(handle: DeviceRuntime, opts?: { force?: boolean; channel?: string; deviceOnly?: boolean }): void;
  /** Re-read system info and Ranges, poll, republish discovery and state (coalesced per device). */
  refresh(handle: DeviceRuntime): Promise<void>;
  /** True once stop() began: commands and requests are refused. */
  readonly stopping: boolean;
  /** Work a command or request started: stop() waits for it before logging out of the devices. */
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * Quotes text taken from a command or request (clipped, withheld when it contains a configured password) and
   * redacts lines built elsewhere: every refusal path quotes through it.
   */
  quoter: Quoter;
}
