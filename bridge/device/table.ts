/**
 * THE table: every state key the bridge publishes, in the manner of Home Assistant's Reolink entity descriptions.
 * A row says how its value is read (its `source`), when the channel or device supports it (Range, the live page,
 * the channel's hardware: R2) and, by the same source, how a command is written (sources.ts says it for each kind:
 * support, read and write):
 *
 * - `page`: a configuration page named as core declares it; written with `client.update(page, changes)`.
 * - `live`: the live page (`client.live(ch)`); written with `client.setLive(ch, {<control>: value})`.
 * - `member`: whether the channel is listed in a page's list of channel ids (`disarming_channel`); written with
 *   `client.update(page, {<field>: list with the channel added or removed})`, the list read inside the write queue.
 * - `disarm`: the recorder's disarmed state (`client.disarmState()`); written with `client.setDisarmed(bool)`.
 * - `identity`, `online`: read-only.
 *
 * Polling (which pages to read), state building, discovery and commands all read this table; adding a field is
 * adding one row. How a page is requested and written (page_type, chn_index, write rule) lives in core's page
 * declarations only.
 */
import { LIVE_CONTROLS, type DisarmPage, type LiveControlSpec } from '../../core';

export type Platform = 'switch' | 'number' | 'select' | 'alarm_control_panel' | 'sensor' | 'binary_sensor' | 'light' | 'siren';
export type Level = 'device' | 'channel';

/** Live controls of `client.setLive()` (core's table of live controls). */
export type LiveControl = keyof typeof LIVE_CONTROLS;

/** Where a value comes from (and so how it is written). */
export type Source =
  /** A configuration page: value at `field` inside the channel block (`channel_info.<ch>`) or inside `data`. */
  | {
      kind: 'page';
      page: string;
      field: readonly string[];
      onlyWhenDisarmedVia?: DisarmPage;
      /**
       * Where devices may place the member instead (`['white_light']` flat beside `FullColorMode.white_light`):
       * Range and Get are each read at `field`, else here, and a write goes where the Get has it (`placedField`).
       */
      or?: readonly string[];
    }
  /** Whether the channel is listed in `data.<field>`, a list of channel ids on a configuration page (`["CH1","CH3"]`). */
  | { kind: 'member'; page: string; field: readonly string[]; onlyWhenDisarmedVia?: DisarmPage }
  /** The live page of the channel (what the light or siren does now). */
  | { kind: 'live'; control: LiveControl }
  /** The recorder's disarmed state, from whichever page the device disarms through. */
  | { kind: 'disarm' }
  /** Who the device is (`client.identity()`). */
  | { kind: 'identity'; field: 'model' | 'firmware' }
  /** Channel connection state from the channel slots (read-only). */
  | { kind: 'online' };

export interface Row {
  key: string;
  level: Level;
  source: Source;
  /** Home Assistant platform; absent: a state key that belongs to another entity (the light's brightness). */
  platform?: Platform;
  /** Entity name in Home Assistant (`has_entity_name`: the device name is prefixed by Home Assistant). */
  name: string;
  category?: 'config' | 'diagnostic';
  unit?: string;
  icon?: string;
  deviceClass?: string;
  /** Home Assistant number entity: slider or box. */
  numberMode?: 'slider' | 'box';
  /** Bare values accepted on `set/<key>` besides ON/OFF/true/false (alarm panel: DISARM/ARM_AWAY). */
  words?: Readonly<Record<string, boolean>>;
  /**
   * Rarely used or advanced: announced to Home Assistant disabled (`enabled_by_default: false`, as the Reolink
   * integration does), so that a recorder does not land hundreds of entities; a user enables the ones wanted. A
   * channel's everyday settings stay enabled (floodlight and siren on alarm, motion detection, day/night, recording);
   * durations, volumes, modes and tones, and diagnostics, are advanced.
   */
  advanced?: true;
}

const page = (p: string, ...field: string[]): Source => ({ kind: 'page', page: p, field });
const live = (control: LiveControl): Source => ({ kind: 'live', control });
const DISARM_WORDS = { DISARM: true, DISARMED: true, ARM_AWAY: false, ARM: false, ARMED_AWAY: false } as const;

