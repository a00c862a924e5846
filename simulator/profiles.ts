/**
 * Device profiles: which channels a simulated device has and which features each channel carries.
 * Everything else (Range, initial state, Get markers) is derived from this one description.
 */

export type ProfileName = 'nvr' | 'ipc';
export type ChannelKind = 'analog' | 'digital' | 'wifi';

export interface ChannelSpec {
  id: string;
  index: number;
  kind: ChannelKind;
  /** Initial connection state; IP_CH channels go offline and back, the Wi-Fi battery camera to Sleep (setOnline). */
  online: boolean;
  /** false: an empty slot (`NotConfigured`), on no page, never online. */
  configured: boolean;
  /** Camera hardware: white light, siren (AudioAlarm), red/blue light, PIR sensor, camera alarm in/outputs. */
  floodlight: boolean;
  /** A full-colour camera (vendor ImageControl CH15): its white light has a mode (`FullColorMode.white_light`). */
  fullColour: boolean;
  siren: boolean;
  redBlueLight: boolean;
  pir: boolean;
  alarmIn: number;
  alarmOut: number;
  /** `intelligent_ability` as ChannelInfo lists it (PVD, LCD, PID, FD, SOD, CrossCount...). */
  ai: readonly string[];
  /** Wi-Fi battery camera (`wireless_ipc_type` 1). */
  battery: boolean;
  floodModes: readonly string[];
  sirenTypes: readonly string[];
  audio: boolean;
  /** `audio_enable` is present on some channels only. */
  audioEnable: boolean;
  /** Intelligent channel: cross counting and event settings (face detection). */
  intelligent: boolean;
  /** A PTZ camera: listed as a `ptz_chn` target of PTZ linkage. */
  ptz: boolean;
}

export interface Profile {
  name: ProfileName;
  firmware: string;
  /** Firmware 8.2.3 or earlier: `telnet_switch` (and, by default, the integer PTZ point index). */
  legacy: boolean;
  /** linkage_ptz_point_index Range carries the 256-bit hex preset set (default: firmware after 8.2.3). */
  ptzHex: boolean;
  largeCapacity: boolean;
  deviceType: string;
  hardwareVersion: string;
  softwareVersion: string;
  channels: readonly ChannelSpec[];
}

interface ProfileOptions {
  profile?: ProfileName;
  firmware?: string;
  channels?: number;
  largeCapacity?: boolean;
  /** Override the PTZ index form the firmware implies (the spec dates the hex form from 8.2.3 itself). */
  ptzIndexForm?: 'int' | 'hex';
  /** NVR: how many of the channels are analog (default half, at least 1). */
  analog?: number;
  /** NVR: digital channel ids counted per kind from 1 (`IP_CH1` after 4 analog: vendor, default) or by slot (`IP_CH5`). */
  channelNumbering?: ChannelNumbering;
}

/**
 * `vendor`: `IP_CH1` is the first digital channel whatever the analog count (StreamUrl sample: `IP_CH1` is stream
 * channel 17 after 16 analog ones), `WIFI_CH1` the first Wi-Fi one. `slot`: named after the slot (`IP_CH5`, `WIFI_CH8`).
 */
export type ChannelNumbering = 'vendor' | 'slot';

/** Deterrence `flood_light_mode` (vendor: Warninglight = steady, Strobe = flashing). */
const FLOOD_MODES = ['Warninglight', 'Strobe'] as const;
const SIREN_TYPES = ['Alarm1', 'Alarm2', 'User-defined1', 'User-defined2', 'User-defined3'] as const;

/** '8.2.3', 'V8.2.3', '8.2.3.1' -> [8, 2, 3, 1]; throws on anything else. */
function parseFirmware(firmware: string): number[] {
  const m = /^V?(\d+(?:\.\d+)*)$/i.exec(firmware.trim());
  if (!m) throw new Error(`firmware must look like 8.2.4, got ${JSON.stringify(firmware)}`);
  return m[1].split('.').map(Number);
}

function isLegacyFirmware(firmware: string): boolean {
  const v = parseFirmware(firmware);
  const ref = [8, 2, 3];
  for (let i = 0; i < ref.length; i++) {
    const x = v[i] ?? 0;
    if (x !== ref[i]) return x < ref[i];
  }
  return true; // equal to 8.2.3 (extra parts ignored)
}

const AI_FULL = ['PVD', 'LCD', 'PID', 'FD', 'CrossCount'] as const;

/** One position of the 8-channel pattern: hardware and state beyond the channel kind. */
type Slot = Pick<ChannelSpec, 'floodlight' | 'fullColour' | 'siren' | 'redBlueLight' | 'pir' | 'alarmIn' | 'alarmOut' | 'ai' | 'audio'> & {
  /** Offline when the slot is a digital channel. */
  offline?: boolean;
  notConfigured?: boolean;
  fewSirenTypes?: boolean;
};
const none: Slot = {
  floodlight: false,
  fullColour: false,
  siren: false,
  redBlueLight: false,
  pir: false,
  alarmIn: 0,
  alarmOut: 0,
  ai: [],
  audio: true,
};

/**
 * The 8-channel pattern (repeats every 8 channels, so a 16-channel bench device has the same variety):
 *   1 CH1      floodlight, siren, red/blue light, PIR, 1 alarm in/out, AI PVD LCD PID FD CrossCount
 *   2 CH2      floodlight, siren (two siren types), no audio settings
 *   3 CH3      siren only, AI PVD
 *   4 CH4      floodlight only: a full-colour camera (white-light mode on ImageControl)
 *   5 IP_CH1   IP camera: floodlight, siren, PIR, 1 alarm in/out, AI PVD LCD PID FD SOD CrossCount, PTZ
 *   6 IP_CH2   IP camera, offline (Range: status only; Get: {status:"Offline", reason:"Not support"})
 *   7 IP_CH3   empty slot: NotConfigured (on no page; Get {reason:"Not configured"})
 *   8 WIFI_CH1 Wi-Fi battery camera: siren, PIR, AI PVD
 * (vendor numbering; by slot: IP_CH5, IP_CH6, IP_CH7, WIFI_CH8)
 */
