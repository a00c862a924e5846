#!/usr/bin/env node
/**
 * The `nvr2mqtt` command (installed as `bin.ts`, which starts node with the daemon's heap flags first).
 *   nvr2mqtt                              demo: embedded broker + simulated recorder + bridge
 *   nvr2mqtt --config config.yaml         run the bridge
 *   nvr2mqtt --config config.yaml --check validate the config, try broker and devices, report
 *   nvr2mqtt simulate [options]           run a device simulator (see `nvr2mqtt simulate --help`)
 *   nvr2mqtt streams --config config.yaml stream configuration for go2rtc, Frigate, generic camera
 *   nvr2mqtt capture --config config.yaml --out FILE   a device's answers to every page read, redacted
 */
// First: holds the young generation before the rest of the code is loaded (bridge/app/tuning.ts).
import { sizeYoungGeneration, tuneHeapForDaemon } from './tuning';
import { startBridge, type Bridge } from '../bridge';
import { runCheck } from './config-check';
import { ConfigError, loadConfigFile } from '../base/config';
import { runDemo } from './demo';
import { VERSION } from '../base/version';

const USAGE = `nvr2mqtt ${VERSION}: recorders and cameras (floodlight, siren, disarming) on MQTT and Home Assistant

Usage:
  nvr2mqtt [--host <addr>] [--port <n>]    run the demo (embedded MQTT broker + simulated recorder)
  nvr2mqtt --config <file.yaml>             run the bridge (or set NVR2MQTT_CONFIG)
  nvr2mqtt --config <file.yaml> --check     validate the config, try the broker and every device, report
  nvr2mqtt simulate [options]               run a device simulator (nvr2mqtt simulate --help)
  nvr2mqtt streams --config <file.yaml>     print stream configuration for go2rtc, Frigate or Home
                                            Assistant's generic camera (nvr2mqtt streams --help)
  nvr2mqtt capture --config <file.yaml> --out <file.json>
                                            record a device's answers (redacted) to attach to an issue
                                            or replay (nvr2mqtt capture --help)
  nvr2mqtt --help | --version

Options:
  --host <addr>   address the embedded MQTT broker listens on (default 127.0.0.1; 0.0.0.0: every
                  interface, so that Home Assistant on another machine can connect to the demo)
  --port <n>      its port (default 1883, or the next free one; a port given here must be free)
                  Both apply to the demo and to a config without mqtt.url.

Settings may be overridden from the environment: NVR2MQTT_MQTT_URL, NVR2MQTT_MQTT_PASSWORD,
NVR2MQTT_DEVICES_0_PASSWORD, ... (NVR2MQTT_ + the setting's path in upper case, joined with _).
`;

interface Args {
  config?: string;
  /** The embedded broker's address and port (demo, or a config without mqtt.url). */
  host?: string;
  port?: number;
  check: boolean;
  help: boolean;
  version: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { check: false, help: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') a.help = true;
    else if (arg === '--version' || arg === '-v') a.version = true;
    else if (arg === '--check') a.check = true;
    else if (arg === '--config' || arg === '-c') {
      const v = argv[++i];
      if (!v || v.startsWith('-')) throw new Error(`${arg} needs a file name`);
      a.config = v;
    } else if (arg.startsWith('--config=')) a.config = arg.slice('--config='.length);
    else if (arg === '--host' || arg.startsWith('--host=')) a.host = hostArg(arg === '--host' ? argv[++i] : arg.slice('--host='.length));
    else if (arg === '--port' || arg.startsWith('--port=')) a.port = portArg(arg === '--port' ? argv[++i] : arg.slice('--port='.length));
    else throw new Error(`unknown argument ${JSON.stringify(arg)}`);
  }
  return a;
}

function hostArg(v: string | undefined): string {
  if (!v || v.startsWith('-') || /\s/.test(v)) throw new Error('--host needs an address (127.0.0.1, 0.0.0.0, ::)');
  return v;
}

function portArg(v: string | undefined): number {
  const n = v !== undefined && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= 65535)) throw new Error(`--port needs a port number from 1 to 65535 (got ${JSON.stringify(v ?? '')})`);
  return n;
}

/** SIGINT/SIGTERM: stop cleanly and exit 0; a second signal exits at once. */
function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`${signal}: shutting down\n`);
    stop().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`shutdown: ${(err as Error)?.message ?? err}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export async function main(argv: string[]): Promise<number | undefined> {
  tuneHeapForDaemon();
  if (argv[0] === 'simulate') {
    const { runSimulatorCli } = await import('../../simulator/cli');
    await runSimulatorCli(argv.slice(1));
    return undefined;
  }
  if (argv[0] === 'capture') {
    const { runCaptureCli } = await import('./capture');
    return runCaptureCli(argv.slice(1), {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      load: (file) => loadConfigFile(file).config,
    });
  }
  if (argv[0] === 'streams') {
    const { runStreamsCli } = await import('./streams');
    return runStreamsCli(argv.slice(1), {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      load: (file) => loadConfigFile(file).config,
    });
  }
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`nvr2mqtt: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const file = args.config ?? process.env.NVR2MQTT_CONFIG;
  // The bridge must survive anything a payload or a device does; a stray rejection is logged, not fatal.
  process.on('unhandledRejection', (err) => process.stderr.write(`unhandled rejection: ${(err as Error)?.stack ?? String(err)}\n`));
  if (!file) {
    if (args.check) {
      process.stderr.write('nvr2mqtt: --check needs --config <file.yaml>\n');
      return 2;
    }
    const demo = await runDemo({ host: args.host, port: args.port });
    onSignals(() => demo.stop());
    return undefined;
  }
  let loaded;
  try {
    loaded = loadConfigFile(file);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`nvr2mqtt: ${file}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  for (const w of loaded.warnings) process.stderr.write(`warning: ${w}\n`);
  if (args.check) return (await runCheck(loaded.config)) ? 0 : 1;
  sizeYoungGeneration(loaded.config.devices.length);
  let bridge: Bridge;
  try {
    bridge = await startBridge(loaded.config, { broker: { host: args.host, port: args.port } });
  } catch (err) {
    process.stderr.write(`nvr2mqtt: cannot start: ${(err as Error).message}\n`);
    return 1;
  }
  onSignals(() => bridge.stop());
  // Stopped by itself (another instance took over): say why and exit non-zero.
  void bridge.done.then((err) => {
    if (!err) return;
    process.stderr.write(`nvr2mqtt: ${err.message}\n`);
    process.exit(1);
  });
  return undefined;
}

/** Runs the command in this process: exits with its code, or keeps running (the bridge, the demo, a simulator). */
export function runCommand(argv: string[]): void {
  main(argv).then(
    (code) => {
      if (code !== undefined) process.exit(code);
    },
    (err: unknown) => {
      process.stderr.write(`nvr2mqtt: ${(err as Error)?.message ?? err}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) runCommand(process.argv.slice(2));
