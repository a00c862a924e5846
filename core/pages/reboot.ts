import * as v from 'valibot';
import { definePage } from '../page';
import { ChannelRange, channelGet, optBool, optString } from './common';
import { SecondaryAuthentication } from './upgrade-token';

/**
 * Maintenance > TransKey, DeviceReboot and IPCMaintaint > IPCReboot (vendor-facts b, vendor-facts-more i): the salt
 * the secondary authentication is built from, the recorder's reboot and the reboot of an IPC behind an NVR.
 */

/** `Key_lists` (sample) or `key_lists` (table): `{type, key, iter (base_salt only), seq}`. */
const TransKey = v.looseObject({ type: v.string(), key: v.string(), iter: v.optional(v.number()), seq: v.number() });
export const TransKeyResponse = v.looseObject({ Key_lists: v.optional(v.array(TransKey)), key_lists: v.optional(v.array(TransKey)) });
export type TransKeyResponse = v.InferOutput<typeof TransKeyResponse>;

export const transKeyPage = definePage({
  name: 'Maintenance/TransKey',
  title: 'Transport keys',
  operations: {
    Get: {
      request: v.looseObject({ type: v.array(v.picklist(['base_salt', 'base_x_public'])) }),
      response: TransKeyResponse,
      description: 'Keys for secondary authentication (base_salt) and password transport (base_x_public).',
    },
  },
  readOnly: true,
});
export const { Get: transKeyGet } = transKeyPage.operations;

/**
 * The reboot request in both of the vendor's shapes: flat `{cipher, seq}` (the DeviceReboot page's table and
 * sample) and wrapped `{base_secondary_authentication: {seq, cipher}}` (every sibling page).
 */
export const DeviceRebootRequest = v.union([
  v.looseObject({ cipher: v.string(), seq: v.number() }),
  v.looseObject({ base_secondary_authentication: SecondaryAuthentication }),
]);
export const deviceRebootPage = definePage({
  name: 'Maintenance/DeviceReboot',
  title: 'Restart',
  operations: {
    Set: { request: DeviceRebootRequest, description: 'Restart the device (secondary authentication required); its sessions end.' },
  },
  readOnly: true,
});
export const { Set: deviceRebootSet } = deviceRebootPage.operations;

/** IPCReboot channel: only channels that hold an IPC are listed. */
export const IpcRebootChannel = v.looseObject({
  status: optString, // Offline / Online
  ip_address: optString,
  software_version: optString,
  reboot_switch: optBool,
});
export const ipcRebootPage = definePage({
  name: 'IPCMaintaint/IPCReboot',
  title: 'Restart cameras (NVR)',
  operations: {
    Range: { response: ChannelRange, description: 'Cameras an NVR can restart, and the limits of the admin password field.' },
    Get: { response: channelGet(IpcRebootChannel), description: 'Cameras behind the NVR: status, address, firmware.' },
    Set: {
      request: v.looseObject({
        password: v.pipe(v.string(), v.maxLength(16)),
        channel_info: v.record(v.string(), v.looseObject({ reboot_switch: v.literal(true) })),
        base_secondary_authentication: SecondaryAuthentication,
      }),
      response: v.looseObject({ channel_info: v.optional(v.record(v.string(), v.looseObject({ state: optString }))) }),
      description: 'Restart cameras behind the NVR (admin password and secondary authentication); per camera Success/Failed.',
    },
  },
  channelScoped: true,
  readOnly: true,
});
export const { Range: ipcRebootRange, Get: ipcRebootGet, Set: ipcRebootSet } = ipcRebootPage.operations;
