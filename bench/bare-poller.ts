/**
 * The floor of the bench (child process): a bare poller in plain Node that makes the same device requests as
 * the bridge at the same rate, with undici's `request` on a keep-alive Pool (2 connections) per device and
 * `JSON.parse`, and nothing else: no validation, no state, no MQTT. It imports nothing of ours, so that its
 * memory is the floor too. Reads its job as one JSON line on stdin, logs in to every device (Digest MD5, not
 * measured), then runs `seconds` and prints one JSON line: CPU in % of one core, peak RSS, requests sent.
 * Per device: Event/Check with the subscription and its cursor every `eventIntervalMs` (counted from the start
 * of the previous call, as the bridge paces them), the requests of one bridge poll every `pollIntervalMs`, and
 * each periodic extra (heartbeat) at its own period.
 */
import { createHash, randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

export interface BareJob {
  urls: string[];
  password: string;
  seconds: number;
  pollIntervalMs: number;
  eventIntervalMs: number;
  /** The requests of one poll, in the bridge's order. */
  poll: Array<{ path: string; data: unknown }>;
  /** Requests outside the poll, each at its own period (the session heartbeat). */
  extras: Array<{ path: string; data: unknown; periodMs: number }>;
  /** Devices' first polls spread over this long (as the bridge staggers them). */
  spreadMs: number;
}

const LOGIN = '/API/Web/Login';
const EVENTS = '/API/Event/Check';
const SUBSCRIPTION = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }] } };

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

class BareDevice {
  private readonly pool: Pool;
  private readonly headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  private cursor?: { reader_id: unknown; sequence: unknown; lap_number: unknown };
  sent = 0;

  constructor(url: string) {
    this.pool = new Pool(url, { connections: 2, pipelining: 1, keepAliveTimeout: 4_000 });
  }

  private async post(
    path: string,
    data: unknown,
    extra?: Record<string, string>,
  ): Promise<{ status: number; json: unknown; headers: Record<string, unknown> }> {
    const res = await this.pool.request({
      path,
      method: 'POST',
      body: JSON.stringify({ version: '1.0', data }),
      headers: extra ? { ...this.headers, ...extra } : this.headers,
    });
    const text = await res.body.text();
    this.sent++;
    const token = res.headers['x-csrftoken'];
    if (typeof token === 'string') this.headers['x-csrftoken'] = token;
    return { status: res.statusCode, json: text ? (JSON.parse(text) as unknown) : undefined, headers: res.headers };
  }

  async login(username: string, password: string): Promise<void> {
    const first = await this.post(LOGIN, {});
    const challenge = String(first.headers['www-authenticate'] ?? '');
    const p = Object.fromEntries([...challenge.matchAll(/(\w+)="?([^",]*)"?/g)].map((m) => [m[1], m[2]]));
    const cnonce = randomBytes(8).toString('hex');
    const ha1 = md5(`${username}:${p.realm}:${password}`);
    const ha2 = md5(`POST:${LOGIN}`);
    const response = md5(`${ha1}:${p.nonce}:00000001:${cnonce}:auth:${ha2}`);
    const authorization =
      `Digest username="${username}", realm="${p.realm}", uri="${LOGIN}", algorithm=MD5, nonce="${p.nonce}", ` +
      `nc=00000001, cnonce="${cnonce}", qop=auth, response="${response}"${p.opaque !== undefined ? `, opaque="${p.opaque}"` : ''}`;
    const res = await this.post(LOGIN, {}, { authorization });
    const cookie = ([] as unknown[]).concat(res.headers['set-cookie'] ?? []).map((c) => String(c).split(';')[0]);
    if (res.status !== 200 || !cookie.length) throw new Error(`bare login failed: HTTP ${res.status}`);
    this.headers.cookie = cookie.join('; ');
    const token = (res.json as { data?: { token?: string } }).data?.token;
    if (!this.headers['x-csrftoken'] && token) this.headers['x-csrftoken'] = token;
  }

  async checkEvents(): Promise<void> {
    const data = this.cursor ? { ...SUBSCRIPTION, ...this.cursor } : SUBSCRIPTION;
    const res = await this.post(EVENTS, data);
    const d = (res.json as { data?: { reader_id?: unknown; sequence?: unknown; lap_number?: unknown } } | undefined)?.data;
    this.cursor =
      d?.reader_id !== undefined ? { reader_id: d.reader_id, sequence: d.sequence ?? null, lap_number: d.lap_number ?? null } : undefined;
  }

  async send(path: string, data: unknown): Promise<void> {
    await this.post(path, data);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Calls `fn` every `periodMs` (counted from the start of the previous call) until `signal` aborts. */
async function every(periodMs: number, signal: AbortSignal, fn: () => Promise<void>): Promise<void> {
  while (!signal.aborted) {
    const start = Date.now();
    await fn().catch(() => undefined);
    await sleep(Math.max(0, start + periodMs - Date.now()), undefined, { signal }).catch(() => undefined);
  }
}

async function main() {
  const job = JSON.parse(
    await new Promise<string>((resolve) => createInterface({ input: process.stdin }).once('line', resolve)),
  ) as BareJob;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 250);
  const devices = job.urls.map((u) => new BareDevice(u));
  for (let i = 0; i < devices.length; i += 16) await Promise.all(devices.slice(i, i + 16).map((d) => d.login('admin', job.password)));
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // every loop of every device waits on it
  const loops = devices.flatMap((d, i) => {
    const phase = devices.length > 1 ? Math.round((i * job.spreadMs) / devices.length) : 0;
    const start = (fn: () => Promise<void>, period: number) =>
      sleep(phase, undefined, { signal: stop.signal }).then(
        () => every(period, stop.signal, fn),
        () => undefined,
      );
    return [
      start(() => d.checkEvents(), job.eventIntervalMs),
      start(async () => {
        for (const r of job.poll) await d.send(r.path, r.data);
      }, job.pollIntervalMs),
      ...job.extras.map((x) => start(() => d.send(x.path, x.data), x.periodMs)),
    ];
  });
  await sleep(Math.max(3_000, job.spreadMs + 1_000)); // every loop under way
  const sent0 = devices.reduce((s, d) => s + d.sent, 0);
  const cpu0 = process.cpuUsage();
  const wall0 = process.hrtime.bigint();
  const t0 = Date.now();
  await sleep(job.seconds * 1000);
  const cpu = process.cpuUsage(cpu0);
  const wallUs = Number(process.hrtime.bigint() - wall0) / 1000;
  const t1 = Date.now();
  const sent = devices.reduce((s, d) => s + d.sent, 0) - sent0;
  clearInterval(sampler);
  stop.abort();
  await Promise.all(loops);
  await Promise.all(devices.map((d) => d.close()));
  process.stdout.write(
    `${JSON.stringify({ cpu_percent: (100 * (cpu.user + cpu.system)) / wallUs, peak_rss_mb: peakRss / (1 << 20), requests: sent, t0, t1 })}\n`,
  );
  process.exit(0);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`bare-poller: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
