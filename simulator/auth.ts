/**
 * Login and sessions as the field notes describe them: Digest (RFC 7616, qop=auth, MD5 and SHA-256, userhash
 * accepted), session cookie `session_<port>`, `X-csrftoken` header (any case), CSRF token rotation, expiry after
 * inactivity, optional heartbeat requirement, logout, and failed-login counting with a lock-out period.
 * Everything is judged lazily from timestamps: no timers to leak.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type DigestAlgorithm = 'MD5' | 'SHA-256';

interface AuthOptions {
  username: string;
  password: string;
  realm: string;
  /** Challenge offered first; MD5 is always offered too (second when SHA-256 is first). */
  algorithm: DigestAlgorithm;
  cookieName: string;
  sessionTimeoutMs: number;
  /** > 0: calls fail with `no_heartbeat` when no heartbeat came within this time. */
  heartbeatTimeoutMs: number;
  tokenInBody: boolean;
  rotateCsrf: boolean;
  maxFailures: number;
  lockoutMs: number;
  maxSessions: number;
}

export interface Session {
  id: string;
  /** Newest token first; a few previous ones stay valid so that requests already in flight still pass. */
  tokens: string[];
  lastSeen: number;
  lastHeartbeat: number;
  /** expireSessions() / expire_session fault: the next call answers `expired`. */
  expired: boolean;
}

type LoginResult =
  | { kind: 'challenge'; headers: string[] }
  | { kind: 'failed'; code: 'verify_failed' | 'login_failed_or_block'; reason: string; data?: Record<string, unknown> }
  | { kind: 'ok'; session: Session };

/** Why a session ended, answered to its next call. */
type DeadCode = 'expired' | 'no_heartbeat' | 'forced_offline' | 'logout';

type SessionCheck =
  | { ok: true; session: Session }
  /** status: 401 when the call carries no session at all, 400 (vendor failure body) otherwise. */
  | { ok: false; status: 400 | 401; code: 'no_login' | 'token_invalid' | DeadCode; reason: string };

const NONCE_TTL_MS = 300_000;
const DEAD_KEPT = 256;
const TOKENS_KEPT = 3;

const hash = (algorithm: DigestAlgorithm, s: string) =>
  createHash(algorithm === 'MD5' ? 'md5' : 'sha256')
    .update(s)
    .digest('hex');

