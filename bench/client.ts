/**
 * Client Get cost against a bare HTTP POST of the same request (goal: client median <= 1.10 x bare median), and
 * the client's overhead on a device that takes 20 ms to answer (goal: <= 2 % of that round trip).
 *
 * One simulator on loopback (nvr profile, 8 channels), one logged-in NvrClient. The bare side logs in the same way
 * (Digest, its own session) and then POSTs the very bytes the client sends (same path, body, cookie, X-csrftoken,
 * content-type and accept) with undici's `request` over a keep-alive Agent limited to the client's number of
 * connections, reads the body and JSON.parse()s it: the least any caller must do to use the answer. Calls are
 * sequential; the two sides alternate in batches (alternating which goes first) so machine noise hits both alike.
 */
import { isDeepStrictEqual } from 'node:util';
import * as v from 'valibot';
import { Agent, request } from 'undici';
import { NvrClient } from '../core/client';
import { digestAuthorization, pickDigestChallenge } from '../core/digest';
import { deterrenceGet } from '../core/pages';
import { startSimulator } from '../simulator';

const PASSWORD = 'Bench-pw-5150';
const MAX_CONNECTIONS = 2; // the client's default
const N = 2000;
const WARMUP = 500;
const BATCH = 100;
/** The simulated device round trip of the second measurement, and its calls per side (BENCH_SLOW_N to shorten). */
const DEVICE_RTT_MS = 20;
const SLOW_N = Number(process.env.BENCH_SLOW_N ?? 200);

interface BareSession {
  headers: Record<string, string>;
  agent: Agent;
}

/** Digest login over undici `request`, like the client does it; returns the headers of every later call. */
async function bareLogin(base: string): Promise<BareSession> {
  const agent = new Agent({ connections: MAX_CONNECTIONS, pipelining: 1, keepAliveTimeout: 4_000 });
  const body = JSON.stringify({ version: '1.0', data: {} });
  const post = (headers: Record<string, string>) =>
    request(`${base}/API/Web/Login`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
      dispatcher: agent,
    });
  const first = await post({});
  await first.body.text();
  const challenge = pickDigestChallenge(String(first.headers['www-authenticate'] ?? ''));
  if (first.statusCode !== 401 || !challenge) throw new Error(`bare login: no Digest challenge (HTTP ${first.statusCode})`);
  const authorization = digestAuthorization(challenge, { method: 'POST', uri: '/API/Web/Login', username: 'admin', password: PASSWORD });
  const res = await post({ authorization });
  const answer = JSON.parse(await res.body.text()) as { result?: string };
  if (res.statusCode !== 200 || answer.result !== 'success') throw new Error(`bare login refused (HTTP ${res.statusCode})`);
  const setCookie = res.headers['set-cookie'];
  const cookie = (Array.isArray(setCookie) ? setCookie : [setCookie ?? ''])[0].split(';')[0];
  const token = res.headers['x-csrftoken'];
  if (!cookie || typeof token !== 'string') throw new Error('bare login: no session cookie or X-csrftoken');
  return {
    agent,
    // Same header set and order as the client's transport sends.
    headers: { 'content-type': 'application/json', accept: 'application/json', cookie, 'X-csrftoken': token },
  };
}

function stats(samplesUs: number[]): { median: number; p99: number } {
  const s = [...samplesUs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p99: at(0.99) };
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

export async function benchClient(): Promise<Record<string, number>> {
  const sim = await startSimulator({ password: PASSWORD, profile: 'nvr', quiet: true, logLimit: 200 });
  const client = new NvrClient({ url: sim.url, username: 'admin', password: PASSWORD, heartbeatMs: 0, maxConnections: MAX_CONNECTIONS });
  let bare: BareSession | undefined;
  try {
    await client.login();
    bare = await bareLogin(sim.url);
    const session = bare;
    const op = deterrenceGet;
    const url = `${sim.url}${op.path}`;
    // The body the client sends: its request schema applied to no input (page_type default), in the envelope.
    const body = JSON.stringify({ version: '1.0', data: v.parse(op.request, {}) });

    const viaClient = () => client.invoke(op, {});
    const viaBare = async () => {
      const res = await request(url, { method: 'POST', body, headers: session.headers, dispatcher: session.agent });
      const answer = JSON.parse(await res.body.text()) as { result?: string; data?: unknown };
      if (res.statusCode !== 200 || answer.result !== 'success') throw new Error(`bare Get failed (HTTP ${res.statusCode})`);
      return answer.data;
    };

    // Same request, same answer: otherwise the comparison means nothing.
    const bareAnswer = await viaBare();
    if (!isDeepStrictEqual(await viaClient(), bareAnswer)) throw new Error('client and bare POST got different answers');
    sim.clearLog();
    await viaClient();
    await viaBare();
    const [c, d] = sim.log.slice(-2);
    if (c.path !== d.path || JSON.stringify(c.data) !== JSON.stringify(d.data))
      throw new Error('client and bare POST sent different requests');

    for (let i = 0; i < WARMUP; i++) {
      await viaClient();
      await viaBare();
    }

    const clientUs: number[] = [];
    const bareUs: number[] = [];
    const time = async (fn: () => Promise<unknown>, into: number[]) => {
      for (let i = 0; i < BATCH; i++) {
        const t0 = process.hrtime.bigint();
        await fn();
        into.push(Number(process.hrtime.bigint() - t0) / 1000);
      }
    };
    for (let batch = 0; batch < N / BATCH; batch++) {
      if (batch % 2 === 0) {
        await time(viaClient, clientUs);
        await time(viaBare, bareUs);
      } else {
        await time(viaBare, bareUs);
        await time(viaClient, clientUs);
      }
      sim.clearLog(); // keep the simulator's log work constant
    }

    const cs = stats(clientUs);
    const bs = stats(bareUs);

    // A device that answers after 20 ms (simulator latency on this path only): what the client adds to a real
    // round trip. Alternating single calls, so both sides see the same timer and scheduling noise.
    sim.fault({ path: op.path, kind: 'latency', ms: DEVICE_RTT_MS });
    const slowClient: number[] = [];
    const slowBare: number[] = [];
    for (let i = 0; i < SLOW_N; i++) {
      const order: Array<[() => Promise<unknown>, number[]]> = [
        [viaClient, slowClient],
        [viaBare, slowBare],
      ];
      if (i % 2) order.reverse();
      for (const [fn, into] of order) {
        const t0 = process.hrtime.bigint();
        await fn();
        into.push(Number(process.hrtime.bigint() - t0) / 1000);
      }
    }
    sim.clearFaults();
    const sc = stats(slowClient);
    const sb = stats(slowBare);

    return {
      n: N,
      response_bytes: Buffer.byteLength(`{"result":"success","data":${JSON.stringify(bareAnswer)}}`),
      client_median_us: round(cs.median),
      client_p99_us: round(cs.p99),
      bare_median_us: round(bs.median),
      bare_p99_us: round(bs.p99),
      get_ratio_median: round(cs.median / bs.median, 3),
      get_ratio_p99: round(cs.p99 / bs.p99, 3),
      rtt20_n: SLOW_N,
      rtt20_client_median_ms: round(sc.median / 1000, 3),
      rtt20_bare_median_ms: round(sb.median / 1000, 3),
      // (client - bare) / 20 ms: goal <= 0.02.
      rtt20_overhead_fraction: round((sc.median - sb.median) / 1000 / DEVICE_RTT_MS, 4),
    };
  } finally {
    await client.close();
    await bare?.agent.close();
    await sim.stop();
  }
}
