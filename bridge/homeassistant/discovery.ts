/**
 * Home Assistant device-based MQTT discovery (`<prefix>/device/<node>/config`, retained).
 *
 * - One Home Assistant device per recorder (alarm_control_panel for disarming, the disarming linkage switches
 *   as config entities, model and firmware as diagnostic sensors) and one per channel, linked with
 *   `via_device`; a single-channel camera is one device.
 * - Entities only for what Range reports; bounds and options from Range, never constants.
 * - Availability: bridge state AND device availability (`avty_mode: all`).
 * - Ghosts: at start the bridge reads the retained discovery topics under `<prefix>/device/+/config` that it
 *   published earlier (origin nvr2mqtt, availability on this base topic). The broker is the record of what is
 *   retained, so no state file can drift from it (and a wiped broker needs no cleanup). Configs of devices
 *   no longer configured are cleared (empty retained payload); a configured device's old channels are
 *   cleared once the device answered; removed entities are sent once as `{"p": <platform>}` (Home
 *   Assistant's way to remove one component of a device).
 */
import { setImmediate } from 'node:timers/promises';
import {
  ALARM_TYPE_KEYS,
  channelFromSlug,
  channelKind,
  channelSlug,
  macColon,
  type AlarmType,
  type ChannelSlot,
  type RangeDescriptor,
} from '../../core';
import { deepFreeze, isPlainObject } from '../../core/json';
import { textDigest } from '../../core/text-digest';
import { panelCodeOptions } from './alarm-code';
import { COMMAND_ERROR_KEY, commandErrorComponent } from './command-error';
import type { Device } from '../device/device';
import { alarmRow, alarmSensorKeys, DISK_PROBLEM_KEY, DISK_PROBLEM_ROW, eventComponent } from '../device/event-sensors';
import type { Logger } from '../base/log';
import { ConnectionLost, type MqttLink } from '../mqtt/link';
import { announcedBounds } from '../device/announced-bounds';
import { rowValue, supportedRows } from '../device/sources';
import { labelledOptions } from './option-labels';
import { onOffTemplate } from './templates';
import { channelOnline, liveBounds, rowDescriptor, type DeviceFacts, type Json } from '../device/state';
import type { Platform, Row } from '../device/table';
import type { Topics } from '../mqtt/topics';
import { ORIGIN_URL, VERSION } from '../base/version';

const MANUFACTURER = 'Raysharp-based';
const ORIGIN = { name: 'nvr2mqtt', sw: VERSION, url: ORIGIN_URL };
const KIND_LABEL = { analog: 'Analog camera', digital: 'IP camera', wifi: 'Wi-Fi camera' } as const;
/** What the channel list's `ability` says a camera is, in the words of a model line (table order). */
const ABILITY_LABEL: ReadonlyArray<[readonly string[], string]> = [
  [['Ptz', 'NewPtz', 'HkPtz'], 'PTZ'],
  [['Fisheye'], 'fisheye'],
  [['Binoculars'], 'dual lens'],
  [['FloodLight'], 'floodlight'],
  [['AudioAlarm'], 'siren'],
  [['RedBlueLight'], 'red/blue light'],
  [['Pir'], 'PIR'],
];

/**
 * A channel device's name and model line. The name is the camera's name on the recorder (`channel_name` /
 * `channel_alias`, followed when it is renamed there), or "<recorder> CH1" where it has none; the model says what
 * the channel list reports the camera to be ("IP camera with PTZ, floodlight, siren").
 */
export function channelDevice(recorderName: string, ch: string, m: ChannelSlot | undefined): { name: string; model: string } {
  const named = m?.name && m.name !== ch ? m.name : undefined;
  const features = ABILITY_LABEL.filter(([any]) => any.some((a) => m?.abilities.includes(a))).map(([, label]) => label);
  const kind = KIND_LABEL[channelKind(ch)];
  return { name: named ?? `${recorderName} ${ch}`, model: features.length ? `${kind} with ${features.join(', ')}` : kind };
}

