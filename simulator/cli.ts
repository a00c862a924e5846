/**
 * `nvr2mqtt simulate [options]`: runs one simulated device until SIGINT/SIGTERM.
 * The password comes from --password or NVR2MQTT_SIM_PASSWORD and is never printed; without either the simulator
 * takes the documented demo password (DEMO_LOGIN) and prints it, so that a newcomer can point Node-RED's
 * example device (examples/*.json) or a bridge config at it at once.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SimulatorOptions, startSimulator } from './index';
import { parseCapture, startReplay } from './replay';

/** Where `nvr2mqtt simulate` listens without options: the URL the example flows' device points at. */
export const DEFAULT_SIMULATOR_URL = 'http://127.0.0.1:8080';
/** The login of `nvr2mqtt simulate` without --username/--password: documented, printed, and in the example flows. */
export const DEMO_LOGIN = { username: 'admin', password: 'demo' } as const;

const USAGE = `Usage: nvr2mqtt simulate [options]
  --port <n>              TCP port (default 8080; 0 = any free port)
  --host <addr>           listen address (default 127.0.0.1)
  --profile nvr|ipc       device profile (default nvr)
  --firmware <x.y.z>      firmware version (default 8.2.4; 8.2.3 or earlier: telnet + integer PTZ index)
  --channels <n>          nvr channel count (default 8)
  --channel-numbering vendor|slot   digital channel ids: IP_CH1 first (vendor, default) or after the slot (IP_CH5)
  --username <name>       login user (default admin)
  --password <pw>         login password (or env NVR2MQTT_SIM_PASSWORD; never printed). Without either: the
                          demo password "demo", printed at start (what the example flows' device uses)
  --digest MD5|SHA-256    Digest algorithm offered first (default MD5)
  --token-in-body         old firmware: CSRF token in the login body
  --session-timeout <s>   session inactivity timeout in seconds (default 300)
  --heartbeat-timeout <s> calls fail with no_heartbeat after <s> seconds without a heartbeat (default: off)
  --event-hold <s>        hold Event/Check calls with nothing to report up to <s> seconds (default: answer at once)
  --alarm-every <s>       demo: a random alarm a channel can raise every <s> seconds, ending a few seconds later
  --alarm-pictures none|snap|ai|both   pictures alarm starts carry in Event/Check (default none)
  --channel-param array|wrapped   ChannelInfo channel_param form (default wrapped; array on 8.2.3 and older)
  --no-disarming          no AlarmConfig/Disarming page
  --no-linkage-manage     no LinkageConfig/LinkageManage page
  --rotate-csrf           fault: a new CSRF token on every heartbeat and Set (the last 3 stay valid)
  --large-capacity        upgrade files up to 200 MiB
  --tls-key <file> --tls-cert <file>   serve HTTPS
  --replay <file.json>    serve a device captured by nvr2mqtt capture instead of a profile: its answers as
                          captured, writes accepted and shown by later reads, its events replayed
                          (the profile options are ignored; login with --username/--password)
  --quiet                 do not print requests
`;

interface Parsed {
  opts: SimulatorOptions;
  /** A capture to serve instead of a profile. */
  replay?: string;
  help: boolean;
  /** No password given: the demo password is used, and printed. */
  demo: boolean;
}

const text = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;

