/**
 * Device simulator: a real HTTP(S) server speaking the device API, for tests, benchmarks and the demo.
 * It never imports core/: requests are judged with the simulator's own checks.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Auth, DigestAlgorithm } from './auth';
import { Device } from './device';
import { EventHub, eventTime } from './events';
import { Activity, DiskAlarm } from './activity';
import { AiAlarmForm, AlarmRequest, AlarmType } from './alarms';
import type { AiPictureForm, AlarmPictures } from './pictures';
import { EventPush, type PushSent } from './event-push';
import { LIVE_PAGE, liveChannel, judgeLiveSet } from './live';
import { ptzOf, type PtzChannel } from './ptz';
import { FaultSpec, Faults } from './faults';
import { SimFirmware } from './firmware';
import { SimIpcFirmware } from './ipc-firmware';
import { LogEntry, RequestLog } from './log';
import { ChannelNumbering, ChannelSpec, Profile, ProfileName, buildProfile } from './profiles';
import { buildRoutes } from './routes';
import { Front, requestListener } from './server';
import type { SimState } from './state';
import { setDiskStatus } from './storage';
import { Maintenance } from './maintenance';
import { VoicePrompts } from './voice-prompts';
import { Recordings } from './recordings';
import { isRtsp, serveRtsp } from './rtsp';
import { SimRecognition } from './recognition';

export type { LogEntry } from './log';
export type { PushSent } from './event-push';
export type { FaultKind, FaultSpec } from './faults';
export type { ProfileName, ChannelSpec, ChannelNumbering } from './profiles';
export type { SimState, PageState } from './state';
export type { DigestAlgorithm } from './auth';
export type { AlarmRequest, AlarmType, AiAlarmForm } from './alarms';
export type { AlarmPictures, AiPictureForm } from './pictures';
export { testPicture } from './test-pattern';
export type { DiskAlarm } from './activity';
export type { PromptFile, PlayEntry } from './voice-prompts';
export type { PtzChannel, Preset as PtzPreset } from './ptz';
export { ALARMS, allowedAlarms } from './alarms';
export { LIVE_PAGE, MANUAL_ALARM_PAGE } from './live';
export { DISK_PAGE } from './storage';
export { parseCapture, startReplay, type CaptureData, type Replay, type ReplayOptions } from './replay';

export interface SimulatorOptions {
  /** 0 (default): an ephemeral port. */
  port?: number;
  host?: string;
  profile?: ProfileName;
  /** '8.2.4' (default). '8.2.3' or earlier: telnet_switch and the integer PTZ point index. */
  firmware?: string;
  username?: string;
  password: string;
  /** nvr: 8 (default); the bench uses 16. ipc: always 1. */
  channels?: number;
  /** nvr: how many channels are analog (default half). */
  analog?: number;
  /** nvr: `IP_CH1` is the first digital channel (`vendor`, default) or digital channels are named after their slot (`slot`: `IP_CH5`). */
  channelNumbering?: ChannelNumbering;
  /** Inactivity after which a session answers `expired` (default 300000). */
  sessionTimeoutMs?: number;
  /** > 0: calls fail with `no_heartbeat` when no heartbeat came within this time (default 0 = off). */
  heartbeatTimeoutMs?: number;
  /**
   * Event/Check with nothing to report: false answers at once with the keep-alive (vendor); true holds the call
   * up to `eventHoldMs` (default 30000) like a long poll. Default: true only when `eventHoldMs` is given.
   */
  eventHold?: boolean;
  eventHoldMs?: number;
  /** > 0: raise a random alarm a channel can raise every so often, ending it a little later (demo, CLI). */
  alarmEveryMs?: number;
  /** ChannelInfo `channel_param` form: 'wrapped' `{type:"array", items}` (vendor sample; default) or 'array' (vendor table; default on 8.2.3 and older). */
  channelParamForm?: 'array' | 'wrapped';
  /** Serve `AlarmConfig/Disarming` (default: firmware after 8.2.3). */
  disarming?: boolean;
  /** Serve `LinkageConfig/LinkageManage` (default true). */
  linkageManage?: boolean;
  /** AI alarms in Event/Check as `int_alarm` (default), `alarm_state` or both. */
  aiAlarmForm?: AiAlarmForm;
  /**
   * Pictures alarm starts carry in Event/Check (pictures.ts): `snap` the alarm's picture (`alarm_snap_data` +
   * `take_alarm_snap`), `ai` the AI picture (`ai_snap_picture`, to readers subscribed with `aipushpic`), `both`.
   * Default `none`. `aiPictureForm`: C1.3 `wrapped` (default) or the first set's `flat` form.
   */
  alarmPictures?: AlarmPictures;
  aiPictureForm?: AiPictureForm;
  /** Channels whose camera also reads plates (`intelligent_ability` LPD added; no profile has it by default). */
  plateChannels?: string[];
  /** Old firmware: CSRF token in the login body (`data.token`) instead of the header; no rotation. */
  tokenInBody?: boolean;
  /** Challenge offered first (default MD5; 'SHA-256' offers SHA-256, then MD5). */
  digestAlgorithm?: DigestAlgorithm;
  /**
   * Fault: a new CSRF token on heartbeat and Set answers, the last 3 kept (default false: no vendor page describes
   * rotation, and clients keep the login token for the whole session as the vendor says).
   */
  rotateCsrf?: boolean;
  /** Failed logins in a row (each `verify_failed`) until `login_failed_or_block` (default 5), and how long the block lasts (default 60000). */
  maxLoginFailures?: number;
  lockoutMs?: number;
  /** PTZ point index form, overriding what the firmware implies ('int' up to 8.2.3, 'hex' after). */
  ptzIndexForm?: 'int' | 'hex';
  /** Upgrade file size limit 200 MiB instead of 100 MiB. */
  largeCapacity?: boolean;
  /** Online upgrade: time of each of its 12 progress steps (default 200 ms). */
  upgradeStepMs?: number;
  /**
   * How long a reboot (after an upgrade, Maintenance/DeviceReboot, a camera's through IPCReboot) keeps the device
   * away, answering `device_reboot` (default 3000 ms).
   */
  rebootMs?: number;
  /** Entries kept in `log` (default 1000; older ones are dropped). */
  logLimit?: number;
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Status of the first disk (`StorageConfig/Disk`), e.g. `HddError` for a failing disk; `none`: no disk at all. */
  diskStatus?: string;
  /** Default true. false: print one line per request (the CLI does). */
  quiet?: boolean;
  /**
   * The address the device knows itself by, written into its stream URLs (a LAN address, the vendor sample's
   * 172.16.10.169). Default: the address the request came to (the Host header).
   */
  lanAddress?: string;
  /**
   * The cameras' own admin passwords (by channel id), which `IPCReboot/Set` checks its `password` against (the
   * vendor page: the camera's password). A camera not listed has the recorder's.
   */
  cameraPasswords?: Record<string, string>;
  /** The device's time zone (IANA name; default UTC): recordings, pictures and tags are in its local time. */
  timeZone?: string;
  /** RTSP playback in one place at a time (some recorders): a second PLAY is answered 503 while one runs. */
  singlePlayback?: boolean;
  /** How far back the recording log of each channel starts (default 26 h). */
  recordingHistoryMs?: number;
}

