/**
 * `nvr2mqtt streams --config config.yaml`: ready-to-paste stream configuration for go2rtc, Frigate and Home
 * Assistant's generic camera, for every channel of every configured device. The device's own RTSP addresses
 * (`Preview/StreamUrl/Get`) get the configured username and, in place of the password, a placeholder or an
 * environment reference: the password itself is never printed.
 */
import { stringify } from 'yaml';
import { channelSlug, NvrClient, type ChannelSlot, type StreamUrls } from '../../core';
import type { BridgeConfig, DeviceConfig } from '../base/config';
import { deviceClientOptions } from '../device/device';
import { errorText } from '../base/log';

export const STREAM_FORMATS = ['go2rtc', 'frigate', 'generic'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];
export const PASSWORD_MODES = ['env', 'placeholder'] as const;
export type PasswordMode = (typeof PASSWORD_MODES)[number];

export const PASSWORD_PLACEHOLDER = '<password>';

/** One device's channels as the configuration needs them. */
export interface DeviceStreams {
  id: string;
  username: string;
  channels: Array<StreamUrls & { name?: string }>;
}

/** The environment variable holding a device's password, as each tool names it (Frigate: `FRIGATE_` only). */
export function passwordVariable(format: StreamFormat, device: string): string {
  const name = `NVR_${device.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_PASSWORD`;
  return format === 'frigate' ? `FRIGATE_${name}` : name;
}

/** How each tool spells a reference to an environment variable inside a URL (none for the generic camera). */
const ENV_REFERENCE: Record<StreamFormat, ((name: string) => string) | undefined> = {
  go2rtc: (name) => `\${${name}}`,
  frigate: (name) => `{${name}}`,
  generic: undefined,
};

/** `url` with the device's login in it: the username as configured, the password as a placeholder or reference. */
export function withLogin(url: string, username: string, password: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)/i, `$1${encodeURIComponent(username)}:${password}@`);
}

/** Throws when `format` cannot take the password `mode`. */
export function checkPasswordMode(format: StreamFormat, mode: PasswordMode): void {
  if (mode === 'env' && !ENV_REFERENCE[format])
    throw new Error(`--format ${format}: Home Assistant's generic camera reads no environment variables; use --password placeholder`);
}

/** The configuration text for `format`; throws when the format cannot take the password mode. */
export function streamConfig(devices: readonly DeviceStreams[], format: StreamFormat, mode: PasswordMode): string {
  checkPasswordMode(format, mode);
  const reference = ENV_REFERENCE[format];
  const secret = (device: string) => (mode === 'env' ? reference!(passwordVariable(format, device)) : PASSWORD_PLACEHOLDER);
  const header: string[] = [`# nvr2mqtt streams --format ${format} --password ${mode}`];
  if (mode === 'env') {
    for (const d of devices) header.push(`# set ${passwordVariable(format, d.id)} to the password of ${d.id}`);
  } else header.push(`# replace ${PASSWORD_PLACEHOLDER} with the device's password`);
  const each = (fn: (d: DeviceStreams, ch: DeviceStreams['channels'][number], login: (url: string) => string) => void) => {
    for (const d of devices) for (const ch of d.channels) fn(d, ch, (url) => withLogin(url, d.username, secret(d.id)));
  };
  const name = (d: DeviceStreams, ch: StreamUrls) => `${d.id}_${channelSlug(ch.channel)}`;
  let body: unknown;
  if (format === 'go2rtc') {
    const streams: Record<string, string> = {};
    each((d, ch, login) => {
      if (ch.main) streams[name(d, ch)] = login(ch.main);
      if (ch.sub) streams[`${name(d, ch)}_sub`] = login(ch.sub);
      if (ch.mobile) streams[`${name(d, ch)}_mobile`] = login(ch.mobile);
    });
    body = { streams };
  } else if (format === 'frigate') {
    const cameras: Record<string, unknown> = {};
    each((d, ch, login) => {
      // Detection on the sub stream (light), recording from the main stream; one stream does both where it is alone.
      const inputs = [];
      if (ch.main) inputs.push({ path: login(ch.main), roles: ch.sub ? ['record'] : ['detect', 'record'] });
      if (ch.sub) inputs.push({ path: login(ch.sub), roles: ch.main ? ['detect'] : ['detect', 'record'] });
      if (inputs.length) cameras[name(d, ch)] = { ffmpeg: { inputs } };
    });
    body = { cameras };
  } else {
    header.push("# Home Assistant: Settings > Devices & services > Add integration > Generic Camera, once per channel's entry");
    const cameras: unknown[] = [];
    each((d, ch, login) => {
      if (ch.main || ch.sub)
        cameras.push({ name: ch.name ?? name(d, ch), stream_source: login(ch.main ?? ch.sub!), rtsp_transport: 'tcp' });
    });
    body = cameras;
  }
  return `${header.join('\n')}\n${stringify(body, { lineWidth: 0 })}`;
}

