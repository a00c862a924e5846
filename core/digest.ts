import { createHash, randomBytes } from 'node:crypto';

/** HTTP Digest authentication (RFC 7616), the login scheme of these devices. Pure functions. */

export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess' | 'SHA-512-256' | 'SHA-512-256-sess';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm: DigestAlgorithm;
  /** qop values the server offers (`auth`, `auth-int`); empty for an RFC 2069 challenge. */
  qop: string[];
  userhash: boolean;
  stale: boolean;
  charset?: string;
}

/** Hash name for node:crypto, preference (higher first) by algorithm. */
const ALGORITHMS: Readonly<Record<DigestAlgorithm, { hash: string; rank: number }>> = {
  'SHA-256': { hash: 'sha256', rank: 6 },
  'SHA-256-sess': { hash: 'sha256', rank: 5 },
  'SHA-512-256': { hash: 'sha512-256', rank: 4 },
  'SHA-512-256-sess': { hash: 'sha512-256', rank: 3 },
  MD5: { hash: 'md5', rank: 2 },
  'MD5-sess': { hash: 'md5', rank: 1 },
};

function algorithmOf(name: string | undefined): DigestAlgorithm | undefined {
  if (name === undefined) return 'MD5'; // RFC 7616: absent means MD5
  const upper = name.toUpperCase();
  return (Object.keys(ALGORITHMS) as DigestAlgorithm[]).find((a) => a.toUpperCase() === upper);
}

interface RawChallenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * Split a `WWW-Authenticate` value into challenges. Handles quoted and unquoted parameters,
 * escaped quotes and several challenges in one header (`Digest ..., Digest ..., Basic ...`),
 * which is also what a fetch `Headers.get()` returns for repeated headers.
 */
export function parseAuthenticate(header: string): RawChallenge[] {
  const out: RawChallenge[] = [];
  let i = 0;
  const n = header.length;
  const skip = (re: RegExp) => {
    while (i < n && re.test(header[i])) i++;
  };
  const token = () => {
    const start = i;
    while (i < n && /[!#$%&'*+.^_`|~0-9A-Za-z-]/.test(header[i])) i++;
    return header.slice(start, i);
  };
  let current: RawChallenge | undefined;
  while (i < n) {
    skip(/[\s,]/);
    if (i >= n) break;
    const start = i;
    const name = token();
    if (!name) {
      i++; // stray character: ignore it
      continue;
    }
    skip(/[ \t]/);
    if (header[i] === '=' && current) {
      i++;
      skip(/[ \t]/);
      let value = '';
      if (header[i] === '"') {
        i++;
        while (i < n && header[i] !== '"') {
          if (header[i] === '\\' && i + 1 < n) i++;
          value += header[i++];
        }
        i++; // closing quote
      } else {
        const vstart = i;
        while (i < n && header[i] !== ',' && !/\s/.test(header[i])) i++;
        value = header.slice(vstart, i);
      }
      current.params[name.toLowerCase()] = value;
    } else if (header[i] === '=' && !current) {
      // token68 or parameter without a scheme: skip to the next comma
      i = header.indexOf(',', start);
      if (i < 0) i = n;
    } else {
      current = { scheme: name, params: {} };
      out.push(current);
    }
  }
  return out;
}

/** The Digest challenges of a header, best algorithm first (SHA-256, SHA-512-256, MD5). */
export function parseDigestChallenges(header: string): DigestChallenge[] {
  const found: DigestChallenge[] = [];
  for (const c of parseAuthenticate(header)) {
    if (c.scheme.toLowerCase() !== 'digest') continue;
    const p = c.params;
    const algorithm = algorithmOf(p.algorithm);
    if (!algorithm || p.nonce === undefined) continue; // unknown algorithm: cannot answer this one
    found.push({
      realm: p.realm ?? '',
      nonce: p.nonce,
      opaque: p.opaque,
      algorithm,
      qop: p.qop
        ? p.qop
            .split(',')
            .map((q) => q.trim().toLowerCase())
            .filter(Boolean)
        : [],
      userhash: p.userhash?.toLowerCase() === 'true',
      stale: p.stale?.toLowerCase() === 'true',
      charset: p.charset,
    });
  }
  return found.sort((a, b) => ALGORITHMS[b.algorithm].rank - ALGORITHMS[a.algorithm].rank);
}

/** The challenge to answer: SHA-256 when offered, else the next best; undefined without Digest. */
export function pickDigestChallenge(header: string | null | undefined): DigestChallenge | undefined {
  return header ? parseDigestChallenges(header)[0] : undefined;
}

export interface DigestRequest {
  method: string;
  /** Request target as sent, e.g. `/API/Web/Login`. */
  uri: string;
  username: string;
  password: string;
  /** Request counter, 1 for the first use of a nonce. */
  nc?: number;
  /** Client nonce; random when omitted (tests pass the RFC's). */
  cnonce?: string;
  /** Request body, only needed when the server offers nothing but `auth-int`. */
  body?: string;
}

function hasher(algorithm: DigestAlgorithm) {
  const name = ALGORITHMS[algorithm].hash;
  return (s: string) => createHash(name).update(s, 'utf8').digest('hex');
}

/** Quote a parameter value (RFC 7230 quoted-string). */
function quote(s: string): string {
  return `"${s.replace(/(["\\])/g, '\\$1')}"`;
}

/** Compute the `response` value and the parameters of an Authorization header. */
export function digestResponse(ch: DigestChallenge, req: DigestRequest) {
  const H = hasher(ch.algorithm);
  const qop = ch.qop.includes('auth') ? 'auth' : ch.qop.includes('auth-int') ? 'auth-int' : undefined;
  const nc = (req.nc ?? 1).toString(16).padStart(8, '0');
  const cnonce = req.cnonce ?? randomBytes(16).toString('hex');
  let ha1 = H(`${req.username}:${ch.realm}:${req.password}`);
  if (ch.algorithm.endsWith('-sess')) ha1 = H(`${ha1}:${ch.nonce}:${cnonce}`);
  const ha2 = qop === 'auth-int' ? H(`${req.method}:${req.uri}:${H(req.body ?? '')}`) : H(`${req.method}:${req.uri}`);
  const response = qop ? H(`${ha1}:${ch.nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : H(`${ha1}:${ch.nonce}:${ha2}`);
  const username = ch.userhash ? H(`${req.username}:${ch.realm}`) : req.username;
  return { response, qop, nc, cnonce, username };
}

/** The `Authorization: Digest ...` header value answering `ch` (RFC 7616 section 3.4). */
export function digestAuthorization(ch: DigestChallenge, req: DigestRequest): string {
  const r = digestResponse(ch, req);
  // A username that cannot travel as a quoted ASCII string uses the RFC 5987 form (RFC 7616 3.4.4).
  const plain = ch.userhash || /^[\x20-\x7e]*$/.test(r.username);
  const parts = [
    plain ? `username=${quote(r.username)}` : `username*=UTF-8''${encodeURIComponent(r.username)}`,
    `realm=${quote(ch.realm)}`,
    `uri=${quote(req.uri)}`,
    `algorithm=${ch.algorithm}`,
    `nonce=${quote(ch.nonce)}`,
  ];
  if (r.qop) parts.push(`nc=${r.nc}`, `cnonce=${quote(r.cnonce)}`, `qop=${r.qop}`);
  parts.push(`response=${quote(r.response)}`);
  if (ch.opaque !== undefined) parts.push(`opaque=${quote(ch.opaque)}`);
  if (ch.userhash) parts.push('userhash=true');
  return `Digest ${parts.join(', ')}`;
}