const DISARMING = 'AlarmConfig/Disarming';
const LINKAGE_MANAGE = 'LinkageConfig/LinkageManage';

/**
 * `disarm_<what>`: whether disarming withdraws an action (Disarming `action.<what>`); a config switch of the recorder,
 * named as the setting it is ("Email off while disarmed"), not as an action.
 */
const disarmAction = (what: string, label: string, icon: string): Row => ({
  key: `disarm_${what}`,
  level: 'device',
  source: page(DISARMING, 'action', what),
  platform: 'switch',
  name: `${label} off while disarmed`,
  category: 'config',
  icon,
  advanced: true,
});
/** The same switches on devices that disarm through LinkageManage (`linkage_info.linkage_<what>`). */
const disarmLinkage = (what: string, label: string, icon: string): Row => ({
  key: `disarm_${what}`,
  level: 'device',
  source: { kind: 'page', page: LINKAGE_MANAGE, field: ['linkage_info', `linkage_${what}`], onlyWhenDisarmedVia: LINKAGE_MANAGE },
  platform: 'switch',
  name: `${label} off while disarmed`,
  category: 'config',
  icon,
  advanced: true,
});

const IMAGE_CONTROL = 'ChannelConfig/ImageControl';

/** Motion or PIR detection of a channel: on/off, sensitivity (bounds from Range), email on the alarm. */
const detectionRows = (what: 'motion' | 'pir', p: string, label: string, icon: string): Row[] => [
  {
    key: `${what}_detection`,
    level: 'channel',
    source: page(p, 'switch'),
    platform: 'switch',
    name: `${label} detection`,
    icon,
    category: 'config',
    // Motion detection is the everyday switch; the PIR sensor's is set once (Reolink announces its PIR switch disabled).
    ...(what === 'pir' ? { advanced: true as const } : {}),
  },
  {
    key: `${what}_sensitivity`,
    level: 'channel',
    source: page(p, 'sensitivity'),
    platform: 'number',
    name: `${label} sensitivity`,
    icon: 'mdi:tune-vertical',
    category: 'config',
    numberMode: 'slider',
    advanced: true, // set once; the detection switch is the weekly control
  },
  {
    key: `${what}_email`,
    level: 'channel',
    source: page(p, 'send_email'),
    platform: 'switch',
    name: `Email on ${label === 'PIR' ? 'PIR' : 'motion'} alarm`,
    icon: 'mdi:email-alert-outline',
    category: 'config',
    advanced: true,
  },
];

/** The published live controls of core's table, in its order. */
function liveRows(): Row[] {
  return Object.entries(LIVE_CONTROLS).flatMap(([control, c]: [string, LiveControlSpec]) => {
    const p = c.published;
    if (!p) return [];
    const row: Row = { key: p.key, level: 'channel', source: live(control as LiveControl), name: p.name };
    if (p.entity) row.platform = p.entity;
    if (p.icon) row.icon = p.icon;
    return [row];
  });
}

