import type { ClientOptions } from '../../core/client';

/** Properties of an `nvr-device` config node (flow JSON: a public format, names are fixed). */
export interface DeviceProps {
  url?: unknown;
  tls_ca?: unknown;
  tls_fingerprint?: unknown;
  heartbeat?: unknown;
}

export interface DeviceCredentials {
  username?: string;
  password?: string;
}

export const DEFAULT_HEARTBEAT_S = 25;

type Log = ClientOptions['log'];

const text = (x: unknown): string => (typeof x === 'string' ? x.trim() : '');

/** Heartbeat in seconds as typed in the dialog: empty -> default, 0 -> off, else >= 5 s. */
export function heartbeatMs(value: unknown): number {
  const raw = typeof value === 'string' ? value.trim() : value;
  if (raw === '' || raw === undefined || raw === null) return DEFAULT_HEARTBEAT_S * 1000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) return DEFAULT_HEARTBEAT_S * 1000;
  return n === 0 ? 0 : Math.max(5, n) * 1000;
}

/** Client options for one config node; TLS settings stay per client (never process-wide). */
export function clientOptions(props: DeviceProps, creds: DeviceCredentials, log?: Log): ClientOptions {
  const ca = text(props.tls_ca);
  const fingerprint = text(props.tls_fingerprint);
  const tls = ca || fingerprint ? { ...(ca ? { ca } : {}), ...(fingerprint ? { fingerprint } : {}) } : undefined;
  return {
    url: text(props.url).replace(/\/+$/, ''),
    username: creds.username ?? '',
    password: creds.password ?? '',
    heartbeatMs: heartbeatMs(props.heartbeat),
    ...(tls ? { tls } : {}),
    ...(log ? { log } : {}),
  };
}
