import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A tiny device speaking the wire facts of CONTRACT.md, for focused session tests. Independent of core:
 * its own Digest check (node:crypto), cookie, CSRF and session handling.
 */

export type Handler = (data: Record<string, unknown>, req: http.IncomingMessage) => unknown;
/** `bom_chunked`: a good answer behind a UTF-8 byte-order mark, in small chunks that split a character. */
export type Fault = 'hang' | 'html' | 'http500' | 'truncated' | 'cut' | 'html200' | 'bom_chunked';

export interface FakeOptions {
  username?: string;
  password: string;
  /** Challenges offered, in order. */
  algorithms?: Array<'MD5' | 'SHA-256'>;
  tokenInBody?: boolean;
  /** A new CSRF token on every response. */
  rotateCsrf?: boolean;
  /** Status of session errors (some firmwares use 200). */
  sessionErrorStatus?: number;
  /** Failed logins before `user_locked_login`. */
  lockAfter?: number;
  /** Refuse an answered login (credentials right or wrong) with this code, HTTP 400 (vendor: `verify_failed`, `have_login`...). */
  refuseLogin?: (credentialsOk: boolean) => string | undefined;
  tls?: { key: string | Buffer; cert: string | Buffer };
  handlers?: Record<string, Handler>;
  /** How long the device keeps an idle connection (its `Keep-Alive: timeout=` hint); Node's default 5 s otherwise. */
  keepAliveMs?: number;
  /** Attributes of the session cookie (`HttpOnly; path=/` by default; some firmwares add `Secure` even over HTTP). */
  cookieAttributes?: string;
}

export interface LogLine {
  path: string;
  status: number;
  error_code?: string;
  auth?: boolean;
  csrf?: string;
  /** Request `data` as the device received it. */
  data?: Record<string, unknown>;
}

const H = (alg: string, s: string) =>
  createHash(alg === 'SHA-256' ? 'sha256' : 'md5')
    .update(s)
    .digest('hex');

function parseAuth(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of header.replace(/^Digest\s+/i, '').matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)) out[m[1]] = m[2] ?? m[3];
  return out;
}

export class FakeDevice {
  readonly opts: FakeOptions;
  readonly log: LogLine[] = [];
  readonly sessions = new Map<string, { csrf: string; expired: boolean }>();
  readonly handlers: Record<string, Handler>;
  faults = new Map<string, Fault>();
  connections = 0;
  failedLogins = 0;
  url = '';
  private server!: http.Server | https.Server;
  private sockets = new Set<Socket>();
  private hanging = new Set<http.ServerResponse>();
  private nonces = new Set<string>();

  constructor(opts: FakeOptions) {
    this.opts = { username: 'admin', algorithms: ['MD5'], sessionErrorStatus: 401, ...opts };
    this.handlers = {
      '/API/SystemInfo/Base/Get': () => ({ device_type: 'N7516', software_version: 'V8.2.4-20230101', mac_address: '00:11:22:33:44:55' }),
      ...opts.handlers,
    };
  }

  count(path: string, status?: number): number {
    return this.log.filter((l) => l.path === path && (status === undefined || l.status === status)).length;
  }

  /** Request `data` of every call to `path`, in order. */
  bodies(path: string): Array<Record<string, unknown> | undefined> {
    return this.log.filter((l) => l.path === path).map((l) => l.data);
  }

  /** Successful answers to `path`. */
  ok(path: string): number {
    return this.log.filter((l) => l.path === path && l.status === 200 && !l.error_code).length;
  }

  expireAll(): void {
    for (const s of this.sessions.values()) s.expired = true;
  }

