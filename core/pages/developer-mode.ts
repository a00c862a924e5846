import * as v from 'valibot';
import { definePage } from '../page';
import { RangeChannelInfo, channelMap, channelSetMap, optBool, optRange, optString } from './common';

/** FTP server for log collection (IPC), as answered. */
export const RemoteServer = v.looseObject({
  username: optString,
  password: optString,
  password_empty: optBool,
  server_address: optString,
});

/** As sent: the spec limits are in bytes (UTF-8), which a character-based Range max_len would not catch. */
export const RemoteServerSet = v.looseObject({
  username: v.optional(v.pipe(v.string(), v.maxBytes(63))),
  password: v.optional(v.pipe(v.string(), v.maxBytes(63))),
  password_empty: optBool,
  server_address: v.optional(v.pipe(v.string(), v.maxBytes(127))),
});

const channelFields = {
  log_collect_enable: optBool,
  support_logcollection: optBool,
  log_collect_mode: optString, // NVR, SD_Card, FTP (IPC)
};
export const DeveloperModeChannel = v.looseObject({ ...channelFields, remote_server: v.optional(RemoteServer) });
export type DeveloperModeChannel = v.InferOutput<typeof DeveloperModeChannel>;
export const DeveloperModeChannelSet = v.looseObject({ ...channelFields, remote_server: v.optional(RemoteServerSet) });

/** Remote shell switch: `telnet_switch` on 8.2.3 and earlier, `ssh_switch` later (spec 9). A device has one. */
const shell = { telnet_switch: optBool, ssh_switch: optBool };

const pageFields = {
  export_disk_switch: optString, // Shut Off, Output To Terminal, Output To Disk
  export_days: optString, // all, 1-5
};

export const DeveloperModeRangeData = v.looseObject({
  telnet_switch: optRange(v.boolean()),
  ssh_switch: optRange(v.boolean()),
  export_disk_switch: optRange(v.string()),
  enable_export: optRange(v.boolean()),
  enable_delete: optRange(v.boolean()),
  support_ipc_log_export: optRange(v.boolean()),
  search_log_enable: optRange(v.boolean()),
  support_ipc_log_pack: optRange(v.boolean()),
  log_collect_tips: optRange(v.string()),
  download_type: optRange(v.string()),
  support_ipc_log_delete: optRange(v.boolean()),
  export_days: optRange(v.string()),
  channel_info: v.optional(RangeChannelInfo),
  default_timeout: optRange(v.number()),
});
export type DeveloperModeRangeData = v.InferOutput<typeof DeveloperModeRangeData>;

export const DeveloperModeGetResponse = v.looseObject({
  ...shell,
  ...pageFields,
  channel_info: v.optional(channelMap(DeveloperModeChannel)),
});
export type DeveloperModeGetResponse = v.InferOutput<typeof DeveloperModeGetResponse>;

export const DeveloperModeSetRequest = v.looseObject({
  ...shell,
  ...pageFields,
  channel_info: v.optional(channelSetMap(DeveloperModeChannelSet)),
});
export type DeveloperModeSetRequest = v.InferOutput<typeof DeveloperModeSetRequest>;

/** Which remote shell switch a Range or Get `data` carries; undefined when neither (feature absent, R2). */
export function shellSwitchKey(data: Record<string, unknown>): 'ssh_switch' | 'telnet_switch' | undefined {
  if (data.ssh_switch !== undefined) return 'ssh_switch';
  if (data.telnet_switch !== undefined) return 'telnet_switch';
  return undefined;
}

export const developerModePage = definePage({
  name: 'Maintenance/DeveloperMode',
  title: 'Developer mode',
  operations: {
    Range: {
      response: DeveloperModeRangeData,
      description: 'Developer mode: remote shell (telnet/ssh) switch, log export and collection options.',
    },
    Get: { response: DeveloperModeGetResponse, description: 'Developer mode settings.' },
    Set: { request: DeveloperModeSetRequest, description: 'Change developer mode settings.' },
  },
  write: 'changed',
});
export const { Range: developerModeRange, Get: developerModeGet, Set: developerModeSet } = developerModePage.operations;