/**
 * Home Assistant's abbreviations (homeassistant/components/mqtt/abbreviations.py) of the component options this
 * bridge sends. With the state topic said once per config (`stat_t`, a shared option) and no default ON/OFF payloads,
 * a 16-channel recorder's discovery is 138 instead of 171 KB: at a thousand recorders, 33 MB less JSON built, hashed
 * and sent at start-up. The value templates are most of what is left.
 */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  brightness_command_topic: 'bri_cmd_t',
  brightness_scale: 'bri_scl',
  brightness_state_topic: 'bri_stat_t',
  brightness_value_template: 'bri_val_tpl',
  code_arm_required: 'cod_arm_req',
  code_disarm_required: 'cod_dis_req',
  command_template: 'cmd_tpl',
  command_topic: 'cmd_t',
  device_class: 'dev_cla',
  enabled_by_default: 'en',
  entity_category: 'ent_cat',
  event_types: 'evt_typ',
  icon: 'ic',
  json_attributes_topic: 'json_attr_t',
  options: 'ops',
  payload_arm_away: 'pl_arm_away',
  payload_disarm: 'pl_disarm',
  payload_off: 'pl_off',
  payload_on: 'pl_on',
  payload_press: 'pl_prs',
  state_topic: 'stat_t',
  state_value_template: 'stat_val_tpl',
  support_duration: 'sup_dur',
  support_volume_set: 'sup_vol',
  supported_features: 'sup_feat',
  topic: 't',
  unique_id: 'uniq_id',
  unit_of_measurement: 'unit_of_meas',
  value_template: 'val_tpl',
};

/**
 * A config's components as sent: options abbreviated, and no `state_topic` where it is the config's shared one
 * (Home Assistant gives a component the shared state topic where it has none; a button, camera or image takes none).
 */
function wireComponents(cmps: Json, stateTopic: string): Json {
  const out: Json = {};
  // `for...in`, not Object.entries: a thousand recorders' start-up would allocate a pair for each option.
  for (const id in cmps) {
    const c = cmps[id] as Json;
    const sent: Json = {};
    for (const k in c) if (k !== 'state_topic' || c[k] !== stateTopic) sent[ABBREVIATIONS[k] ?? k] = c[k];
    out[id] = sent;
  }
  return out;
}

/** Value template that yields `None` (unknown in Home Assistant) when the key is absent. */
function template(row: Row, platform: Platform): string {
  const v = `value_json.${row.key}`;
  switch (platform) {
    case 'switch':
    case 'binary_sensor':
      return onOffTemplate(row.key);
    case 'alarm_control_panel':
      return `{% if ${v} is not defined %}None{% elif ${v} %}disarmed{% else %}armed_away{% endif %}`;
    default:
      return `{{ ${v} if ${v} is defined else 'None' }}`;
  }
}

/** Bounds of the live page that shape the light and siren entities (absent: not adjustable). */
export interface LiveBounds {
  brightness?: { min: number; max: number };
  volume?: { min: number; max: number };
}

/** The light's brightness state key (a row of its own, without an entity). */
const BRIGHTNESS_KEY = 'floodlight_brightness';

/**
 * One Home Assistant component for a table row, reading `stateTopic` and commanding `<stateTopic>/set/<key>`;
 * undefined when Range gives no usable bounds. Commands arrive in Home Assistant's default payloads (ON/OFF, the
 * siren's JSON, DISARM/ARM_AWAY): no command template is needed. `value`: what the device holds now (bounds include it).
 */
