/**
 * Bridge configuration: a YAML file validated with one valibot schema (types are inferred from it),
 * environment overrides, secrets from files. Every problem is reported with its path
 * (`devices[1].url: ...`), all at once, before anything starts.
 *
 * Environment overrides: `NVR2MQTT_` + the path of the setting in upper case, object keys and array
 * indices joined with `_`:
 *   NVR2MQTT_MQTT_URL=mqtt://broker:1883          -> mqtt.url
 *   NVR2MQTT_MQTT_PASSWORD=...                    -> mqtt.password
 *   NVR2MQTT_HOMEASSISTANT_DISCOVERY_PREFIX=ha    -> homeassistant.discovery_prefix
 *   NVR2MQTT_DEVICES_0_PASSWORD=...               -> devices[0].password
 *   NVR2MQTT_DEVICES_1_CHANNELS=CH1,CH2           -> devices[1].channels (comma-separated list)
 *   NVR2MQTT_LOG_LEVEL=debug                      -> log_level
 * An override wins over the file (a password from the environment replaces the file's password_file,
 * and the other way round); it may create a device that the file lacks (give at least its id, url,
 * username and password then). `true`/`false` set booleans. NVR2MQTT_CONFIG names the
 * config file (CLI), it is not a setting.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import * as v from 'valibot';
import { isChannelId } from '../../core/channels';
import { isTimeZone } from '../../core/device-time';
import { isPlainObject } from '../../core/json';
import { parsePageName } from '../../core/pages';
import { LOG_LEVELS } from './log';
import { STATE_FILE_NAME } from './state-file';

/** `10`, `10s`, `2m`, `500ms`, `1h`, or seconds as a number; to milliseconds (NaN when not a duration). */
export function parseDuration(x: number | string): number {
  if (typeof x === 'number') return x * 1000;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(x);
  if (!m) return NaN;
  const n = Number(m[1]);
  const unit = (m[2] ?? 's').toLowerCase();
  return n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as Record<string, number>)[unit];
}

const Duration = (min: number, max: number) =>
  v.pipe(
    v.union([v.number(), v.string()], 'expected seconds (a number) or a duration such as "5s", "2m", "500ms"'),
    v.transform(parseDuration),
    v.check((ms) => Number.isFinite(ms), 'expected seconds (a number) or a duration such as "5s", "2m", "500ms"'),
    v.check((ms) => Number.isNaN(ms) || (ms >= min && ms <= max), `must be between ${min / 1000} s and ${max / 1000} s`),
  );

const Fingerprint = v.pipe(
  v.string(),
  v.regex(/^(?:[0-9a-fA-F]{2}:?){31}[0-9a-fA-F]{2}$/, 'expected a SHA-256 fingerprint: 64 hex digits, colons allowed'),
);

const TopicPart = (what: string) =>
  v.pipe(
    v.string(),
    v.minLength(1, `${what} must not be empty`),
    v.check((s) => !/[+#\0]/.test(s), `${what} must not contain the MQTT wildcards + or #`),
    v.check((s) => !s.startsWith('/') && !s.endsWith('/'), `${what} must not start or end with /`),
  );

const UrlWith = (schemes: string[], what: string) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => {
        try {
          const u = new URL(s);
          return schemes.includes(u.protocol.replace(/:$/, '')) && !!u.hostname;
        } catch {
          return false;
        }
      },
      `expected ${what} URL (${schemes.map((x) => `${x}://`).join(', ')})`,
    ),
  );

const NoCredentialsInUrl = v.check<string, string>((s) => {
  try {
    const u = new URL(s);
    return !u.username && !u.password;
  } catch {
    return true;
  }
}, 'must not contain a user name or password: use the username and password settings');

/** A password: its problems never quote the value (the default messages would print it). */
const Password = v.string('expected text; put a password made of digits in quotes');

