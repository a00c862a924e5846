/**
 * The capture of one device (`nvr2mqtt capture`, `bridge/request/diagnostics`, the Node-RED device's Diagnostics
 * button): logs in to the device, reads every page the bridge and the nodes read (each declared page's Range and Get, the device's identity
 * and channel list, snapshots and stream URLs, the firmware check), follows `Event/Check` for a while, and writes
 * each request with the device's exact answer (status, the headers that matter, body) to one JSON file, redacted
 * (redaction.ts). It never writes: only the reading operations below are sent. `nvr2mqtt simulate --replay FILE`
 * serves the file as a device.
 */
import type { ChannelSlot } from './channel-slots';
import { NvrClient, type ClientOptions, type WireExchange } from './client';
import type { DeviceIdentity } from './identity';
import { quoteBigIntegers } from './json';
import { pages } from './pages';
import { Redactor } from './redaction';

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const CAPTURE_FORMAT = 'nvr2mqtt-capture';

/** One request and the device's answer, as recorded. */
export interface CapturedExchange {
  /** `/API/AlarmConfig/Deterrence/Get` */
  path: string;
  /** The request's `data`. */
  request: unknown;
  status: number;
  headers: Record<string, string | string[]>;
  /** The answer parsed as JSON, or `text` when it is none. */
  body?: unknown;
  /** Members whose integers exceed 2^53: written as text in `body`, sent as raw numbers (DeviceInfo `dev_type`). */
  raw_numbers?: string[];
  text?: string;
}

export interface CaptureFile {
  format: typeof CAPTURE_FORMAT;
  version: 1;
  /** The product that made it: `nvr2mqtt 1.2.3`. */
  product: string;
  time: string;
  device: { model?: string; firmware?: string; kind: 'camera' | 'recorder'; channels: number };
  /** Events followed, in seconds. */
  events: number;
  exchanges: CapturedExchange[];
}

/** The operations that read: the only ones a capture sends (Event/Check is followed on its own). */
const READING_OPERATIONS = ['Range', 'Get', 'Check'] as const;
/**
 * Reads not asked in the page pass: the session's own, the event subscription (followed after), and the key
 * material of one secondary authentication (asked right before a write, never useful to a replay).
 */
const NOT_IN_PAGE_PASS = new Set([
  'Event/Check',
  'Web/Login',
  'Web/Logout',
  'Login/Heartbeat',
  'Maintenance/TransKey/Get',
  // Searches of the recordings: a Get that needs a month or a time range and channels, not a page's settings.
  'Playback/SearchMonth/Get',
  'Playback/Picture/Get',
  'Playback/Tag/Get',
]);
/** Reads asked once per channel, and the channels each is asked for. */
const PER_CHANNEL: Readonly<Record<string, { data: (ch: string) => object; wants: (slot: ChannelSlot) => boolean }>> = {
  'PreviewChannel/Floodlight2AudioAlarm/Get': {
    data: (channel) => ({ channel, command_flag: false }),
    wants: ({ online, hardware: h }) => online && (h.floodlight || h.siren || h.redBlueLight),
  },
  'Snapshot/Get': { data: (channel) => ({ channel, reset_session_timeout: false }), wants: (s) => s.online },
  'PreviewChannel/PTZ/Get': { data: (channel) => ({ channel }), wants: (s) => s.online && s.abilities.includes('Ptz') },
};
/** Answer headers a replay or a reader needs (the others say nothing about the device's API). */
const HEADERS = ['content-type', 'set-cookie', 'x-csrftoken', 'www-authenticate'] as const;

/** Every read of the capture: identity and channels first, then every declared page's reading operations. */
export function captureReads(): Array<{ path: string; data: object }> {
  const first = ['Login/DeviceInfo/Get', 'SystemInfo/Base/Get', 'Login/ChannelInfo/Get'];
  const reads = new Map(first.map((p) => [p, {}] as [string, object]));
  // Every page the bridge's table polls is one of these (the table names core's pages).
  for (const page of pages) {
    const name = page.name;
    const ops = Object.keys(page.operations);
    for (const op of READING_OPERATIONS) {
      const path = `${name}/${op}`;
      if (!ops.includes(op) || NOT_IN_PAGE_PASS.has(path) || path in PER_CHANNEL || reads.has(path)) continue;
      reads.set(path, { ...(page.getRequest ?? {}) });
    }
  }
  return [...reads].map(([path, data]) => ({ path: `/API/${path}`, data }));
}