export function component(
  row: Row,
  desc: RangeDescriptor | undefined,
  stateTopic: string,
  uniqueId: string,
  live: LiveBounds = {},
  value?: unknown,
): Json | undefined {
  if (!row.platform) return undefined;
  const bounds = announcedBounds(desc, value);
  // A field the device reports read-only is shown, not offered for change.
  let platform: Platform = row.platform;
  if (bounds?.readOnly) platform = platform === 'switch' ? 'binary_sensor' : platform === 'binary_sensor' ? platform : 'sensor';
  const readOnly = platform === 'sensor' || platform === 'binary_sensor';
  // A read-only alarm panel keeps its template: the sensor shows disarmed / armed_away.
  const c: Json = { p: platform, name: row.name, unique_id: uniqueId, state_topic: stateTopic };
  if (platform !== 'light' && platform !== 'siren')
    c.value_template = template(row, row.platform === 'alarm_control_panel' ? row.platform : platform);
  // Home Assistant refuses a sensor or binary_sensor in the `config` category (it cannot change anything).
  if (row.category) c.entity_category = readOnly && row.category === 'config' ? 'diagnostic' : row.category;
  if (row.icon) c.icon = row.icon;
  if (row.deviceClass && (platform === 'binary_sensor' || platform === 'number' || platform === 'sensor')) c.device_class = row.deviceClass;
  if (row.unit) c.unit_of_measurement = row.unit;
  if (row.advanced) c.enabled_by_default = false;
  const command = `${stateTopic}/set/${row.key}`;
  switch (platform) {
    case 'switch':
      c.command_topic = command;
      break;
    case 'binary_sensor':
      break;
    case 'number':
      // Home Assistant refuses a number whose max is not above its min.
      if (bounds?.min === undefined || bounds.max === undefined || bounds.min >= bounds.max) return undefined;
      Object.assign(c, { command_topic: command, min: bounds.min, max: bounds.max, step: 1, mode: row.numberMode ?? 'auto' });
      break;
    case 'select': {
      if (!bounds?.options?.length) return undefined;
      const values = bounds.options.map(String);
      // Shown as words people say; the state and command topics keep the device's values.
      Object.assign(c, { command_topic: command, options: values }, labelledOptions(row.key, values));
      break;
    }
    case 'alarm_control_panel':
      Object.assign(c, {
        command_topic: command,
        payload_disarm: 'DISARM',
        payload_arm_away: 'ARM_AWAY',
        code_arm_required: false,
        code_disarm_required: false,
        supported_features: ['arm_away'],
      });
      break;
    case 'light':
      // Default schema: ON/OFF on the command topic, the brightness (scale = the device's maximum) on its own topic.
      Object.assign(c, { command_topic: command, state_value_template: onOffTemplate(row.key) });
      if (live.brightness) {
        Object.assign(c, {
          brightness_command_topic: `${stateTopic}/set/${BRIGHTNESS_KEY}`,
          brightness_state_topic: stateTopic,
          brightness_scale: live.brightness.max,
          brightness_value_template: `{{ value_json.${BRIGHTNESS_KEY} | default('') }}`,
        });
      }
      break;
    case 'siren':
      // No command template: Home Assistant sends {"state":"ON","duration":..,"volume_level":..} and {"state":"OFF"}.
      Object.assign(c, {
        command_topic: command,
        state_value_template: onOffTemplate(row.key),
        support_duration: true,
        support_volume_set: !!live.volume,
      });
      break;
    case 'sensor':
      break;
  }
  return c;
}

export interface DiscoveryOptions {
  link: MqttLink;
  /** Publishes a retained config (the bridge's publish: counted, shown in the demo); false when offline. */
  publish: (topic: string, payload: string) => boolean;
  topics: Topics;
  enabled: boolean;
  log: Logger;
  /** Components a channel has beyond the table and its events: the features' (the camera and its snapshot button, ...). */
  channelExtras?: (device: Device, channel: string, slug: string, node: string) => Json | undefined;
  /** Components the recorder has beyond the table and its events: the features' (its disks, firmware `update` entity, ...). */
  deviceExtras?: (device: Device, node: string) => Json | undefined;
}

/**
 * A device has entities once it has been polled: before, its identity and Ranges alone would give a first config
 * that its first poll and features then complete, each topic published twice at start-up.
 */
const described = (d: Device) => !!d.facts.info && d.polled;

/** Devices whose discovery is built and sent in one turn of the event loop at most (see `drain`). */
const DRAIN_BATCH = 16;

/** How long a device's changes are gathered: its discovery goes out once none came for this long (`schedule`). */
const GATHER_MS = 1_500;

