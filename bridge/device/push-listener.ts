/**
 * The bridge's HTTP listener for devices that push their alarms (`events: push`, AlarmConfig/EventPush). Each
 * device gets a path of its own with a random secret (`/nvr2mqtt/<32 hex>`); a push is accepted only on a
 * registered path and only from that device's own address (its URL's host, resolved), anything else is refused
 * (404 / 403) and changes nothing. What a push says is not trusted beyond "something happened": the device's
 * event stream checks at once and publishes what the device's Event/Check reports (typed, per channel).
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../base/log';

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

/** `::ffff:10.0.0.5` and `10.0.0.5` are the same source. */
const plain = (address: string | undefined) => (address ?? '').replace(/^::ffff:/i, '');

export class PushListener {
  private readonly server: Server;
  private readonly entries = new Map<string, Entry>();
  /** Pushes accepted and refused since start (tests, bench). */
  readonly counts = { accepted: 0, refused: 0 };

  private constructor(private readonly log: Logger) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 5_000;
  }

  static async start(listen: string, port: number, log: Logger): Promise<PushListener> {
    const l = new PushListener(log);
    await new Promise<void>((resolve, reject) => {
      l.server.once('error', reject);
      l.server.listen(port, listen, () => {
        l.server.off('error', reject);
        resolve();
      });
    });
    log.info(`listening for alarm pushes on ${listen}:${l.port}`);
    return l;
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

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://push');
    const entry = this.entries.get(url.pathname);
    const from = plain(req.socket.remoteAddress);
    const refuse = (status: number, why: string) => {
      this.counts.refused++;
      // The path is a secret: never logged.
      this.log.warn(`alarm push from ${from} refused: ${why}`);
      res.writeHead(status).end();
      req.resume();
    };
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
      entry.onPush({ ...Object.fromEntries(url.searchParams), ...bodyMembers(body) });
    });
  }

  async close(): Promise<void> {
    this.entries.clear();
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