const PATTERN: readonly Slot[] = [
  { ...none, floodlight: true, siren: true, redBlueLight: true, pir: true, alarmIn: 1, alarmOut: 1, ai: AI_FULL },
  { ...none, floodlight: true, siren: true, audio: false, fewSirenTypes: true },
  { ...none, siren: true, ai: ['PVD'] },
  { ...none, floodlight: true, fullColour: true },
  { ...none, floodlight: true, siren: true, pir: true, alarmIn: 1, alarmOut: 1, ai: ['PVD', 'LCD', 'PID', 'FD', 'SOD', 'CrossCount'] },
  { ...none, floodlight: true, siren: true, offline: true },
  { ...none, notConfigured: true },
  { ...none, siren: true, pir: true, ai: ['PVD'], audio: false },
];

const ID_PREFIX: Readonly<Record<ChannelKind, string>> = { analog: 'CH', digital: 'IP_CH', wifi: 'WIFI_CH' };

/** NVR layout for n channels: analog (CH<i>, half by default), then digital (IP_CH), the last one Wi-Fi (WIFI_CH). */
function nvrChannels(n: number, analog: number, numbering: ChannelNumbering): ChannelSpec[] {
  const wifi = n - analog >= 1 && n >= 2 ? 1 : 0;
  const out: ChannelSpec[] = [];
  const counted: Record<ChannelKind, number> = { analog: 0, digital: 0, wifi: 0 };
  for (let i = 1; i <= n; i++) {
    const kind: ChannelKind = i <= analog ? 'analog' : i > n - wifi ? 'wifi' : 'digital';
    counted[kind]++;
    const id = `${ID_PREFIX[kind]}${numbering === 'slot' ? i : counted[kind]}`;
    // The Wi-Fi slot always gets the battery camera's hardware.
    const slot = kind === 'wifi' ? PATTERN[7] : PATTERN[(i - 1) % 8];
    const configured = !slot.notConfigured || kind === 'wifi';
    const plain = configured ? slot : none;
    out.push({
      id,
      index: i,
      kind,
      online: configured && !(kind === 'digital' && slot.offline),
      configured,
      floodlight: plain.floodlight,
      fullColour: plain.fullColour,
      siren: plain.siren,
      redBlueLight: plain.redBlueLight,
      pir: plain.pir,
      alarmIn: plain.alarmIn,
      alarmOut: plain.alarmOut,
      ai: plain.ai,
      battery: kind === 'wifi',
      floodModes: FLOOD_MODES,
      sirenTypes: slot.fewSirenTypes ? SIREN_TYPES.slice(0, 2) : SIREN_TYPES,
      audio: configured && plain.audio,
      audioEnable: kind !== 'analog',
      intelligent: plain.ai.includes('CrossCount'),
      ptz: configured && kind === 'digital',
    });
  }
  return out;
}

/** IPC: one camera with every piece of hardware. */
function ipcChannels(): ChannelSpec[] {
  return [
    {
      id: 'CH1',
      index: 1,
      kind: 'analog',
      online: true,
      configured: true,
      floodlight: true,
      fullColour: false,
      siren: true,
      redBlueLight: true,
      pir: true,
      alarmIn: 1,
      alarmOut: 1,
      ai: [...AI_FULL, 'SOD'],
      battery: false,
      floodModes: FLOOD_MODES,
      sirenTypes: SIREN_TYPES,
      audio: true,
      audioEnable: true,
      intelligent: true,
      ptz: true,
    },
  ];
}

export function buildProfile(opts: ProfileOptions = {}): Profile {
  const name = opts.profile ?? 'nvr';
  if (name !== 'nvr' && name !== 'ipc') throw new Error(`profile must be nvr or ipc, got ${JSON.stringify(name)}`);
  const firmware = (opts.firmware ?? '8.2.4').replace(/^v/i, '');
  const legacy = isLegacyFirmware(firmware);
  let channels: ChannelSpec[];
  if (name === 'ipc') {
    if (opts.channels !== undefined && opts.channels !== 1) throw new Error('the ipc profile has exactly one channel');
    channels = ipcChannels();
  } else {
    const n = opts.channels ?? 8;
    if (!Number.isInteger(n) || n < 1 || n > 256) throw new Error(`channels must be an integer 1-256, got ${n}`);
    const analog = opts.analog ?? Math.max(1, Math.floor(n / 2));
    if (!Number.isInteger(analog) || analog < 1 || analog > n) throw new Error(`analog must be an integer 1-${n}, got ${analog}`);
    const numbering = opts.channelNumbering ?? 'vendor';
    if (numbering !== 'vendor' && numbering !== 'slot')
      throw new Error(`channelNumbering must be vendor or slot, got ${JSON.stringify(numbering)}`);
    channels = nvrChannels(n, analog, numbering);
  }
  return {
    name,
    firmware,
    legacy,
    ptzHex: opts.ptzIndexForm ? opts.ptzIndexForm === 'hex' : !legacy,
    largeCapacity: opts.largeCapacity ?? false,
    deviceType: name === 'ipc' ? 'I6316' : `N75${String(channels.length).padStart(2, '0')}`,
    hardwareVersion: name === 'ipc' ? 'IPC-B2-V1.0' : 'NVR-B1-V2.0',
    softwareVersion: `V${firmware}-20221014`,
    channels,
  };
}
