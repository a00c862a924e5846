import { DeviceError } from './errors';
import type { Invoker } from './operation';
import { eventPushGet, eventPushSet, type EventPushData, type EventPushTable } from './pages/event-push';

/**
 * Pointing a device's HTTP push of alarms (`AlarmConfig/EventPush`) at a listener, and giving it back. The whole
 * table is sent (as the vendor's Set sample does), minus the password: a Get never shows the real one, so
 * echoing it would overwrite the user's with what the Get showed.
 */

export interface PushTarget {
  /** The address the device calls (vendor: 0-31 characters). */
  addr: string;
  port: number;
  /** Path on the listener, without the leading slash (vendor: 0-63 characters). */
  url: string;
}

const withoutPassword = (t: EventPushTable | undefined): EventPushTable => {
  const { password: _password, ...rest } = t ?? {};
  return rest;
};

/** Settings as they may be kept to give back later (a state file): the password left out, as restore leaves it. */
export function pushSettingsToKeep(data: EventPushData): EventPushData {
  return data.params ? { ...data, params: { ...data.params, table: withoutPassword(data.params.table) } } : data;
}

/** A target the device's page cannot hold, refused before anything is sent. */
export function pushTargetProblem(t: PushTarget): string | undefined {
  if (t.addr.length > 31) return `push address ${JSON.stringify(t.addr)} is longer than the 31 characters the device holds`;
  if (t.url.length > 63) return `push URL path is longer than the 63 characters the device holds`;
  if (!Number.isInteger(t.port) || t.port < 1 || t.port > 65535) return `push port ${t.port} is not 1-65535`;
  return undefined;
}

/** The device's push settings now. */
export function readEventPush(c: Invoker): Promise<EventPushData> {
  return c.invoke(eventPushGet, {});
}

/** Whether `data` already pushes to `target` (a bridge that stopped without giving the push back). */
export function pushesTo(data: EventPushData, t: PushTarget): boolean {
  const table = data.params?.table;
  return table?.enable === true && table.addr === t.addr && table.port === t.port && table.url === t.url;
}

/** Point the push at `target` (HTTP GET, on), keeping the rest of `current` as it was. */
export async function claimEventPush(c: Invoker, current: EventPushData, target: PushTarget): Promise<void> {
  const problem = pushTargetProblem(target);
  if (problem) throw new DeviceError({ kind: 'invalid_request', error_code: 'bad_option', reason: problem });
  const table = { ...withoutPassword(current.params?.table), push_way: 'HTTP', ...target, method: 'GET', enable: true };
  await c.invoke(eventPushSet, { params: { name: current.params?.name ?? '', table } });
}

/** Give the push back: the settings it had before `claimEventPush` (the password untouched). */
export async function restoreEventPush(c: Invoker, previous: EventPushData): Promise<void> {
  await c.invoke(eventPushSet, { params: { name: previous.params?.name ?? '', table: withoutPassword(previous.params?.table) } });
}
