/**
 * What `stop()` does once the running parts stopped (these are listed first, so they stop last): it lets the
 * commands and requests in flight finish (bounded), publishes `bridge/state` offline, logs out of the devices, closes
 * the push listener, disconnects and stops the embedded broker.
 */
import type { CommandWork } from './api/command-work';
import type { StatePublisher } from './api/publisher';
import { closeDevices } from './devices';
import type { DeviceRuntime } from './device/runtime';
import type { MqttLink } from './mqtt/link';
import type { Topics } from './mqtt/topics';
import type { Part } from './base/part';

export function shutdown(p: {
  endpoint: Part;
  link: MqttLink;
  topics: Topics;
  listener: Part;
  runtimes: ReadonlyMap<string, DeviceRuntime>;
  publisher: StatePublisher;
  work: CommandWork;
  /** False when the bridge never connected. */
  saysOffline: () => boolean;
  /** After `offline`: tells the instance this one yielded to (if any) to say `online` again. */
  yielded: () => Promise<void>;
}): Part[] {
  return [
    p.endpoint,
    { stop: () => p.link.end() },
    p.listener, // after the devices gave their push settings back
    { stop: () => closeDevices(p.runtimes) }, // log out
    {
      stop: async () => {
        if (!p.saysOffline()) return;
        await p.link.publishAndWait(p.topics.bridgeState, JSON.stringify({ state: 'offline' }), { retain: true, qos: 1 });
        await p.yielded();
      },
    },
    { stop: () => p.publisher.close() },
    // A command accepted before SIGTERM is carried out and confirmed (logging out would abort it); what is still
    // unfinished then is aborted by the logout and reported failed on MQTT (event, response), not dropped.
    {
      stop: async () => {
        await p.work.settled();
        await closeDevices(p.runtimes);
        await p.work.settled(1000);
      },
    },
  ];
}