/** A device whose changes keep coming is published at the latest this long after the first one. */
const GATHER_MAX_MS = 10_000;

/** A config's components (abbreviated or not), as retained. */
function componentsOf(doc: Json): Json {
  return isPlainObject(doc.cmps) ? doc.cmps : isPlainObject(doc.components) ? doc.components : {};
}

/** A device's changes being gathered: since when, what runs after its discovery, the features' reads it waits for. */
interface Gathering {
  timer?: NodeJS.Timeout;
  since: number;
  thens: Array<() => void>;
  reading: number;
  /** The quiet time passed and only the reads are awaited. */
  held?: boolean;
}

/** Builds, publishes and cleans up discovery for every device. */
export class Discovery {
  /** Hash of the spec (payload without removal markers) last published per topic, this connection. */
  private readonly published = new Map<string, string>();
  /**
   * Components last published per topic (id -> platform), across connections: removal markers. Equal lists (a
   * channel's, about 3 KB, alike on every channel of a kind of every device) are one shared frozen copy (deepFreeze).
   */
  private readonly components = new Map<string, Readonly<Record<string, string>>>();
  /** Retained configs found at start, by topic, with the device they belong to (undefined = none). */
  private readonly retained = new Map<string, { device?: string; payload: Json }>();
  /**
   * Components (as sent) of configured devices' configs an earlier run left retained, by topic: a channel that is
   * offline now keeps them (its Range no longer says what it has), as it keeps what it had when last online.
   */
  private readonly announced = new Map<string, Json>();
  /** Rows and Ranges of a channel last seen online: an offline channel keeps its entities (no flapping). */
  private readonly sticky = new Map<string, { rows: Row[]; facts: DeviceFacts }>();
  /** Topics published per device (to clear what a device no longer has). */
  private readonly byDevice = new Map<string, Set<string>>();
  private collected?: Promise<void>;
  /** Nothing is published before the retained configs of earlier runs are known (removal markers need them). */
  private collectDone = false;
  /** Devices whose discovery is due (`schedule`), with their timer and when the first change came. */
  private readonly due = new Map<string, Gathering>();
  private readonly ready = new Map<Device, Array<() => void>>();
  private draining = false;
  /** Waiting for `ready` to be sent (`republish`). */
  private readonly drained: Array<() => void> = [];

  constructor(private readonly opts: DiscoveryOptions) {}

  /** Whether anything is announced to Home Assistant (`homeassistant.enabled`). */
  get enabled(): boolean {
    return this.opts.enabled;
  }

  /** Whether the retained configs of earlier runs are known (or could not be read for another reason than a drop). */
  get isCollected(): boolean {
    return this.collectDone;
  }

  /**
   * On the first connection: learn which discovery topics earlier runs left retained. A connection that drops meanwhile
   * leaves it to be done again on the next one (`isCollected` false).
   */
  collect(devices: readonly Device[]): Promise<void> {
    if (this.collected) return this.collected;
    const collected = this.doCollect(devices).then(
      () => void (this.collectDone = true),
      (err) => {
        if (err instanceof ConnectionLost) {
          if (this.collected === collected) this.collected = undefined;
          return;
        }
        this.opts.log.warn(`discovery cleanup: ${err}`);
        this.collectDone = true;
      },
    );
    this.collected = collected;
    return collected;
  }

