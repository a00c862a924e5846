import * as v from 'valibot';
import { defineOperation } from '../operation';
import { definePage } from '../page';
import { AnyResponse, RangeChannelInfo, channelMap, optBool, optRange, optString } from './common';
import { SecondaryAuthentication } from './upgrade-token';

/**
 * Maintenance > TransKey, DeviceReboot and IPCMaintaint > IPCReboot (vendor-facts b, vendor-facts-more i): the salt
 * the secondary authentication is built from, the recorder's reboot and the reboot of an IPC behind an NVR.
 */

/** `Key_lists` (sample) or `key_lists` (table): `{type, key, iter (base_salt only), seq}`. */
const TransKey = v.looseObject({ type: v.string(), key: v.string(), iter: v.optional(v.number()), seq: v.number() });
export const TransKeyResponse = v.looseObject({ Key_lists: v.optional(v.array(TransKey)), key_lists: v.optional(v.array(TransKey)) });
export type TransKeyResponse = v.InferOutput<typeof TransKeyResponse>;

export const transKeyGet = defineOperation({
  page: 'Maintenance/TransKey',
  operation: 'Get',
  request: v.looseObject({ type: v.array(v.picklist(['base_salt', 'base_x_public'])) }),
  response: TransKeyResponse,
  description: 'Keys for secondary authentication (base_salt) and password transport (base_x_public).',
});
export const transKeyPage = definePage({
  name: 'Maintenance/TransKey',
  title: 'Transport keys',
  operations: { Get: transKeyGet },
  readOnly: true,
});

/**
 * The reboot request in both of the vendor's shapes: flat `{cipher, seq}` (the DeviceReboot page's table and
 * sample) and wrapped `{base_secondary_authentication: {seq, cipher}}` (every sibling page).
 */
export const DeviceRebootRequest = v.union([
  v.looseObject({ cipher: v.string(), seq: v.number() }),
  v.looseObject({ base_secondary_authentication: SecondaryAuthentication }),
]);
export const deviceRebootSet = defineOperation({
  page: 'Maintenance/DeviceReboot',
  operation: 'Set',
  request: DeviceRebootRequest,
  response: AnyResponse,
  description: 'Restart the device (secondary authentication required); its sessions end.',
});
export const deviceRebootPage = definePage({
  name: 'Maintenance/DeviceReboot',
  title: 'Restart',
  operations: { Set: deviceRebootSet },
  readOnly: true,
});

/** IPCReboot channel: only channels that hold an IPC are listed. */
export const IpcRebootChannel = v.looseObject({
  status: optString, // Offline / Online
  ip_address: optString,
  software_version: optString,
  reboot_switch: optBool,
});
export const ipcRebootRange = defineOperation({
  page: 'IPCMaintaint/IPCReboot',
  operation: 'Range',
  request: v.looseObject({}),
  response: v.looseObject({ channel_max: optRange(v.number()), channel_info: v.optional(RangeChannelInfo) }),
  description: 'Cameras an NVR can restart, and the limits of the admin password field.',
});
export const ipcRebootGet = defineOperation({
  page: 'IPCMaintaint/IPCReboot',
  operation: 'Get',
  request: v.looseObject({}),
  response: v.looseObject({ channel_info: v.optional(channelMap(IpcRebootChannel)) }),
  description: 'Cameras behind the NVR: status, address, firmware.',
});
export const ipcRebootSet = defineOperation({
  page: 'IPCMaintaint/IPCReboot',
  operation: 'Set',
  request: v.looseObject({
    password: v.pipe(v.string(), v.maxLength(16)),
    channel_info: v.record(v.string(), v.looseObject({ reboot_switch: v.literal(true) })),
    base_secondary_authentication: SecondaryAuthentication,
  }),
  response: v.looseObject({ channel_info: v.optional(v.record(v.string(), v.looseObject({ state: optString }))) }),
  description: 'Restart cameras behind the NVR (admin password and secondary authentication); per camera Success/Failed.',
});
export const ipcRebootPage = definePage({
  name: 'IPCMaintaint/IPCReboot',
  title: 'Restart cameras (NVR)',
  operations: { Range: ipcRebootRange, Get: ipcRebootGet, Set: ipcRebootSet },
  channelScoped: true,
  readOnly: true,
});
