/**
 * The bridge's HTTP listener for devices that push their alarms (`events: push`, AlarmConfig/EventPush). Each
 * device gets a path of its own with a random secret (`/nvr2mqtt/<32 hex>`); a push is accepted only on a
 * registered path and only from that device's own address (its URL's host, resolved), anything else is refused
 * (404 / 403) and changes nothing. What a push says is not trusted beyond "something happened": the device's
 * event stream checks at once and publishes what the device's Event/Check reports (typed, per channel).
 * Anyone on the network can call the port: a request it cannot read (a bad request line or target, an unknown
 * method, oversized headers) gets a 4xx and nothing else, and no request ever throws out of the handler.
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errorText, limitRepeats, type Logger, type RepeatLimited } from '../base/log';
import { listenAddress } from './listen-address';

export const PUSH_PATH_PREFIX = 'nvr2mqtt/';

export interface PushRegistration {
  /** The path the device calls, without the leading slash (what goes into the device's `url`). */
  readonly path: string;
  /** Stop accepting this device's pushes. */
  close(): void;
}

interface Entry {
  sources: Set<string>;
  onPush: (members: Record<string, string>) => void;
  deviceId: string;
}

/**
 * Slow or idle clients (slowloris) must not hold the bridge's file descriptors, which its own connections to the
 * devices need (a full table fails every device with EMFILE): at most one socket per pushing device (a device keeps
 * its connection alive between pushes) and this many more at once (more are closed as they come; a device's push
 * refused so is caught by its next safety-net check), ...
 */
export const SPARE_PUSH_SOCKETS = 256;

/** The listener's socket bound for `devices` pushing devices. */
export const pushSocketBound = (devices: number) => devices + SPARE_PUSH_SOCKETS;
/**
 * ...and a few seconds for a request's headers and for the whole request (a device's push is one short GET),
 * checked every second (Node's default: every 30 s, with 60 s for the headers and 300 s for the request).
 */
export const SLOW_CLIENT_BOUNDS = { headersTimeout: 5_000, requestTimeout: 10_000, connectionsCheckingInterval: 1_000 } as const;

/** `::ffff:10.0.0.5` and `10.0.0.5` are the same source. */
const plain = (address: string | undefined) => (address ?? '').replace(/^::ffff:/i, '');

export class PushListener {
  private readonly server: Server;
  private readonly entries = new Map<string, Entry>();
  /** Pushes accepted and refused since start (tests, bench). */
  readonly counts = { accepted: 0, refused: 0 };
  /** Refusals are logged once per kind a minute, with a count: a flood of them is a few lines. */
  private readonly refusals: RepeatLimited;

  private constructor(log: Logger, devices: number) {
    this.refusals = limitRepeats(log);
    this.server = createServer(SLOW_CLIENT_BOUNDS, (req, res) => {
      try {
        this.handle(req, res);
      } catch (err) {
        this.refuse(req, res, 400, `unreadable request (${errorText(err)})`);
      }
    });
    this.server.keepAliveTimeout = 5_000;
    this.server.maxConnections = pushSocketBound(devices);
    // What Node's parser refuses (request line, method, header size) never reaches the handler: answered here.
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => this.clientError(err, socket));
    this.server.on('error', (err) => log.warn(`alarm push listener: ${errorText(err)}`));
    this.server.on('drop', (d?: { remoteAddress?: string }) => {
      this.counts.refused++;
      const why = `more than ${this.server.maxConnections} connections at once`;
      this.refusals.warn(why, `alarm push connection from ${plain(d?.remoteAddress)} closed: ${why}`);
    });
  }

  /**
   * `listen`: config `push.listen` (an address or an interface name), else chosen from `address` (listenAddress);
   * `devices`: how many devices push (the socket bound).
   */
  static async start(listen: string | undefined, address: string, port: number, log: Logger, devices: number): Promise<PushListener> {
    const { host, why } = listenAddress(listen, address);
    const l = new PushListener(log, devices);
    await new Promise<void>((resolve, reject) => {
      l.server.once('error', reject);
      l.server.listen(port, host, () => {
        l.server.off('error', reject);
        resolve();
      });
    });
    log.info(`listening for alarm pushes on ${host}:${l.port} (${why})`);
    return l;
  }

  /** Sockets open on the listener now (bench). */
  sockets(): Promise<number> {
    return new Promise((resolve, reject) => this.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A path of its own for the device at `deviceUrl`: pushes on it from that device's address call `onPush`. */
  async register(deviceId: string, deviceUrl: string, onPush: Entry['onPush']): Promise<PushRegistration> {
    const host = new URL(deviceUrl).hostname.replace(/^\[|\]$/g, '');
    const sources = new Set((await lookup(host, { all: true })).map((a) => plain(a.address)));
    const path = `${PUSH_PATH_PREFIX}${randomBytes(16).toString('hex')}`;
    this.entries.set(`/${path}`, { sources, onPush, deviceId });
    return { path, close: () => this.entries.delete(`/${path}`) };
  }

  private refuse(req: IncomingMessage, res: ServerResponse, status: number, why: string): void {
    this.counts.refused++;
    // The path is a secret: never logged.
    this.refusals.warn(why, `alarm push from ${plain(req.socket.remoteAddress)} refused: ${why}`);
    if (!res.headersSent) res.writeHead(status, { connection: 'close' }).end();
    req.resume();
  }

  private clientError(err: NodeJS.ErrnoException, socket: Socket): void {
    this.counts.refused++;
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const why = `unreadable request (${err.code ?? errorText(err)})`;
    this.refusals.warn(why, `alarm push from ${plain(socket.remoteAddress)} refused: ${why}`);
    // Written, then closed both ways at once (as Node does): a client that keeps its side open holds no socket.
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    socket.destroy();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    // A connection the peer drops mid-request errors the request: nothing to do but let it go.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const refuse = (status: number, why: string) => this.refuse(req, res, status, why);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://push');
    } catch {
      return refuse(400, 'unreadable request target');
    }
    const entry = this.entries.get(url.pathname);
    const from = plain(req.socket.remoteAddress);
    if (!entry) return refuse(404, 'no such push path');
    if (!entry.sources.has(from)) return refuse(403, `not the address of ${entry.deviceId}`);
    if (req.method !== 'GET' && req.method !== 'POST') return refuse(405, `method ${req.method}`);
    // GET carries the members in the query; POST as JSON (or a form) in the body: read them, bounded.
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 65_536) req.destroy();
    });
    req.on('end', () => {
      this.counts.accepted++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
      try {
        entry.onPush({ ...Object.fromEntries(url.searchParams), ...bodyMembers(body) });
      } catch (err) {
        this.refusals.warn('push handler', `alarm push from ${entry.deviceId}: ${errorText(err)}`);
      }
    });
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.refusals.flush();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

function bodyMembers(body: string): Record<string, string> {
  if (!body) return {};
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string'));
    }
  } catch {
    return Object.fromEntries(new URLSearchParams(body));
  }
  return {};
}