  private async doCollect(devices: readonly Device[]): Promise<void> {
    const { link, topics, log } = this.opts;
    const wildcard = topics.discoveryWildcard;
    const nodes = new Map(devices.map((d) => [topics.node(d.id), d.id]));
    const onRetained = (topic: string, payload: Buffer) => {
      if (!payload.length || !topic.startsWith(`${topics.discoveryPrefix}/device/`)) return;
      let doc: unknown;
      try {
        doc = JSON.parse(payload.toString('utf8'));
      } catch {
        return;
      }
      if (!isPlainObject(doc) || !this.ours(doc)) return;
      const dev = isPlainObject(doc.dev) ? doc.dev : isPlainObject(doc.device) ? doc.device : {};
      const ids = Array.isArray(dev.ids) ? dev.ids : Array.isArray(dev.identifiers) ? dev.identifiers : [dev.ids ?? dev.identifiers];
      const via = dev.via_device;
      const owner = nodes.get(String(via ?? ids[0] ?? ''));
      this.retained.set(topic, { device: owner, payload: doc });
    };
    await link.readRetained([wildcard], topics.bridgePing, onRetained);
    const alarms = new Map<string, Map<string, AlarmType[]>>();
    for (const [topic, entry] of this.retained) {
      const comps = componentsOf(entry.payload);
      const platforms: Record<string, string> = {};
      for (const [id, c] of Object.entries(comps))
        if (isPlainObject(c) && Object.keys(c).length > 1) platforms[id] = String(c.p ?? c.platform);
      if (!this.components.has(topic)) this.components.set(topic, deepFreeze(platforms));
      if (entry.device !== undefined && this.opts.enabled) {
        this.announced.set(topic, comps);
        const byChannel = alarms.get(entry.device) ?? new Map<string, AlarmType[]>();
        for (const [ch, key] of this.announcedAlarms(topic, entry.device, platforms))
          byChannel.set(ch, [...(byChannel.get(ch) ?? []), key]);
        alarms.set(entry.device, byChannel);
      }
      if (entry.device === undefined || !this.opts.enabled) {
        log.info(
          `discovery: removing ${topic} (${entry.device === undefined ? 'device no longer configured' : 'Home Assistant discovery disabled'})`,
        );
        this.clear(topic);
        this.retained.delete(topic);
      }
    }
    // What was announced stays announced: the alarm types channels reported before a restart keep their entities.
    for (const d of devices) {
      const learned = alarms.get(d.id);
      if (learned?.size) d.rememberAlarmKeys(learned);
    }
  }

  /**
   * The alarm sensors an earlier run announced on a config of `device` (`platforms`: its components): [channel, key]
   * for a channel device's (`motion`) and for a single camera's on its recorder's config (`ch1_motion`).
   */
  private announcedAlarms(topic: string, device: string, platforms: Record<string, string>): Array<[string, AlarmType]> {
    const { topics } = this.opts;
    const recorder = topics.discovery(topics.node(device));
    const nodePrefix = `${topics.discoveryPrefix}/device/${topics.node(device)}_`;
    const slug = topic !== recorder && topic.startsWith(nodePrefix) ? topic.slice(nodePrefix.length, -'/config'.length) : undefined;
    const out: Array<[string, AlarmType]> = [];
    for (const [id, platform] of Object.entries(platforms)) {
      if (platform !== 'binary_sensor') continue;
      for (const key of ALARM_TYPE_KEYS) {
        // `motion` on a channel's config; `ch1_motion` on a single camera's.
        const of = slug !== undefined ? (id === key ? slug : undefined) : id.endsWith(`_${key}`) ? id.slice(0, -key.length - 1) : undefined;
        const ch = of === undefined ? undefined : channelFromSlug(of);
        if (ch) out.push([ch, key]);
      }
    }
    return out;
  }

  /** A config this bridge published: origin nvr2mqtt and availability on this base topic. */
  private ours(doc: Json): boolean {
    const o = isPlainObject(doc.o) ? doc.o : isPlainObject(doc.origin) ? doc.origin : undefined;
    if (o?.name !== 'nvr2mqtt') return false;
    const avty = Array.isArray(doc.avty) ? doc.avty : Array.isArray(doc.availability) ? doc.availability : [];
    return avty.some((a) => isPlainObject(a) && (a.t ?? a.topic) === this.opts.topics.bridgeState);
  }

  private clear(topic: string): void {
    this.opts.publish(topic, '');
    this.published.delete(topic);
    this.components.delete(topic);
  }