/** Reads every device's stream URLs and channel names; a device that fails is reported and left out. */
export async function readDeviceStreams(
  config: BridgeConfig,
  warn: (line: string) => void,
  clientOf: (d: DeviceConfig) => NvrClient = (d) => new NvrClient({ ...deviceClientOptions(d), heartbeatMs: 0 }),
): Promise<DeviceStreams[]> {
  const out: DeviceStreams[] = [];
  for (const d of config.devices) {
    const client = clientOf(d);
    try {
      const urls = await client.streamUrls();
      const models: ChannelSlot[] = await client.channelSlots().catch(() => []);
      const wanted = d.channels ? new Set(d.channels) : undefined;
      const channels = urls
        .filter((u) => !wanted || wanted.has(u.channel))
        .map((u) => {
          const m = models.find((x) => x.id === u.channel);
          return m && m.name !== u.channel ? { ...u, name: m.name } : u;
        });
      out.push({ id: d.id, username: d.username, channels });
    } catch (err) {
      warn(`${d.id}: no stream addresses (${errorText(err)})`);
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  return out;
}

export const STREAMS_USAGE = `Usage: nvr2mqtt streams --config <file.yaml> [--format go2rtc|frigate|generic] [--password env|placeholder]

Prints stream configuration for every channel of every configured device, to paste into go2rtc's or
Frigate's config, or into Home Assistant's generic camera. The password is never printed: --password env
(default for go2rtc and Frigate) refers to an environment variable per device, --password placeholder
(default for generic) writes ${PASSWORD_PLACEHOLDER}.
`;

/** `nvr2mqtt streams ...`: the exit code (0 printed, 1 a device failed or the config is invalid, 2 bad arguments). */
export async function runStreamsCli(
  argv: readonly string[],
  io: { out: (text: string) => void; err: (text: string) => void; load: (file: string) => BridgeConfig },
): Promise<number> {
  let file: string | undefined;
  let format: StreamFormat = 'go2rtc';
  let mode: PasswordMode | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s, 2) : [argv[i], undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (!v || v.startsWith('-')) throw new Error(`${flag} needs a value`);
      return v;
    };
    const oneOf = <T extends string>(allowed: readonly T[]) => {
      const v = value();
      if (!allowed.includes(v as T)) throw new Error(`${flag} must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)})`);
      return v as T;
    };
    try {
      if (flag === '--help' || flag === '-h') {
        io.out(STREAMS_USAGE);
        return 0;
      } else if (flag === '--config' || flag === '-c') file = value();
      else if (flag === '--format') format = oneOf(STREAM_FORMATS);
      else if (flag === '--password') mode = oneOf(PASSWORD_MODES);
      else throw new Error(`unknown argument ${JSON.stringify(argv[i])}`);
    } catch (err) {
      io.err(`nvr2mqtt streams: ${(err as Error).message}\n\n${STREAMS_USAGE}`);
      return 2;
    }
  }
  if (!file) {
    io.err(`nvr2mqtt streams: --config <file.yaml> is required\n\n${STREAMS_USAGE}`);
    return 2;
  }
  mode ??= ENV_REFERENCE[format] ? 'env' : 'placeholder';
  try {
    checkPasswordMode(format, mode);
  } catch (err) {
    io.err(`nvr2mqtt streams: ${(err as Error).message}\n`);
    return 2;
  }
  let config: BridgeConfig;
  try {
    config = io.load(file);
  } catch (err) {
    io.err(`nvr2mqtt streams: ${file}: ${(err as Error).message}\n`);
    return 1;
  }
  let failed = false;
  const devices = await readDeviceStreams(config, (line) => {
    failed = true;
    io.err(`nvr2mqtt streams: ${line}\n`);
  });
  io.out(streamConfig(devices, format, mode));
  return failed ? 1 : 0;
}