/** Every option of USAGE; unknown ones are refused. */
const OPTIONS = {
  port: text,
  host: text,
  profile: text,
  firmware: text,
  channels: text,
  'channel-numbering': text,
  username: text,
  password: text,
  digest: text,
  'token-in-body': flag,
  'session-timeout': text,
  'heartbeat-timeout': text,
  'event-hold': text,
  'alarm-every': text,
  'alarm-pictures': text,
  'channel-param': text,
  'no-disarming': flag,
  'no-linkage-manage': flag,
  'rotate-csrf': flag,
  'large-capacity': flag,
  'tls-key': text,
  'tls-cert': text,
  replay: text,
  quiet: flag,
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

/** parseArgs with this CLI's own words for a misuse. */
function parseOptions(args: string[]): Values {
  try {
    return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    const { code, message } = err as { code?: string; message: string };
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new Error(`unknown option ${option}`, { cause: err });
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new Error(`${option} needs a value`, { cause: err });
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new Error(`unexpected argument ${/'([^']*)'/.exec(message)?.[1]}`, { cause: err });
    throw err;
  }
}

export function parseSimulatorArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Parsed {
  const values = parseOptions(argv[0] === 'simulate' ? argv.slice(1) : [...argv]);
  const num = (k: keyof Values): number | undefined => {
    const raw = values[k];
    if (typeof raw !== 'string') return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${k} must be a non-negative number, got ${JSON.stringify(raw)}`);
    return n;
  };
  const oneOf = <T extends string>(k: string, allowed: readonly T[], raw: string | undefined): T | undefined => {
    if (raw === undefined || allowed.includes(raw as T)) return raw as T | undefined;
    throw new Error(`--${k} must be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`);
  };
  if ((values['tls-key'] === undefined) !== (values['tls-cert'] === undefined)) throw new Error('--tls-key and --tls-cert go together');
  const opts: SimulatorOptions = {
    port: num('port') ?? 8080,
    host: values.host ?? '127.0.0.1',
    profile: oneOf('profile', ['nvr', 'ipc'], values.profile) ?? 'nvr',
    firmware: values.firmware,
    channels: num('channels'),
    username: values.username ?? DEMO_LOGIN.username,
    password: values.password ?? env.NVR2MQTT_SIM_PASSWORD ?? DEMO_LOGIN.password,
    digestAlgorithm: oneOf('digest', ['MD5', 'SHA-256'], values.digest?.toUpperCase()),
    tokenInBody: values['token-in-body'] ?? false,
    largeCapacity: values['large-capacity'] ?? false,
    quiet: values.quiet ?? false,
  };
  const sessionTimeout = num('session-timeout');
  if (sessionTimeout !== undefined) opts.sessionTimeoutMs = sessionTimeout * 1000;
  const heartbeatTimeout = num('heartbeat-timeout');
  if (heartbeatTimeout !== undefined) opts.heartbeatTimeoutMs = heartbeatTimeout * 1000;
  const hold = num('event-hold');
  if (hold !== undefined) Object.assign(opts, { eventHold: hold > 0, eventHoldMs: hold * 1000 });
  const form = oneOf('channel-param', ['array', 'wrapped'], values['channel-param']);
  if (form) opts.channelParamForm = form;
  if (values['no-disarming']) opts.disarming = false;
  if (values['no-linkage-manage']) opts.linkageManage = false;
  if (values['rotate-csrf']) opts.rotateCsrf = true;
  const numbering = oneOf('channel-numbering', ['vendor', 'slot'], values['channel-numbering']);
  if (numbering) opts.channelNumbering = numbering;
  if (values['tls-key'] !== undefined) opts.tls = { key: readFileSync(values['tls-key']), cert: readFileSync(values['tls-cert']!) };
  const pictures = oneOf('alarm-pictures', ['none', 'snap', 'ai', 'both'], values['alarm-pictures']);
  if (pictures) opts.alarmPictures = pictures;
  const alarm = num('alarm-every');
  if (alarm) opts.alarmEveryMs = alarm * 1000;
  const demo = values.password === undefined && env.NVR2MQTT_SIM_PASSWORD === undefined;
  return { opts, help: values.help ?? false, demo, ...(values.replay !== undefined ? { replay: values.replay } : {}) };
}

/** Runs the simulator until SIGINT/SIGTERM; resolves after a clean stop. Bad arguments: message, exit code 2. */
export async function runSimulatorCli(argv: string[]): Promise<void> {
  let parsed: Parsed;
  try {
    parsed = parseSimulatorArgs(argv);
  } catch (err) {
    process.stderr.write(`nvr2mqtt simulate: ${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (!parsed.opts.password) {
    process.stderr.write('nvr2mqtt simulate: the password must not be empty (--password or NVR2MQTT_SIM_PASSWORD)\n');
    process.exitCode = 2;
    return;
  }
  if (parsed.replay !== undefined) return runReplay(parsed, parsed.replay);
  let sim;
  try {
    sim = await startSimulator(parsed.opts);
  } catch (err) {
    process.stderr.write(`nvr2mqtt simulate: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  // Listening for the signals before saying so: a supervisor that stops it right after that line gets a clean stop.
  const stopped = untilSignal();
  const o = parsed.opts;
  process.stdout.write(
    `nvr2mqtt simulator (${sim.profile.name} ${sim.profile.deviceType}, firmware ${sim.profile.firmware}, ` +
      `${sim.profile.channels.length} channel${sim.profile.channels.length === 1 ? '' : 's'}) listening on ${sim.url} ` +
      `(user ${o.username ?? DEMO_LOGIN.username}${parsed.demo ? `, demo password ${JSON.stringify(DEMO_LOGIN.password)}` : ''})\n`,
  );
  if (parsed.demo) process.stdout.write('(a password of your own: --password <pw> or NVR2MQTT_SIM_PASSWORD; it is never printed)\n');
  await stopped;
  await sim.stop();
  process.stdout.write('simulator stopped\n');
}

function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** `--replay FILE`: serves the capture until SIGINT/SIGTERM. */
async function runReplay({ opts, demo }: Parsed, file: string): Promise<void> {
  let replay;
  let device;
  try {
    const capture = parseCapture(readFileSync(file, 'utf8'));
    device = capture.device;
    replay = await startReplay({
      capture,
      username: opts.username,
      password: opts.password,
      port: opts.port,
      host: opts.host,
      quiet: opts.quiet,
    });
  } catch (err) {
    process.stderr.write(`nvr2mqtt simulate: ${file}: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const stopped = untilSignal();
  const what = [device?.model, device?.firmware && `firmware ${device.firmware}`].filter(Boolean).join(', ');
  process.stdout.write(
    `nvr2mqtt simulator replaying ${file}${what ? ` (${what})` : ''} on ${replay.url} ` +
      `(user ${opts.username ?? DEMO_LOGIN.username}${demo ? `, demo password ${JSON.stringify(DEMO_LOGIN.password)}` : ''})\n`,
  );
  await stopped;
  await replay.stop();
  process.stdout.write('simulator stopped\n');
}

if (require.main === module) {
  runSimulatorCli(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`nvr2mqtt simulate: ${(err as Error).message}\n`);
    process.exitCode = 1;
  });
}
