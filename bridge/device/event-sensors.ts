/**
 * The entities of device events: which alarm keys a channel gets (R2: only what it can raise, from its channel
 * slots), their `binary_sensor` rows, the Home Assistant `event` entity of a channel, and the recorder's
 * `disk_problem`. Discovery and state call in here; the rows are built from core's `ALARM_TYPES`, one table.
 */
import { ALARM_TYPE_KEYS, ALARM_TYPES, alarmTypesOf, type AlarmType, type ChannelSlot } from '../../core';
import type { Row } from './table';

/** Device-level key of the disk problem sensor. */
export const DISK_PROBLEM_KEY = 'disk_problem';

/**
 * Alarm keys per channel. A channel in the device's list gets the types its abilities allow while online (none
 * for an empty slot); keys only grow while it stays configured, so that a channel going offline keeps its
 * entities (no flapping) and a type the device reported once keeps its sensor. Without a channel list every
 * channel gets the base alarms of an online channel.
 */
export function alarmKeys(
  channels: readonly string[],
  models: readonly ChannelSlot[] | undefined,
  recorderInputs: number,
  previous: ReadonlyMap<string, readonly AlarmType[]> | undefined,
  online: (ch: string) => boolean,
): Map<string, AlarmType[]> {
  const byId = new Map<string, ChannelSlot>(models?.map((m) => [m.id, m]));
  const out = new Map<string, AlarmType[]>();
  for (const ch of channels) {
    const m = byId.get(ch);
    if (models && !m?.configured) {
      out.set(ch, []);
      continue;
    }
    const able = m ? alarmTypesOf(m, recorderInputs) : alarmTypesOf({ online: online(ch) }, recorderInputs);
    const keys = new Set<AlarmType>(previous?.get(ch));
    for (const k of able) keys.add(k);
    // Table order, whatever the order they became known in.
    out.set(
      ch,
      ALARM_TYPE_KEYS.filter((k) => keys.has(k)),
    );
  }
  return out;
}

/**
 * Alarms rarely wanted as an entity of every channel: a camera problem rather than an event at the door, and the
 * alarm input, which every channel of a recorder with inputs gets. Announced disabled.
 */
const ADVANCED_ALARMS: ReadonlySet<AlarmType> = new Set(['io', 'video_loss', 'tamper']);

/** The `binary_sensor` row of an alarm key ("Motion", "Person", "Line crossing"). */
export function alarmRow(key: AlarmType): Row {
  const t = ALARM_TYPES[key];
  return {
    key,
    level: 'channel',
    source: { kind: 'online' },
    platform: 'binary_sensor',
    name: t.label,
    deviceClass: t.deviceClass,
    ...(ADVANCED_ALARMS.has(key) ? { advanced: true as const } : {}),
  };
}

/**
 * The alarms of a channel that get a binary sensor: all its keys, but the person/vehicle detection (`vehicle`, the
 * device's `pd_vd`: "Person or vehicle") only where the channel has no separate person and vehicle sensors (`person`,
 * `motor_vehicle`): beside them it would be a third sensor saying what those two say. Its key stays in the state and
 * among the event entity's types.
 */
export function alarmSensorKeys(keys: readonly AlarmType[]): readonly AlarmType[] {
  return keys.includes('person') && keys.includes('motor_vehicle') ? keys.filter((k) => k !== 'vehicle') : keys;
}

/** The recorder's disk problem sensor (diagnostic). */
export const DISK_PROBLEM_ROW: Row = {
  key: DISK_PROBLEM_KEY,
  level: 'device',
  source: { kind: 'online' },
  platform: 'binary_sensor',
  name: 'Disk problem',
  category: 'diagnostic',
  deviceClass: 'problem',
};

/** Alarm types no capability names (`avd`): a channel may report them whatever its abilities say. */
const SEEN_ONLY: readonly AlarmType[] = ALARM_TYPE_KEYS.filter((k) => ALARM_TYPES[k].able.by === 'seen');

/**
 * The types a channel's event entity announces: every alarm it can report, known before the first of them comes
 * (Home Assistant drops an event whose type its entity does not list): its alarm keys, and the types the firmware
 * reports without a capability naming them. Table order.
 */
export function eventTypes(keys: readonly AlarmType[]): AlarmType[] {
  return ALARM_TYPE_KEYS.filter((k) => keys.includes(k) || SEEN_ONLY.includes(k));
}

/**
 * The channel's Home Assistant `event` entity: one per channel, fired on each alarm start (`event_type` = the
 * alarm key, `time` as an attribute; `event_types`: `eventTypes`). The end edges on the same topic render to nothing,
 * which Home Assistant ignores; they show in the binary sensors.
 */
export function eventComponent(keys: readonly AlarmType[], eventTopic: string, uniqueId: string): Record<string, unknown> {
  return {
    p: 'event',
    // Not "Alarm": that is the recorder's panel.
    name: 'Alarm event',
    unique_id: uniqueId,
    state_topic: eventTopic,
    event_types: eventTypes(keys),
    icon: 'mdi:alarm-light-outline',
    value_template:
      "{% if value_json.active %}{{ {'event_type': value_json.type, 'time': value_json.time | default(none)} | to_json }}{% endif %}",
  };
}
