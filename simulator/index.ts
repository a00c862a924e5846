/**
 * Device simulator: a real HTTP(S) server speaking the device API, for tests, benchmarks and the demo.
 * It never imports core/: requests are judged with the simulator's own checks.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Auth, DigestAlgorithm } from './auth';
import { Device } from './device';
import { EventHub } from './events';
import { FaultSpec, Faults } from './faults';
import { LogEntry, RequestLog } from './log';
import { Profile, ProfileName, buildProfile } from './profiles';
import { buildRoutes } from './routes';
import { Front, requestListener } from './server';
import type { SimState } from './state';

export type { LogEntry } from './log';
export type { FaultKind, FaultSpec } from './faults';
export type { ProfileName } from './profiles';
export type { SimState, PageState } from './state';
export type { DigestAlgorithm } from './auth';

export interface SimulatorOptions {
  /** 0 (default): an ephemeral port. */
  port?: number;
  host?: string;
  profile?: ProfileName;
  /** '8.2.4' (default). '8.2.3' or earlier: telnet_switch and the integer PTZ point index. */
  firmware?: string;
  username?: string;
  password: string;
  /** nvr: 8 (default); the bench uses 16. ipc: always 1. */
  channels?: number;
  /** Inactivity after which a session answers `expired` (default 300000). */
  sessionTimeoutMs?: number;
  /** > 0: calls fail with `no_heartbeat` when no heartbeat came within this time (default 0 = off). */
  heartbeatTimeoutMs?: number;
  /** How long Event/Check holds a request without alarms (default 30000). */
  eventHoldMs?: number;
  /** Old firmware: CSRF token in the login body (`data.token`) instead of the header; no rotation. */
  tokenInBody?: boolean;
  /** Challenge offered first (default MD5; 'SHA-256' offers SHA-256, then MD5). */
  digestAlgorithm?: DigestAlgorithm;
  /** New CSRF token on heartbeat and Set answers (default true; previous tokens stay valid briefly). */
  rotateCsrf?: boolean;
  /** Failed logins in a row before `user_locked_login` (default 5) and how long the lock lasts (default 60000). */
  maxLoginFailures?: number;
  lockoutMs?: number;
  /** PTZ point index form, overriding what the firmware implies ('int' up to 8.2.3, 'hex' after). */
  ptzIndexForm?: 'int' | 'hex';
  /** Upgrade file size limit 200 MiB instead of 100 MiB. */
  largeCapacity?: boolean;
  /** Entries kept in `log` (default 1000; older ones are dropped). */
  logLimit?: number;
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Default true. false: print one line per request (the CLI does). */
  quiet?: boolean;
}

export interface Simulator {
  /** e.g. `http://127.0.0.1:40123` */
  url: string;
  port: number;
  /** Every request: time, path, redacted data, status, error_code. Never headers or passwords. */
  log: LogEntry[];
  clearLog(): void;
  fault(f: FaultSpec): void;
  clearFaults(): void;
  /** Every current session answers `expired` on its next call. */
  expireSessions(): void;
  /** An alarm for Event/Check readers; wakes held requests. Throws on an unknown channel. */
  raiseAlarm(channel: string, alarm_type: string, status: boolean): void;
  /** Connect or disconnect a digital (IP_CH) channel. */
  setOnline(channel: string, online: boolean): void;
  /** In-memory page states, keyed by page ('AlarmConfig/VoiceAlarm'), each shaped like its Get data. */
  state: SimState;
  /** Profile facts tests may need. */
  profile: Pick<Profile, 'name' | 'firmware' | 'legacy' | 'ptzHex' | 'deviceType'> & { channels: string[] };
  stop(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions): Promise<Simulator> {
  if (typeof opts.password !== 'string' || opts.password === '') throw new Error('startSimulator: a password is required');
  const profile = buildProfile({ profile: opts.profile, firmware: opts.firmware, channels: opts.channels, largeCapacity: opts.largeCapacity, ptzIndexForm: opts.ptzIndexForm });
  const device = new Device(profile);
  const events = new EventHub(opts.eventHoldMs ?? 30_000);
  const faults = new Faults();
  const log = new RequestLog(opts.logLimit ?? 1000);
  const sleeps = new Set<() => void>();
  const host = opts.host ?? '127.0.0.1';

  // The cookie name carries the port, which is known only after listen(): the auth is built lazily.
  let auth: Auth | undefined;
  const front: Front = {
    routes: new Map(),
    get auth() {
      return auth!;
    },
    faults,
    log,
    quiet: opts.quiet ?? true,
    sleeps,
  };
  const listener = requestListener(front);
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, listener) : http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  auth = new Auth({
    username: opts.username ?? 'admin',
    password: opts.password,
    realm: 'RS realm',
    algorithm: opts.digestAlgorithm ?? 'MD5',
    cookieName: `session_${port}`,
    sessionTimeoutMs: opts.sessionTimeoutMs ?? 300_000,
    heartbeatTimeoutMs: opts.heartbeatTimeoutMs ?? 0,
    tokenInBody: opts.tokenInBody ?? false,
    rotateCsrf: opts.rotateCsrf ?? true,
    maxFailures: opts.maxLoginFailures ?? 5,
    lockoutMs: opts.lockoutMs ?? 60_000,
    maxSessions: 32,
  });
  const mac = randomBytes(6);
  mac[0] = 0x00; // a unicast, globally administered-looking address
  front.routes = buildRoutes({
    device,
    auth,
    events,
    tokenInBody: opts.tokenInBody ?? false,
    mac: [...mac].map((b) => b.toString(16).padStart(2, '0')).join(':'),
    serial: `SIM${randomBytes(6).toString('hex').toUpperCase()}`,
  });

  const urlHost = host.includes(':') ? `[${host}]` : host;
  let stopped: Promise<void> | undefined;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${urlHost}:${port}`,
    port,
    log: log.entries,
    clearLog: () => log.clear(),
    fault: (f) => faults.add(f),
    clearFaults: () => faults.clear(),
    expireSessions: () => auth.expireAll(),
    raiseAlarm(channel, alarm_type, status) {
      if (!device.channel(channel)) throw new Error(`raiseAlarm: no channel ${channel} on this simulator`);
      events.raise({ channel, alarm_type, status });
    },
    setOnline: (channel, online) => device.setOnline(channel, online),
    state: device.state,
    profile: {
      name: profile.name,
      firmware: profile.firmware,
      legacy: profile.legacy,
      ptzHex: profile.ptzHex,
      channels: profile.channels.map((c) => c.id),
      deviceType: profile.deviceType,
    },
    stop() {
      stopped ??= (async () => {
        events.stop(); // held Event/Check requests get their keep-alive answer
        for (const wake of [...sleeps]) wake();
        await new Promise((r) => setImmediate(r)); // let those answers be written
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return stopped;
    },
  };
}
