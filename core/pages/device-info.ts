import * as v from 'valibot';
import { members } from '../members';
import { definePage } from '../page';
import { optBool, optInt, optString } from './common';

/**
 * `Login/DeviceInfo/Get` (vendor): a flat object, every key optional. `dev_type` is a u64 that may exceed 2^53:
 * the envelope reads its digits from the raw text and hands it over as a string (see core/json.ts).
 * No serial number here (SystemInfo/Base has it); `software_version` is the firmware where SystemInfo/Base is absent.
 */
export const DeviceInfo = v.looseObject({
  device_type: optString,
  dev_type: v.optional(v.union([v.string(), v.number()])),
  ...members(['channel_num', 'analog_channel_num', 'sys_channel_num', 'local_alarmin_num', 'local_alarmout_num'], optInt),
  mac_addr: optString, // dash-separated upper-case
  ...members(['local_ip', 'p2p_id'], optString),
  software_version: optString, // a real NVR reports its firmware here; SystemInfo/Base may be absent
  ...members(['ptz_support', 'support_flood_light', 'support_siren_audio', 'support_disarming', 'support_pir_record'], optBool),
  // Voice prompts and the device's own speaker (vendor-facts-next 3.1).
  ...members(['support_voice_prompts', 'support_speaker'], optBool),
  client_logout_time: optString,
  upgrade_file_max_size: optInt,
});
export type DeviceInfo = v.InferOutput<typeof DeviceInfo>;

export const deviceInfoPage = definePage({
  name: 'Login/DeviceInfo',
  title: 'Device information',
  operations: {
    Get: { response: DeviceInfo, description: 'Device capabilities: channel counts, alarm I/O counts, MAC, feature flags, dev_type.' },
  },
  readOnly: true,
});
export const { Get: deviceInfoGet } = deviceInfoPage.operations;
