/** What command and request handlers need from the running bridge. */
import type { Quoter } from '../../core/quote';
import type { CommandError } from '../homeassistant/command-error';
import type { Logger } from '../base/log';
import type { MqttLink } from '../mqtt/link';
import type { DeviceRuntime } from '../device/runtime';
import type { Json } from '../device/state';
import type { Topics } from '../mqtt/topics';
import type { Discovery } from '../homeassistant/discovery';
import type { CommandWork } from './command-work';
import type { StatePublisher } from './publisher';

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

/** Publishes on `<base>/<dev>/command_error`: what commands and features report there (secrets redacted). */
export function commandErrorSender(publisher: StatePublisher, topics: Topics, quoter: Quoter): BridgeContext['commandError'] {
  return (device, error) => publisher.send(topics.commandError(device), JSON.stringify(quoter.redactDeep(error)), { queue: true });
}

/** The context of the running bridge's parts. */
export function bridgeContext(p: {
  topics: Topics;
  link: MqttLink;
  log: Logger;
  runtimes: ReadonlyMap<string, DeviceRuntime>;
  publisher: StatePublisher;
  discovery: Discovery;
  work: CommandWork;
  quoter: Quoter;
  commandError: BridgeContext['commandError'];
}): BridgeContext {
  /** One refresh's publishing per coalesced read, however many requests joined it. */
  const refreshes = new WeakMap<Promise<void>, Promise<void>>();
  return {
    topics: p.topics,
    link: p.link,
    log: p.log,
    devices: p.runtimes,
    quoter: p.quoter,
    event: (type, data) => p.publisher.event(type, p.quoter.redactDeep(data)),
    commandError: p.commandError,
    publishState: (rt, o) => p.discovery.afterPending(rt.device, () => p.publisher.state(rt, o)),
    get stopping() {
      return p.work.stopping;
    },
    track: (work) => p.work.track(work),
    refresh(rt) {
      const read = rt.read(true);
      let done = refreshes.get(read);
      if (!done) {
        done = read.then(() => {
          // A device that never answered has nothing to describe: no empty discovery config.
          if (rt.device.facts.info) p.discovery.update(rt.device, true);
          p.publisher.state(rt, { force: true });
        });
        refreshes.set(read, done);
      }
      return done;
    },
  };
}
