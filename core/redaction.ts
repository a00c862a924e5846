/**
 * Redaction of a capture (`nvr2mqtt capture`), by construction: everything the capture writes passes through one
 * `Redactor`, which replaces passwords, CSRF tokens, cookies, push secrets, serial numbers, MAC and IP addresses,
 * P2P ids, e-mail addresses, user names, plate texts and face names with stand-ins. The same value always becomes
 * the same stand-in (an IP address in DeviceInfo and in a stream URL stays one address), so the capture stays
 * consistent and a replay of it behaves like the device. Pictures become a same-size stand-in unless kept.
 */

export type SecretKind = 'password' | 'token' | 'cookie' | 'secret' | 'serial' | 'mac' | 'ip' | 'p2p' | 'email' | 'user' | 'plate' | 'face';

/** How each kind's n-th value is written: shaped like the original, so the answer still parses. */
const STAND_IN: Readonly<Record<SecretKind, (n: number, original: string) => string>> = {
  password: (n) => `password-${n}`,
  token: (n) => `token-${n}`,
  cookie: (n) => `cookie-${n}`,
  secret: (n) => `secret-${n}`,
  serial: (n) => `SERIAL${String(n).padStart(8, '0')}`,
  // Locally administered, in the original's separator and case.
  mac: (n, original) => {
    const sep = original.includes(':') ? ':' : '-';
    const text = ['02', '00', '00', '00', (n >> 8).toString(16).padStart(2, '0'), (n & 255).toString(16).padStart(2, '0')].join(sep);
    return original === original.toLowerCase() ? text : text.toUpperCase();
  },
  // TEST-NET addresses (RFC 5737): never a real host.
  ip: (n) => `${n < 255 ? '192.0.2' : '198.51.100'}.${(n % 254) + 1}`,
  p2p: (n) => `P2P${String(n).padStart(10, '0')}`,
  email: (n) => `user${n}@example.invalid`,
  user: (n) => `user${n}`,
  plate: (n) => `PLATE${n}`,
  face: (n) => `Face ${n}`,
};

/** Members whose string values are secret, by name (first match wins). Non-string values (`password_empty`) stay. */
const BY_KEY: ReadonlyArray<readonly [RegExp, SecretKind]> = [
  [/pass(word)?|pwd|passphrase/i, 'password'],
  [/csrf|token/i, 'token'],
  [/cookie/i, 'cookie'],
  [/secret|auth_?key|private_?key|cipher/i, 'secret'],
  [/serial/i, 'serial'],
  [/(^|_)mac(_|$)|mac_?addr/i, 'mac'],
  [/p2p|cloud_?id|(^|_)uid$/i, 'p2p'],
  [/e_?mail|mail_?(to|from|addr)/i, 'email'],
  [/^(user|login)(_?name)?$|user_?name|(^|_)user$/i, 'user'],
  [/plate/i, 'plate'],
  [/(^|_)ip(_|$)|ip_?addr|ipv[46]|gateway|dns/i, 'ip'],
];

/** Inside any of these members, a `name` is a person's (face lists and recognitions). */
const FACE_PARENT = /face|person|member/i;
const NAME_KEY = /(^|_)name$/i;
/** Values of these members are versions and dates, never addresses (`8.2.4.1` is not an IP). */
const NOT_ADDRESSES = /version|firmware|build|date|time/i;

/** Secrets found in any text, by their shape (values whose member says nothing, bodies that are not JSON). */
const BY_SHAPE: ReadonlyArray<readonly [RegExp, SecretKind]> = [
  [/\b[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}\b/g, 'mac'],
  // A domain ends in letters: `user:pw@192.168.1.10` in a URL is a login, not an address.
  [/[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b/g, 'email'],
  [/(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.])/g, 'ip'],
];

/** `scheme://user:password@host`: the login some devices put in stream URLs. */
const URL_LOGIN = /([a-z][a-z0-9+.-]*:\/\/)([^:@/\s]*)(?::([^@\s]*))?@/gi;

const JPEG = [0xff, 0xd8];
const PNG = [0x89, 0x50, 0x4e, 0x47];
/** Strings longer than this are looked at as pictures. */
const PICTURE_MIN = 100;
const BASE64 = /^[A-Za-z0-9+/\r\n]+={0,2}$/;

export interface RedactorOptions {
  /** Keep pictures as the device sent them (the owner chose to share them). */
  keepPictures?: boolean;
}

