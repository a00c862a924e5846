/**
 * Alarm types the simulator can raise, one table: the AlarmType key (the project's MQTT state key) -> the
 * vendor's Event/Check member (`motion_alarm`...) or AI `int_subtype` (`pd`, `pd_vd`, `lcd`...), the subscribe
 * `event` value that selects it, and the hardware or `intelligent_ability` a channel needs to raise it.
 */
import type { ChannelSpec } from './profiles';

/** Subscribe filter values of `ext_data.subscribe_type[].event` (vendor table 1.2), plus `status` (always sent). */
export type EventClass = 'motion' | 'io' | 'videoloss' | 'videohide' | 'int' | 'sound_dectet' | 'status';

interface AlarmDef {
  /** Plain bool member of a `channel_alarm` entry. */
  member?: 'motion_alarm' | 'pir_alarm' | 'io_alarm' | 'videoloss';
  /** AI alarm: allowed `int_subtype` values, the first is the default. */
  subtypes?: readonly string[];
  event: EventClass;
  /** What the channel needs: hardware, or one of these `intelligent_ability` entries. */
  needs: (ch: ChannelSpec) => boolean;
  /** What `needs` checks, for error messages. */
  requires: string;
}

const ai =
  (...abilities: string[]) =>
  (ch: ChannelSpec) =>
    abilities.some((a) => ch.ai.includes(a));

export const ALARMS = {
  motion: { member: 'motion_alarm', event: 'motion', needs: () => true, requires: 'a camera' },
  pir: { member: 'pir_alarm', event: 'motion', needs: (ch) => ch.pir, requires: 'the Pir ability' },
  io: { member: 'io_alarm', event: 'io', needs: (ch) => ch.alarmIn > 0, requires: 'alarm_in_num > 0' },
  video_loss: { member: 'videoloss', event: 'videoloss', needs: () => true, requires: 'a camera' },
  person: { subtypes: ['pd'], event: 'int', needs: ai('PVD'), requires: 'intelligent_ability PVD' },
  vehicle: { subtypes: ['pd_vd'], event: 'int', needs: ai('PVD'), requires: 'intelligent_ability PVD' },
  line_crossing: { subtypes: ['lcd'], event: 'int', needs: ai('LCD'), requires: 'intelligent_ability LCD' },
  intrusion: { subtypes: ['pid', 'intrusion'], event: 'int', needs: ai('PID', 'Intrusion'), requires: 'intelligent_ability PID' },
  face: { subtypes: ['fd'], event: 'int', needs: ai('FD'), requires: 'intelligent_ability FD' },
  tamper: { subtypes: ['video_tamper'], event: 'videohide', needs: () => true, requires: 'a camera' },
  object: { subtypes: ['sod'], event: 'int', needs: ai('SOD'), requires: 'intelligent_ability SOD' },
  sound: { subtypes: ['sound', 'rsd'], event: 'sound_dectet', needs: ai('RSD'), requires: 'intelligent_ability RSD' },
  region_entrance: {
    subtypes: ['region_entrance'],
    event: 'int',
    needs: ai('RegionEntrance'),
    requires: 'intelligent_ability RegionEntrance',
  },
  region_exiting: { subtypes: ['region_exiting'], event: 'int', needs: ai('RegionExiting'), requires: 'intelligent_ability RegionExiting' },
  crowd: { subtypes: ['cd'], event: 'int', needs: ai('CrowdDensity'), requires: 'intelligent_ability CrowdDensity' },
  queue: { subtypes: ['qd'], event: 'int', needs: ai('QD'), requires: 'intelligent_ability QD' },
  plate: { subtypes: ['lpd'], event: 'int', needs: ai('LPD'), requires: 'intelligent_ability LPD' },
  fire: { subtypes: ['fireDetect'], event: 'int', needs: ai('FireDetection'), requires: 'intelligent_ability FireDetection' },
  cross_count: { subtypes: ['cc'], event: 'int', needs: ai('CrossCount'), requires: 'intelligent_ability CrossCount' },
  attribute: { subtypes: ['ad'], event: 'int', needs: ai('AttributeDetect'), requires: 'intelligent_ability AttributeDetect' },
  temperature: { subtypes: ['measure'], event: 'int', needs: ai('TempMeas'), requires: 'intelligent_ability TempMeas' },
  avd: { subtypes: ['avd'], event: 'int', needs: (ch) => ch.ai.length > 0, requires: 'an intelligent channel' },
} as const satisfies Record<string, AlarmDef>;

export type AlarmType = keyof typeof ALARMS;

export interface AlarmRequest {
  channel: string;
  type: AlarmType;
  active: boolean;
  /** AI alarms: the `int_subtype` to send when the type has several (intrusion: pid | intrusion; sound: sound | rsd). */
  subtype?: string;
  /** AI pictures (person/vehicle, intrusion, line crossing, region alarms): what the picture shows. Default: vehicle for `vehicle` (pd_vd), else human. */
  target?: 'human' | 'vehicle' | 'non_vehicle';
  /** Face recognition (`face`): the enrolled name recognised (absent or not enrolled: a stranger). */
  face?: string;
  /** Plate recognition (`plate`): the plate text read (default AB123CD). */
  plate?: string;
}

/** How AI alarms are written: `int_alarm` object (default), `alarm_state` array, or both. */
export type AiAlarmForm = 'int_alarm' | 'alarm_state' | 'both';

export const isAlarmType = (t: unknown): t is AlarmType => typeof t === 'string' && Object.hasOwn(ALARMS, t);

/** Types a channel can raise now (its hardware and abilities). */
export function allowedAlarms(ch: ChannelSpec): AlarmType[] {
  return (Object.keys(ALARMS) as AlarmType[]).filter((t) => (ALARMS[t] as AlarmDef).needs(ch));
}

/**
 * The `channel_alarm` entry of one alarm, or a message saying why the channel cannot raise it.
 * `recordFlag`: add the status-only `record_flag` member clients must ignore.
 */
export function channelAlarmEntry(
  ch: ChannelSpec,
  a: AlarmRequest,
  form: AiAlarmForm,
  recordFlag: boolean,
): Record<string, unknown> | string {
  if (!isAlarmType(a.type)) return `unknown alarm type ${JSON.stringify(a.type)} (one of ${Object.keys(ALARMS).join(', ')})`;
  const def: AlarmDef = ALARMS[a.type];
  if (!def.needs(ch)) return `${ch.id} cannot raise ${a.type}: it needs ${def.requires}`;
  if (typeof a.active !== 'boolean') return 'active must be a boolean';
  const entry: Record<string, unknown> = { channel: ch.id };
  if (def.member) {
    if (a.subtype !== undefined) return `${a.type} has no subtype`;
    entry[def.member] = a.active;
    if (recordFlag && a.active && def.member !== 'videoloss') entry.record_flag = { [def.member[0]]: 'R', r: 'SR' };
    return entry;
  }
  const subtypes = def.subtypes ?? [];
  const int_subtype = a.subtype ?? subtypes[0];
  if (!subtypes.includes(int_subtype)) return `${a.type}: subtype must be one of ${subtypes.join(', ')}`;
  const value = { alarm_val: a.active, int_subtype };
  if (form !== 'alarm_state') entry.int_alarm = value;
  if (form !== 'int_alarm') entry.alarm_state = [value];
  if (recordFlag && a.active) entry.record_flag = { [a.type === 'tamper' ? 'c' : 's']: 'R', r: 'SR' };
  return entry;
}

export const eventClassOf = (type: AlarmType): EventClass => ALARMS[type].event;