export const TABLE: readonly Row[] = [
  // ---- channel level -------------------------------------------------------------------------
  {
    key: 'online',
    level: 'channel',
    source: { kind: 'online' },
    platform: 'binary_sensor',
    name: 'Online',
    category: 'diagnostic',
    deviceClass: 'connectivity',
    advanced: true,
  },
  // Live: what the light and siren do now (PreviewChannel/Floodlight2AudioAlarm), as core's table publishes them.
  ...liveRows(),
  // Alarm reaction (config entities): what the channel does when an alarm fires.
  {
    key: 'floodlight_on_alarm',
    level: 'channel',
    source: page('AlarmConfig/Deterrence', 'flood_light_switch'),
    platform: 'switch',
    name: 'Floodlight on alarm',
    icon: 'mdi:light-flood-down',
    category: 'config',
  },
  {
    key: 'floodlight_duration',
    level: 'channel',
    source: page('AlarmConfig/Deterrence', 'bright_time'),
    platform: 'number',
    name: 'Floodlight duration',
    unit: 's',
    icon: 'mdi:timer-outline',
    category: 'config',
    numberMode: 'box',
    advanced: true,
  },
  {
    key: 'floodlight_mode',
    level: 'channel',
    source: page('AlarmConfig/Deterrence', 'flood_light_mode'),
    platform: 'select',
    name: 'Floodlight mode',
    icon: 'mdi:lightbulb-on-outline',
    category: 'config',
    advanced: true,
  },
  {
    key: 'floodlight_strobe',
    level: 'channel',
    source: page('AlarmConfig/Deterrence', 'strobe_frequency'),
    platform: 'select',
    name: 'Floodlight strobe',
    icon: 'mdi:lightbulb-alert-outline',
    category: 'config',
    advanced: true,
  },
  {
    key: 'siren_on_alarm',
    level: 'channel',
    source: page('AlarmConfig/VoiceAlarm', 'siren_switch'),
    platform: 'switch',
    name: 'Siren on alarm',
    icon: 'mdi:alarm-light-outline',
    category: 'config',
  },
  {
    key: 'siren_duration',
    level: 'channel',
    source: page('AlarmConfig/VoiceAlarm', 'siren_time'),
    platform: 'number',
    name: 'Siren duration',
    unit: 's',
    icon: 'mdi:timer-outline',
    category: 'config',
    numberMode: 'box',
    advanced: true,
  },
  {
    key: 'siren_volume',
    level: 'channel',
    source: page('AlarmConfig/VoiceAlarm', 'siren_value'),
    platform: 'number',
    name: 'Siren volume',
    icon: 'mdi:volume-high',
    category: 'config',
    numberMode: 'slider',
    advanced: true,
  },
  {
    key: 'siren_tone',
    level: 'channel',
    source: page('AlarmConfig/VoiceAlarm', 'siren_type'),
    platform: 'select',
    name: 'Siren tone',
    icon: 'mdi:music-note',
    category: 'config',
    advanced: true,
  },
  // Whether disarming covers the channel: Disarming lists the channels (`disarming_channel`), LinkageManage has a
  // switch per channel. One key, read from the page the recorder disarms through.
  {
    key: 'disarmed',
    level: 'channel',
    source: { kind: 'member', page: DISARMING, field: ['disarming_channel'], onlyWhenDisarmedVia: DISARMING },
    platform: 'switch',
    name: 'In disarm set',
    icon: 'mdi:shield-off-outline',
    category: 'config',
    advanced: true,
  },
  {
    key: 'disarmed',
    level: 'channel',
    source: { kind: 'page', page: LINKAGE_MANAGE, field: ['enable'], onlyWhenDisarmedVia: LINKAGE_MANAGE },
    platform: 'switch',
    name: 'In disarm set',
    icon: 'mdi:shield-off-outline',
    category: 'config',
    advanced: true,
  },
  {
    key: 'audio_in_volume',
    level: 'channel',
    source: page('DeviceConfig/Audio', 'in_volume'),
    platform: 'number',
    name: 'Audio input volume',
    icon: 'mdi:microphone',
    category: 'config',
    numberMode: 'slider',
    advanced: true,
  },
  {
    key: 'audio_out_volume',
    level: 'channel',
    source: page('DeviceConfig/Audio', 'out_volume'),
    platform: 'number',
    name: 'Audio output volume',
    icon: 'mdi:volume-medium',
    category: 'config',
    numberMode: 'slider',
    advanced: true,
  },

  // Channel settings users change every week: day/night, IR, detection, recording, privacy (vendor-facts-more k, l, p).
  {
    key: 'day_night',
    level: 'channel',
    source: page(IMAGE_CONTROL, 'ir_cut_mode'),
    platform: 'select',
    name: 'Day/night mode',
    icon: 'mdi:theme-light-dark',
    category: 'config',
  },
  {
    key: 'white_light',
    level: 'channel',
    // A full-colour camera's Get nests it in FullColorMode, its Range (and some firmware's Get) lists it flat (k).
    source: { kind: 'page', page: IMAGE_CONTROL, field: ['FullColorMode', 'white_light'], or: ['white_light'] },
    platform: 'select',
    name: 'White light mode',
    icon: 'mdi:lightbulb-night-outline',
    category: 'config',
    advanced: true,
  },
  {
    key: 'ir_led',
    level: 'channel',
    source: page(IMAGE_CONTROL, 'ir_led'),
    platform: 'select',
    name: 'IR LEDs',
    icon: 'mdi:led-on',
    category: 'config',
    advanced: true,
  },
  ...detectionRows('motion', 'AlarmConfig/Motion', 'Motion', 'mdi:motion-sensor'),
  ...detectionRows('pir', 'AlarmConfig/PIR', 'PIR', 'mdi:motion-sensor'),
  {
    key: 'recording',
    level: 'channel',
    source: page('RecordConfig', 'record_switch'),
    platform: 'switch',
    name: 'Recording',
    icon: 'mdi:record-rec',
    category: 'config',
  },
  {
    key: 'privacy_mask',
    level: 'channel',
    source: page('ChannelConfig/VideoCover', 'privacy_zone_enable'),
    platform: 'switch',
    name: 'Privacy mask',
    icon: 'mdi:eye-off-outline',
    category: 'config',
    advanced: true,
  },

  // ---- device level --------------------------------------------------------------------------
  {
    key: 'disarmed',
    level: 'device',
    source: { kind: 'disarm' },
    platform: 'alarm_control_panel',
    name: 'Alarm',
    icon: 'mdi:shield-home-outline',
    words: DISARM_WORDS,
  },
  disarmAction('buzzer', 'Buzzer', 'mdi:bell-off-outline'),
  disarmAction('alarm_out', 'Alarm output', 'mdi:electric-switch'),
  disarmAction('show_message', 'On-screen message', 'mdi:message-off-outline'),
  disarmAction('send_email', 'Email', 'mdi:email-off-outline'),
  disarmAction('full_screen', 'Full screen', 'mdi:fullscreen-exit'),
  disarmAction('voice_prompts', 'Voice prompts', 'mdi:account-voice-off'),
  disarmAction('event_push_platform', 'Event push', 'mdi:cloud-off-outline'),
  disarmAction('mobile_push', 'Mobile push', 'mdi:cellphone-message-off'),
  disarmLinkage('siren', 'Siren', 'mdi:alarm-light-off-outline'),
  disarmLinkage('floodlight', 'Floodlight', 'mdi:lightbulb-off-outline'),
  disarmLinkage('enforcerlight', 'Red/blue light', 'mdi:car-light-alert'),
  disarmLinkage('alarmout', 'Alarm output', 'mdi:electric-switch'),
  disarmLinkage('ptz', 'PTZ', 'mdi:camera-control'),
  disarmLinkage('voiceprompt', 'Voice prompt', 'mdi:account-voice-off'),
  disarmLinkage('mobile_push', 'Mobile push', 'mdi:cellphone-message-off'),
  {
    key: 'model',
    level: 'device',
    source: { kind: 'identity', field: 'model' },
    platform: 'sensor',
    name: 'Model',
    category: 'diagnostic',
    icon: 'mdi:cctv',
    advanced: true,
  },
  {
    key: 'firmware',
    level: 'device',
    source: { kind: 'identity', field: 'firmware' },
    platform: 'sensor',
    // "Firmware" is the update entity's name (Settings > Updates), where the firmware is installed from.
    name: 'Firmware version',
    category: 'diagnostic',
    icon: 'mdi:chip',
    advanced: true,
  },
];

