/**
 * Which alarm outputs a device has switches for, from the names it lists (`Local->1`, `IP_CH1->1`): no I/O, read by
 * the device's poll (device.ts) and by the alarm outputs' feature (alarm-outputs.ts).
 */
import { isChannelId } from '../../core';

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
