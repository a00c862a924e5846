import * as v from 'valibot';
import { definePage } from '../page';
import { optString } from './common';

/**
 * Device identity (vendor `SystemInfo/Base/Get`): `device_type` is the model (N7516), `mac_address` dash
 * upper-case (88-26-1D-AA-8E-E0), `serialNum` only on some builds; `serial_number` per field notes.
 */
export const SystemInfo = v.looseObject({
  device_id: optString,
  device_name: optString,
  device_type: optString,
  hardware_version: optString,
  software_version: optString, // e.g. V8.2.3-20221014
  build_time: optString,
  mac_address: optString,
  wireless_mac: optString,
  serialNum: optString,
  serial_number: optString,
  p2p_id: optString,
  ip_address: optString,
  network_state: optString,
  channel_max: v.optional(v.number()),
});
export type SystemInfo = v.InferOutput<typeof SystemInfo>;

export const systemInfoPage = definePage({
  name: 'SystemInfo/Base',
  title: 'System information',
  operations: {
    Get: { response: SystemInfo, description: 'Device identity: model, firmware and hardware versions, MAC address, serial number.' },
  },
  readOnly: true,
});
export const { Get: systemInfoGet } = systemInfoPage.operations;

/** `V8.2.3-20221014` -> [8, 2, 3]; undefined when the string carries no dotted version. */
export function firmwareVersion(software_version: string | undefined): number[] | undefined {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(software_version ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/**
 * Whether the firmware is strictly later than `ref`: `firmwareAfter(v, [8, 2, 3])` means ssh_switch rather than
 * telnet_switch (spec 9). Undefined when the version cannot be read.
 */
export function firmwareAfter(software_version: string | undefined, ref: readonly number[]): boolean | undefined {
  const ver = firmwareVersion(software_version);
  if (!ver) return undefined;
  for (let i = 0; i < 3; i++) if ((ver[i] ?? 0) !== (ref[i] ?? 0)) return (ver[i] ?? 0) > (ref[i] ?? 0);
  return false;
}