/** A row read from (and written to) a configuration page: a field of it, or a channel's membership of a list on it. */
export type ConfigRow = Row & { source: Extract<Source, { kind: 'page' | 'member' }> };
export type LiveRow = Row & { source: Extract<Source, { kind: 'live' }> };

export function isConfigRow(row: Row): row is ConfigRow {
  return row.source.kind === 'page' || row.source.kind === 'member';
}

export function isLiveRow(row: Row): row is LiveRow {
  return row.source.kind === 'live';
}

/** Rows of one level, by key (a key may have one row per way the device offers it: `disarm_mobile_push`). */
const ROWS: Readonly<Record<Level, ReadonlyMap<string, readonly Row[]>>> = {
  device: group(TABLE.filter((r) => r.level === 'device')),
  channel: group(TABLE.filter((r) => r.level === 'channel')),
};

function group(rows: readonly Row[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const r of rows) out.set(r.key, [...(out.get(r.key) ?? []), r]);
  return out;
}

/** Every row of a key at a level (usually one). */
export function rowsFor(level: Level, key: string): readonly Row[] {
  return ROWS[level].get(key) ?? [];
}

/** Read-only rows: values the device reports but that no command changes. */
export function isReadOnlyRow(row: Row): boolean {
  return row.source.kind === 'identity' || row.source.kind === 'online' || row.platform === 'sensor' || row.platform === 'binary_sensor';
}

