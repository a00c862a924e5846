import * as v from 'valibot';
import { members } from '../members';
import { definePage } from '../page';
import { NoRequest, optBool, optString } from './common';

/**
 * Maintenance > FtpUpgrade (vendor-facts-more m.3): the device's own online (FTP/HTTP) upgrade. Check asks the
 * device whether its upgrade server has a newer version; Upgrade starts download and install; Progress follows it.
 */
/** Check answer: the table names the current version `current_ver`, the sample `cur_version` (accept both). */
export const FirmwareCheckResponse = v.looseObject({
  has_new_firmware: optBool,
  ...members(['current_ver', 'cur_version', 'new_version'], optString),
  Upgrade_button: optBool,
  // Table: string; sample: {} (package notes).
  lang_strs: v.optional(v.unknown()),
});
export type FirmwareCheckResponse = v.InferOutput<typeof FirmwareCheckResponse>;

/** Progress answer (vendor-facts g): percent 0-100, state and result words (unknown words are kept, not refused). */
export const FirmwareProgressResponse = v.looseObject({
  upgrade_percent: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
  ...members(['upgrade_state', 'upgrade_result'], optString),
});
export type FirmwareProgressResponse = v.InferOutput<typeof FirmwareProgressResponse>;

export const onlineUpgradePage = definePage({
  name: 'Maintenance/FtpUpgrade',
  title: 'Online upgrade',
  operations: {
    Check: {
      request: NoRequest,
      response: FirmwareCheckResponse,
      description: 'Ask the device whether its upgrade server has newer firmware.',
    },
    Upgrade: { request: NoRequest, description: 'Start the online upgrade (download and install) of what Check found.' },
    Progress: { request: NoRequest, response: FirmwareProgressResponse, description: 'Progress of the online upgrade.' },
  },
  readOnly: true,
});
export const { Check: firmwareCheck, Upgrade: firmwareOnlineUpgrade, Progress: firmwareProgress } = onlineUpgradePage.operations;