/** `Digest a="b", c=d` -> {a: 'b', c: 'd'} (quoted strings may contain commas and escaped quotes). */
function parseDigest(header: string): Record<string, string> | undefined {
  const m = /^\s*Digest\s+/i.exec(header);
  if (!m) return undefined;
  const out: Record<string, string> = {};
  const re = /([a-zA-Z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?/g;
  re.lastIndex = m[0].length;
  let p: RegExpExecArray | null;
  while ((p = re.exec(header)) !== null && p[0] !== '') {
    out[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  }
  return out;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Auth {
  private readonly sessions = new Map<string, Session>();
  /** Ended sessions: their next call answers why (400 + code), once. */
  private readonly dead = new Map<string, DeadCode>();
  private readonly nonces = new Map<string, number>();
  private readonly failures = new Map<string, { count: number; lockedUntil: number }>();
  private readonly opaque = randomBytes(16).toString('hex');
  /** Algorithms challenged with, in the order offered. */
  private readonly offered: readonly DigestAlgorithm[];

  constructor(private readonly o: AuthOptions) {
    this.offered = o.algorithm === 'SHA-256' ? ['SHA-256', 'MD5'] : ['MD5'];
  }

  private newNonce(now: number): string {
    if (this.nonces.size > 256) for (const [n, exp] of this.nonces) if (exp < now) this.nonces.delete(n);
    const nonce = randomBytes(16).toString('hex');
    this.nonces.set(nonce, now + NONCE_TTL_MS);
    return nonce;
  }

  challenge(now = Date.now(), stale = false): string[] {
    const nonce = this.newNonce(now);
    const one = (alg: DigestAlgorithm) =>
      `Digest realm="${this.o.realm}", qop="auth", nonce="${nonce}", opaque="${this.opaque}", algorithm=${alg}${stale ? ', stale=true' : ''}`;
    return this.offered.map(one);
  }

  /** POST /API/Web/Login: no Authorization -> challenge; wrong credentials counted; success -> new session. */
  login(req: IncomingMessage, now = Date.now()): LoginResult {
    const header = req.headers.authorization;
    const p = typeof header === 'string' ? parseDigest(header) : undefined;
    if (!p) return { kind: 'challenge', headers: this.challenge(now) };
    const algorithm = (p.algorithm ?? 'MD5').toUpperCase();
    const alg = algorithm as DigestAlgorithm;
    if (!this.offered.includes(alg)) return { kind: 'challenge', headers: this.challenge(now) };
    const nonceExpiry = p.nonce ? this.nonces.get(p.nonce) : undefined;
    // Many clients answer without `opaque` (field notes): accepted; a wrong one is not.
    if (nonceExpiry === undefined || nonceExpiry < now || (p.opaque !== undefined && p.opaque !== this.opaque)) {
      // Unknown or expired nonce: no judgement on the credentials, just a fresh challenge (stale=true).
      return { kind: 'challenge', headers: this.challenge(now, true) };
    }
    // The user that tries (the hashed form when userhash=true): counted and locked per user.
    const wanted = p.userhash === 'true' ? hash(alg, `${this.o.username}:${this.o.realm}`) : this.o.username;
    const user = p.username ?? '';
    const f = this.failures.get(user);
    if (f && f.lockedUntil > now) return this.blocked(f.lockedUntil, now);
    const ha1 = hash(alg, `${this.o.username}:${this.o.realm}:${this.o.password}`);
    const ha2 = hash(alg, `POST:${p.uri ?? ''}`);
    const expected = p.qop
      ? hash(alg, `${ha1}:${p.nonce}:${p.nc ?? ''}:${p.cnonce ?? ''}:${p.qop}:${ha2}`)
      : hash(alg, `${ha1}:${p.nonce}:${ha2}`);
    const uriOk = p.uri === req.url || p.uri === (req.url ?? '').split('?')[0];
    const ok =
      uriOk &&
      p.realm === this.o.realm &&
      (p.qop === undefined || p.qop === 'auth') &&
      safeEqual(user, wanted) &&
      safeEqual((p.response ?? '').toLowerCase(), expected);
    if (!ok) {
      const count = (f && f.lockedUntil <= now && f.count >= this.o.maxFailures ? 0 : (f?.count ?? 0)) + 1;
      const lockedUntil = count >= this.o.maxFailures ? now + this.o.lockoutMs : 0;
      this.failures.set(user, { count, lockedUntil });
      if (lockedUntil) return this.blocked(lockedUntil, now);
      return { kind: 'failed', code: 'verify_failed', reason: 'Wrong user name or password', data: { fail_login_count: count } };
    }
    this.failures.delete(user);
    this.nonces.delete(p.nonce);
    return { kind: 'ok', session: this.createSession(now) };
  }

  private blocked(until: number, now: number): LoginResult {
    return {
      kind: 'failed',
      code: 'login_failed_or_block',
      reason: 'Too many failed logins: login blocked',
      data: { block_remain_time: Math.ceil((until - now) / 1000) },
    };
  }

  /** End a session; its next call answers `code`. */
  private kill(id: string, code: DeadCode): void {
    this.sessions.delete(id);
    this.dead.set(id, code);
    if (this.dead.size > DEAD_KEPT) this.dead.delete(this.dead.keys().next().value!);
  }

  private createSession(now: number): Session {
    if (this.sessions.size >= this.o.maxSessions) {
      // The oldest session is forced out, like a device with a small session table.
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.kill(oldest, 'forced_offline');
    }
    const s: Session = {
      id: randomBytes(16).toString('hex'),
      tokens: [randomBytes(16).toString('hex')],
      lastSeen: now,
      lastHeartbeat: now,
      expired: false,
    };
    this.sessions.set(s.id, s);
    return s;
  }

  setCookie(s: Session): string {
    return `${this.o.cookieName}=${s.id}; HttpOnly; path=/`;
  }

  private cookieSession(req: IncomingMessage): string | undefined {
    const cookie = req.headers.cookie;
    if (!cookie) return undefined;
    const prefix = `${this.o.cookieName}=`;
    for (const part of cookie.split(';')) {
      const t = part.trim();
      if (t.startsWith(prefix)) return t.slice(prefix.length);
    }
    return undefined;
  }

  /** Session of an API call (cookie + X-csrftoken header; node lower-cases header names, so any case works). */
  check(req: IncomingMessage, isHeartbeat: boolean, now = Date.now()): SessionCheck {
    const id = this.cookieSession(req);
    if (id === undefined) return { ok: false, status: 401, code: 'no_login', reason: 'Not logged in' };
    const s = this.sessions.get(id);
    if (!s) {
      const code = this.dead.get(id);
      this.dead.delete(id);
      return code
        ? { ok: false, status: 400, code, reason: code === 'forced_offline' ? 'Session evicted by newer logins' : `Session ended: ${code}` }
        : { ok: false, status: 400, code: 'no_login', reason: 'Unknown session' };
    }
    if (s.expired || now - s.lastSeen > this.o.sessionTimeoutMs) {
      this.sessions.delete(s.id);
      return { ok: false, status: 400, code: 'expired', reason: 'Session expired' };
    }
    const token = req.headers['x-csrftoken'];
    if (typeof token !== 'string' || !s.tokens.includes(token)) {
      return { ok: false, status: 400, code: 'token_invalid', reason: 'Missing or invalid X-csrftoken' };
    }
    if (!isHeartbeat && this.o.heartbeatTimeoutMs > 0 && now - s.lastHeartbeat > this.o.heartbeatTimeoutMs) {
      this.sessions.delete(s.id);
      return { ok: false, status: 400, code: 'no_heartbeat', reason: 'No heartbeat' };
    }
    s.lastSeen = now;
    if (isHeartbeat) s.lastHeartbeat = now;
    return { ok: true, session: s };
  }

  /** A fresh CSRF token (sent in `X-csrftoken`); the previous ones stay valid a little longer. */
  rotate(s: Session): string | undefined {
    if (!this.o.rotateCsrf || this.o.tokenInBody) return undefined;
    s.tokens.unshift(randomBytes(16).toString('hex'));
    if (s.tokens.length > TOKENS_KEPT) s.tokens.length = TOKENS_KEPT;
    return s.tokens[0];
  }

  logout(s: Session): void {
    this.kill(s.id, 'logout');
  }

  /** Session of a request, if any, without judging it (the expire_session fault). */
  sessionOf(req: IncomingMessage): Session | undefined {
    const id = this.cookieSession(req);
    return id === undefined ? undefined : this.sessions.get(id);
  }

  expireAll(): void {
    for (const s of this.sessions.values()) s.expired = true;
  }
}
