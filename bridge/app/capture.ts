/**
 * `nvr2mqtt capture --config config.yaml [--device ID] [--events 60] [--keep-pictures] --out FILE`: one device's
 * capture (core/capture.ts) written to a file, with what was read, refused and redacted printed.
 * `nvr2mqtt simulate --replay FILE` serves the file as a device.
 */
import { writeFile } from 'node:fs/promises';
import type { BridgeConfig } from '../base/config';
import { errorText } from '../base/log';
import { captureDevice, captureText } from '../../core';
import { VERSION } from '../base/version';
import { deviceClientOptions } from '../device/device';

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
      client: deviceClientOptions(device),
      product: `nvr2mqtt ${VERSION}`,
      events: args.events,
      keepPictures: args.keepPictures,
      say: (line) => io.out(`${line}\n`),
    });
    const { text, summary } = captureText(file, redactor);
    await writeFile(args.out, text);
    const replaced = Object.entries(summary.redacted).map(([k, n]) => `${n} ${k}`);
    io.out(
      `wrote ${args.out}: ${summary.answers} answers (${summary.refused} refused), ${summary.bytes} bytes, ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s; redacted: ${replaced.join(', ')}\n`,
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
