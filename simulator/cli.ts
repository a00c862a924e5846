/**
 * `nvr2mqtt simulate [options]`: runs one simulated device until SIGINT/SIGTERM.
 * The password comes from --password or NVR2MQTT_SIM_PASSWORD and is never printed.
 */
import { readFileSync } from 'node:fs';
import { SimulatorOptions, startSimulator } from './index';

const USAGE = `Usage: nvr2mqtt simulate [options]
  --port <n>              TCP port (default 8080; 0 = any free port)
  --host <addr>           listen address (default 127.0.0.1)
  --profile nvr|ipc       device profile (default nvr)
  --firmware <x.y.z>      firmware version (default 8.2.4; 8.2.3 or earlier: telnet + integer PTZ index)
  --channels <n>          nvr channel count (default 8)
  --channel-numbering vendor|slot   digital channel ids: IP_CH1 first (vendor, default) or after the slot (IP_CH5)
  --username <name>       login user (default admin)
  --password <pw>         login password (or env NVR2MQTT_SIM_PASSWORD); required
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
  --quiet                 do not print requests
`;

interface Parsed {
  opts: SimulatorOptions;
  help: boolean;
}

const FLAGS = new Set([
  '--token-in-body',
  '--large-capacity',
  '--quiet',
  '--no-disarming',
  '--no-linkage-manage',
  '--rotate-csrf',
  '--help',
  '-h',
]);

export function parseSimulatorArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Parsed {
  const args = argv[0] === 'simulate' ? argv.slice(1) : [...argv];
  const values: Record<string, string> = {};
  const flags = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    let value: string | undefined;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq !== -1) {
      value = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    if (FLAGS.has(a)) {
      flags.add(a);
      continue;
    }
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(a)}`);
    if (value === undefined) {
      value = args[++i];
      if (value === undefined) throw new Error(`${a} needs a value`);
    }
    values[a.slice(2)] = value;
  }
  const known = [
    'port',
    'host',
    'profile',
    'firmware',
    'channels',
    'username',
    'password',
    'digest',
    'session-timeout',
    'heartbeat-timeout',
    'event-hold',
    'alarm-every',
    'alarm-pictures',
    'channel-param',
    'channel-numbering',
    'tls-key',
    'tls-cert',
  ];
  for (const k of Object.keys(values)) if (!known.includes(k)) throw new Error(`unknown option --${k}`);
  const num = (k: string): number | undefined => {
    if (values[k] === undefined) return undefined;
    const n = Number(values[k]);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${k} must be a non-negative number, got ${JSON.stringify(values[k])}`);
    return n;
  };
  const profile = values.profile ?? 'nvr';
  if (profile !== 'nvr' && profile !== 'ipc') throw new Error('--profile must be nvr or ipc');
  const digest = values.digest?.toUpperCase();
  if (digest !== undefined && digest !== 'MD5' && digest !== 'SHA-256') throw new Error('--digest must be MD5 or SHA-256');
  if ((values['tls-key'] === undefined) !== (values['tls-cert'] === undefined)) throw new Error('--tls-key and --tls-cert go together');
  const opts: SimulatorOptions = {
    port: num('port') ?? 8080,
    host: values.host ?? '127.0.0.1',
    profile,
    firmware: values.firmware,
    channels: num('channels'),
    username: values.username ?? 'admin',
    password: values.password ?? env.NVR2MQTT_SIM_PASSWORD ?? '',
    digestAlgorithm: digest,
    tokenInBody: flags.has('--token-in-body'),
    largeCapacity: flags.has('--large-capacity'),
    quiet: flags.has('--quiet'),
  };
  const sessionTimeout = num('session-timeout');
  if (sessionTimeout !== undefined) opts.sessionTimeoutMs = sessionTimeout * 1000;
  const heartbeatTimeout = num('heartbeat-timeout');
  if (heartbeatTimeout !== undefined) opts.heartbeatTimeoutMs = heartbeatTimeout * 1000;
  const hold = num('event-hold');
  if (hold !== undefined) {
    opts.eventHold = hold > 0;
    opts.eventHoldMs = hold * 1000;
  }
  const form = values['channel-param'];
  if (form !== undefined && form !== 'array' && form !== 'wrapped') throw new Error('--channel-param must be array or wrapped');
  if (form) opts.channelParamForm = form;
  if (flags.has('--no-disarming')) opts.disarming = false;
  if (flags.has('--no-linkage-manage')) opts.linkageManage = false;
  if (flags.has('--rotate-csrf')) opts.rotateCsrf = true;
  const numbering = values['channel-numbering'];
  if (numbering !== undefined && numbering !== 'vendor' && numbering !== 'slot')
    throw new Error('--channel-numbering must be vendor or slot');
  if (numbering) opts.channelNumbering = numbering;
  if (values['tls-key'] !== undefined) opts.tls = { key: readFileSync(values['tls-key']), cert: readFileSync(values['tls-cert']) };
  const pictures = values['alarm-pictures'];
  if (pictures !== undefined && !['none', 'snap', 'ai', 'both'].includes(pictures))
    throw new Error('--alarm-pictures must be none, snap, ai or both');
  if (pictures) opts.alarmPictures = pictures as SimulatorOptions['alarmPictures'];
  const alarm = num('alarm-every');
  if (alarm) opts.alarmEveryMs = alarm * 1000;
  return { opts, help: flags.has('--help') || flags.has('-h') };
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
    process.stderr.write('nvr2mqtt simulate: a password is required (--password or NVR2MQTT_SIM_PASSWORD)\n');
    process.exitCode = 2;
    return;
  }
  let sim;
  try {
    sim = await startSimulator(parsed.opts);
  } catch (err) {
    process.stderr.write(`nvr2mqtt simulate: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const o = parsed.opts;
  process.stdout.write(
    `nvr2mqtt simulator (${sim.profile.name} ${sim.profile.deviceType}, firmware ${sim.profile.firmware}, ` +
      `${sim.profile.channels.length} channel${sim.profile.channels.length === 1 ? '' : 's'}) listening on ${sim.url} ` +
      `(user ${o.username ?? 'admin'})\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await sim.stop();
  process.stdout.write('simulator stopped\n');
}

if (require.main === module) {
  runSimulatorCli(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`nvr2mqtt simulate: ${(err as Error).message}\n`);
    process.exitCode = 1;
  });
}
