/**
 * A captured device served again (`nvr2mqtt simulate --replay FILE`): the answers of a capture made by
 * `nvr2mqtt capture`, so that the bridge, the nodes and the tests run against an owner's recorder without it.
 * - Reads answer as captured: the answer whose request matches (the same `channel` where the request names one).
 * - A page the device refused stays refused, its Set too; a path never captured answers `not_found` (404).
 * - A Set of a page whose Get was captured is accepted and shows in later Gets: members the Get holds take the values
 *   written (the live page and other per-channel Gets: the Get of the channel written). PTZ control is accepted.
 * - Event/Check answers as captured, in order (alarms replayed), then with the keep-alive.
 * Login, heartbeat and sessions are the simulator's own (auth.ts): any capture logs in with the replay's password.
 * Like the rest of the simulator it reads the file with its own checks and imports nothing of core/.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Auth } from './auth';
import { isPlainObject } from './descriptors';
import { Reply, failure, success } from './envelope';
import { Faults } from './faults';
import { RequestLog, type LogEntry } from './log';
import type { Route } from './route';
import { sessionRoutes } from './routes';
import { Front, requestListener } from './server';

type Data = Record<string, unknown>;

/** One captured request and answer (the capture's `exchanges[]`). */
export interface ReplayedExchange {
  path: string;
  request: unknown;
  status: number;
  headers?: Record<string, string | string[]>;
  body?: unknown;
  text?: string;
  raw_numbers?: string[];
}

export interface CaptureData {
  format: 'nvr2mqtt-capture';
  version: 1;
  device?: { model?: string; firmware?: string; kind?: string; channels?: number };
  exchanges: ReplayedExchange[];
}

export interface ReplayOptions {
  capture: CaptureData;
  username?: string;
  password: string;
  port?: number;
  host?: string;
  /** Default true. */
  quiet?: boolean;
}

export interface Replay {
  url: string;
  port: number;
  log: LogEntry[];
  /** Every path the replay answers. */
  paths: readonly string[];
  stop(): Promise<void>;
}

const SESSION_PATHS = new Set(['/API/Web/Login', '/API/Web/Logout', '/API/Login/Heartbeat']);
const EVENTS = '/API/Event/Check';
/** Answer headers that belong to the captured session, never to be sent again. */
const SESSION_HEADERS = new Set(['set-cookie', 'x-csrftoken', 'www-authenticate', 'content-length']);
/** Event/Check members that carry the subscription's position: kept in the keep-alive. */
const CURSOR = ['reader_id', 'sequence', 'lap_number'];

/** The capture file's own check: what a replay needs, named when missing. */
export function parseCapture(text: string): CaptureData {
  const c: unknown = JSON.parse(text);
  if (!isPlainObject(c) || c.format !== 'nvr2mqtt-capture') throw new Error('not a capture of nvr2mqtt capture (format)');
  if (c.version !== 1) throw new Error(`capture version ${JSON.stringify(c.version)}: this replay reads version 1`);
  if (!Array.isArray(c.exchanges)) throw new Error('capture: exchanges must be a list');
  c.exchanges.forEach((x, i) => {
    if (!isPlainObject(x) || typeof x.path !== 'string' || typeof x.status !== 'number') {
      throw new Error(`capture: exchanges[${i}] needs path and status`);
    }
  });
  return c as unknown as CaptureData;
}

/** The request `channel` of a read, when it names one. */
const channelOf = (request: unknown): unknown => (isPlainObject(request) ? request.channel : undefined);

/** An exchange as an answer: the captured status, content type and body (u64 members as raw numbers again). */
function replyOf(x: ReplayedExchange): Reply {
  let body = x.text ?? JSON.stringify(x.body);
  for (const member of x.raw_numbers ?? []) body = body.replace(new RegExp(`"${member}":"(-?\\d+)"`, 'g'), `"${member}":$1`);
  const headers = Object.fromEntries(Object.entries(x.headers ?? {}).filter(([k]) => !SESSION_HEADERS.has(k.toLowerCase())));
  const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
  delete headers['content-type'];
  const code = isPlainObject(x.body) && typeof x.body.error_code === 'string' ? x.body.error_code : undefined;
  return { status: x.status, body, contentType, headers, ...(code ? { error_code: code } : {}) };
}

/** `into` with the members it holds set from `from` (objects merged member by member); other members of `from` ignored. */
function written(into: unknown, from: unknown): unknown {
  if (!isPlainObject(into) || !isPlainObject(from)) return from;
  const out: Data = { ...into };
  for (const [k, v] of Object.entries(from)) if (k in into) out[k] = written(into[k], v);
  return out;
}

/** The answers of one path, and the state writes leave in its Gets. */
class CapturedPath {
  constructor(readonly answers: ReplayedExchange[]) {}

