/**
 * HTTP front of the simulator: method and envelope checks, faults, session checks, routing, logging.
 * Order per request: method -> body -> faults (latency, then one fault kind) -> Login challenge -> JSON envelope ->
 * route (404) -> session -> handler -> the answer (after a `late_answer` fault's wait: carried out, answered late).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Auth } from './auth';
import { FAULT_REPLIES, type Faults } from './faults';
import { LogEntry, RequestLog, redact } from './log';
import { Reply, digestChallenge, failure, paramError } from './envelope';
import type { Route } from './route';
import { isPlainObject } from './descriptors';

export interface Front {
  routes: Map<string, Route>;
  auth: Auth;
  faults: Faults;
  log: RequestLog;
  quiet: boolean;
  /** Sleeps that stop() cuts short. */
  sleeps: Set<() => void>;
  /** An answer for every request instead of its route's (a rebooting device: `device_reboot`). */
  gate?: () => Reply | undefined;
}

const MAX_BODY = 4 << 20; // a siren file of 512 KiB base64 fits with room to spare
const LOGIN = '/API/Web/Login';

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sleep(front: Front, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      front.sleeps.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    front.sleeps.add(done);
  });
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(reply.status, {
    'Content-Type': reply.contentType ?? 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(reply.body),
    ...reply.headers,
  });
  res.end(reply.body);
}

/** A raw upload: its size and first `headBytes` bytes, without keeping the rest. */
function readRaw(req: IncomingMessage, headBytes: number): Promise<{ size: number; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const head = Buffer.alloc(headBytes);
    let size = 0;
    req.on('data', (c: Buffer) => {
      if (size < headBytes) c.copy(head, size, 0, Math.min(c.length, headBytes - size));
      size += c.length;
    });
    req.on('end', () => resolve({ size, head: head.subarray(0, Math.min(size, headBytes)) }));
    req.on('error', reject);
  });
}

async function upload(front: Front, req: IncomingMessage, route: Route, entry: LogEntry): Promise<Reply> {
  const up = route.upload!;
  const { size, head } = await readRaw(req, up.headBytes);
  entry.data = { bytes: size };
  const gated = front.gate?.();
  if (gated) return gated;
  const c = front.auth.check(req, false);
  if (!c.ok) return failure(c.status, c.code, c.reason);
  return up.handle(req, c.session, size, head);
}

/** How long the answer waits once the request was carried out (`late_answer` faults). */
interface Late {
  ms: number;
}

async function handle(front: Front, req: IncomingMessage, res: ServerResponse, entry: LogEntry, late: Late): Promise<Reply | undefined> {
  if (req.method !== 'POST') {
    entry.method = req.method;
    req.resume();
    return failure(405, 'method_not_allowed', `Method ${req.method} not allowed: use POST`, { Allow: 'POST' });
  }
  const rawRoute = front.routes.get(entry.path);
  if (rawRoute?.upload) return upload(front, req, rawRoute, entry);
  const text = await readBody(req);
  let body: unknown;
  let parsed = false;
  if (text !== undefined) {
    try {
      body = JSON.parse(text);
      parsed = true;
    } catch {
      // answered below, after faults
    }
  }
  const data = parsed && isPlainObject(body) && isPlainObject(body.data) ? body.data : undefined;
  entry.data = redact(data ?? (parsed && isPlainObject(body) ? body : undefined));

  const sessionCall = () => entry.path !== LOGIN && front.auth.sessionOf(req) !== undefined;
  const { latencyMs, lateMs, fault } = front.faults.take(entry.path, sessionCall);
  if (latencyMs > 0) await sleep(front, latencyMs);
  late.ms = lateMs;
  if (fault) {
    entry.fault = fault;
    if (fault === 'reset') {
      req.socket.destroy();
      return undefined;
    }
    if (fault === 'expire_session') front.auth.sessionOf(req)!.expired = true;
    else return FAULT_REPLIES[fault];
  }

  const gated = front.gate?.();
  if (gated) return gated;

  // HTTP authentication is answered before the body is judged, as web servers do: a Digest client such as
  // `curl --digest` sends its first Login without a body and waits for the challenge.
  if (entry.path === LOGIN && req.headers.authorization === undefined) return digestChallenge(front.auth.challenge());
  if (text === undefined) return paramError('Request body too large');
  if (!parsed) return paramError('Request body is not JSON');
  if (!isPlainObject(body)) return paramError('Request body must be a JSON object');
  // `version` is reserved (always "1.0"); public clients often leave it out, devices accept that.
  if (body.version !== undefined && body.version !== '1.0') return paramError('version: must be "1.0"');
  if (!data) return paramError('data: required object');

  const route = front.routes.get(entry.path);
  if (!route) return failure(404, 'not_found', `No such endpoint: ${entry.path}`);
  let session;
  if (route.auth !== 'none') {
    const c = front.auth.check(req, route.auth === 'heartbeat');
    if (!c.ok) return failure(c.status, c.code, c.reason);
    session = c.session;
  }
  return route.handler({
    req,
    body,
    data,
    session,
    onAbort: (cb) =>
      res.on('close', () => {
        if (!res.writableEnded) cb();
      }),
  });
}

export function requestListener(front: Front) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const entry: LogEntry = { time: Date.now(), path: (req.url ?? '/').split('?')[0], data: undefined, status: 0 };
    const late: Late = { ms: 0 };
    void handle(front, req, res, entry, late)
      .catch((err: unknown): Reply => {
        // A simulator bug: make it visible, answer like a device would.
        console.error(`simulator: ${entry.path}: ${err instanceof Error ? err.stack : String(err)}`);
        return failure(500, 'service_unavailable_error', 'Internal simulator error');
      })
      .then(async (reply) => {
        if (late.ms > 0) await sleep(front, late.ms);
        if (reply) {
          entry.status = reply.status;
          if (reply.error_code) entry.error_code = reply.error_code;
          send(res, reply);
        }
        front.log.add(entry);
        if (!front.quiet) {
          const what = entry.error_code ?? entry.fault ?? '';
          console.log(`${new Date(entry.time).toISOString()} ${req.method} ${entry.path} ${entry.status || '-'} ${what}`.trimEnd());
        }
      });
  };
}