/**
 * Pages of settings users change from Home Assistant (where the bridge sees the write) and rarely on the device
 * itself: a poll reads ONE of them in turn (every page of them within a few polls), not all, so that the idle cost
 * stays at a request or so per poll. Commands always read the page fresh before writing.
 */
export const SETTINGS_PAGES: ReadonlySet<string> = new Set([
  IMAGE_CONTROL,
  'AlarmConfig/Motion',
  'AlarmConfig/PIR',
  'RecordConfig',
  'ChannelConfig/VideoCover',
]);

/** Configuration pages the bridge polls (Range and Get): every page a row reads. */
export const POLLED_PAGES: readonly string[] = [...new Set(TABLE.filter(isConfigRow).map((r) => r.source.page))];

/** Whether a configuration row reads anything on a recorder that disarms through `disarmPage` (`onlyWhenDisarmedVia`). */
export function readsOn(row: ConfigRow, disarmPage: DisarmPage | undefined): boolean {
  return !row.source.onlyWhenDisarmedVia || row.source.onlyWhenDisarmedVia === disarmPage;
}

const PAGES_BY_DISARM_PAGE = new Map<DisarmPage | undefined, readonly string[]>();

/**
 * The pages whose Get a poll reads on a recorder that disarms through `disarmPage`: a page only other recorders'
 * rows read (`onlyWhenDisarmedVia`: LinkageManage where the device has Disarming) publishes nothing here, so it is
 * not asked for every poll.
 */
export function polledPages(disarmPage: DisarmPage | undefined): readonly string[] {
  let pages = PAGES_BY_DISARM_PAGE.get(disarmPage);
  if (!pages) {
    const read = TABLE.filter(isConfigRow).filter((r) => readsOn(r, disarmPage));
    pages = POLLED_PAGES.filter((p) => read.some((r) => r.source.page === p));
    PAGES_BY_DISARM_PAGE.set(disarmPage, pages);
  }
  return pages;
}

const NO_PREFIX: readonly string[] = Object.freeze([]);
const CHANNEL_PREFIX = new Map<string, readonly string[]>();

/**
 * Where a configuration row's Range descriptor sits above its field, for a channel (or the device): `['channel_info',
 * 'CH1']` (then `siren_time`), or nothing (`['linkage_info', 'linkage_siren']`, a channel list `['disarming_channel']`).
 * One shared array per channel: looked up for every row of every channel in every state and discovery build.
 */
export function boundsPrefix(row: ConfigRow, channel?: string): readonly string[] {
  if (row.level !== 'channel' || row.source.kind !== 'page') return NO_PREFIX;
  const ch = channel ?? '';
  let prefix = CHANNEL_PREFIX.get(ch);
  if (!prefix) CHANNEL_PREFIX.set(ch, (prefix = Object.freeze(['channel_info', ch])));
  return prefix;
}

const FIELDS = new WeakMap<ConfigRow, readonly (readonly string[])[]>();

/** The places a configuration row's member may be, in order: its `field`, then the page source's `or`. */
export function fieldsOf(row: ConfigRow): readonly (readonly string[])[] {
  let fields = FIELDS.get(row);
  if (!fields) {
    fields = row.source.kind === 'page' && row.source.or ? [row.source.field, row.source.or] : [row.source.field];
    FIELDS.set(row, fields);
  }
  return fields;
}

/** The first of the row's places (`fieldsOf`) where `has` finds the member (in a Get block, or a Range), if any. */
export function placedField(row: ConfigRow, has: (field: readonly string[]) => boolean): readonly string[] | undefined {
  return fieldsOf(row).find(has);
}