const DeviceTls = v.strictObject({
  /** PEM file of the CA that signed the device certificate. */
  ca_file: v.optional(v.string()),
  /** SHA-256 fingerprint of the device certificate (self-signed devices). */
  fingerprint: v.optional(Fingerprint),
});

const MqttTls = v.strictObject({
  ca_file: v.optional(v.string()),
  fingerprint: v.optional(Fingerprint),
  /** Client certificate and key (brokers that authenticate clients by certificate). */
  cert_file: v.optional(v.string()),
  key_file: v.optional(v.string()),
});

const MqttSchema = v.strictObject({
  /** No url: the bridge starts an embedded broker on 127.0.0.1:1883 (or the next free port). */
  url: v.optional(v.pipe(UrlWith(['mqtt', 'mqtts', 'tcp', 'tls', 'ws', 'wss'], 'an MQTT'), NoCredentialsInUrl)),
  username: v.optional(v.string()),
  password: v.optional(Password),
  password_file: v.optional(v.string()),
  base_topic: v.optional(TopicPart('base_topic'), 'nvr2mqtt'),
  client_id: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  /** Retain device and channel state (availability, bridge state and discovery are always retained). */
  retain: v.optional(v.boolean(), true),
  tls: v.optional(MqttTls),
});

const HomeAssistantSchema = v.strictObject({
  enabled: v.optional(v.boolean(), true),
  discovery_prefix: v.optional(TopicPart('discovery_prefix'), 'homeassistant'),
  status_topic: v.optional(TopicPart('status_topic'), 'homeassistant/status'),
});

