/**
 * What Home Assistant's MQTT integration does with a device-based discovery payload
 * (`<prefix>/device/<id>/config`), restated as checks: abbreviations expanded, the device schema (it refuses
 * unknown top-level keys, a device value that is not text, a missing origin name), then each component by its
 * platform's discovery schema (required topics, number min < max, select options, no `config` category on a
 * sensor or binary_sensor, alarm panel features...). A payload that passes here is one Home Assistant sets up.
 * Sources: homeassistant/components/mqtt/{abbreviations,schemas,discovery,number,select,alarm_control_panel,siren,notify}.py,
 * light/schema_basic.py (the default schema: no `value_template`, state and brightness each with their own template).
 */

type Json = Record<string, any>;

/** Home Assistant's abbreviations that this bridge may use (it knows many more), as abbreviations.py has them. */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  avty: 'availability',
  avty_mode: 'availability_mode',
  avty_t: 'availability_topic',
  avty_tpl: 'availability_template',
  cmd_t: 'command_topic',
  cmd_tpl: 'command_template',
  cmps: 'components',
  dev: 'device',
  dev_cla: 'device_class',
  en: 'enabled_by_default',
  ent_cat: 'entity_category',
  ic: 'icon',
  evt_typ: 'event_types',
  o: 'origin',
  ops: 'options',
  p: 'platform',
  pl_arm_away: 'payload_arm_away',
  pl_disarm: 'payload_disarm',
  pl_off: 'payload_off',
  pl_on: 'payload_on',
  stat_t: 'state_topic',
  sup_feat: 'supported_features',
  t: 'topic',
  uniq_id: 'unique_id',
  unit_of_meas: 'unit_of_measurement',
  val_tpl: 'value_template',
  cod_arm_req: 'code_arm_required',
  cod_dis_req: 'code_disarm_required',
  bri_cmd_t: 'brightness_command_topic',
  bri_scl: 'brightness_scale',
  bri_stat_t: 'brightness_state_topic',
  bri_val_tpl: 'brightness_value_template',
  json_attr_t: 'json_attributes_topic',
  pl_prs: 'payload_press',
  stat_val_tpl: 'state_value_template',
  sup_dur: 'support_duration',
  sup_vol: 'support_volume_set',
};
const DEVICE_ABBREVIATIONS: Record<string, string> = {
  cns: 'connections',
  cu: 'configuration_url',
  hw: 'hw_version',
  ids: 'identifiers',
  mf: 'manufacturer',
  mdl: 'model',
  mdl_id: 'model_id',
  name: 'name',
  sa: 'suggested_area',
  sn: 'serial_number',
  sw: 'sw_version',
};
const ORIGIN_ABBREVIATIONS: Record<string, string> = { name: 'name', sw: 'sw_version', url: 'support_url' };

const DEVICE_DISCOVERY_KEYS = new Set([
  'availability',
  'availability_mode',
  'availability_template',
  'availability_topic',
  'payload_available',
  'payload_not_available',
  'device',
  'components',
  'origin',
  'state_topic',
  'command_topic',
  'qos',
  'encoding',
]);
const DEVICE_KEYS = new Set([
  'identifiers',
  'connections',
  'manufacturer',
  'model',
  'model_id',
  'name',
  'hw_version',
  'serial_number',
  'sw_version',
  'via_device',
  'suggested_area',
  'configuration_url',
]);
const SHARED_OPTIONS = [
  'availability',
  'availability_mode',
  'availability_template',
  'availability_topic',
  'command_topic',
  'payload_available',
  'payload_not_available',
  'state_topic',
];
const PLATFORMS = new Set([
  'alarm_control_panel',
  'binary_sensor',
  'button',
  'camera',
  'event',
  'image',
  'light',
  'notify',
  'number',
  'select',
  'sensor',
  'siren',
  'switch',
  'text',
  'update',
]);
const ALARM_FEATURES = new Set(['arm_home', 'arm_away', 'arm_night', 'arm_vacation', 'arm_custom_bypass', 'trigger']);
const BINARY_SENSOR_CLASSES = new Set([
  'battery',
  'battery_charging',
  'carbon_monoxide',
  'cold',
  'connectivity',
  'door',
  'garage_door',
  'gas',
  'heat',
  'light',
  'lock',
  'moisture',
  'motion',
  'moving',
  'occupancy',
  'opening',
  'plug',
  'power',
  'presence',
  'problem',
  'running',
  'safety',
  'smoke',
  'sound',
  'tamper',
  'update',
  'vibration',
  'window',
]);
/** Numeric device classes (sensor and number) with the units Home Assistant accepts for them (a subset). */
const NUMERIC_CLASS_UNITS: Record<string, string[]> = {
  duration: ['d', 'h', 'min', 's', 'ms'],
  data_size: ['bit', 'kbit', 'Mbit', 'Gbit', 'B', 'kB', 'MB', 'GB', 'TB', 'PB', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'],
  temperature: ['°C', '°F', 'K'],
  humidity: ['%'],
  battery: ['%'],
  sound_pressure: ['dB', 'dBA'],
  signal_strength: ['dB', 'dBm'],
};

function expand(obj: Json, table: Record<string, string>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) out[table[k] ?? k] = v;
  return out;
}