export class Redactor {
  private readonly standIns = new Map<string, string>();
  private readonly counts = new Map<SecretKind, number>();
  /** Pictures replaced by a stand-in. */
  pictures = 0;

  constructor(private readonly opts: RedactorOptions = {}) {}

  /** Distinct values replaced, by kind. */
  get replaced(): Readonly<Partial<Record<SecretKind, number>>> {
    return Object.fromEntries(this.counts);
  }

  /** The stand-in of `value` as a `kind`: the same value always gets the same one. */
  standIn(kind: SecretKind, value: string): string {
    if (value === '') return value;
    const key = `${kind}\n${value}`;
    let out = this.standIns.get(key);
    if (out === undefined) {
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      out = STAND_IN[kind](n, value);
      this.standIns.set(key, out);
    }
    return out;
  }

  /** A JSON value with every secret replaced; `path` holds the member names leading to it. */
  json(value: unknown, path: readonly string[] = []): unknown {
    if (typeof value === 'string') return this.member(value, path);
    if (Array.isArray(value)) return value.map((x) => this.json(x, path));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, this.json(x, [...path, k])]));
    }
    return value;
  }

  /** Free text (a body that is not JSON, a header): secrets found by their shape. */
  text(text: string, addresses = true): string {
    let out = text.replace(URL_LOGIN, (_, scheme: string, user: string, password?: string) => {
      const who = user ? this.standIn('user', decodeURIComponent(user)) : '';
      return `${scheme}${who}${password !== undefined ? `:${this.standIn('password', password)}` : ''}@`;
    });
    for (const [shape, kind] of BY_SHAPE) {
      if (kind === 'ip' && !addresses) continue;
      out = out.replace(shape, (found) => this.standIn(kind, found));
    }
    return out;
  }

  /** A `Set-Cookie` header: the name and attributes kept, the value replaced. */
  cookie(header: string): string {
    return header.replace(/^([^=;]+)=([^;]*)/, (_, name: string, value: string) => `${name}=${this.standIn('cookie', value)}`);
  }

  private member(value: string, path: readonly string[]): string {
    const key = path.at(-1) ?? '';
    const picture = this.picture(value);
    if (picture !== undefined) return picture;
    const parent = path.slice(0, -1).join('.');
    if (NAME_KEY.test(key) && FACE_PARENT.test(parent)) return this.standIn('face', value);
    const kind = BY_KEY.find(([re]) => re.test(key))?.[1];
    if (kind === 'ip' || kind === 'mac' || kind === 'email') return this.text(value);
    if (kind) return this.standIn(kind, value);
    return this.text(value, !NOT_ADDRESSES.test(key));
  }

  /** A base64 picture's stand-in (same size, same header), or undefined when the value is no picture. */
  private picture(value: string): string | undefined {
    if (value.length < PICTURE_MIN) return undefined;
    const prefix = /^data:[^,]*,/.exec(value)?.[0] ?? '';
    const b64 = value.slice(prefix.length);
    if (!BASE64.test(b64)) return undefined;
    const bytes = Buffer.from(b64, 'base64');
    const starts = (sig: number[]) => sig.every((b, i) => bytes[i] === b);
    if (!starts(JPEG) && !starts(PNG)) return undefined;
    if (this.opts.keepPictures) return value;
    this.pictures++;
    return prefix + blankPicture(bytes).toString('base64');
  }
}

/**
 * The same picture with its content blanked: a JPEG keeps its headers up to the scan (its size, tables) and its end
 * marker, the scan data zeroed; a PNG keeps its 8-byte signature and IHDR. Same length, so sizes in the answer hold.
 */
export function blankPicture(bytes: Buffer): Buffer {
  const out = Buffer.alloc(bytes.length);
  let keep = 8 + 25; // PNG signature + IHDR chunk
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    keep = 2;
    while (keep + 4 <= bytes.length && bytes[keep] === 0xff) {
      const marker = bytes[keep + 1];
      const length = bytes.readUInt16BE(keep + 2);
      keep += 2 + length;
      if (marker === 0xda) break; // start of scan: what follows is the picture itself
    }
    if (bytes.length >= 2) out.set([0xff, 0xd9], bytes.length - 2);
  }
  bytes.copy(out, 0, 0, Math.min(keep, bytes.length));
  return out;
}