const DeviceSchema = v.strictObject({
  id: v.pipe(
    v.string(),
    v.regex(/^[a-z0-9_-]+$/, 'expected lower-case letters, digits, _ or - (it becomes an MQTT topic level)'),
    v.maxLength(64),
  ),
  name: v.optional(v.pipe(v.string(), v.minLength(1))),
  url: v.pipe(UrlWith(['http', 'https'], 'an http or https'), NoCredentialsInUrl),
  username: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  password: v.optional(Password),
  password_file: v.optional(v.string()),
  /**
   * The code Home Assistant's alarm panel asks for before it arms or disarms this recorder (sent as the panel's
   * `code`, checked by the bridge; never published or logged). Or `alarm_code_file`: a file holding it.
   */
  alarm_code: v.optional(v.pipe(v.string('expected text; put a code made of digits in quotes'), v.minLength(1, 'must not be empty'))),
  alarm_code_file: v.optional(v.string()),
  /**
   * Seconds or a duration string; the parsed value is in milliseconds. Default 10 s, or 15 s with events on
   * (alarms and live changes come as events; polls catch configuration changes), see {@link pollIntervalOf}.
   */
  poll_interval: v.optional(Duration(100, 86_400_000)),
  /** Publish only these channels (ids such as CH1, IP_CH5, or their slugs ch1, ip_ch5). */
  channels: v.optional(
    v.array(
      v.pipe(
        v.string(),
        v.transform((s) => s.trim().toUpperCase()),
        v.check((s) => isChannelId(s), 'expected a channel id such as CH1, IP_CH5 or WIFI_CH8'),
      ),
    ),
  ),
  tls: v.optional(DeviceTls),
  /**
   * The cameras' own admin passwords, by channel (`IP_CH1` or `ip_ch1`): `password` or `password_file`. A camera
   * restart (IPCReboot) carries the camera's password; a camera not listed gets the recorder's.
   */
  cameras: v.optional(
    v.record(
      v.pipe(
        v.string(),
        v.check((s) => isChannelId(s.trim().toUpperCase()), 'expected a channel id such as IP_CH1'),
      ),
      v.strictObject({ password: v.optional(Password), password_file: v.optional(v.string()) }),
    ),
  ),
  /**
   * Alarms, live light/siren changes and disk problems from the device's event check (Event/Check). `push`: the
   * device pushes its alarms to the bridge (AlarmConfig/EventPush, see `push`) and a slow event check is the
   * safety net (and brings live light/siren changes and disk problems).
   */
  events: v.optional(v.union([v.boolean(), v.literal('push')], 'expected true, false or push'), true),
  /**
   * Least time between two event checks (parsed to milliseconds); each check is one device request. Default 1 s,
   * or 60 s with `events: push` (the device tells the bridge of its alarms at once).
   */
  event_interval: v.optional(Duration(500, 60_000)),
  /** An alarm whose end never arrives is cleared after this long (parsed to milliseconds). */
  alarm_clear_after: v.optional(Duration(1000, 86_400_000), 60),
  /**
   * The device's time zone (IANA name such as `Europe/Berlin`; default the bridge host's): the device writes its
   * recordings' dates and times in local time without a zone, and the bridge answers ISO times with this zone's offset.
   */
  time_zone: v.optional(
    v.pipe(
      v.string(),
      v.check((z: string) => isTimeZone(z), 'expected an IANA time zone such as Europe/Berlin'),
    ),
  ),
  /** How often the disks are read (parsed to milliseconds): a slow schedule of its own, never with every poll. */
  storage_interval: v.optional(Duration(60_000, 86_400_000), 600),
  /** A picture of every camera this often (parsed to milliseconds); absent: pictures only on alarms and on demand. */
  snapshot_interval: v.optional(Duration(1000, 86_400_000)),
  /**
   * How often the device's own online firmware check runs (parsed to milliseconds; at least 1 h, default 6 h);
   * `false`: never on a schedule (still on demand: `set/firmware` `check`).
   */
  firmware_check_interval: v.optional(v.union([v.literal(false), Duration(3_600_000, 7 * 86_400_000)]), 6 * 3600),
  /** Snapshot size such as 640x480, one the device's Snapshot Range offers; default the largest not above 1280x720. */
  snapshot_resolution: v.optional(v.pipe(v.string(), v.regex(/^\d+ ?x ?\d+$/, 'expected a resolution such as 1280x720'))),
  /**
   * The device's request budget, shared by polls, event checks, commands and the request API: requests a second
   * at most (these devices answer `frequent_operation` and `device_busy` well below 20 a second)...
   */
  request_rate: v.optional(v.pipe(v.number('expected requests a second (a number)'), v.minValue(0.5), v.maxValue(50)), 8),
  /** ...and how many may wait for their turn; past that, reads from outside are refused ("device busy"). */
  request_queue: v.optional(v.pipe(v.number('expected a number of requests'), v.integer(), v.minValue(1), v.maxValue(1000)), 32),
});

/** Where devices with `events: push` send their alarms: an HTTP listener of the bridge. */
const PushSchema = v.strictObject({
  /** The address devices call, as they reach the bridge (an IP address or host name; a device holds 31 characters). */
  address: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(31, 'a device holds at most 31 characters')),
  /** 0: any free port (the devices are told the one it got). */
  port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535)), 8089),
  /**
   * Local address the listener binds to, or an interface's name (`eth0`). Default: `address` when it is one of this
   * machine's addresses, else every address (behind a port mapping). See listenAddress.
   */
  listen: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'))),
});

/** A page name as the request API takes it (any spelling core's page-name rule accepts), kept as `AlarmConfig/Deterrence`. */
const PageName = v.pipe(
  v.string(),
  v.check((s) => parsePageName(s) !== undefined, 'expected a page name such as "AlarmConfig/Deterrence"'),
  v.transform((s) => parsePageName(s)!),
);

/**
 * `<base>/bridge/request/<op>`. `get` and `range` read any page; `set` writes only the pages the bridge itself
 * publishes (the table's pages and the live page) unless the owner allows more here.
 */