export interface CaptureOptions {
  /** The device's client options (its own client: a capture records what its client's transport reads). */
  client: ClientOptions;
  /** The product that captures, written in the file: `nvr2mqtt 1.2.3`. */
  product: string;
  /** Seconds of Event/Check to follow (0: none). */
  events: number;
  keepPictures?: boolean;
  /** What was read and what was refused, line by line. */
  say: (line: string) => void;
}

/** The capture of one device, redacted. */
export async function captureDevice(opts: CaptureOptions): Promise<{ file: CaptureFile; redactor: Redactor }> {
  const redactor = new Redactor({ keepPictures: opts.keepPictures });
  const exchanges: CapturedExchange[] = [];
  const record = (x: WireExchange) => exchanges.push(recorded(x, redactor));
  const client = new NvrClient({ ...opts.client, heartbeatMs: 0, onWire: record });
  try {
    await client.login();
    const ask = async (path: string, data: object) => {
      try {
        await client.call(path, data);
        opts.say(`read    ${path}`);
      } catch (err) {
        opts.say(`refused ${path}: ${errorText(err)}`);
      }
    };
    for (const { path, data } of captureReads()) await ask(path, data);
    const slots = await client.channelSlots().catch(() => [] as ChannelSlot[]);
    for (const [page, per] of Object.entries(PER_CHANNEL)) {
      for (const slot of slots.filter(per.wants)) await ask(`/API/${page}`, per.data(slot.id));
    }
    if (opts.events > 0) await followEvents(client, opts.events, opts.say);
    const id: DeviceIdentity = await client.identity().catch(() => ({}));
    const device = {
      ...(id.model ? { model: id.model } : {}),
      ...(id.firmware ? { firmware: id.firmware } : {}),
      // A camera answers for itself, a recorder for its slots.
      kind: slots.length === 1 ? 'camera' : 'recorder',
      channels: slots.filter((s) => s.configured).length,
    };
    const file: CaptureFile = {
      format: CAPTURE_FORMAT,
      version: 1,
      product: opts.product,
      time: new Date().toISOString(),
      device: redactor.json(device) as CaptureFile['device'],
      events: opts.events,
      exchanges,
    };
    return { file, redactor };
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function followEvents(client: NvrClient, seconds: number, say: (line: string) => void): Promise<void> {
  const stop = AbortSignal.timeout(seconds * 1000);
  let events = 0;
  try {
    for await (const _ of client.events({ signal: stop })) events++;
  } catch (err) {
    if (!stop.aborted) say(`refused /API/Event/Check: ${errorText(err)}`);
  }
  say(`events  ${events} in ${seconds} s`);
}

/** One exchange as the capture writes it: the headers that matter, every secret replaced. */
export function recorded(x: WireExchange, redactor: Redactor): CapturedExchange {
  const headers: Record<string, string | string[]> = {};
  for (const name of HEADERS) {
    if (!x.headers.has(name)) continue;
    if (name === 'set-cookie') headers[name] = x.headers.getSetCookie().map((c) => redactor.cookie(c));
    else if (name === 'x-csrftoken') headers[name] = redactor.standIn('token', x.headers.get(name)!);
    else headers[name] = x.headers.get(name)!;
  }
  const request = redactor.json((x.request as { data?: unknown } | undefined)?.data ?? x.request ?? {});
  const out: CapturedExchange = { path: x.path.split('?')[0], request, status: x.status, headers };
  try {
    const quoted = quoteBigIntegers(x.text);
    out.body = redactor.json(JSON.parse(quoted));
    if (quoted !== x.text) out.raw_numbers = [...new Set([...quoted.matchAll(/"(\w+)"\s*:\s*"-?\d{16,}"/g)].map((m) => m[1]))];
  } catch {
    out.text = redactor.text(x.text);
  }
  return out;
}

/** A capture as its file holds it, and the summary the CLI prints and the diagnostics request answers. */
export function captureText(file: CaptureFile, redactor: Redactor): { text: string; summary: CaptureSummary } {
  const text = `${JSON.stringify(file, null, 1)}\n`;
  return {
    text,
    summary: {
      answers: file.exchanges.length,
      refused: file.exchanges.filter((x) => x.status !== 200 && x.path !== '/API/Web/Login').length,
      bytes: Buffer.byteLength(text),
      redacted: { ...redactor.replaced, pictures: redactor.pictures },
    },
  };
}

export interface CaptureSummary {
  answers: number;
  /** Answers other than success (the login's challenge aside). */
  refused: number;
  bytes: number;
  /** Distinct values replaced by kind, and pictures blanked. */
  redacted: Record<string, number>;
}
