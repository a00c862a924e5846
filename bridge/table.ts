/**
 * THE table: every state key the bridge publishes, where its value lives on the device, how Home
 * Assistant shows it and where its bounds come from. Polling (which pages to read), state building,
 * discovery and commands all read this table; adding a field is adding one row.
 */

export type Platform = 'switch' | 'number' | 'select' | 'alarm_control_panel' | 'sensor' | 'binary_sensor';
export type Level = 'device' | 'channel';

/** Where a value comes from. */
export type Source =
  /** A device page: value at `field` inside the channel block (`channel_info.<ch>`) or inside `data`. */
  | { kind: 'page'; page: PageName; field: readonly string[] }
  /** `/API/SystemInfo/Base/Get` member (device level, read-only). */
  | { kind: 'info'; field: 'device_type' | 'software_version' | 'hardware_version' | 'serial_number' | 'mac_address' }
  /** Channel connection state from the channel list (read-only). */
  | { kind: 'online' };

export interface Row {
  key: string;
  level: Level;
  source: Source;
  /** Range descriptor the bounds come from (same level and page): defaults to the value field. */
  bounds?: readonly string[];
  platform: Platform;
  /** Entity name in Home Assistant (the device name is prefixed by Home Assistant). */
  name: string;
  category?: 'config' | 'diagnostic';
  unit?: string;
  icon?: string;
  deviceClass?: string;
  /** Home Assistant number entity: slider or box. */
  numberMode?: 'slider' | 'box';
  /** Bare values accepted on `set/<key>` besides ON/OFF/true/false (alarm panel: DISARM/ARM_AWAY). */
  words?: Readonly<Record<string, boolean>>;
}

/** Pages the table reads, and how their Get and Set bodies are shaped. */
export interface PageSpec {
  /** `data` of Get (and Range) requests. */
  getData?: Record<string, unknown>;
  /** Extra members of a Set `data` (page_type...). */
  setData?: Record<string, unknown>;
  /**
   * `channels`: Set carries the touched channel blocks (writable members of the Get block, merged with the
   * changes); `whole`: Set carries the whole writable page (device-level members and every channel block).
   */
  setShape: 'channels' | 'whole';
  /** Members added to every channel block of a Set (e.g. `chn_index`). */
  blockMeta?: (channel: string) => Record<string, unknown>;
  /** Keys that are not parameters (exempt from Range checks). */
  metaKeys?: readonly string[];
}

export const PAGES = {
  'AlarmConfig/Deterrence': {
    getData: { page_type: 'ChannelConfig' },
    setData: { page_type: 'ChannelConfig' },
    setShape: 'channels',
    blockMeta: (ch: string) => ({ chn_index: ch }),
    metaKeys: ['page_type', 'chn_index'],
  },
  'AlarmConfig/VoiceAlarm': { setShape: 'channels' },
  'DeviceConfig/Audio': { setShape: 'channels' },
  'LinkageConfig/LinkageManage': { setShape: 'whole' },
} as const satisfies Record<string, PageSpec>;

export type PageName = keyof typeof PAGES;

export function pageSpec(page: string): PageSpec | undefined {
  return (PAGES as Record<string, PageSpec>)[page];
}

const page = (p: PageName, ...field: string[]): Source => ({ kind: 'page', page: p, field });
const DISARM_WORDS = { DISARM: true, DISARMED: true, ARM_AWAY: false, ARM: false, ARMED_AWAY: false } as const;
/** `disarm_<what>`: whether disarming withdraws the `linkage_<what>` linkage (a config switch of the recorder). */
const disarm = (what: string, label: string, icon: string): Row => ({
  key: `disarm_${what}`, level: 'device', source: page('LinkageConfig/LinkageManage', 'linkage_info', `linkage_${what}`),
  platform: 'switch', name: `Disarm ${label}`, category: 'config', icon,
});

