import { requireChannel } from './channels';
import { DeviceError } from './errors';
import type { Invoker } from './operation';
import type { Priority } from './transport';
import { snapshotGet, type SnapshotAnswer } from './pages/snapshot';
import { streamUrlGet, type StreamUrlAnswer } from './pages/stream-url';

export interface Snapshot {
  /** `img_time` (UTC seconds) when the device gives it. */
  time?: number;
  /** `img_format`, `image/jpeg` unless the device says otherwise. */
  format: string;
  jpeg: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** The image of a `Snapshot/Get` answer (`img_*` or the sample's `ima_*` spelling). */
export function snapshotFrom(a: SnapshotAnswer): Snapshot {
  const where = { page: 'Snapshot', operation: 'Get' };
  const b64 = (a.img_data ?? a.ima_data ?? '').replace(/^data:[^,]*,/, '');
  if (a.img_encodes !== undefined && a.img_encodes.toLowerCase() !== 'base64') {
    throw new DeviceError({
      kind: 'invalid_answer',
      error_code: 'invalid_answer',
      reason: `snapshot encoded as ${a.img_encodes}, not base64`,
      ...where,
    });
  }
  if (!b64.trim())
    throw new DeviceError({ kind: 'invalid_answer', error_code: 'invalid_answer', reason: 'the device sent no image data', ...where });
  if (!BASE64.test(b64))
    throw new DeviceError({ kind: 'invalid_answer', error_code: 'invalid_answer', reason: 'image data is not base64', ...where });
  const t = a.img_time ?? a.ima_time;
  const out: Snapshot = { format: a.img_format || 'image/jpeg', jpeg: Buffer.from(b64, 'base64') };
  if (t !== undefined) out.time = Number(t);
  return out;
}

export interface StreamUrls {
  channel: string;
  main?: string;
  sub?: string;
  mobile?: string;
}

/**
 * `url` without its user and password. Stream URLs are published (MQTT, Home Assistant attributes) and a device
 * may embed its login in them. The userinfo ends at the last `@` before the host, so a password holding `@`, `/`
 * or `:` unencoded is removed whole.
 */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/).*@([^@/?#]*(?:[/?#][^@]*)?)$/is, '$1$2');
}

/**
 * `url` on `host` (as URL.hostname gives it, IPv6 in brackets), its port, path and query kept. The device writes the
 * address it knows itself by (a LAN address a container or a port-forwarded client cannot reach; the vendor's sample
 * shows 172.16.10.169), while the bridge reaches it at the configured one.
 */
export function onHost(url: string, host: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)(\[[^\]]*\]|[^:/?#]*)/i, (_m, scheme: string) => scheme + host);
}

/**
 * RTSP URLs per channel from `Preview/StreamUrl/Get` (array, or a map keyed by channel id), without credentials;
 * with `host`, on that host (the one the device is reached at) rather than the address the device reports.
 */
export function streamUrlsFrom(a: StreamUrlAnswer, host?: string): StreamUrls[] {
  const info = a.channel_info;
  const entries = Array.isArray(info) ? info.map((e) => [e.channel, e] as const) : Object.entries(info ?? {});
  const out: StreamUrls[] = [];
  const clean = (url: string) => (host ? onHost(withoutCredentials(url), host) : withoutCredentials(url));
  for (const [channel, e] of entries) {
    if (!channel) continue;
    const s: StreamUrls = { channel };
    if (e.mainstream_url) s.main = clean(e.mainstream_url);
    if (e.substream_url) s.sub = clean(e.substream_url);
    const mobile = e.mobilestream_url || e.mobile_stream_url;
    if (mobile) s.mobile = clean(mobile);
    out.push(s);
  }
  return out;
}

/** A JPEG of the channel now (`Snapshot/Get`); `resolution` like `1280x720`. */
export async function readSnapshot(
  c: Invoker,
  channel: string,
  opts: { resolution?: string; priority?: Priority } = {},
): Promise<Snapshot> {
  requireChannel(channel, { page: snapshotGet.page, operation: 'Get' });
  const data: { channel: string; reset_session_timeout: boolean; snapshot_resolution?: string } = { channel, reset_session_timeout: false };
  if (opts.resolution !== undefined) data.snapshot_resolution = opts.resolution;
  return snapshotFrom(await c.invoke(snapshotGet, data, opts.priority ? { priority: opts.priority } : undefined));
}

/** Stream URLs (`streamUrlsFrom`); `host`: the host the device is reached at (NvrClient.streamUrls gives its own). */
export async function readStreamUrls(c: Invoker, opts: { priority?: Priority; host?: string } = {}): Promise<StreamUrls[]> {
  return streamUrlsFrom(await c.invoke(streamUrlGet, {}, opts.priority ? { priority: opts.priority } : undefined), opts.host);
}
