/**
 * Which alarm outputs a device has switches for, from the names it lists (`Local->1`, `IP_CH1->1`), and their state
 * keys (`alarm_output_<slug>`): no I/O, read by the device's poll (device.ts), its state (sources.ts) and the alarm
 * outputs' feature (features/alarm-outputs/).
 */
import { isChannelId } from '../../core';
import type { DeviceFacts, Json } from './state';

export const ALARM_OUTPUT_PREFIX = 'alarm_output_';

/** `Local->1` -> `local_1`, `IP_CH1->1` -> `ip_ch1_1`. */
export function alarmOutputSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

export const alarmOutputKey = (name: string) => `${ALARM_OUTPUT_PREFIX}${alarmOutputSlug(name)}`;
export const isAlarmOutputKey = (key: string) => key.startsWith(ALARM_OUTPUT_PREFIX) && key.length > ALARM_OUTPUT_PREFIX.length;

/** The state keys of the outputs the device lists now. */
export function alarmOutputState(facts: DeviceFacts): Json {
  const out: Json = {};
  for (const [name, on] of Object.entries(facts.alarmOutputs ?? {})) out[alarmOutputKey(name)] = on;
  return out;
}

/** The camera an output belongs to (`IP_CH1->1` -> `IP_CH1`); undefined for the recorder's own (`Local->1`). */
export function outputChannel(name: string): string | undefined {
  const owner = name.split('->')[0];
  return isChannelId(owner) ? owner : undefined;
}

/**
 * The outputs that get switches: those the device lists now, and a camera's listed before while that camera is still
 * a channel of the recorder. An NVR lists only online cameras' outputs: their switches stay (unavailable with the
 * camera, unknown without state) instead of flapping in Home Assistant.
 */
export function announcedOutputs(
  read: Readonly<Record<string, boolean>>,
  before: readonly string[] | undefined,
  channelList: ReadonlyMap<string, boolean> | undefined,
): readonly string[] {
  const kept = (before ?? []).filter((name) => {
    const ch = outputChannel(name);
    return !Object.hasOwn(read, name) && !!ch && !!channelList?.has(ch);
  });
  return [...Object.keys(read), ...kept].sort();
}