  /** Every config a device should have now: topic -> payload (without removal markers). */
  build(device: Device): Map<string, Json> {
    const { topics } = this.opts;
    const facts = device.facts;
    const node = topics.node(device.id);
    const info = facts.info ?? {};
    const channels = device.channels();
    const single = channels.length === 1;
    const out = new Map<string, Json>();
    // The recorder's config goes out first: its channels name it in `via_device`, and Home Assistant links a
    // channel to its recorder only when that device is already known. (Its entry is filled in below.)
    const recorderTopic = topics.discovery(node);
    out.set(recorderTopic, {});
    const avty = [
      { t: topics.bridgeState, val_tpl: '{{ value_json.state }}' },
      { t: topics.availability(device.id), val_tpl: '{{ value_json.state }}' },
    ];
    const shared = (dev: Json, stateTopic: string, cmps: Json): Json => ({
      dev,
      o: ORIGIN,
      avty,
      avty_mode: 'all',
      qos: 1,
      stat_t: stateTopic,
      cmps: wireComponents(cmps, stateTopic),
    });
    const recorder: Json = {
      ids: [node],
      name: device.name,
      mf: MANUFACTURER,
      mdl: info.model,
      sw: info.firmware,
      hw: info.hardware,
      sn: info.serial,
      cu: device.cfg.url,
    };
    // Home Assistant takes only text here: one null or object would void the whole device config.
    for (const [k, v] of Object.entries(recorder)) {
      if (typeof v === 'number') recorder[k] = String(v);
      else if (typeof v !== 'string' && k !== 'ids') delete recorder[k];
    }
    const mac = macColon(typeof info.mac === 'string' ? info.mac : undefined);
    if (mac) recorder.cns = [['mac', mac]];

    const deviceCmps: Json = {};
    const deviceTopic = topics.state(device.id);
    for (const row of supportedRows(facts, 'device')) {
      const c = component(row, rowDescriptor(facts, row), deviceTopic, `${node}_${row.key}`, {}, rowValue(facts, row));
      if (c?.p === 'alarm_control_panel' && device.cfg.alarm_code) Object.assign(c, panelCodeOptions(device.cfg.alarm_code));
      if (c) deviceCmps[row.key] = c;
    }
    if (facts.events) deviceCmps[DISK_PROBLEM_KEY] = component(DISK_PROBLEM_ROW, undefined, deviceTopic, `${node}_${DISK_PROBLEM_KEY}`);
    deviceCmps[COMMAND_ERROR_KEY] = commandErrorComponent(topics.commandError(device.id), `${node}_${COMMAND_ERROR_KEY}`);
    Object.assign(deviceCmps, this.opts.deviceExtras?.(device, node));
    for (const ch of channels) {
      const slug = channelSlug(ch);
      const key = `${device.id}/${ch}`;
      const chTopic = topics.state(device.id, slug);
      const chNode = topics.node(device.id, slug);
      // An offline channel is shown (unavailable) with the entities and bounds it had when last online.
      const online = channelOnline(facts, ch);
      const sticky = online ? undefined : this.sticky.get(key);
      const source = sticky?.facts ?? facts;
      const rows = sticky?.rows ?? supportedRows(facts, 'channel', ch);
      if (online) this.sticky.set(key, { rows, facts: facts });
      const live: LiveBounds = { brightness: liveBounds(source, ch, 'brightness'), volume: liveBounds(source, ch, 'volume') };
      const cmps: Json = {};
      for (const row of rows) {
        const c = component(row, rowDescriptor(source, row, ch), chTopic, `${chNode}_${row.key}`, live, rowValue(source, row, ch));
        if (!c) continue;
        // The connectivity sensor stays available while the channel is offline: it is what says so.
        if (row.source.kind === 'online' && !single) c.avty = avty;
        cmps[single ? `${slug}_${row.key}` : row.key] = c;
      }
      // Device events: one binary_sensor per alarm the channel can raise, and the channel's `event` entity.
      const alarms = facts.events?.keys.get(ch) ?? [];
      for (const key of alarmSensorKeys(alarms))
        cmps[single ? `${slug}_${key}` : key] = component(alarmRow(key), undefined, chTopic, `${chNode}_${key}`);
      if (alarms.length)
        cmps[single ? `${slug}_event` : 'event'] = eventComponent(alarms, topics.event(device.id, slug), `${chNode}_event`);
      for (const [k, c] of Object.entries(this.opts.channelExtras?.(device, ch, slug, chNode) ?? {})) cmps[single ? `${slug}_${k}` : k] = c;
      // Offline since the bridge started: what an earlier run announced for it stays (as it was sent).
      if (!online && !sticky) {
        const earlier = this.announced.get(single ? recorderTopic : topics.discovery(chNode)) ?? {};
        for (const [id, c] of Object.entries(earlier))
          if (!(id in cmps) && isPlainObject(c) && Object.keys(c).length > 1 && (!single || id.startsWith(`${slug}_`))) cmps[id] = c;
      }
      if (single) Object.assign(deviceCmps, cmps);
      else {
        const about = channelDevice(
          device.name,
          ch,
          source.channelSlots?.find((m) => m.id === ch),
        );
        const dev: Json = { ids: [chNode], name: about.name, mf: MANUFACTURER, mdl: about.model, via_device: node };
        const chAvty = [...avty, { t: topics.availability(device.id, slug), val_tpl: '{{ value_json.state }}' }];
        out.set(topics.discovery(chNode), { ...shared(dev, chTopic, cmps), avty: chAvty });
      }
    }
    out.set(recorderTopic, shared(recorder, deviceTopic, deviceCmps));
    return out;
  }

