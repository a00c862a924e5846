/**
 * Embedded MQTT broker (aedes) for the demo and for configs without `mqtt.url`: listens on 127.0.0.1 (or the
 * `--host` given), port 1883 or the next free one (or exactly the `--port` given).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Aedes } from 'aedes';

export interface EmbeddedBroker {
  url: string;
  host: string;
  port: number;
  aedes: Aedes;
  stop(): Promise<void>;
}

export interface BrokerOptions {
  host?: string;
  /** First port to try; 0 = any free port. Default 1883. */
  port?: number;
  /** How many following ports to try when the first is taken. Default 20 (0 with port 0). */
  scan?: number;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * aedes stores a QoS 1 message for each persistent session its topic matches, then delivers it and looks the
 * stored copy up. Its store and its router disagree on topics with an empty level (`nvr2mqtt//set`): the
 * router delivers, the store has no copy, and aedes then drops the subscriber's connection ("no such
 * packet"), so one such message would disconnect the bridge (a persistent session) again and again. Here
 * such a message is delivered without a stored copy (as to a clean session); the rest is unchanged.
 */
function tolerateUnstoredPackets(aedes: Aedes): void {
  type Store = {
    outgoingUpdate(client: unknown, packet: unknown): Promise<unknown>;
    outgoingClearMessageId(client: unknown, packet: unknown): Promise<unknown>;
  };
  const store = (aedes as unknown as { persistence: Store }).persistence;
  const update = store.outgoingUpdate.bind(store);
  const clear = store.outgoingClearMessageId.bind(store);
  const missing = (err: unknown) => err instanceof Error && /no such packet/i.test(err.message);
  store.outgoingUpdate = (client, packet) =>
    update(client, packet).catch((err: unknown) => {
      if (missing(err)) return undefined;
      throw err;
    });
  store.outgoingClearMessageId = (client, packet) =>
    clear(client, packet).catch((err: unknown) => {
      if (missing(err)) return undefined;
      throw err;
    });
}

/**
 * Options for a broker the user placed (`--host`, `--port`): a port asked for by number must be that port, not the
 * next free one (a Home Assistant pointed at it would find nothing).
 */
export function embeddedBrokerOptions(o: { host?: string; port?: number } = {}): BrokerOptions {
  return { host: o.host, ...(o.port !== undefined ? { port: o.port, scan: 0 } : {}) };
}

/** The address a local client connects to: a wildcard address (every interface) is reached on loopback. */
function urlHost(host: string): string {
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return local.includes(':') ? `[${local}]` : local;
}

export async function startEmbeddedBroker(opts: BrokerOptions = {}): Promise<EmbeddedBroker> {
  const host = opts.host ?? '127.0.0.1';
  const first = opts.port ?? 1883;
  const scan = first === 0 ? 0 : (opts.scan ?? 20);
  // Loaded only when an embedded broker is wanted (demo, config without mqtt.url).
  const { Aedes: AedesClass } = await import('aedes');
  const aedes = await AedesClass.createBroker({ drainTimeout: 10_000 });
  tolerateUnstoredPackets(aedes);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true); // small MQTT packets: no Nagle delay (commands are latency-sensitive)
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    aedes.handle(socket);
  });
  let port = -1;
  let lastError: unknown;
  for (let p = first; p <= first + scan; p++) {
    try {
      port = await listen(server, p, host);
      break;
    } catch (err) {
      lastError = err;
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') break;
    }
  }
  if (port < 0) {
    await new Promise<void>((r) => aedes.close(() => r()));
    throw new Error(
      `embedded MQTT broker: cannot listen on ${host}:${first}${scan ? `-${first + scan}` : ''}: ${(lastError as Error)?.message}`,
    );
  }
  let stopped = false;
  return {
    url: `mqtt://${urlHost(host)}:${port}`,
    host,
    port,
    aedes,
    async stop() {
      if (stopped) return;
      stopped = true;
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
      await new Promise<void>((r) => aedes.close(() => r()));
    },
  };
}