  async start(): Promise<this> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    this.server = this.opts.tls ? https.createServer({ ...this.opts.tls }, handler) : http.createServer(handler);
    if (this.opts.keepAliveMs !== undefined) this.server.keepAliveTimeout = this.opts.keepAliveMs;
    const onSocket = (s: Socket) => {
      this.connections++;
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    };
    this.server.on(this.opts.tls ? 'secureConnection' : 'connection', onSocket);
    if (this.opts.tls) this.server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `${this.opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  close(): Promise<void> {
    return this.stop();
  }

  private send(res: http.ServerResponse, line: LogLine, status: number, body: unknown, headers: Record<string, string | string[]> = {}) {
    line.status = status;
    this.log.push(line);
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private fail(res: http.ServerResponse, line: LogLine, status: number, code: string, headers?: Record<string, string | string[]>) {
    line.error_code = code;
    this.send(res, line, status, { result: 'failed', reason: code.replace(/_/g, ' '), error_code: code, data: {} }, headers);
  }

  private cookieName(): string {
    return `session_${new URL(this.url).port}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0];
    const line: LogLine = { path, status: 0, auth: !!req.headers.authorization, csrf: req.headers['x-csrftoken'] as string | undefined };
    let data: Record<string, unknown>;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.version !== '1.0' || typeof body.data !== 'object') return this.fail(res, line, 400, 'param_error');
      data = body.data;
      line.data = data;
    } catch {
      return this.fail(res, line, 400, 'param_error');
    }
    const fault = this.faults.get(path);
    if (fault === 'hang') {
      line.status = -1;
      this.log.push(line);
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (fault === 'html' || fault === 'html200') {
      line.status = fault === 'html' ? 500 : 200;
      this.log.push(line);
      res.writeHead(line.status, { 'content-type': 'text/html' });
      return res.end('<html><body><h1>500 Internal Server Error</h1></body></html>');
    }
    if (fault === 'http500') {
      line.status = 500;
      this.log.push(line);
      res.writeHead(500, { 'content-type': 'text/plain' });
      return res.end('Internal Server Error');
    }
    if (fault === 'bom_chunked') {
      line.status = 200;
      this.log.push(line);
      const body = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(JSON.stringify({ result: 'success', data: { device_type: 'N7516 Caméra', channel_max: 8 } })),
      ]);
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked
      const cut = body.indexOf('é') + 1; // inside the two bytes of é
      res.write(body.subarray(0, 2));
      res.write(body.subarray(2, cut));
      return setTimeout(() => res.end(body.subarray(cut)), 5);
    }
    if (fault === 'truncated' || fault === 'cut') {
      line.status = 200;
      this.log.push(line);
      const text = JSON.stringify({ result: 'success', data: { device_type: 'N7516', channel_max: 8 } });
      if (fault === 'truncated') {
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked, ends cleanly but mid-JSON
        return res.end(text.slice(0, 25));
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.write(text.slice(0, 25));
      return setTimeout(() => res.socket?.destroy(), 10);
    }

    if (path === '/API/Web/Login') return this.login(req, res, line);

    // Session check: cookie and CSRF header.
    const cookie = /(?:^|;\s*)(session[^=]*)=([^;]+)/.exec(req.headers.cookie ?? '');
    const session = cookie ? this.sessions.get(cookie[2]) : undefined;
    if (!session) return this.fail(res, line, this.opts.sessionErrorStatus!, 'no_login');
    if (session.expired) return this.fail(res, line, this.opts.sessionErrorStatus!, 'expired');
    if (req.headers['x-csrftoken'] !== session.csrf) return this.fail(res, line, this.opts.sessionErrorStatus!, 'token_invalid');
    const headers: Record<string, string> = {};
    if (this.opts.rotateCsrf) {
      session.csrf = randomBytes(8).toString('hex');
      headers['X-CsrfToken'] = session.csrf;
    }
    if (path === '/API/Web/Logout') {
      this.sessions.delete(cookie![2]);
      return this.send(res, line, 200, { result: 'success', data: {} });
    }
    if (path === '/API/Login/Heartbeat') return this.send(res, line, 200, { result: 'success', data: {} }, headers);
    const h = this.handlers[path];
    if (!h) return this.fail(res, line, 404, 'not_found');
    try {
      const out = await h(data, req);
      if (out && typeof out === 'object' && 'fail' in out) {
        const f = out as { fail: string; status?: number; ch_error_code?: unknown };
        line.error_code = f.fail;
        return this.send(
          res,
          line,
          f.status ?? 400,
          { result: 'failed', reason: f.fail, error_code: f.fail, ch_error_code: f.ch_error_code, data: {} },
          headers,
        );
      }
      if (out && typeof out === 'object' && 'raw' in out) {
        const r = out as { raw: unknown; status?: number };
        return this.send(res, line, r.status ?? 200, r.raw, headers);
      }
      if (out && typeof out === 'object' && 'rawText' in out) {
        // A body JSON.stringify cannot write (integers beyond 2^53, exact vendor text).
        const text = (out as { rawText: string }).rawText;
        line.status = 200;
        this.log.push(line);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
        return res.end(text);
      }
      return this.send(res, line, 200, { result: 'success', data: out ?? {} }, headers);
    } catch {
      if (!res.headersSent) res.destroy();
    }
  }

  private login(req: http.IncomingMessage, res: http.ServerResponse, line: LogLine) {
    const algs = this.opts.algorithms!;
    const challenge = () => {
      const nonce = randomBytes(12).toString('hex');
      this.nonces.add(nonce);
      return algs.map((a) => `Digest realm="RS realm", qop="auth", nonce="${nonce}", opaque="op4que", algorithm=${a}`);
    };
    const auth = req.headers.authorization;
    if (!auth) return this.fail(res, line, 401, 'no_login', { 'WWW-Authenticate': challenge() });
    if (this.opts.lockAfter !== undefined && this.failedLogins >= this.opts.lockAfter)
      return this.fail(res, line, 401, 'user_locked_login');
    const p = parseAuth(auth);
    const alg = p.algorithm ?? 'MD5';
    const ha1 = H(alg, `${p.username}:${p.realm}:${this.opts.password}`);
    const ha2 = H(alg, `POST:${p.uri}`);
    const expected = H(alg, `${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`);
    const ok =
      p.username === this.opts.username &&
      p.realm === 'RS realm' &&
      p.uri === '/API/Web/Login' &&
      p.qop === 'auth' &&
      this.nonces.delete(p.nonce) &&
      p.opaque === 'op4que' &&
      p.response === expected;
    const refusal = this.opts.refuseLogin?.(ok);
    if (refusal) {
      if (!ok) this.failedLogins++;
      return this.fail(res, line, 400, refusal);
    }
    if (!ok) {
      this.failedLogins++;
      return this.fail(res, line, 401, 'login_failed_or_block', { 'WWW-Authenticate': challenge() });
    }
    const id = randomBytes(8).toString('hex');
    const csrf = randomBytes(8).toString('hex');
    this.sessions.set(id, { csrf, expired: false });
    const headers: Record<string, string | string[]> = {
      'Set-Cookie': [`${this.cookieName()}=${id}; ${this.opts.cookieAttributes ?? 'HttpOnly; path=/'}`, 'lang=en; path=/'],
    };
    if (!this.opts.tokenInBody) headers['X-csrftoken'] = csrf;
    this.send(res, line, 200, { result: 'success', data: this.opts.tokenInBody ? { token: csrf } : {} }, headers);
  }
}

export async function fakeDevice(opts: FakeOptions): Promise<FakeDevice> {
  return new FakeDevice(opts).start();
}
