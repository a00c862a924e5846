/**
 * `base_secondary_authentication` built from the user's password (vendor-facts b, vendor-facts-more §i), the one
 * place it is computed: `Maintenance/TransKey/Get` `{type: ["base_salt"]}` gives a salt `key`, `iter` and `seq`;
 * `cipher` = base64 of PBKDF2-HMAC-SHA256(password, salt, iter, 32 bytes), `seq` = the salt's seq.
 *
 * Not stated by the vendor, chosen here: the salt's bytes are its key read as base64 after the leading `0` every
 * key carries (keys that are no base64 are taken as their UTF-8 text). A fresh salt is asked for every operation.
 * The password and the cipher are never logged or returned anywhere but in the request that needs them.
 */
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { DeviceError } from './errors';
import type { Invoker } from './operation';
import { transKeyGet } from './pages/trans-key';

const derive = promisify(pbkdf2);

export type SecondaryAuth = { seq: number; cipher: string } & Record<string, unknown>;

/** The salt's bytes: the base64 after the leading `0`, else the key's text. */
export function saltBytes(key: string): Buffer {
  const b64 = key.startsWith('0') ? key.slice(1) : key;
  return /^[A-Za-z0-9+/]+={0,2}$/.test(b64) && b64.length % 4 === 0 ? Buffer.from(b64, 'base64') : Buffer.from(key, 'utf8');
}

/** PBKDF2-HMAC-SHA256 of the password with the salt: the 44-character base64 cipher. */
export async function secondaryCipher(password: string, key: string, iter: number): Promise<string> {
  return (await derive(password, saltBytes(key), Math.max(1, iter), 32, 'sha256')).toString('base64');
}

/** Ask the device for a salt and build the secondary authentication from `password`. */
export async function secondaryAuthentication(c: Invoker, password: string, page = 'Maintenance/TransKey'): Promise<SecondaryAuth> {
  const answer = await c.invoke(transKeyGet, { type: ['base_salt'] }, { priority: 'command' });
  const salt = (answer.key_lists ?? answer.Key_lists ?? []).find((k) => k.type === 'base_salt');
  if (!salt || salt.iter === undefined) {
    throw new DeviceError({
      kind: 'unsupported',
      error_code: 'no_salt',
      reason: 'the device gave no base_salt key (secondary authentication is not possible)',
      page,
      operation: 'Get',
    });
  }
  return { seq: salt.seq, cipher: await secondaryCipher(password, salt.key, salt.iter) };
}