export const TABLE: readonly Row[] = [
  // ---- channel level -------------------------------------------------------------------------
  { key: 'online', level: 'channel', source: { kind: 'online' }, platform: 'binary_sensor', name: 'Online',
    category: 'diagnostic', deviceClass: 'connectivity' },
  // Alarm reaction (config entities): what the channel does when an alarm fires. The keys `floodlight` and
  // `siren` are reserved for the live light and siren (PreviewChannel/Floodlight2AudioAlarm).
  { key: 'floodlight_on_alarm', level: 'channel', source: page('AlarmConfig/Deterrence', 'flood_light_switch'), platform: 'switch',
    name: 'Floodlight on alarm', icon: 'mdi:light-flood-down', category: 'config' },
  { key: 'floodlight_duration', level: 'channel', source: page('AlarmConfig/Deterrence', 'bright_time'), platform: 'number',
    name: 'Floodlight duration', unit: 's', icon: 'mdi:timer-outline', category: 'config', numberMode: 'box' },
  { key: 'floodlight_mode', level: 'channel', source: page('AlarmConfig/Deterrence', 'flood_light_mode'), platform: 'select',
    name: 'Floodlight mode', icon: 'mdi:lightbulb-on-outline', category: 'config' },
  { key: 'floodlight_strobe', level: 'channel', source: page('AlarmConfig/Deterrence', 'strobe_frequency'), platform: 'select',
    name: 'Floodlight strobe', icon: 'mdi:lightbulb-alert-outline', category: 'config' },
  { key: 'siren_on_alarm', level: 'channel', source: page('AlarmConfig/VoiceAlarm', 'siren_switch'), platform: 'switch',
    name: 'Siren on alarm', icon: 'mdi:alarm-light-outline', category: 'config' },
  { key: 'siren_duration', level: 'channel', source: page('AlarmConfig/VoiceAlarm', 'siren_time'), platform: 'number',
    name: 'Siren duration', unit: 's', icon: 'mdi:timer-outline', category: 'config', numberMode: 'box' },
  { key: 'siren_volume', level: 'channel', source: page('AlarmConfig/VoiceAlarm', 'siren_value'), platform: 'number',
    name: 'Siren volume', icon: 'mdi:volume-high', category: 'config', numberMode: 'slider' },
  { key: 'siren_tone', level: 'channel', source: page('AlarmConfig/VoiceAlarm', 'siren_type'), platform: 'select',
    name: 'Siren tone', icon: 'mdi:music-note', category: 'config' },
  { key: 'disarmed', level: 'channel', source: page('LinkageConfig/LinkageManage', 'enable'), platform: 'switch',
    name: 'Disarmed', icon: 'mdi:shield-off-outline' },
  { key: 'audio_in_volume', level: 'channel', source: page('DeviceConfig/Audio', 'in_volume'), platform: 'number',
    name: 'Audio input volume', icon: 'mdi:microphone', category: 'config', numberMode: 'slider' },
  { key: 'audio_out_volume', level: 'channel', source: page('DeviceConfig/Audio', 'out_volume'), platform: 'number',
    name: 'Audio output volume', icon: 'mdi:volume-medium', category: 'config', numberMode: 'slider' },

  // ---- device level --------------------------------------------------------------------------
  { key: 'disarmed', level: 'device', source: page('LinkageConfig/LinkageManage', 'enable'), platform: 'alarm_control_panel',
    name: 'Alarm', icon: 'mdi:shield-home-outline', words: DISARM_WORDS },
  disarm('siren', 'siren', 'mdi:alarm-light-off-outline'),
  disarm('floodlight', 'floodlight', 'mdi:lightbulb-off-outline'),
  disarm('enforcerlight', 'red/blue light', 'mdi:car-light-alert'),
  disarm('alarmout', 'alarm output', 'mdi:electric-switch'),
  disarm('ptz', 'PTZ', 'mdi:camera-control'),
  disarm('voiceprompt', 'voice prompt', 'mdi:account-voice-off'),
  disarm('mobile_push', 'mobile push', 'mdi:cellphone-message-off'),
  { key: 'model', level: 'device', source: { kind: 'info', field: 'device_type' }, platform: 'sensor', name: 'Model',
    category: 'diagnostic', icon: 'mdi:cctv' },
  { key: 'firmware', level: 'device', source: { kind: 'info', field: 'software_version' }, platform: 'sensor', name: 'Firmware',
    category: 'diagnostic', icon: 'mdi:chip' },
];

export type PageRow = Row & { source: { kind: 'page'; page: PageName; field: readonly string[] } };

export function isPageRow(row: Row): row is PageRow {
  return row.source.kind === 'page';
}

/** Rows of one level, by key. */
export const ROWS: Readonly<Record<Level, ReadonlyMap<string, Row>>> = {
  device: new Map(TABLE.filter((r) => r.level === 'device').map((r) => [r.key, r])),
  channel: new Map(TABLE.filter((r) => r.level === 'channel').map((r) => [r.key, r])),
};

export function rowFor(level: Level, key: string): Row | undefined {
  return ROWS[level].get(key);
}

/** Read-only rows: values the device reports but that no Set can change. */
export function isReadOnlyRow(row: Row): boolean {
  return !isPageRow(row) || row.platform === 'sensor' || row.platform === 'binary_sensor';
}

/** Pages the bridge polls: every page a row reads. */
export const POLLED_PAGES: readonly PageName[] = [...new Set(TABLE.filter(isPageRow).map((r) => r.source.page))];

/**
 * Range path of a row's bounds descriptor for a channel (or the device): `['channel_info', 'CH1', 'siren_time']`
 * or `['linkage_info', 'linkage_siren']`.
 */
export function boundsPath(row: PageRow, channel?: string): string[] {
  const field = [...(row.bounds ?? row.source.field)];
  return row.level === 'channel' ? ['channel_info', channel ?? '', ...field] : field;
}
