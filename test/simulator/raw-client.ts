/**
 * A deliberately independent raw HTTP client for the simulator tests: node:http and its own Digest computation
 * (node:crypto), nothing from core/, so that a bug cannot hide on both sides.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  text: string;
  json: any;
}

export interface PostOptions {
  headers?: Record<string, string>;
  /** Raw body instead of the `{version, data}` envelope. */
  body?: string;
  method?: string;
  /** Do not send the session cookie / CSRF header. */
  anonymous?: boolean;
  ca?: string | Buffer;
}

export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; ca?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.request(
      u,
      {
        method: opts.method ?? 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(opts.body !== undefined ? { 'Content-Length': String(Buffer.byteLength(opts.body)) } : {}),
          ...opts.headers,
        },
        agent: false,
        ca: opts.ca,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Each WWW-Authenticate header separately (node joins duplicates in `headers`). */
export function challenges(res: RawResponse): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    if (res.rawHeaders[i].toLowerCase() !== 'www-authenticate') continue;
    const v = res.rawHeaders[i + 1];
    const params: Record<string, string> = { scheme: v.split(/\s+/)[0] };
    for (const m of v.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)) params[m[1]] = m[2] ?? m[3];
    out.push(params);
  }
  return out;
}

export function digestHeader(c: Record<string, string>, user: string, password: string, uri: string, nc = '00000001'): string {
  const alg = c.algorithm ?? 'MD5';
  const H = (s: string) =>
    createHash(alg === 'SHA-256' ? 'sha256' : 'md5')
      .update(s)
      .digest('hex');
  const cnonce = randomBytes(8).toString('hex');
  const ha1 = H(`${user}:${c.realm}:${password}`);
  const ha2 = H(`POST:${uri}`);
  const response = H(`${ha1}:${c.nonce}:${nc}:${cnonce}:auth:${ha2}`);
  return (
    `Digest username="${user}", realm="${c.realm}", nonce="${c.nonce}", uri="${uri}", algorithm=${alg}, ` +
    `qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}", opaque="${c.opaque}"`
  );
}

export class RawClient {
  cookie?: string;
  token?: string;

  constructor(
    readonly base: string,
    readonly user = 'admin',
    public password = 'pw-Secret-1',
    readonly ca?: string | Buffer,
  ) {}

  post(path: string, data: unknown = {}, o: PostOptions = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { ...o.headers };
    if (!o.anonymous) {
      if (this.cookie) headers.Cookie = this.cookie;
      if (this.token && !Object.keys(headers).some((h) => h.toLowerCase() === 'x-csrftoken')) headers['X-csrftoken'] = this.token;
    }
    const body = o.body ?? JSON.stringify({ version: '1.0', data });
    return request(this.base + path, { method: o.method, headers, body, ca: o.ca ?? this.ca }).then((res) => {
      const t = res.headers['x-csrftoken'];
      if (typeof t === 'string') this.token = t;
      return res;
    });
  }

  /** Challenge, then Digest with the algorithm picked by `pick` (default: the first offered); `data`: the login body's data. */
  async login(pick?: (cs: Array<Record<string, string>>) => Record<string, string>, data: unknown = {}): Promise<RawResponse> {
    const first = await this.post('/API/Web/Login', data, { anonymous: true });
    if (first.status !== 401) throw new Error(`expected a 401 challenge, got ${first.status} ${first.text}`);
    const cs = challenges(first);
    const c = pick ? pick(cs) : cs[0];
    const res = await this.post('/API/Web/Login', data, {
      anonymous: true,
      headers: { Authorization: digestHeader(c, this.user, this.password, '/API/Web/Login') },
    });
    if (res.status === 200) {
      const sc = res.headers['set-cookie']?.[0];
      this.cookie = sc?.split(';')[0];
      this.token = (res.headers['x-csrftoken'] as string | undefined) ?? res.json?.data?.token;
    }
    return res;
  }
}

export const PASSWORD = 'pw-Secret-1';

export { until } from '../helpers/until';
