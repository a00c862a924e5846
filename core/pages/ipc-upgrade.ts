import * as v from 'valibot';
import { definePage } from '../page';

/**
 * IPCMaintaint > IPCUpgrade (vendor-facts-more §m.4; NVR only, path spelled `IPCMaintaint`): the firmware of each
 * camera behind the recorder. Get answers `channel_info.<CH>` = `{state "On-line"/"Off-line", ip_address ≤63,
 * software_version ≤40, file_type}` or `{reason: "Not support"}`. Read only here: the IPC upload (Token, Upgrade)
 * is not used.
 */
const IpcFirmwareChannel = v.looseObject({
  state: v.optional(v.string()),
  ip_address: v.optional(v.pipe(v.string(), v.maxLength(63))),
  software_version: v.optional(v.pipe(v.string(), v.maxLength(40))),
  file_type: v.optional(v.string()),
  reason: v.optional(v.string()),
});

export const IpcUpgradeResponse = v.looseObject({
  channel_info: v.optional(v.record(v.string(), IpcFirmwareChannel)),
});
export type IpcUpgradeResponse = v.InferOutput<typeof IpcUpgradeResponse>;

export const ipcUpgradePage = definePage({
  name: 'IPCMaintaint/IPCUpgrade',
  title: 'IPC upgrade',
  operations: {
    Get: {
      request: v.object({}),
      response: IpcUpgradeResponse,
      description: 'Firmware version, address and state of each camera behind the recorder.',
    },
  },
  readOnly: true,
});
export const { Get: ipcUpgradeGet } = ipcUpgradePage.operations;

/** Installed version of each online camera that reports one (R2: a channel without a version has none). */
export function ipcVersions(answer: IpcUpgradeResponse): Map<string, string> {
  const out = new Map<string, string>();
  for (const [ch, info] of Object.entries(answer.channel_info ?? {})) {
    const version = info.software_version?.trim();
    if (version && info.reason === undefined && info.state !== 'Off-line') out.set(ch, version);
  }
  return out;
}