const RequestApiSchema = v.strictObject({
  /** false: the bridge does not listen to `bridge/request/+` at all. */
  enabled: v.optional(v.boolean(), true),
  /** Further pages `set` may write, by name (maintenance, network, user and developer-mode pages only this way). */
  allow_pages: v.optional(v.array(PageName), []),
  /** `set` may write any page, except maintenance, network, user and developer-mode pages (name those in allow_pages). */
  allow_any_page: v.optional(v.boolean(), false),
  /**
   * Directories the bridge may read firmware files from for `bridge/request/upgrade` (absolute paths). Empty (the
   * default): the upgrade request is off. Files outside them, symlinks leading out included, are refused.
   */
  allow_upgrade_from: v.optional(
    v.array(
      v.pipe(
        v.string(),
        v.check((p: string) => p.startsWith('/'), 'must be an absolute directory path'),
      ),
    ),
    [],
  ),
  /**
   * Directories the bridge may read audio files from for `bridge/request/prompt` (absolute paths). Empty (the
   * default): uploading prompts through MQTT is off. Files outside them, symlinks leading out included, are refused.
   */
  allow_prompts_from: v.optional(
    v.array(
      v.pipe(
        v.string(),
        v.check((p: string) => p.startsWith('/'), 'must be an absolute directory path'),
      ),
    ),
    [],
  ),
});

export const ConfigSchema = v.strictObject({
  mqtt: v.optional(MqttSchema, {}),
  homeassistant: v.optional(HomeAssistantSchema, {}),
  push: v.optional(PushSchema),
  request_api: v.optional(RequestApiSchema, {}),
  /**
   * Clips (`bridge/request/clip`): the folder they are written under (`<folder>/<device>/<channel>/<date>/`) and the
   * ffmpeg program (default `ffmpeg` on PATH). Without a folder, clips are refused.
   */
  clips: v.optional(v.strictObject({ folder: v.pipe(v.string(), v.minLength(1)), ffmpeg: v.optional(v.pipe(v.string(), v.minLength(1))) })),
  devices: v.pipe(v.array(DeviceSchema), v.minLength(1, 'at least one device is required')),
  log_level: v.optional(v.picklist(LOG_LEVELS, `expected one of ${LOG_LEVELS.join(', ')}`), 'info'),
  /**
   * Where the bridge keeps what must outlive it (bridge/base/state-file.ts): relative to the config file. Default
   * `nvr2mqtt-state.json` beside the config file; none when the config comes from no file.
   */
  state_file: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
});

type Parsed = v.InferOutput<typeof ConfigSchema>;
type ParsedDevice = Omit<Parsed['devices'][number], 'poll_interval' | 'event_interval'> & { poll_interval: number; event_interval: number };

/**
 * Default poll interval: with events on, the event checks (one a second) and the polls share the device's budget
 * of about 1.5 requests a second at idle; a poll is 5 requests, so polls every 15 s (0.33/s) instead of 10 s.
 */
export const DEFAULT_POLL_MS = { events: 15_000, noEvents: 10_000, push: 60_000 } as const;

/** Default event check interval: one a second; with push, the check is the safety net only. */
export const DEFAULT_EVENT_MS = { events: 1_000, push: 60_000 } as const;

function pollIntervalOf(d: Parsed['devices'][number]): number {
  if (d.poll_interval !== undefined) return d.poll_interval;
  return d.events === 'push' ? DEFAULT_POLL_MS.push : d.events ? DEFAULT_POLL_MS.events : DEFAULT_POLL_MS.noEvents;
}

export interface TlsMaterial {
  ca?: string;
  fingerprint?: string;
  cert?: string;
  key?: string;
}

/** A device after validation: secrets read, TLS files loaded, poll_interval in milliseconds. */
export type DeviceConfig = Omit<ParsedDevice, 'password' | 'password_file' | 'alarm_code' | 'alarm_code_file' | 'tls' | 'cameras'> & {
  name: string;
  password: string;
  /** From `cameras.<ch>.password` / `password_file`, by channel id (upper case). */
  camera_passwords?: Record<string, string>;
  /** From `alarm_code` or `alarm_code_file`. */
  alarm_code?: string;
  tls?: TlsMaterial;
};