export interface Simulator {
  /** e.g. `http://127.0.0.1:40123` */
  url: string;
  port: number;
  /** Every request: time, path, redacted data, status, error_code. Never headers or passwords. */
  log: LogEntry[];
  /** When (epoch ms) a client opened a TCP connection to the device, oldest first; as many kept as `log` keeps. */
  connects: number[];
  clearLog(): void;
  /**
   * Requests received and not answered yet because the simulator holds them: Event/Check calls held by `eventHold`
   * and answers delayed by a latency fault. Tests await it instead of guessing how long a request takes to arrive.
   */
  readonly held: number;
  fault(f: FaultSpec): void;
  clearFaults(): void;
  /** Every current session answers `expired` on its next call. */
  expireSessions(): void;
  /**
   * Start (`active: true`) or end an alarm, as Event/Check reports it. Throws on an unknown, offline or empty channel
   * and on a type the channel cannot raise (its hardware / intelligent_ability). The older positional form
   * `(channel, 'motion_alarm' | 'pir_alarm' | 'io_alarm' | 'videoloss', status)` is still accepted.
   */
  raiseAlarm(a: AlarmRequest): void;
  raiseAlarm(channel: string, member: string, status: boolean): void;
  /** Alarm pushes sent to the URL configured on `AlarmConfig/EventPush` (event-push.ts). */
  pushes: PushSent[];
  /** The `AlarmConfig/EventPush` settings (`params.table`) as the device holds them. */
  pushSettings: Record<string, unknown>;
  /** A disk alarm (`system_alarm[].hdd`): ok false = Error with `info` (default Bad). */
  raiseDiskAlarm(d: DiskAlarm): void;
  /** The device changes its live light/siren itself (an alarm reaction): state and a `Floodlight_AudioAlarm` event. */
  setLive(channel: string, change: Record<string, unknown>): void;
  /** Reboots done through Maintenance/DeviceReboot. */
  readonly reboots: number;
  /** Connect or disconnect an IP_CH channel (Offline) or the Wi-Fi battery camera (Sleep). */
  setOnline(channel: string, online: boolean): void;
  /** The user renames a camera on the recorder (ChannelInfo `channel_name`). */
  renameChannel(channel: string, name: string): void;
  /** The JPEG the channel's last `Snapshot/Get` answered (a test pattern stamped with its name and the time). */
  lastSnapshot(channel: string): Buffer | undefined;
  /** Where a PTZ camera looks now, what runs, its preset slots (1-255 at index 0-254). Throws for a channel without PTZ. */
  ptz(channel: string): PtzChannel;
  /** The user stores (a name) or clears (undefined) a preset on the device itself. */
  setPtzPreset(channel: string, no: number, name?: string): void;
  /** Switch a channel's recording off (SystemInfo/Record `record_state` Off, the running segment ends) or on again. */
  setRecording(channel: string, on: boolean): void;
  /** The device's time zone (IANA), in which its recordings' dates and times are written. */
  readonly timeZone: string;
  /** RTSP playbacks started (rtsp.ts: the stream channel and the range asked for, ms), oldest first. */
  readonly playbacks: Array<{ channel: number; from: number; to: number }>;
  /**
   * Firmware: `installed` (SystemInfo `software_version`), `publish(version)` puts a newer version on the upgrade
   * server (the next FtpUpgrade/Check finds it), `installs` lists the versions installed, `busy` while an upgrade or
   * reboot runs, `reboot(ms?)` drops every session and answers `device_reboot` meanwhile (firmware.ts).
   */
  firmware: Pick<SimFirmware, 'installed' | 'publish' | 'installs' | 'busy' | 'rebooting' | 'reboot'>;
  /**
   * Voice prompts (voice-prompts.ts): the stored `files`, the `playLog` of every play and stop, the `upload` in
   * progress, `packets` accepted, the cameras' own `cameraFiles`.
   */
  prompts: Pick<VoicePrompts, 'files' | 'playLog' | 'upload' | 'packets' | 'cameraFiles'>;
  /** Face and plate lists (recognition.ts): served where a channel does face (FD) or plate (LPD) recognition. */
  recognition: SimRecognition;
  /** Firmware of the cameras behind an NVR (IPCUpgrade/Get): `version(ch)`, `setIpcVersion(ch, v)`. */
  ipcFirmware: Pick<SimIpcFirmware, 'version' | 'setIpcVersion'>;
  /**
   * In-memory page states, keyed by page ('AlarmConfig/VoiceAlarm'), each shaped like its Get data; the live page
   * `state['PreviewChannel/Floodlight2AudioAlarm'].channel_info.CH1.floodlight_switch`, manual alarm outputs
   * `state['PreviewChannel/ManualAlarm']['Local->1']`.
   */
  state: SimState;
  /** Every request path this simulator serves (its profile and options decide which pages exist). */
  readonly paths: readonly string[];
  /** Profile facts tests may need. */
  profile: Pick<Profile, 'name' | 'firmware' | 'legacy' | 'ptzHex' | 'deviceType'> & {
    channels: string[];
    /** Hardware and initial state of every channel (profiles.ts). */
    specs: readonly ChannelSpec[];
  };
  stop(): Promise<void>;
}

