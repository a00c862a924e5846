import * as v from 'valibot';
import { defineOperation } from '../operation';
import { definePage } from '../page';

/**
 * Maintenance > TransKey (vendor-facts b): keys for secondary authentication and password transport. Request
 * `{type: ["base_salt", "base_x_public"]}`; the answer lists `{type, key (≤1024), iter (base_salt only, 0-1000000),
 * seq (0-1000000)}` under `key_lists` (table) or `Key_lists` (sample): both accepted.
 */
export const TransKeyRequest = v.object({
  type: v.pipe(v.array(v.picklist(['base_salt', 'base_x_public'])), v.minLength(1), v.maxLength(2)),
});

const TransKeyEntry = v.looseObject({
  type: v.string(),
  key: v.pipe(v.string(), v.maxLength(1024)),
  iter: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000))),
  seq: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000)),
});
export type TransKeyEntry = v.InferOutput<typeof TransKeyEntry>;

export const TransKeyResponse = v.looseObject({
  key_lists: v.optional(v.array(TransKeyEntry)),
  Key_lists: v.optional(v.array(TransKeyEntry)),
});
export type TransKeyResponse = v.InferOutput<typeof TransKeyResponse>;

export const transKeyGet = defineOperation({
  page: 'Maintenance/TransKey',
  operation: 'Get',
  request: TransKeyRequest,
  response: TransKeyResponse,
  description: 'Keys for secondary authentication (base_salt) and password transport (base_x_public).',
});

export const transKeyPage = definePage({
  name: 'Maintenance/TransKey',
  title: 'Transport keys',
  operations: { Get: transKeyGet },
  readOnly: true,
});
