/**
 * Restarting a recorder, or a camera behind an NVR, with the secondary authentication the vendor asks for
 * (core/secondary-auth.ts).
 */
import { DeviceError } from './errors';
import type { Invoker } from './operation';
import { deviceRebootSet, ipcRebootRange, ipcRebootSet } from './pages/reboot';
import { secondaryAuth } from './secondary-auth';

/**
 * Restart the device. The DeviceReboot page's own shape goes first (flat `{cipher, seq}`); a device that refuses it
 * as a malformed request (nothing was done) gets the shape of the sibling pages, with a fresh salt.
 */
export async function rebootDevice(c: Invoker, password: string): Promise<void> {
  const auth = await secondaryAuth(c, password);
  try {
    await c.invoke(deviceRebootSet, { cipher: auth.cipher, seq: auth.seq }, { skipRangeCheck: true });
  } catch (err) {
    if (!(err instanceof DeviceError) || err.error_code !== 'param_error') throw err;
    const again = await secondaryAuth(c, password);
    await c.invoke(deviceRebootSet, { base_secondary_authentication: again }, { skipRangeCheck: true });
  }
}

/** Channels an NVR can restart (IPCReboot Range lists only channels that hold an IPC); empty where it has no such page. */
export async function rebootableChannels(c: Invoker): Promise<string[]> {
  try {
    const range = await c.invoke(ipcRebootRange, {});
    const items = range.channel_info?.items;
    return items && typeof items === 'object' && !Array.isArray(items) ? Object.keys(items) : [];
  } catch (err) {
    if (err instanceof DeviceError && err.kind === 'unsupported') return [];
    throw err;
  }
}

/**
 * Restart one camera behind an NVR; the device's word for it ("Success" / "Failed"). `password` (the recorder's login)
 * builds the secondary authentication; the page's `password` member is the camera's own admin password (vendor),
 * `cameraPassword`, which defaults to the recorder's (cameras added with the recorder's password have it).
 */
export async function rebootCamera(
  c: Invoker,
  password: string,
  channel: string,
  cameraPassword: string = password,
): Promise<string | undefined> {
  const where = { page: ipcRebootSet.page, operation: 'Set' };
  if (!(await rebootableChannels(c)).includes(channel))
    throw new DeviceError({
      kind: 'invalid_request',
      error_code: 'unsupported',
      ...where,
      reason: `${channel} is not a camera this recorder can restart (IPCReboot lists no such channel)`,
    });
  if ([...cameraPassword].length > 16)
    throw new DeviceError({
      kind: 'invalid_request',
      error_code: 'out_of_range',
      ...where,
      reason: "the restart of a camera carries the camera's admin password, which this page takes up to 16 characters",
    });
  const auth = await secondaryAuth(c, password);
  const answer = await c.invoke(
    ipcRebootSet,
    { password: cameraPassword, channel_info: { [channel]: { reboot_switch: true } }, base_secondary_authentication: auth },
    { skipRangeCheck: true },
  );
  const state = answer.channel_info?.[channel]?.state;
  if (state === 'Failed')
    throw new DeviceError({ kind: 'rejected', error_code: 'failed', ...where, reason: `the recorder could not restart ${channel}` });
  return state;
}
