/**
 * `nvr2mqtt capture --config config.yaml [--device ID] [--events 60] [--keep-pictures] --out FILE`: logs in to one
 * device, reads every page the bridge and the nodes read (each declared page's Range and Get, the device's identity
 * and channel list, snapshots and stream URLs, the firmware check), follows `Event/Check` for a while, and writes
 * each request with the device's exact answer (status, the headers that matter, body) to one JSON file, redacted
 * (redaction.ts). It never writes: only the reading operations below are sent. `nvr2mqtt simulate --replay FILE`
 * serves the file as a device.
 */
import { writeFile } from 'node:fs/promises';
import { NvrClient, pages, quoteBigIntegers, type ChannelSlot, type DeviceIdentity, type WireExchange } from '../../core';
import type { BridgeConfig, DeviceConfig } from '../base/config';
import { errorText } from '../base/log';
import { VERSION } from '../base/version';
import { deviceClientOptions } from '../device/device';
import { POLLED_PAGES } from '../device/table';
import { Redactor } from './redaction';

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
const NOT_IN_PAGE_PASS = new Set(['Event/Check', 'Web/Login', 'Web/Logout', 'Login/Heartbeat', 'Maintenance/TransKey/Get']);
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
  const names = [...new Set([...pages.map((p) => p.name), ...POLLED_PAGES])];
  for (const name of names) {
    const page = pages.find((p) => p.name === name);
    const ops = page ? Object.keys(page.operations) : ['Range', 'Get'];
    for (const op of READING_OPERATIONS) {
      const path = `${name}/${op}`;
      if (!ops.includes(op) || NOT_IN_PAGE_PASS.has(path) || path in PER_CHANNEL || reads.has(path)) continue;
      reads.set(path, { ...(page?.getRequest ?? {}) });
    }
  }
  return [...reads].map(([path, data]) => ({ path: `/API/${path}`, data }));
}

export interface CaptureOptions {
  device: DeviceConfig;
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
  const client = new NvrClient({ ...deviceClientOptions(opts.device), heartbeatMs: 0, onWire: record });
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
      product: `nvr2mqtt ${VERSION}`,
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

/** `nvr2mqtt capture ...`: the exit code (0 written, 1 the device failed, 2 bad arguments). */
export async function runCaptureCli(
  argv: readonly string[],
  io: { out: (text: string) => void; err: (text: string) => void; load: (file: string) => BridgeConfig },
): Promise<number> {
  let args: CaptureArgs;
  try {
    args = parseCaptureArgs(argv);
  } catch (err) {
    io.err(`nvr2mqtt capture: ${(err as Error).message}\n\n${CAPTURE_USAGE}`);
    return 2;
  }
  if (args.help) {
    io.out(CAPTURE_USAGE);
    return 0;
  }
  let config: BridgeConfig;
  try {
    config = io.load(args.config);
  } catch (err) {
    io.err(`nvr2mqtt capture: ${args.config}: ${(err as Error).message}\n`);
    return 1;
  }
  const device = args.device ? config.devices.find((d) => d.id === args.device) : config.devices[0];
  if (!device) {
    io.err(
      `nvr2mqtt capture: no device ${JSON.stringify(args.device)} in ${args.config} (${config.devices.map((d) => d.id).join(', ')})\n`,
    );
    return 2;
  }
  const started = Date.now();
  try {
    const { file, redactor } = await captureDevice({
      device,
      events: args.events,
      keepPictures: args.keepPictures,
      say: (line) => io.out(`${line}\n`),
    });
    const text = `${JSON.stringify(file, null, 1)}\n`;
    await writeFile(args.out, text);
    const refused = file.exchanges.filter((x) => x.status !== 200).length;
    const replaced = Object.entries(redactor.replaced).map(([k, n]) => `${n} ${k}`);
    io.out(
      `wrote ${args.out}: ${file.exchanges.length} answers (${refused} refused), ${Buffer.byteLength(text)} bytes, ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s; redacted: ${[...replaced, `${redactor.pictures} pictures`].join(', ')}\n`,
    );
    return 0;
  } catch (err) {
    io.err(`nvr2mqtt capture: ${device.id}: ${errorText(err)}\n`);
    return 1;
  }
}

interface CaptureArgs {
  config: string;
  device?: string;
  events: number;
  keepPictures: boolean;
  out: string;
  help: boolean;
}

export const CAPTURE_USAGE = `Usage: nvr2mqtt capture --config <file.yaml> [--device <id>] [--events <s>] [--keep-pictures] --out <file.json>

Reads every page the bridge and the nodes read from one device (the first of the config unless --device),
follows its events for --events seconds (default 60), and writes each request with the device's exact answer
to one JSON file. Nothing is written to the device. Passwords, tokens, cookies, secrets, serial numbers, MAC and
IP addresses, P2P ids, e-mail addresses, user names, plates and face names are replaced by stand-ins; pictures
by a blank one of the same size unless --keep-pictures. Attach the file to an issue when a device does not work;
nvr2mqtt simulate --replay <file.json> serves it as a device.
`;

function parseCaptureArgs(argv: readonly string[]): CaptureArgs {
  const a: Partial<CaptureArgs> = { events: 60, keepPictures: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--help' || arg === '-h') a.help = true;
    else if (arg === '--config' || arg === '-c') a.config = value();
    else if (arg === '--device') a.device = value();
    else if (arg === '--out' || arg === '-o') a.out = value();
    else if (arg === '--keep-pictures') a.keepPictures = true;
    else if (arg === '--events') {
      const n = Number(value());
      if (!Number.isFinite(n) || n < 0 || n > 3600) throw new Error('--events needs seconds from 0 to 3600');
      a.events = n;
    } else throw new Error(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (a.help) return a as CaptureArgs;
  if (!a.config) throw new Error('--config <file.yaml> is required');
  if (!a.out) throw new Error('--out <file.json> is required');
  return a as CaptureArgs;
}