/** Event/Check members of the older positional raiseAlarm form. */
const LEGACY_MEMBERS: Readonly<Record<string, AlarmType>> = {
  motion_alarm: 'motion',
  pir_alarm: 'pir',
  io_alarm: 'io',
  videoloss: 'video_loss',
};

/** The device's own parts every route and control works on. */
interface Parts {
  opts: SimulatorOptions;
  profile: Profile;
  device: Device;
  events: EventHub;
  activity: Activity;
  faults: Faults;
  log: RequestLog;
  /** Answers held by a latency fault: woken on stop. */
  sleeps: Set<() => void>;
  firmware: SimFirmware;
  ipcFirmware: SimIpcFirmware;
  prompts: VoicePrompts;
  recordings: Recordings;
  recognition: SimRecognition;
  host: string;
}

export async function startSimulator(opts: SimulatorOptions): Promise<Simulator> {
  if (typeof opts.password !== 'string' || opts.password === '') throw new Error('startSimulator: a password is required');
  const { profile: name, firmware: version, channels, largeCapacity, ptzIndexForm, analog, channelNumbering } = opts;
  const profile = buildProfile({ profile: name, firmware: version, channels, largeCapacity, ptzIndexForm, analog, channelNumbering });
  for (const ch of profile.channels) if (ch.configured && opts.plateChannels?.includes(ch.id)) ch.ai = [...ch.ai, 'LPD'];
  const device = new Device(profile);
  if (opts.diskStatus) setDiskStatus(device.state, opts.diskStatus);
  device.lanAddress = opts.lanAddress;
  const { events, activity } = alarmParts(opts, profile, device);
  // The cookie name carries the port, which is known only after listen(): the auth is built lazily.
  let auth: Auth | undefined;
  const firmware = new SimFirmware(device, () => auth!, { stepMs: opts.upgradeStepMs, rebootMs: opts.rebootMs });
  const parts: Parts = {
    opts,
    profile,
    device,
    events,
    activity,
    firmware,
    faults: new Faults(),
    log: new RequestLog(opts.logLimit ?? 1000),
    sleeps: new Set<() => void>(),
    ipcFirmware: new SimIpcFirmware(device),
    prompts: new VoicePrompts(device),
    recordings: new Recordings(device, { zone: opts.timeZone ?? 'UTC', historyMs: opts.recordingHistoryMs }),
    recognition: new SimRecognition(() => profile.channels.map((c) => c.id)),
    host: opts.host ?? '127.0.0.1',
  };
  const front: Front = {
    routes: new Map(),
    get auth() {
      return auth!;
    },
    faults: parts.faults,
    log: parts.log,
    quiet: opts.quiet ?? true,
    sleeps: parts.sleeps,
    gate: () => firmware.gate(),
  };
  const rtsp = (socket: net.Socket, first: Buffer) =>
    serveRtsp(socket, first, {
      device,
      zone: parts.recordings.zone,
      username: opts.username ?? 'admin',
      password: opts.password,
      onPlay: (p) => playbacks.push(p),
      running,
      single: opts.singlePlayback ?? false,
    });
  const running = new Set<net.Socket>();
  const playbacks: Simulator['playbacks'] = [];
  const listening = await listen(opts, parts.host, requestListener(front), rtsp);
  const connects = new RequestLog<number>(opts.logLimit ?? 1000);
  listening.front.on('connection', () => connects.add(Date.now()));
  const port = listening.port;
  auth = authFor(opts, port);
  const { push, maintenance } = mountRoutes(parts, auth, front.routes);
  for (const [path, route] of parts.prompts.routes(() => `${parts.host}:${port}`)) front.routes.set(path, route);
  activity.recognition = parts.recognition;
  if (profile.channels.some((c) => c.ai.includes('FD') || c.ai.includes('LPD')))
    for (const [path, route] of parts.recognition.routes()) front.routes.set(path, route);
  if (opts.alarmEveryMs && opts.alarmEveryMs > 0) activity.startRandom(opts.alarmEveryMs);
  const urlHost = parts.host.includes(':') ? `[${parts.host}]` : parts.host;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${urlHost}:${port}`,
    port,
    log: parts.log.entries,
    connects: connects.entries,
    clearLog: () => parts.log.clear(),
    get held() {
      return events.held + parts.sleeps.size;
    },
    fault: (f) => parts.faults.add(f),
    clearFaults: () => parts.faults.clear(),
    expireSessions: () => auth.expireAll(),
    ...controls(parts),
    get reboots() {
      return maintenance.reboots;
    },
    paths: [...front.routes.keys()],
    firmware,
    ipcFirmware: parts.ipcFirmware,
    prompts: parts.prompts,
    recognition: parts.recognition,
    pushes: push.sent,
    pushSettings: push.settings,
    state: device.state,
    profile: {
      ...pick(profile, 'name', 'firmware', 'legacy', 'ptzHex', 'deviceType'),
      channels: profile.channels.map((c) => c.id),
      specs: profile.channels,
    },
    playbacks,
    stop: stopOnce(parts, maintenance, listening),
  };
}

const pick = <T, K extends keyof T>(o: T, ...keys: K[]): Pick<T, K> => Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;

/** Stop, once however often called: alarms and timers, held answers (given theirs), then the server. */
function stopOnce({ activity, firmware, events, sleeps }: Parts, maintenance: Maintenance, listening: Listening): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      activity.stop();
      maintenance.stop();
      firmware.stop();
      events.stop(); // held Event/Check requests get their keep-alive answer
      for (const wake of [...sleeps]) wake();
      await new Promise((r) => setImmediate(r)); // let those answers be written
      await listening.close();
    })());
}

/** Event/Check and what raises alarms on it. */
function alarmParts(opts: SimulatorOptions, profile: Profile, device: Device): { events: EventHub; activity: Activity } {
  const hold = opts.eventHold ?? opts.eventHoldMs !== undefined;
  const events: EventHub = new EventHub({
    holdMs: hold ? (opts.eventHoldMs ?? 30_000) : 0,
    current: (): Record<string, unknown>[] => activity.current(),
    time: eventTime(profile.legacy),
  });
  const activity: Activity = new Activity(device, events, opts.aiAlarmForm ?? 'int_alarm', profile.name === 'ipc' ? 'IPC' : 'NVR');
  if (opts.alarmPictures !== undefined) {
    if (!['none', 'snap', 'ai', 'both'].includes(opts.alarmPictures)) throw new Error('alarmPictures must be none, snap, ai or both');
    activity.pictures = opts.alarmPictures;
  }
  if (opts.aiPictureForm !== undefined) activity.aiPictureForm = opts.aiPictureForm === 'flat' ? 'flat' : 'wrapped';
  return { events, activity };
}

/** The HTTP(S) server and what listens: over plain HTTP a front that hands RTSP connections (same port) to `rtsp`. */
interface Listening {
  server: http.Server;
  /** What accepts the TCP connections (the front, or the HTTPS server itself). */
  front: net.Server;
  port: number;
  close(): Promise<void>;
}

async function listen(
  opts: SimulatorOptions,
  host: string,
  listener: http.RequestListener,
  rtsp: (socket: net.Socket, first: Buffer) => void,
): Promise<Listening> {
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, listener) : http.createServer(listener);
  // Every connection the front took: one that never sent a byte belongs to neither server, and would hold close().
  const sockets = new Set<net.Socket>();
  // The stream addresses name the web port (as the vendor's sample): RTSP is served there, told apart by its first bytes.
  const front: net.Server = opts.tls
    ? server
    : net.createServer((socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.once('data', (first: Buffer) => {
          socket.pause();
          if (isRtsp(first)) {
            rtsp(socket, first);
          } else {
            socket.unshift(first);
            server.emit('connection', socket);
          }
          process.nextTick(() => socket.resume());
        });
        socket.on('error', () => socket.destroy());
      });
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(opts.port ?? 0, host, () => {
      front.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    front,
    port: (front.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        front.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }),
  };
}

function authFor(opts: SimulatorOptions, port: number): Auth {
  return new Auth({
    username: opts.username ?? 'admin',
    password: opts.password,
    realm: 'RS realm',
    algorithm: opts.digestAlgorithm ?? 'MD5',
    cookieName: `session_${port}`,
    sessionTimeoutMs: opts.sessionTimeoutMs ?? 300_000,
    heartbeatTimeoutMs: opts.heartbeatTimeoutMs ?? 0,
    tokenInBody: opts.tokenInBody ?? false,
    rotateCsrf: opts.rotateCsrf ?? false,
    maxFailures: opts.maxLoginFailures ?? 5,
    lockoutMs: opts.lockoutMs ?? 60_000,
    maxSessions: 32,
  });
}

/** Every route the device serves: its pages, the alarm push settings and maintenance. */
function mountRoutes(parts: Parts, auth: Auth, routes: Front['routes']): { push: EventPush; maintenance: Maintenance } {
  const { opts, profile, device, events, activity, firmware, ipcFirmware, host } = parts;
  const mac = randomBytes(6);
  mac[0] = 0x00; // a unicast, globally administered-looking address
  const macText = [...mac].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join('-');
  const pages = buildRoutes({
    device,
    auth,
    events,
    activity,
    firmware,
    ipcFirmware,
    mac: macText,
    tokenInBody: opts.tokenInBody ?? false,
    channelParamForm: opts.channelParamForm ?? (profile.legacy ? 'array' : 'wrapped'),
    disarming: opts.disarming ?? !profile.legacy,
    linkageManage: opts.linkageManage ?? true,
    serial: `SIM${randomBytes(6).toString('hex').toUpperCase()}`,
    // Beyond 2^53: a client reading it as a JS number loses the last digits.
    devType: (2n ** 63n + BigInt(randomBytes(2).readUInt16BE())).toString(),
  });
  const deviceName = profile.name === 'ipc' ? 'IPC' : 'NVR';
  const push = new EventPush({ mac: macText, deviceName, ip: host, legacyTime: profile.legacy }, host);
  const maintenance = new Maintenance({
    device,
    password: opts.password,
    cameraPasswords: opts.cameraPasswords ?? {},
    rebootMs: opts.rebootMs ?? 3000,
    reboot: () => firmware.reboot(),
  });
  for (const [path, route] of [...pages, ...push.routes(), ...maintenance.routes(), ...parts.recordings.routes()]) routes.set(path, route);
  firmware.verifyAuth = (a) => maintenance.verifyIssued(a, 'base_secondary_authentication');
  activity.onRaise = (a) => {
    parts.recordings.alarm(a);
    push.alarm(a);
  };
  return { push, maintenance };
}

/** What a test does to the device as its user or its hardware would. */
function controls({ device, activity, recordings }: Parts) {
  return {
    setRecording: (channel: string, on: boolean) => recordings.setRecording(channel, on),
    timeZone: recordings.zone,
    raiseAlarm(a: AlarmRequest | string, member?: string, status?: boolean) {
      activity.raise(
        typeof a === 'string' ? { channel: a, type: LEGACY_MEMBERS[member ?? ''] ?? (member as AlarmType), active: status! } : a,
      );
    },
    raiseDiskAlarm: (d: DiskAlarm) => activity.raiseDisk(d),
    setLive(channel: string, change: Record<string, unknown>) {
      const ch = liveChannel(device, channel);
      if (!('id' in ch)) throw new Error(`setLive: ${ch.reason}`);
      const { problems, changes } = judgeLiveSet(ch, { ...change, operation_type: 'All' });
      if (problems.length) throw new Error(`setLive: ${problems.join('; ')}`);
      Object.assign(device.state[LIVE_PAGE].channel_info![ch.id], changes);
      activity.liveChanged(ch.id);
    },
    setOnline: (channel: string, online: boolean) => device.setOnline(channel, online),
    renameChannel: (channel: string, name: string) => device.rename(channel, name),
    lastSnapshot: (channel: string) => device.pictures.get(channel),
    ptz(channel: string) {
      if (!device.channel(channel)?.ptz) throw new Error(`ptz: ${channel} has no PTZ`);
      return ptzOf(device).state(channel);
    },
    setPtzPreset(channel: string, no: number, name?: string) {
      if (!device.channel(channel)?.ptz) throw new Error(`setPtzPreset: ${channel} has no PTZ`);
      ptzOf(device).setPreset(channel, no, name);
    },
  } satisfies Partial<Simulator>;
}
