import * as v from 'valibot';
import { definePage } from '../page';

/** Limits of the upgrade token request (spec 2.1, 8), the page's own; prepareUpgrade() (core/upgrade.ts) applies them too. */
export const UPGRADE_HEAD_SIZE = 3 * 1024;
export const MAX_FIRMWARE_NAME_LENGTH = 256;
export const MAX_FIRMWARE_SIZE = 100 << 20;
export const MAX_FIRMWARE_SIZE_LARGE = 200 << 20;

/** Characters (Unicode code points) of a file name: the spec's "length 0-256", the same in any encoding. */
export function firmwareNameLength(name: string): number {
  let n = 0;
  for (const _ of name) n++;
  return n;
}

/** Spec 2.1. Obtained from the user (field notes: how the cipher is computed is not public). */
export const SecondaryAuthentication = v.looseObject({
  seq: v.pipe(v.number(), v.integer()),
  cipher: v.string(),
});

// No Range guards this page, so the request schema carries the spec limits itself. file_size is capped at the
// large-capacity limit here; prepareUpgrade() applies the per-model limit with a clearer message.
export const UpgradeTokenRequest = v.object({
  // Characters, as prepareUpgrade() counts them (valibot's maxLength would count UTF-16 units).
  file_name: v.pipe(
    v.string(),
    v.check((s: string) => firmwareNameLength(s) <= MAX_FIRMWARE_NAME_LENGTH, `must be at most ${MAX_FIRMWARE_NAME_LENGTH} characters`),
  ),
  file_size: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_FIRMWARE_SIZE_LARGE)),
  // Exactly 3 * 1024 byte values (spec 2.1); prepareUpgrade() refuses files shorter than that.
  upgrade_head: v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255))), v.length(UPGRADE_HEAD_SIZE)),
  base_secondary_authentication: v.optional(SecondaryAuthentication),
});
export type UpgradeTokenRequest = v.InferOutput<typeof UpgradeTokenRequest>;

export const UpgradeTokenResponse = v.looseObject({
  upgrade_token: v.string(),
  // Spec range 0-3600 (unit not shown); not enforced on the answer: an unexpected value is still usable.
  upgrade_timeout: v.pipe(v.number(), v.integer(), v.minValue(0)),
  // Newer pages: an upload broken off may continue within this time (0-3600); the token also comes as X-Upgrade-Token.
  resume_timeout: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type UpgradeTokenResponse = v.InferOutput<typeof UpgradeTokenResponse>;

/** Request header that carries the token with the file (newer vendor pages; the token answer carries it too). */
export const UPGRADE_TOKEN_HEADER = 'X-Upgrade-Token';

export const systemUpgradePage = definePage({
  name: 'Maintenance/SystemUpgrade',
  title: 'System upgrade',
  operations: {
    Token: {
      request: UpgradeTokenRequest,
      response: UpgradeTokenResponse,
      description: 'Request an upgrade token for a firmware file (name, size, first 3 KB).',
    },
    /**
     * The upload: the body is the raw file (not an envelope), the token in `X-Upgrade-Token`; the answer `{}` is the
     * only signal (no progress page for a local upload). `request` is empty: nothing but the file goes.
     */
    Upgrade: { request: v.object({}), description: 'Upload a firmware file with its upgrade token (raw body, X-Upgrade-Token header).' },
  },
  readOnly: true,
});
export const { Token: upgradeToken, Upgrade: upgradeUpload } = systemUpgradePage.operations;
