import * as v from 'valibot';
import { definePage } from '../page';
import { optString } from './common';

const IntOrDigits = v.optional(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/))]));

/**
 * `Snapshot/Get` (vendor): a base64 JPEG. The table spells `img_time` / `img_data`, the sample `ima_time` /
 * `ima_data` (time as a digit string): both are accepted.
 */
export const SnapshotAnswer = v.looseObject({
  img_time: IntOrDigits,
  ima_time: IntOrDigits,
  img_encodes: optString, // base64
  img_format: optString, // image/jpeg
  img_data: optString,
  ima_data: optString,
});
export type SnapshotAnswer = v.InferOutput<typeof SnapshotAnswer>;

export const SnapshotRequest = v.looseObject({
  channel: v.string(),
  // The Range sample spells `1280x720`, the Get sample `1280 x 720`: both are the device's words.
  snapshot_resolution: v.optional(v.pipe(v.string(), v.regex(/^\d+(x| x )\d+$/, 'resolution must look like 1280x720 or 1280 x 720'))),
  reset_session_timeout: v.optional(v.boolean(), false),
});

export const snapshotPage = definePage({
  name: 'Snapshot',
  title: 'Snapshot',
  operations: {
    Range: {
      request: v.looseObject({ reset_session_timeout: v.optional(v.boolean(), false) }),
      description: 'Snapshot: channels and the resolutions each can capture.',
    },
    Get: { request: SnapshotRequest, response: SnapshotAnswer, description: 'A JPEG snapshot of one channel (base64).' },
  },
  readOnly: true,
});
export const { Range: snapshotRange, Get: snapshotGet } = snapshotPage.operations;