const isText = (x: unknown) => typeof x === 'string' || typeof x === 'number'; // cv.string: str() of a scalar
const validPublishTopic = (t: unknown) => typeof t === 'string' && t.length > 0 && !/[+#\0]/.test(t) && Buffer.byteLength(t) <= 65535;
function validSubscribeTopic(t: unknown): boolean {
  if (typeof t !== 'string' || !t.length || t.includes('\0') || Buffer.byteLength(t) > 65535) return false;
  const levels = t.split('/');
  return levels.every((l, i) => (l.includes('#') ? l === '#' && i === levels.length - 1 : !l.includes('+') || l === '+'));
}
const validUrl = (u: unknown) => typeof u === 'string' && /^(https?:\/\/[^\s/]+|homeassistant:\/\/)/.test(u);

/** Problems Home Assistant would have with one component (already merged with the shared options). */
export function componentProblems(id: string, raw: Json): string[] {
  const c = expand(raw, ABBREVIATIONS);
  const problems: string[] = [];
  const bad = (msg: string) => problems.push(`${id}: ${msg}`);
  const platform = c.platform;
  if (!PLATFORMS.has(platform)) return [`${id}: platform ${JSON.stringify(platform)} unknown to Home Assistant`];
  if (Object.keys(c).length === 1) return []; // {"p": ...}: removal of this component
  if (c.name !== undefined && c.name !== null && !isText(c.name)) bad('name is not text');
  if (c.unique_id !== undefined && !isText(c.unique_id)) bad('unique_id is not text');
  if (c.enabled_by_default !== undefined && typeof c.enabled_by_default !== 'boolean') bad('enabled_by_default is not a boolean');
  if (c.icon !== undefined && !/^[a-z0-9_-]+:[a-z0-9_-]+$/i.test(String(c.icon))) bad(`icon ${c.icon} is not prefix:name`);
  if (c.entity_category !== undefined && c.entity_category !== 'config' && c.entity_category !== 'diagnostic')
    bad(`entity_category ${c.entity_category}`);
  if (c.state_topic !== undefined && !validSubscribeTopic(c.state_topic)) bad('state_topic is not a valid topic');
  if (c.command_topic !== undefined && !validPublishTopic(c.command_topic)) bad('command_topic is not a valid publish topic');
  if (c.value_template !== undefined && typeof c.value_template !== 'string') bad('value_template is not a template');
  if (c.availability_mode !== undefined && !['all', 'any', 'latest'].includes(c.availability_mode)) bad('availability_mode');
  for (const a of c.availability ?? []) {
    const av = expand(a, ABBREVIATIONS);
    if (!validSubscribeTopic(av.topic)) bad('availability topic missing or invalid');
  }
  const readOnly = platform === 'sensor' || platform === 'binary_sensor';
  if (readOnly && c.entity_category === 'config') bad(`a ${platform} cannot be in the config category`);
  if (readOnly && c.state_topic === undefined) bad('state_topic is required');
  // An update entity without a command topic has no Install (homeassistant/components/mqtt/update.py: optional).
  const noCommand = ['event', 'camera', 'image', 'update'];
  if (!readOnly && !noCommand.includes(platform) && c.command_topic === undefined) bad('command_topic is required');
  const numericClass = (unit: unknown) => {
    if (c.device_class === undefined) return;
    const units = NUMERIC_CLASS_UNITS[c.device_class];
    if (!units) bad(`device_class ${c.device_class} not known to this check`);
    else if (!units.includes(String(unit))) bad(`device_class ${String(c.device_class)} does not take the unit ${String(unit)}`);
  };
  switch (platform) {
    case 'switch':
    case 'binary_sensor': {
      const on = c.payload_on ?? 'ON';
      const off = c.payload_off ?? 'OFF';
      if (typeof c.value_template === 'string' && !(c.value_template.includes(on) && c.value_template.includes(off))) {
        bad('value_template never yields payload_on / payload_off');
      }
      if (platform === 'binary_sensor' && c.device_class !== undefined && !BINARY_SENSOR_CLASSES.has(c.device_class))
        bad(`device_class ${c.device_class}`);
      if (platform === 'switch' && c.device_class !== undefined && !['outlet', 'switch'].includes(c.device_class))
        bad(`device_class ${c.device_class}`);
      break;
    }
    case 'number': {
      const min = c.min ?? 1;
      const max = c.max ?? 100;
      if (typeof min !== 'number' || typeof max !== 'number') bad('min and max must be numbers');
      else if (min >= max) bad(`'max' must be > 'min' (min ${min}, max ${max})`);
      if (c.step !== undefined && !(typeof c.step === 'number' && c.step >= 1e-3)) bad('step must be >= 0.001');
      if (c.mode !== undefined && !['auto', 'box', 'slider'].includes(c.mode)) bad(`mode ${c.mode}`);
      numericClass(c.unit_of_measurement);
      break;
    }
    case 'sensor':
      numericClass(c.unit_of_measurement);
      break;
    case 'image':
      // image.py: exactly one of image_topic (raw bytes unless image_encoding b64) and url_topic; content_type a MIME type.
      if ((c.image_topic === undefined) === (c.url_topic === undefined)) bad('exactly one of image_topic and url_topic');
      if (c.image_topic !== undefined && !validSubscribeTopic(c.image_topic)) bad('image_topic is not a valid topic');
      if (c.content_type !== undefined && !/^image\/[a-z0-9.+-]+$/.test(String(c.content_type))) bad(`content_type ${c.content_type}`);
      if (c.image_encoding !== undefined && c.image_encoding !== 'b64') bad(`image_encoding ${c.image_encoding}`);
      if (c.json_attributes_topic !== undefined && !validSubscribeTopic(c.json_attributes_topic))
        bad('json_attributes_topic is not a valid topic');
      break;
    case 'camera':
      // camera.py: the picture's topic is required; raw bytes unless image_encoding says b64.
      if (!validSubscribeTopic(c.topic)) bad('topic is required (the picture)');
      if (c.image_encoding !== undefined && c.image_encoding !== 'b64') bad(`image_encoding ${c.image_encoding}`);
      if (c.json_attributes_topic !== undefined && !validSubscribeTopic(c.json_attributes_topic))
        bad('json_attributes_topic is not a valid topic');
      break;
    case 'event':
      // homeassistant/components/mqtt/event.py: state_topic and a non-empty event_types list are required.
      if (c.state_topic === undefined) bad('state_topic is required');
      if (!Array.isArray(c.event_types) || !c.event_types.length || !c.event_types.every((t: unknown) => typeof t === 'string'))
        bad('event_types must be a non-empty list of text');
      if (c.entity_category === 'config') bad('an event cannot be in the config category');
      break;
    case 'update':
      // homeassistant/components/mqtt/update.py: device_class firmware or none; installing needs a command topic.
      if (c.device_class !== undefined && c.device_class !== null && c.device_class !== 'firmware') bad(`device_class ${c.device_class}`);
      if (c.payload_install !== undefined && c.command_topic === undefined) bad('payload_install without command_topic');
      if (c.state_topic === undefined && c.latest_version_topic === undefined) bad('no state_topic: the installed version is never known');
      break;
    case 'select':
      if (!Array.isArray(c.options) || !c.options.length || !c.options.every((o: unknown) => typeof o === 'string'))
        bad('options must be a non-empty list of text');
      break;
    case 'light': {
      if ((c.schema ?? 'basic') !== 'basic' && c.schema !== 'default') bad(`schema ${c.schema} not checked here`);
      if (c.value_template !== undefined) bad('the default light schema has no value_template (state_value_template)');
      if (
        typeof c.state_value_template === 'string' &&
        !(c.state_value_template.includes(c.payload_on ?? 'ON') && c.state_value_template.includes(c.payload_off ?? 'OFF'))
      ) {
        bad('state_value_template never yields payload_on / payload_off');
      }
      if (c.brightness_scale !== undefined && !(Number.isInteger(c.brightness_scale) && c.brightness_scale >= 1))
        bad('brightness_scale must be an integer >= 1');
      if (c.brightness_command_topic !== undefined && !validPublishTopic(c.brightness_command_topic))
        bad('brightness_command_topic invalid');
      if (c.brightness_state_topic !== undefined && !validSubscribeTopic(c.brightness_state_topic)) bad('brightness_state_topic invalid');
      break;
    }
    case 'siren': {
      if (c.value_template !== undefined) bad('a siren has no value_template (state_value_template)');
      for (const k of ['support_duration', 'support_volume_set'])
        if (c[k] !== undefined && typeof c[k] !== 'boolean') bad(`${k} is not a boolean`);
      // Without command_template Home Assistant publishes {"state": payload_on|payload_off, ...}: nothing to check there.
      if (c.command_template !== undefined) bad('command_template set: Home Assistant default payloads are expected');
      break;
    }
    case 'alarm_control_panel': {
      if (c.state_topic === undefined) bad('state_topic is required');
      const features = c.supported_features ?? [...ALARM_FEATURES];
      if (!Array.isArray(features) || !features.every((f: string) => ALARM_FEATURES.has(f)))
        bad(`supported_features ${JSON.stringify(features)}`);
      for (const k of ['code_arm_required', 'code_disarm_required'])
        if (c[k] !== undefined && typeof c[k] !== 'boolean') bad(`${k} is not a boolean`);
      // Without a code configured, requiring one would make every action fail.
      if (c.code === undefined && (c.code_arm_required !== false || c.code_disarm_required !== false))
        bad('a code is required but none is configured');
      const states = [
        'disarmed',
        'armed_home',
        'armed_away',
        'armed_night',
        'armed_vacation',
        'armed_custom_bypass',
        'pending',
        'arming',
        'disarming',
        'triggered',
      ];
      if (typeof c.value_template !== 'string' || !states.some((s) => c.value_template.includes(s)))
        bad('value_template yields no alarm state');
      break;
    }
  }
  return problems;
}

/** Every problem Home Assistant would have with a device-based discovery payload (empty: accepted). */
export function deviceDiscoveryProblems(payload: Json): string[] {
  const problems: string[] = [];
  const doc = expand(payload, ABBREVIATIONS);
  for (const k of Object.keys(doc)) if (!DEVICE_DISCOVERY_KEYS.has(k)) problems.push(`extra key not allowed: ${k}`);
  if (!doc.device || typeof doc.device !== 'object') problems.push('device is required');
  else {
    const dev = expand(doc.device, DEVICE_ABBREVIATIONS);
    for (const [k, v] of Object.entries(dev)) {
      if (!DEVICE_KEYS.has(k)) problems.push(`device: extra key not allowed: ${k}`);
      else if (k === 'identifiers') {
        const ids = Array.isArray(v) ? v : [v];
        if (!ids.every(isText)) problems.push('device.identifiers: not text');
      } else if (k === 'configuration_url') {
        if (!validUrl(v)) problems.push(`device.configuration_url: not a URL: ${String(v)}`);
      } else if (k !== 'connections' && !isText(v)) problems.push(`device.${k}: expected text, got ${JSON.stringify(v)}`);
    }
    const ids = dev.identifiers === undefined ? [] : Array.isArray(dev.identifiers) ? dev.identifiers : [dev.identifiers];
    if (!ids.length && !dev.connections?.length) problems.push('device: at least one identifier is required');
  }
  if (!doc.origin || typeof doc.origin !== 'object') problems.push('origin is required');
  else {
    const o = expand(doc.origin, ORIGIN_ABBREVIATIONS);
    if (!isText(o.name)) problems.push('origin.name is required');
    if (o.support_url !== undefined && !validUrl(o.support_url)) problems.push('origin.support_url: not a URL');
  }
  if (doc.qos !== undefined && ![0, 1, 2].includes(doc.qos)) problems.push('qos');
  if (!doc.components || typeof doc.components !== 'object' || Array.isArray(doc.components)) {
    problems.push('components is required');
    return problems;
  }
  for (const [id, comp] of Object.entries(doc.components as Json)) {
    if (!comp || typeof comp !== 'object') {
      problems.push(`${id}: not an object`);
      continue;
    }
    const merged: Json = { ...comp };
    if (Object.keys(comp).length > 1)
      for (const k of SHARED_OPTIONS) if (doc[k] !== undefined && expand(comp, ABBREVIATIONS)[k] === undefined) merged[k] = doc[k];
    problems.push(...componentProblems(id, merged));
  }
  return problems;
}

/** Platforms whose schema has no state topic: Home Assistant drops a shared one there (`extra=vol.REMOVE_EXTRA`). */
const NO_STATE_TOPIC = new Set(['button', 'camera', 'image', 'notify']);

/**
 * A device-based discovery payload as Home Assistant reads its components: their options under the full names, and
 * the config's shared state topic where a component has none. `p`, `avty`, the device and origin stay as sent, and
 * so do removal markers (`{"p": ...}`). Anything without `cmps` is returned unchanged.
 */
export function asHomeAssistantReads<T = Json>(doc: T): T {
  const d = doc as Json;
  if (!d || typeof d !== 'object' || !d.cmps || typeof d.cmps !== 'object') return doc;
  const shared = d.stat_t ?? d.state_topic;
  const cmps: Json = {};
  for (const [id, c] of Object.entries(d.cmps as Json)) {
    if (!c || typeof c !== 'object' || Object.keys(c).length <= 1) {
      cmps[id] = c;
      continue;
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(c as Json)) out[k === 'p' || k === 'avty' ? k : (ABBREVIATIONS[k] ?? k)] = v;
    if (out.state_topic === undefined && shared !== undefined && !NO_STATE_TOPIC.has(out.p)) out.state_topic = shared;
    cmps[id] = out;
  }
  return { ...d, cmps } as T;
}

/**
 * What a select sends on its command topic for each option Home Assistant shows: the option itself, or its command
 * template rendered (Home Assistant passes the option as `value`). Only the template form the bridge announces
 * (`{% set m = {...} %}{{ m.get(value, value) }}`, the dictionary in JSON) is understood; another throws.
 */
export function selectSends(c: Json): string[] {
  const options = (c.options ?? c.ops) as string[];
  const tpl = (c.command_template ?? c.cmd_tpl) as string | undefined;
  if (tpl === undefined) return options;
  const m = /^\{% set m = (\{.*\}) %\}\{\{ m\.get\(value, value\) \}\}$/.exec(tpl);
  if (!m) throw new Error(`command template not understood here: ${tpl}`);
  const map = JSON.parse(m[1]) as Record<string, string>;
  return options.map((o) => map[o] ?? o);
}

/**
 * The option a select shows for a device value in its state (its value template rendered for `{key: value}`); the
 * value itself without a mapping. Same template form as `selectSends`.
 */
export function selectShows(c: Json, key: string, value: string): string {
  const tpl = (c.value_template ?? c.val_tpl) as string;
  const m = new RegExp(
    `^\\{% set m = (\\{.*\\}) %\\}\\{\\{ m\\.get\\(value_json\\.${key}, value_json\\.${key}\\) if value_json\\.${key} is defined else 'None' \\}\\}$`,
  ).exec(tpl);
  if (!m) return value;
  const map = JSON.parse(m[1]) as Record<string, string>;
  return map[value] ?? value;
}