  /** Publish what changed for a device (or everything with `force`), clear what it no longer has. */
  update(device: Device, force = false): void {
    if (!this.opts.enabled || !this.opts.link.connected || !this.collectDone) return;
    const wanted = this.build(device);
    const mine = this.byDevice.get(device.id) ?? new Set<string>();
    for (const [topic, payload] of wanted) {
      const spec = JSON.stringify(payload);
      const digest = textDigest(spec);
      if (!force && this.published.get(topic) === digest) continue;
      const cmps = payload.cmps as Json;
      const platforms: Record<string, string> = {};
      for (const [id, c] of Object.entries(cmps)) platforms[id] = String((c as Json).p);
      const before = this.components.get(topic) ?? {};
      const removed = Object.keys(before).filter((id) => !(id in platforms));
      const body = removed.length
        ? JSON.stringify({ ...payload, cmps: { ...cmps, ...Object.fromEntries(removed.map((id) => [id, { p: before[id] }])) } })
        : spec;
      if (!this.opts.publish(topic, body)) continue;
      this.published.set(topic, digest);
      this.components.set(topic, deepFreeze(platforms));
      mine.add(topic);
    }
    // Channels that disappeared, from this run or left retained by an earlier one.
    for (const [topic, entry] of this.retained) {
      if (entry.device === device.id) {
        mine.add(topic);
        this.retained.delete(topic);
      }
    }
    for (const topic of [...mine]) {
      if (wanted.has(topic)) continue;
      this.opts.log.info(`discovery: removing ${topic} (no longer reported by ${device.id})`);
      this.clear(topic);
      mine.delete(topic);
    }
    this.byDevice.set(device.id, mine);
  }

