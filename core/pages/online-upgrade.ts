import * as v from 'valibot';
import { definePage } from '../page';

/**
 * Maintenance > FtpUpgrade (vendor-facts-more m.3): the device's own online (FTP/HTTP) upgrade. Check asks the
 * device whether its upgrade server has a newer version; Upgrade starts download and install; Progress follows it.
 */
const Empty = v.object({});

/** Check answer: the table names the current version `current_ver`, the sample `cur_version` (accept both). */
export const FirmwareCheckResponse = v.looseObject({
  has_new_firmware: v.optional(v.boolean()),
  current_ver: v.optional(v.string()),
  cur_version: v.optional(v.string()),
  new_version: v.optional(v.string()),
  Upgrade_button: v.optional(v.boolean()),
  // Table: string; sample: {} (package notes).
  lang_strs: v.optional(v.unknown()),
});
export type FirmwareCheckResponse = v.InferOutput<typeof FirmwareCheckResponse>;

/** Progress answer (vendor-facts g): percent 0-100, state and result words (unknown words are kept, not refused). */
export const FirmwareProgressResponse = v.looseObject({
  upgrade_percent: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
  upgrade_state: v.optional(v.string()),
  upgrade_result: v.optional(v.string()),
});
export type FirmwareProgressResponse = v.InferOutput<typeof FirmwareProgressResponse>;

export const onlineUpgradePage = definePage({
  name: 'Maintenance/FtpUpgrade',
  title: 'Online upgrade',
  operations: {
    Check: {
      request: Empty,
      response: FirmwareCheckResponse,
      description: 'Ask the device whether its upgrade server has newer firmware.',
    },
    Upgrade: { request: Empty, description: 'Start the online upgrade (download and install) of what Check found.' },
    Progress: { request: Empty, response: FirmwareProgressResponse, description: 'Progress of the online upgrade.' },
  },
  readOnly: true,
});
export const { Check: firmwareCheck, Upgrade: firmwareOnlineUpgrade, Progress: firmwareProgress } = onlineUpgradePage.operations;
