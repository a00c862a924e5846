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

/**
 * Docker and the Home Assistant Supervisor kill a container 10 s after SIGTERM: the bridge has stopped well before,
 * whatever its devices do (one answering in 8 s, say).
 */
export const STOP_BOUND_MS = 7_500;
/** The end of the bound kept for MQTT: the failures of what was cut short, `bridge/state` offline, the disconnect. */
const MQTT_RESERVE_MS = 700;
/** Kept before that for logging out: a device that answers at once needs milliseconds; a slow one is not logged out. */
const LOGOUT_RESERVE_MS = 300;

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
  /** When the stop began (performance.now()). */
  stopSince: () => number;
}): Part[] {
  /** What is left of STOP_BOUND_MS, less `reserve`, in ms (0 at the least). */
  const left = (reserve: number) => Math.max(0, p.stopSince() + STOP_BOUND_MS - reserve - performance.now());
  return [
    p.endpoint,
    { stop: () => p.link.end() },
    p.listener, // after the devices gave their push settings back
    { stop: () => closeDevices(p.runtimes, { logoutMs: 0 }) }, // (closed already)
    {
      stop: async () => {
        if (!p.saysOffline()) return;
        const offline = JSON.stringify({ state: 'offline' });
        await p.link.publishAndWait(p.topics.bridgeState, offline, { retain: true, qos: 1 }, Math.max(200, left(100)));
        await p.yielded();
      },
    },
    { stop: () => p.publisher.close() },
    // A command accepted before SIGTERM is carried out and confirmed while it fits the bound (logging out would abort
    // it); what is still unfinished then is aborted by the logout and reported failed on MQTT (event, response), not
    // dropped. The logout itself only when it fits (a device that takes seconds to answer is left to end the session).
    {
      stop: async () => {
        await p.work.settled(left(MQTT_RESERVE_MS + LOGOUT_RESERVE_MS));
        const logoutMs = left(MQTT_RESERVE_MS);
        await closeDevices(p.runtimes, { logoutMs: logoutMs >= 100 ? logoutMs : 0 });
        await p.work.settled(Math.min(1000, left(MQTT_RESERVE_MS / 2)));
      },
    },
  ];
}
