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
  /** Initial connection state; only digital channels can be offline (setOnline). */
  online: boolean;
  floodlight: boolean;
  floodModes: readonly string[];
  siren: boolean;
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

export interface ProfileOptions {
  profile?: ProfileName;
  firmware?: string;
  channels?: number;
  largeCapacity?: boolean;
  /** Override the PTZ index form the firmware implies (the spec dates the hex form from 8.2.3 itself). */
  ptzIndexForm?: 'int' | 'hex';
}

export const FLOOD_MODES = ['Whitelight', 'Warninglight', 'Smartlight'] as const;
export const SIREN_TYPES = ['Alarm1', 'Alarm2', 'User-defined1', 'User-defined2', 'User-defined3'] as const;

/** '8.2.3', 'V8.2.3', '8.2.3.1' -> [8, 2, 3, 1]; throws on anything else. */
export function parseFirmware(firmware: string): number[] {
  const m = /^V?(\d+(?:\.\d+)*)$/i.exec(firmware.trim());
  if (!m) throw new Error(`firmware must look like 8.2.4, got ${JSON.stringify(firmware)}`);
  return m[1].split('.').map(Number);
}

export function isLegacyFirmware(firmware: string): boolean {
  const v = parseFirmware(firmware);
  const ref = [8, 2, 3];
  for (let i = 0; i < ref.length; i++) {
    const x = v[i] ?? 0;
    if (x !== ref[i]) return x < ref[i];
  }
  return true; // equal to 8.2.3 (extra parts ignored)
}

/**
 * NVR layout for n channels: half analog (CH<i>), then digital (IP_CH<i>), the last one WIFI_CH<n>.
 * 8 channels: CH1-CH4, IP_CH5-IP_CH7, WIFI_CH8. Feature holes repeat every 8 channels so that a
 * 16-channel bench device has the same variety.
 */
function nvrChannels(n: number): ChannelSpec[] {
  const analog = Math.max(1, Math.floor(n / 2));
  const wifi = n >= 2 ? 1 : 0;
  const out: ChannelSpec[] = [];
  for (let i = 1; i <= n; i++) {
    const kind: ChannelKind = i <= analog ? 'analog' : i > n - wifi ? 'wifi' : 'digital';
    const id = kind === 'analog' ? `CH${i}` : kind === 'digital' ? `IP_CH${i}` : `WIFI_CH${i}`;
    const p = ((i - 1) % 8) + 1; // position in the 8-channel pattern
    out.push({
      id,
      index: i,
      kind,
      online: !(kind === 'digital' && p === 6),
      floodlight: p !== 3 && kind !== 'wifi',
      floodModes: p === 7 ? FLOOD_MODES.slice(0, 2) : FLOOD_MODES,
      siren: p !== 4,
      sirenTypes: p === 2 ? SIREN_TYPES.slice(0, 2) : SIREN_TYPES,
      audio: p !== 2 && kind !== 'wifi',
      audioEnable: kind !== 'analog',
      intelligent: p === 1 || p === 5,
      ptz: kind === 'digital',
    });
  }
  return out;
}

function ipcChannels(): ChannelSpec[] {
  return [{
    id: 'CH1', index: 1, kind: 'analog', online: true, floodlight: true, floodModes: FLOOD_MODES, siren: true,
    sirenTypes: SIREN_TYPES, audio: true, audioEnable: true, intelligent: true, ptz: true,
  }];
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
    channels = nvrChannels(n);
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