export type MqttConfig = Omit<Parsed['mqtt'], 'password' | 'password_file' | 'tls'> & {
  password?: string;
  tls?: TlsMaterial;
};

export interface BridgeConfig {
  mqtt: MqttConfig;
  homeassistant: Parsed['homeassistant'];
  push?: Parsed['push'];
  request_api: Parsed['request_api'];
  clips?: Parsed['clips'];
  devices: DeviceConfig[];
  log_level: Parsed['log_level'];
  /** Absolute path of the state file; undefined: memory only. */
  state_file?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function formatPath(path: ReadonlyArray<{ key?: unknown }> | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    const key = item.key;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

// ---- environment overrides -------------------------------------------------------------------

type AnySchema = { type: string; entries?: Record<string, AnySchema>; item?: AnySchema; wrapped?: AnySchema };

function unwrap(s: AnySchema): AnySchema {
  while (s.wrapped && (s.type === 'optional' || s.type === 'nullish' || s.type === 'nullable')) s = s.wrapped;
  return s;
}

/** Maps env name tokens onto a settings path by walking the schema (keys may contain `_`). */
function resolveEnvPath(schema: AnySchema, tokens: string[]): { path: (string | number)[]; leaf: AnySchema } | undefined {
  const s = unwrap(schema);
  // A leaf: a scalar, or a list of scalars given whole (NVR2MQTT_DEVICES_0_CHANNELS=CH1,CH2).
  if (tokens.length === 0) return s.entries || (s.item && unwrap(s.item).entries) ? undefined : { path: [], leaf: s };
  if (s.entries) {
    const keys = Object.keys(s.entries).sort((a, b) => b.length - a.length);
    for (const key of keys) {
      const kt = key.split('_');
      if (kt.every((t, i) => tokens[i] === t)) {
        const rest = resolveEnvPath(s.entries[key], tokens.slice(kt.length));
        if (rest) return { path: [key, ...rest.path], leaf: rest.leaf };
      }
    }
    return undefined;
  }
  if (s.type === 'array' && s.item) {
    if (!/^\d+$/.test(tokens[0])) return undefined;
    const rest = resolveEnvPath(s.item, tokens.slice(1));
    return rest ? { path: [Number(tokens[0]), ...rest.path], leaf: rest.leaf } : undefined;
  }
  return undefined;
}

function coerceEnv(leaf: AnySchema, raw: string): unknown {
  const s = unwrap(leaf);
  if (s.type === 'boolean') {
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
    return raw;
  }
  if (s.type === 'number' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  // `events`: true, false or push.
  const options = (s as { options?: AnySchema[] }).options;
  if (s.type === 'union' && options?.some((o) => unwrap(o).type === 'boolean') && /^(true|false)$/i.test(raw)) return /^true$/i.test(raw);
  if (s.type === 'array')
    return raw
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  return raw;
}

/** A secret given one way replaces the same secret given the other way in the file. */
const OTHER_WAY: Readonly<Record<string, string>> = {
  password: 'password_file',
  password_file: 'password',
  alarm_code: 'alarm_code_file',
  alarm_code_file: 'alarm_code',
};

function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): { config: Record<string, unknown>; warnings: string[] } {
  const warnings: string[] = [];
  const out = structuredClone(raw);
  const fromEnv = new Set<string>();
  const names = Object.keys(env)
    .filter((n) => n.startsWith('NVR2MQTT_') && n !== 'NVR2MQTT_CONFIG')
    .sort();
  for (const name of names) {
    const value = env[name];
    if (value === undefined) continue;
    const tokens = name.slice('NVR2MQTT_'.length).toLowerCase().split('_');
    const found = resolveEnvPath(ConfigSchema, tokens);
    if (!found) {
      warnings.push(`environment ${name}: no such setting (ignored)`);
      continue;
    }
    let node: Record<string | number, unknown> = out;
    const path = found.path;
    for (let i = 0; i < path.length - 1; i++) {
      const k = path[i];
      const nextIsIndex = typeof path[i + 1] === 'number';
      if (node[k] === undefined || node[k] === null || typeof node[k] !== 'object') node[k] = nextIsIndex ? [] : {};
      node = node[k] as Record<string | number, unknown>;
    }
    const leaf = path[path.length - 1];
    node[leaf] = coerceEnv(found.leaf, value);
    fromEnv.add(path.join('.'));
    const other = OTHER_WAY[leaf];
    if (other && !fromEnv.has([...path.slice(0, -1), other].join('.'))) delete node[other];
  }
  return { config: out, warnings };
}

// ---- secrets and files -------------------------------------------------------------------------

function readText(file: string, baseDir: string, where: string, problems: string[], trim: boolean): string | undefined {
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  try {
    const text = readFileSync(path, 'utf8');
    return trim ? text.trim() : text;
  } catch (err) {
    problems.push(`${where}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return undefined;
  }
}

/** A secret given as `<field>` or in a file (`<field>_file`, trimmed); `field` defaults to `password`. */
function secret(
  obj: { password?: string; password_file?: string },
  where: string,
  baseDir: string,
  problems: string[],
  required: boolean,
  field = 'password',
): string | undefined {
  if (obj.password !== undefined && obj.password_file !== undefined) {
    problems.push(`${where}.${field}_file: give either ${field} or ${field}_file, not both`);
    return undefined;
  }
  if (obj.password_file !== undefined) {
    const text = readText(obj.password_file, baseDir, `${where}.${field}_file`, problems, true);
    if (text === '') problems.push(`${where}.${field}_file: the file is empty`);
    return text;
  }
  if (obj.password === undefined && required) problems.push(`${where}.${field}: required (or ${field}_file)`);
  return obj.password;
}

function tlsMaterial(
  tls: { ca_file?: string; fingerprint?: string; cert_file?: string; key_file?: string } | undefined,
  where: string,
  baseDir: string,
  problems: string[],
): TlsMaterial | undefined {
  if (!tls) return undefined;
  const out: TlsMaterial = {};
  if (tls.ca_file) out.ca = readText(tls.ca_file, baseDir, `${where}.ca_file`, problems, false);
  if (tls.fingerprint) out.fingerprint = tls.fingerprint.replace(/:/g, '').toUpperCase();
  if (tls.cert_file) out.cert = readText(tls.cert_file, baseDir, `${where}.cert_file`, problems, false);
  if (tls.key_file) out.key = readText(tls.key_file, baseDir, `${where}.key_file`, problems, false);
  if (!!tls.cert_file !== !!tls.key_file) problems.push(`${where}: cert_file and key_file go together`);
  return out;
}

export interface ParseOptions {
  /** Environment for overrides; default process.env. Pass {} to ignore the environment. */
  env?: NodeJS.ProcessEnv;
  /** Directory that relative file names (password_file, ca_file) are resolved against. */
  baseDir?: string;
  /** The config came from a file (in `baseDir`): the state file defaults to one beside it. */
  configFile?: boolean;
}

/** Validates a config object (as read from YAML). Throws ConfigError listing every problem. */
export function parseConfig(input: unknown, opts: ParseOptions = {}): { config: BridgeConfig; warnings: string[] } {
  if (input === null || input === undefined) input = {};
  if (!isPlainObject(input)) throw new ConfigError(['(root): expected a mapping of settings']);
  const { config: raw, warnings } = applyEnv(input, opts.env ?? process.env);
  const problems: string[] = [];
  const result = v.safeParse(ConfigSchema, raw, { abortEarly: false });
  if (!result.success) {
    for (const issue of result.issues) {
      const unknownKey = issue.kind === 'schema' && issue.expected === 'never';
      problems.push(`${formatPath(issue.path)}: ${unknownKey ? 'unknown setting (check the spelling)' : issue.message}`);
    }
  }
  // The checks beyond the schema read what was given, valid or not: one run lists every problem.
  const secrets = connectionSecrets(raw, opts.baseDir ?? process.cwd(), problems);
  if (result.success && !result.output.push) {
    result.output.devices.forEach((d, i) => {
      if (d.events === 'push')
        problems.push(`devices[${i}].events: push needs the push settings (push.address: where devices reach the bridge)`);
    });
  }
  if (!result.success || problems.length) throw new ConfigError(dedupe(problems));
  const parsed = result.output;
  const devices: DeviceConfig[] = parsed.devices.map((d, i) => {
    const { password: _p, password_file: _f, alarm_code: _c, alarm_code_file: _cf, tls: _t, cameras: _cam, ...rest } = d;
    const { alarmCode, cameraPasswords } = secrets.devices[i];
    return {
      ...rest,
      poll_interval: pollIntervalOf(d),
      event_interval: d.event_interval ?? (d.events === 'push' ? DEFAULT_EVENT_MS.push : DEFAULT_EVENT_MS.events),
      name: d.name ?? d.id,
      password: secrets.devices[i].password ?? '',
      ...(alarmCode !== undefined ? { alarm_code: alarmCode } : {}),
      ...(Object.keys(cameraPasswords).length ? { camera_passwords: cameraPasswords } : {}),
      tls: secrets.devices[i].tls,
    };
  });
  // Beside the config file unless given (relative to it); without a file, only where given.
  const stateFile = parsed.state_file
    ? resolve(opts.baseDir ?? process.cwd(), parsed.state_file)
    : opts.baseDir !== undefined && opts.configFile
      ? join(opts.baseDir, STATE_FILE_NAME)
      : undefined;
  const { password: _mp, password_file: _mf, tls: _mt, ...mqttRest } = parsed.mqtt;
  const mqtt: MqttConfig = { ...mqttRest, password: secrets.mqtt.password, tls: secrets.mqtt.tls };
  return {
    config: {
      mqtt,
      homeassistant: parsed.homeassistant,
      push: parsed.push,
      request_api: parsed.request_api,
      ...(parsed.clips ? { clips: parsed.clips } : {}),
      devices,
      log_level: parsed.log_level,
      ...(stateFile ? { state_file: stateFile } : {}),
    },
    warnings,
  };
}

const TLS_URL = /^(mqtts|tls|wss|https):/i;

/**
 * Secrets and TLS files of the broker and every device, read; and the rules across settings (duplicate ids,
 * password or password_file, TLS settings on a URL without TLS). Works on the raw settings, so that it runs
 * (and reports) even where the schema found other problems; a value of the wrong type was reported there.
 */
function connectionSecrets(raw: Record<string, unknown>, baseDir: string, problems: string[]) {
  const text = (x: unknown) => (typeof x === 'string' ? x : undefined);
  /** password as given: a value of the wrong type still counts as given (no "required" on top). */
  const given = (o: Record<string, unknown>) => ({
    password: o.password === undefined ? undefined : (text(o.password) ?? ''),
    password_file: text(o.password_file),
  });
  const tlsOf = (o: Record<string, unknown>, where: string) => {
    if (!isPlainObject(o.tls)) return undefined;
    if (!TLS_URL.test(text(o.url) ?? '')) {
      problems.push(
        `${where}.tls: set, but ${o.url === undefined ? 'there is no url' : 'the url does not use TLS'}: the TLS settings would be ignored`,
      );
    }
    const t = o.tls;
    return tlsMaterial(
      { ca_file: text(t.ca_file), fingerprint: text(t.fingerprint), cert_file: text(t.cert_file), key_file: text(t.key_file) },
      `${where}.tls`,
      baseDir,
      problems,
    );
  };

  const m = isPlainObject(raw.mqtt) ? raw.mqtt : {};
  const mqtt = { password: secret(given(m), 'mqtt', baseDir, problems, false), tls: tlsOf(m, 'mqtt') };
  if (mqtt.password !== undefined && m.username === undefined) problems.push('mqtt.username: required when a password is given');

  const list = Array.isArray(raw.devices) ? raw.devices : [];
  const seen = new Map<string, number>();
  const devices = list.map((entry, i) => {
    const d = isPlainObject(entry) ? entry : {};
    const where = `devices[${i}]`;
    if (typeof d.id === 'string') {
      const first = seen.get(d.id);
      if (first !== undefined) problems.push(`${where}.id: duplicate device id "${d.id}" (also devices[${first}])`);
      else seen.set(d.id, i);
      if (d.id === 'bridge') problems.push(`${where}.id: "bridge" is reserved (it is the bridge's own topic)`);
    }
    const code = { password: typeof d.alarm_code === 'string' ? d.alarm_code : undefined, password_file: text(d.alarm_code_file) };
    const cameraPasswords: Record<string, string> = {};
    for (const [ch, entry] of Object.entries(isPlainObject(d.cameras) ? d.cameras : {})) {
      const pw = isPlainObject(entry) ? secret(given(entry), `${where}.cameras.${ch}`, baseDir, problems, true) : undefined;
      if (pw !== undefined) cameraPasswords[ch.trim().toUpperCase()] = pw;
    }
    return {
      cameraPasswords,
      password: secret(given(d), where, baseDir, problems, true),
      alarmCode: secret(code, where, baseDir, problems, false, 'alarm_code'),
      tls: tlsOf(d, where),
    };
  });
  problems.push(...idCollisions([...seen.keys()], seen));
  return { mqtt, devices };
}

/** A channel slug right after `<id>_`: `ch1`, `ip_ch5`, `wifi_ch8` (alone or followed by `_...`). */
const CHANNEL_SUFFIX = /^(?:ip_|wifi_)?ch\d+(?:_|$)/;

/**
 * Home Assistant ids are `<base>_<device>` and `<base>_<device>_<channel slug>` (plus `_<key>` per entity):
 * device `garage_ch1` would take the ids of channel CH1 of device `garage`.
 */
function idCollisions(ids: readonly string[], index: ReadonlyMap<string, number>): string[] {
  const problems: string[] = [];
  for (const a of ids) {
    for (const b of ids) {
      if (b === a || !b.startsWith(`${a}_`) || !CHANNEL_SUFFIX.test(b.slice(a.length + 1))) continue;
      const slug = /^(?:ip_|wifi_)?ch\d+/.exec(b.slice(a.length + 1))![0];
      problems.push(
        `devices[${index.get(b)}].id: "${b}" collides with device "${a}" (devices[${index.get(a)}]): ` +
          `Home Assistant ids of "${b}" are those of channel ${slug.toUpperCase()} of "${a}"; rename one of them`,
      );
    }
  }
  return problems;
}

/** Reads and validates a YAML config file. Throws ConfigError. */
export function loadConfigFile(file: string, opts: Omit<ParseOptions, 'baseDir'> = {}): { config: BridgeConfig; warnings: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`]);
  }
  let doc: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when a file is read
    const { parse: parseYaml } = require('yaml') as typeof import('yaml');
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError([`${file}: not valid YAML: ${(err as Error).message.split('\n')[0]}`]);
  }
  return parseConfig(doc, { ...opts, baseDir: dirname(resolve(file)), configFile: true });
}

/** Every secret of a config, for the log and payload redactor. */
export function configSecrets(config: BridgeConfig): string[] {
  const out: string[] = [];
  if (config.mqtt.password) out.push(config.mqtt.password);
  if (config.mqtt.tls?.key) out.push(config.mqtt.tls.key);
  for (const d of config.devices) {
    if (d.password) out.push(d.password);
    if (d.alarm_code) out.push(d.alarm_code);
    out.push(...Object.values(d.camera_passwords ?? {}).filter(Boolean));
  }
  return out;
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}