  /** The answer for this request: the one captured with it, else one captured for the same channel (or none named). */
  find(request: Data): ReplayedExchange | undefined {
    const same = JSON.stringify(request);
    const exact = this.answers.find((x) => JSON.stringify(x.request) === same);
    if (exact) return exact;
    return this.answers.find((x) => channelOf(x.request) === request.channel);
  }
}

function eventRoute(answers: ReplayedExchange[]): Route {
  let next = 0;
  return {
    auth: 'session',
    handler: () => {
      if (next < answers.length) return replyOf(answers[next++]);
      const last = answers.at(-1)?.body;
      const data = isPlainObject(last) && isPlainObject(last.data) ? last.data : {};
      return success({ ...Object.fromEntries(CURSOR.filter((k) => k in data).map((k) => [k, data[k]])), heat_alarm: 'HeatAlarm' });
    },
  };
}

/** A Set of a page whose Get was captured: accepted, written into that Get's answers (the written channel's only). */
function setRoute(get: CapturedPath): Route {
  return {
    auth: 'session',
    handler: ({ body, data }) => {
      const refused = get.answers.find((x) => x.status !== 200);
      if (refused && get.answers.every((x) => x.status !== 200)) return replyOf(refused);
      // The vendor's sample puts channel_info beside version: take it as the simulator does.
      const change = isPlainObject(body.channel_info)
        ? { ...data, channel_info: { ...body.channel_info, ...(data.channel_info as Data) } }
        : data;
      for (const x of get.answers) {
        if (x.status !== 200 || !isPlainObject(x.body) || !isPlainObject(x.body.data)) continue;
        const ch = channelOf(x.request);
        if (ch !== undefined && ch !== change.channel) continue;
        x.body = { ...x.body, data: written(x.body.data, change) };
      }
      return success();
    },
  };
}

/** Every route of the replay: the session's, each captured path, the writes of the pages read. */
function replayRoutes(capture: CaptureData, auth: Auth, tokenInBody: boolean): Map<string, Route> {
  const byPath = new Map<string, ReplayedExchange[]>();
  for (const x of capture.exchanges) {
    const path = x.path.split('?')[0];
    if (SESSION_PATHS.has(path)) continue;
    // A copy: writes change the replay's answers, never the capture read.
    byPath.set(path, [...(byPath.get(path) ?? []), structuredClone({ ...x, path })]);
  }
  const routes = new Map<string, Route>(sessionRoutes({ auth, tokenInBody }));
  for (const [path, answers] of byPath) {
    if (path === EVENTS) {
      routes.set(path, eventRoute(answers));
      continue;
    }
    const captured = new CapturedPath(answers);
    routes.set(path, {
      auth: 'session',
      handler: ({ data }) => {
        const x = captured.find(data);
        return x ? replyOf(x) : failure(400, 'param_error', `not in the capture: ${path} ${JSON.stringify(data)}`);
      },
    });
    if (path.endsWith('/Get')) {
      const page = path.slice(0, -'/Get'.length);
      if (!byPath.has(`${page}/Set`)) routes.set(`${page}/Set`, setRoute(captured));
      if (page.endsWith('/PTZ') && !byPath.has(`${page}/Control`))
        routes.set(`${page}/Control`, { auth: 'session', handler: () => success() });
    }
  }
  return routes;
}

export async function startReplay(opts: ReplayOptions): Promise<Replay> {
  if (!opts.password) throw new Error('startReplay: a password is required');
  const { capture } = opts;
  const login = capture.exchanges.find((x) => x.path === '/API/Web/Login' && x.status === 200)?.body;
  const tokenInBody = isPlainObject(login) && isPlainObject(login.data) && typeof login.data.token === 'string';
  let auth: Auth | undefined;
  const log = new RequestLog(1000);
  const sleeps = new Set<() => void>();
  const front: Front = {
    routes: new Map(),
    get auth() {
      return auth!;
    },
    faults: new Faults(),
    log,
    quiet: opts.quiet ?? true,
    sleeps,
  };
  const host = opts.host ?? '127.0.0.1';
  const server = http.createServer(requestListener(front));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  auth = new Auth({
    username: opts.username ?? 'admin',
    password: opts.password,
    realm: 'RS realm',
    algorithm: 'MD5',
    cookieName: `session_${port}`,
    sessionTimeoutMs: 300_000,
    heartbeatTimeoutMs: 0,
    tokenInBody,
    rotateCsrf: false,
    maxFailures: 5,
    lockoutMs: 60_000,
    maxSessions: 32,
  });
  for (const [path, route] of replayRoutes(capture, auth, tokenInBody)) front.routes.set(path, route);
  let stopped: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    log: log.entries,
    paths: [...front.routes.keys()],
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        for (const wake of [...sleeps]) wake();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
