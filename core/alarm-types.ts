/**
 * The alarm types of `/API/Event/Check` (vendor facts d), in one table: the key used as MQTT state key,
 * a label, the Home Assistant binary_sensor device class, what makes a channel able to raise it, and
 * the vendor members / `int_subtype` values it comes from. Every lookup below is derived from it.
 */

/** What makes a channel able to raise an alarm type (vendor facts c, `Login/ChannelInfo/Get`). */
export type AlarmAbility =
  | { by: 'online' } // every online channel (base alarms)
  | { by: 'configured' } // every configured channel, online or not (video loss)
  | { by: 'alarm_in' } // camera alarm inputs (`alarm_in_num` > 0) or recorder inputs
  | { by: 'ability'; any: readonly string[] } // an entry of `ability`
  | { by: 'intelligent'; any: readonly string[] } // an entry of `intelligent_ability`
  | { by: 'seen' }; // no capability names it: known once the device reports it

export interface AlarmTypeInfo {
  label: string;
  /** Home Assistant binary_sensor device class. */
  deviceClass: 'motion' | 'occupancy' | 'sound' | 'problem' | 'safety' | 'tamper' | 'smoke' | 'heat';
  able: AlarmAbility;
  /** Boolean members of `channel_alarm[]` that carry this alarm. */
  members?: readonly string[];
  /** `int_subtype` values of `int_alarm` / `alarm_state[]` that carry it. */
  subtypes?: readonly string[];
}

const intelligent = (...any: string[]): AlarmAbility => ({ by: 'intelligent', any });

export const ALARM_TYPES = {
  motion: { label: 'Motion', deviceClass: 'motion', able: { by: 'online' }, members: ['motion_alarm'] },
  pir: { label: 'PIR', deviceClass: 'motion', able: { by: 'ability', any: ['Pir'] }, members: ['pir_alarm'] },
  io: { label: 'Alarm input', deviceClass: 'safety', able: { by: 'alarm_in' }, members: ['io_alarm'] },
  video_loss: { label: 'Video loss', deviceClass: 'problem', able: { by: 'configured' }, members: ['videoloss'] },
  person: { label: 'Person', deviceClass: 'occupancy', able: intelligent('PVD'), subtypes: ['pd'] },
  vehicle: { label: 'Person or vehicle', deviceClass: 'occupancy', able: intelligent('PVD'), subtypes: ['pd_vd'] },
  /**
   * A vehicle (not a person) in an AI picture (`ai_snap_picture` `Type` 2, 4, 6, 12, 15, 18): announced on channels
   * with person/vehicle detection (they send those pictures to an `aipushpic` subscriber), elsewhere once one came.
   */
  motor_vehicle: { label: 'Vehicle', deviceClass: 'occupancy', able: intelligent('PVD') },
  line_crossing: { label: 'Line crossing', deviceClass: 'motion', able: intelligent('LCD'), subtypes: ['lcd'] },
  intrusion: { label: 'Intrusion', deviceClass: 'motion', able: intelligent('PID', 'Intrusion'), subtypes: ['pid', 'intrusion'] },
  face: { label: 'Face', deviceClass: 'occupancy', able: intelligent('FD'), subtypes: ['fd'] },
  tamper: { label: 'Video tampering', deviceClass: 'tamper', able: { by: 'online' }, subtypes: ['video_tamper'] },
  object: { label: 'Object left/lost', deviceClass: 'problem', able: intelligent('SOD'), subtypes: ['sod'] },
  sound: { label: 'Sound', deviceClass: 'sound', able: intelligent('RSD'), subtypes: ['sound', 'rsd'] },
  region_entrance: { label: 'Region entrance', deviceClass: 'motion', able: intelligent('RegionEntrance'), subtypes: ['region_entrance'] },
  region_exiting: { label: 'Region exiting', deviceClass: 'motion', able: intelligent('RegionExiting'), subtypes: ['region_exiting'] },
  crowd: { label: 'Crowd density', deviceClass: 'occupancy', able: intelligent('CrowdDensity'), subtypes: ['cd'] },
  queue: { label: 'Queue length', deviceClass: 'occupancy', able: intelligent('QD'), subtypes: ['qd'] },
  plate: { label: 'License plate', deviceClass: 'motion', able: intelligent('LPD'), subtypes: ['lpd'] },
  fire: { label: 'Fire', deviceClass: 'smoke', able: intelligent('FireDetection'), subtypes: ['fireDetect'] },
  cross_count: { label: 'Cross counting', deviceClass: 'motion', able: intelligent('CrossCount'), subtypes: ['cc'] },
  attribute: { label: 'Attribute', deviceClass: 'occupancy', able: intelligent('AttributeDetect'), subtypes: ['ad'] },
  temperature: { label: 'Temperature', deviceClass: 'heat', able: intelligent('TempMeas'), subtypes: ['measure'] },
  avd: { label: 'Video anomaly', deviceClass: 'problem', able: { by: 'seen' }, subtypes: ['avd'] },
} as const satisfies Record<string, AlarmTypeInfo>;