  /**
   * A device's entities changed: its discovery goes out once changes stop for GATHER_MS (at most GATHER_MAX_MS
   * after the first), then `then` runs (the state that fills those entities follows them). A recorder's features
   * come in one after another after its first poll (table, events, camera, firmware, restart, PTZ): gathered, each
   * topic is published once instead of up to six times (at start-up about 200 instead of 600 KB per 16-channel
   * recorder, and Home Assistant gets the entities at once). `now`: without gathering (an alarm of a new type waits
   * for its entity). `reading`: the features' reads that may add entities (a recorder's cameras' firmware, their
   * PTZ): the gather also waits for them, as long as GATHER_MAX_MS allows (under load they end after GATHER_MS, and
   * the device's discovery went out twice).
   */
  schedule(device: Device, then?: () => void, o: { now?: boolean; reading?: Promise<unknown> } = {}): void {
    if (!this.opts.enabled) return then?.();
    const g: Gathering = this.due.get(device.id) ?? { since: Date.now(), thens: [], reading: 0 };
    this.due.set(device.id, g);
    clearTimeout(g.timer);
    g.held = false;
    if (then) g.thens.push(then);
    if (o.reading) {
      g.reading++;
      void o.reading
        .catch(() => undefined)
        .then(() => {
          // Its changes (if any) re-armed the quiet time; else, quiet already, the gather ends with the last read.
          if (--g.reading === 0 && g.held) this.release(device, g);
        });
    }
    const wait = o.now ? 0 : Math.max(0, Math.min(GATHER_MS, g.since + GATHER_MAX_MS - Date.now()));
    g.timer = setTimeout(() => {
      if (g.reading > 0 && !o.now && Date.now() < g.since + GATHER_MAX_MS) {
        // Still reading: ends when the reads do, or at the gather's limit.
        g.held = true;
        g.timer = setTimeout(() => this.release(device, g), g.since + GATHER_MAX_MS - Date.now());
        return;
      }
      this.release(device, g);
    }, wait);
  }

  /** The gather ends: the device's discovery is built and sent (`drain`), then its follow-ups run. */
  private release(device: Device, g: Gathering): void {
    clearTimeout(g.timer);
    if (this.due.get(device.id) !== g) return;
    this.due.delete(device.id);
    // Still waiting from an earlier gather (a long drain): one build, every follow-up kept.
    this.ready.set(device, [...(this.ready.get(device) ?? []), ...g.thens]);
    void this.drain();
  }

  /**
   * `then` once the device's discovery now due is sent, at once when none is: a state published on demand (`get`)
   * never reaches Home Assistant before the entities (or wider bounds) it needs.
   */
  afterPending(device: Device, then: () => void): void {
    const held = this.due.get(device.id);
    if (held) return void held.thens.push(then);
    const ready = this.ready.get(device);
    if (ready) return void ready.push(then);
    then();
  }

  /**
   * Devices whose gather ended, DRAIN_BATCH per turn of the event loop: at start-up dozens end at once, and building
   * and sending all their configs in one go would hold them all in memory together (about 20 MB at 64 recorders;
   * a republish of a thousand at once, 200 MB). Not one per turn: a loaded loop (a thousand event checks a second)
   * turns a few times a second. And no faster than the broker takes them (`sendable`): a thousand recorders' configs
   * queued in the socket took the bridge from 270 to 585-627 MB at start-up when the broker fell behind.
   */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      let inTurn = 0;
      // A Map's loop also visits what is added while it runs: nothing added before it ends is left behind.
      for (const [device, thens] of this.ready) {
        this.ready.delete(device);
        if (described(device)) this.update(device);
        for (const then of thens) then();
        if (++inTurn % DRAIN_BATCH === 0) await setImmediate();
        await this.opts.link.sendable();
      }
    } finally {
      this.draining = false;
      for (const drained of this.drained.splice(0)) drained();
    }
  }

  /** The bridge stops: nothing due goes out any more. */
  stop(): void {
    for (const { timer } of this.due.values()) clearTimeout(timer);
    this.due.clear();
    this.ready.clear();
  }

  /**
   * After a (re)connect or a Home Assistant restart: every config again (devices polled at least once), sent as
   * the gathered ones are (`drain`), each device's followed by `then`. Resolves once all are sent.
   */
  republish(devices: readonly Device[], then?: (device: Device) => void): Promise<void> {
    this.published.clear();
    for (const d of devices) {
      const follow = then ? [() => then(d)] : [];
      // Still gathering (connected during its first poll): its gather's end sends it, with everything in.
      const gathering = this.due.get(d.id);
      if (gathering) gathering.thens.push(...follow);
      else this.ready.set(d, [...(this.ready.get(d) ?? []), ...follow]);
    }
    const sent = new Promise<void>((resolve) => this.drained.push(resolve));
    void this.drain();
    return sent;
  }

  /** Forget what was published (connection lost: the next connect republishes everything). */
  reset(): void {
    this.published.clear();
  }
}
