/**
 * The secondary authentication the vendor asks for before a restart, an upgrade or a format (vendor-facts-more i):
 * a fresh `base_salt` from TransKey, the cipher = base64 of PBKDF2-HMAC-SHA256(password, salt, iter, 32 bytes), sent
 * with the salt's `seq` as `base_secondary_authentication`. Not stated by the vendor and taken here: the salt string is
 * used as given (UTF-8 bytes, leading `0` included), the password is the login password, a salt serves one operation.
 * The one place that builds it: the client's restart, camera restart, upgrade token and local upgrade all come here
 * (NvrClient.secondaryAuthentication, with the password kept inside the session).
 */
import { pbkdf2Sync } from 'node:crypto';
import { DeviceError } from './errors';
import type { Invoker } from './operation';
import { transKeyGet } from './pages/reboot';

export type SecondaryAuth = { seq: number; cipher: string };

/** PBKDF2-HMAC-SHA256 of the password with the salt string, 32 bytes, base64 (44 characters). */
export function secondaryCipher(password: string, salt: string, iter: number): string {
  return pbkdf2Sync(password, salt, Math.max(1, Math.floor(iter)), 32, 'sha256').toString('base64');
}

/** A fresh salt from TransKey and the cipher built from it. */
export async function secondaryAuth(c: Invoker, password: string): Promise<SecondaryAuth> {
  const answer = await c.invoke(transKeyGet, { type: ['base_salt'] });
  const salt = (answer.Key_lists ?? answer.key_lists ?? []).find((k) => k.type === 'base_salt');
  if (!salt)
    throw new DeviceError({
      kind: 'unsupported',
      error_code: 'no_base_salt',
      page: transKeyGet.page,
      operation: 'Get',
      reason: 'the device gave no base_salt key, so no secondary authentication can be built',
    });
  return { seq: salt.seq, cipher: secondaryCipher(password, salt.key, salt.iter ?? 1) };
}