export type AlarmType = keyof typeof ALARM_TYPES;

export const ALARM_TYPE_KEYS = Object.keys(ALARM_TYPES) as AlarmType[];

function index(field: 'members' | 'subtypes'): ReadonlyMap<string, AlarmType> {
  const out = new Map<string, AlarmType>();
  for (const key of ALARM_TYPE_KEYS) for (const name of (ALARM_TYPES[key] as AlarmTypeInfo)[field] ?? []) out.set(name, key);
  return out;
}

const BY_MEMBER = index('members');
const BY_SUBTYPE = index('subtypes');

/** The alarm type a boolean `channel_alarm[]` member carries (`motion_alarm` -> `motion`). */
export function alarmTypeOfMember(member: string): AlarmType | undefined {
  return BY_MEMBER.get(member);
}

/** The alarm type of an `int_subtype` (`pd` -> `person`); undefined for a value outside the vendor's list. */
export function alarmTypeOfSubtype(subtype: string): AlarmType | undefined {
  return BY_SUBTYPE.get(subtype);
}

export function isAlarmType(x: unknown): x is AlarmType {
  return typeof x === 'string' && Object.hasOwn(ALARM_TYPES, x);
}

/** What a channel offers, as `Login/ChannelInfo/Get` lists it (a structural subset of the channel slots). */
export interface AlarmCapabilities {
  online: boolean;
  /** Not `NotConfigured`; default: `online`. */
  configured?: boolean;
  /** `ability` as the device lists it. */
  abilities?: readonly string[];
  /** `intelligent_ability` as the device lists it. */
  ai?: readonly string[];
  /** Camera alarm inputs (`alarm_in_num`). */
  alarmIn?: number;
}

/**
 * Alarm types the channel can raise. `recorderInputs`: the recorder's own alarm inputs
 * (`local_alarmin_num`), which count for `io`. Types known only once seen (`avd`) are not listed.
 */
export function alarmTypesOf(channel: AlarmCapabilities, recorderInputs = 0): AlarmType[] {
  const configured = channel.configured ?? channel.online;
  if (!configured) return [];
  const has = (list: readonly string[] | undefined, any: readonly string[]) => !!list?.some((x) => any.includes(x));
  return ALARM_TYPE_KEYS.filter((key) => {
    const able: AlarmAbility = ALARM_TYPES[key].able;
    if (able.by === 'configured') return true;
    if (!channel.online) return false;
    switch (able.by) {
      case 'online':
        return true;
      case 'alarm_in':
        return (channel.alarmIn ?? 0) > 0 || recorderInputs > 0;
      case 'ability':
        return has(channel.abilities, able.any);
      case 'intelligent':
        return has(channel.ai, able.any);
      case 'seen':
        return false;
    }
  });
}

/** The recorder's own alarm inputs (`local_alarmin_num` of `Login/DeviceInfo`), which count for `io`; 0 when it does not say. */
export function recorderAlarmInputs(dev: { local_alarmin_num?: unknown } | undefined): number {
  const n = dev?.local_alarmin_num;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0;
}
