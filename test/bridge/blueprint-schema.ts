/**
 * What Home Assistant checks when it imports a blueprint, restated: its `blueprint:` section
 * (homeassistant/components/blueprint/schemas.py: BLUEPRINT_SCHEMA, BLUEPRINT_INPUT_SCHEMA,
 * BLUEPRINT_INPUT_SECTION_SCHEMA, unique_input_validator, version_validator; cv.url), the selectors of its inputs
 * (homeassistant/helpers/selector.py: validate_selector and the CONFIG_SCHEMA of each selector a blueprint here uses),
 * every `!input` naming a declared input, and the automation around it (its keys, `mode`, the mobile_app device
 * action). A blueprint that passes here is one Home Assistant imports and sets up.
 */
import YAML from 'yaml';

/** An `!input name` of the blueprint's body. */
export class InputRef {
  constructor(readonly name: string) {}
}

type Json = Record<string, unknown>;

/** A blueprint file as Home Assistant's YAML loader reads it (`!input` kept as InputRef). */
export function parseBlueprint(text: string): Json {
  return YAML.parse(text, {
    customTags: [{ tag: '!input', identify: (v: unknown) => v instanceof InputRef, resolve: (s: string) => new InputRef(s) }],
  }) as Json;
}

const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof InputRef);
const isStr = (x: unknown) => typeof x === 'string';
const ensureList = (x: unknown) => (Array.isArray(x) ? x : x === undefined ? [] : [x]);

/** Keys of `o` outside `allowed` (voluptuous' default: extra keys are invalid). */
function extra(o: Json, allowed: readonly string[], where: string, problems: string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) problems.push(`${where}: extra key not allowed: ${k}`);
}

/** cv.url: http or https with a host (urlparse: scheme and netloc). */
export function isHaUrl(x: unknown): boolean {
  if (typeof x !== 'string') return false;
  const m = /^(https?):\/\/([^/?#]+)/.exec(x);
  return !!m;
}

/** version_validator: "{major}.{minor}.{patch}", integers. */
const isVersion = (x: unknown) => typeof x === 'string' && /^\d+\.\d+\.\d+$/.test(x);

const ENTITY_FILTER = ['integration', 'domain', 'device_class', 'supported_features'];
const DEVICE_FILTER = ['integration', 'manufacturer', 'model', 'entity'];

function entityFilterProblems(f: unknown, where: string, problems: string[]): void {
  if (!isObject(f)) return void problems.push(`${where}: a filter is a mapping`);
  extra(f, ENTITY_FILTER, where, problems);
  if (f.integration !== undefined && !isStr(f.integration)) problems.push(`${where}.integration: text`);
  for (const k of ['domain', 'device_class']) if (!ensureList(f[k]).every(isStr)) problems.push(`${where}.${k}: text or a list of text`);
}

function deviceFilterProblems(f: unknown, where: string, problems: string[]): void {
  if (!isObject(f)) return void problems.push(`${where}: a filter is a mapping`);
  extra(f, DEVICE_FILTER, where, problems);
  for (const k of ['integration', 'manufacturer', 'model']) if (f[k] !== undefined && !isStr(f[k])) problems.push(`${where}.${k}: text`);
  for (const [i, e] of ensureList(f.entity).entries()) entityFilterProblems(e, `${where}.entity[${i}]`, problems);
}

/** selector.py's selectors, by type: what their CONFIG_SCHEMA accepts (`read_only` is common to all). */
const SELECTORS: Readonly<Record<string, (c: Json, where: string, problems: string[]) => void>> = {
  entity(c, where, problems) {
    extra(c, [...ENTITY_FILTER, 'exclude_entities', 'include_entities', 'multiple', 'filter', 'read_only'], where, problems);
    entityFilterProblems(Object.fromEntries(Object.entries(c).filter(([k]) => ENTITY_FILTER.includes(k))), where, problems);
    if (c.multiple !== undefined && typeof c.multiple !== 'boolean') problems.push(`${where}.multiple: boolean`);
    for (const [i, f] of ensureList(c.filter).entries()) entityFilterProblems(f, `${where}.filter[${i}]`, problems);
  },
  device(c, where, problems) {
    extra(c, [...DEVICE_FILTER, 'multiple', 'filter', 'read_only'], where, problems);
    if (c.multiple !== undefined && typeof c.multiple !== 'boolean') problems.push(`${where}.multiple: boolean`);
    for (const [i, f] of ensureList(c.filter).entries()) deviceFilterProblems(f, `${where}.filter[${i}]`, problems);
  },
  number(c, where, problems) {
    extra(c, ['min', 'max', 'step', 'unit_of_measurement', 'mode', 'read_only'], where, problems);
    for (const k of ['min', 'max']) if (c[k] !== undefined && typeof c[k] !== 'number') problems.push(`${where}.${k}: a number`);
    if (c.step !== undefined && c.step !== 'any' && !(typeof c.step === 'number' && c.step >= 1e-3)) problems.push(`${where}.step`);
    const mode = c.mode ?? 'slider';
    if (mode !== 'box' && mode !== 'slider') problems.push(`${where}.mode: box or slider`);
    // validate_slider: a slider needs both bounds.
    if (mode === 'slider' && (c.min === undefined || c.max === undefined))
      problems.push(`${where}: min and max are required in slider mode`);
  },
  text(c, where, problems) {
    extra(c, ['multiline', 'prefix', 'suffix', 'type', 'autocomplete', 'multiple', 'read_only'], where, problems);
    const types = [
      'color',
      'date',
      'datetime-local',
      'email',
      'month',
      'number',
      'password',
      'search',
      'tel',
      'text',
      'time',
      'url',
      'week',
    ];
    if (c.type !== undefined && !types.includes(String(c.type))) problems.push(`${where}.type: one of ${types.join(', ')}`);
  },
  select(c, where, problems) {
    extra(c, ['options', 'multiple', 'custom_value', 'mode', 'translation_key', 'sort', 'read_only'], where, problems);
    const options = c.options;
    const plain = Array.isArray(options) && options.every(isStr);
    const labelled =
      Array.isArray(options) &&
      options.every((o) => isObject(o) && isStr(o.value) && isStr(o.label) && Object.keys(o).every((k) => k === 'value' || k === 'label'));
    if (!plain && !labelled) problems.push(`${where}.options: a list of text, or of {value, label}`);
    if (c.mode !== undefined && c.mode !== 'list' && c.mode !== 'dropdown') problems.push(`${where}.mode: list or dropdown`);
  },
  boolean(c, where, problems) {
    extra(c, ['read_only'], where, problems);
  },
  duration(c, where, problems) {
    extra(c, ['enable_day', 'enable_millisecond', 'allow_negative', 'read_only'], where, problems);
  },
};

/** validate_selector: one type, known, its config valid. */
function selectorProblems(sel: unknown, where: string, problems: string[]): void {
  if (!isObject(sel)) return void problems.push(`${where}: a selector is a mapping`);
  const types = Object.keys(sel);
  if (types.length !== 1) return void problems.push(`${where}: only one type can be specified`);
  const check = SELECTORS[types[0]];
  if (!check) return void problems.push(`${where}: selector ${types[0]} is not one this check knows`);
  const config = sel[types[0]] ?? {};
  if (!isObject(config)) return void problems.push(`${where}.${types[0]}: its config is a mapping`);
  check(config, `${where}.${types[0]}`, problems);
}

/** A declared input's value as the selector would take it (its default here). */
function defaultProblems(input: Json, where: string, problems: string[]): void {
  if (input.default === undefined || !isObject(input.selector)) return;
  const [type] = Object.keys(input.selector);
  const c = (input.selector[type] ?? {}) as Json;
  const d = input.default;
  if (type === 'select') {
    const values = (c.options as Array<string | { value: string }>).map((o) => (typeof o === 'string' ? o : o.value));
    for (const v of c.multiple ? ensureList(d) : [d])
      if (!values.includes(String(v))) problems.push(`${where}.default: ${String(v)} is not an option`);
  }
  if (
    type === 'number' &&
    (typeof d !== 'number' || (c.min !== undefined && d < Number(c.min)) || (c.max !== undefined && d > Number(c.max)))
  )
    problems.push(`${where}.default: a number within its bounds`);
  if (type === 'entity' && (typeof d !== 'string' || !/^[a-z0-9_]+\.[a-z0-9_]+$/.test(d))) problems.push(`${where}.default: an entity id`);
  if (type === 'duration' && !isObject(d)) problems.push(`${where}.default: a duration mapping`);
}

/** Every `!input` in `node`, with where it is. */
export function inputRefs(node: unknown, path = ''): Array<{ name: string; path: string }> {
  if (node instanceof InputRef) return [{ name: node.name, path }];
  if (Array.isArray(node)) return node.flatMap((n, i) => inputRefs(n, `${path}[${i}]`));
  if (isObject(node)) return Object.entries(node).flatMap(([k, v]) => inputRefs(v, path ? `${path}.${k}` : k));
  return [];
}

/** The declared inputs (sections flattened), by name. */
export function declaredInputs(doc: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  const inputs = isObject(doc.blueprint) && isObject(doc.blueprint.input) ? doc.blueprint.input : {};
  for (const [k, v] of Object.entries(inputs)) {
    if (isObject(v) && isObject(v.input)) for (const [kk, vv] of Object.entries(v.input)) out.set(kk, (vv ?? {}) as Json);
    else out.set(k, (v ?? {}) as Json);
  }
  return out;
}

/** Keys of an automation (homeassistant/components/automation/config.py's PLATFORM_SCHEMA, 2024.10 and later). */
const AUTOMATION_KEYS = [
  'blueprint',
  'id',
  'alias',
  'description',
  'triggers',
  'conditions',
  'actions',
  'mode',
  'max',
  'max_exceeded',
  'variables',
  'trigger_variables',
  'initial_state',
  'trace',
];

/** Every problem Home Assistant would have with an automation blueprint (empty: it imports). */
export function blueprintProblems(doc: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(doc) || !isObject(doc.blueprint)) return ['blueprint: required, a mapping'];
  const b = doc.blueprint;
  extra(b, ['name', 'description', 'domain', 'source_url', 'author', 'homeassistant', 'input'], 'blueprint', problems);
  if (!isStr(b.name)) problems.push('blueprint.name: required text');
  if (!isStr(b.domain)) problems.push('blueprint.domain: required text');
  if (b.description !== undefined && !isStr(b.description)) problems.push('blueprint.description: text');
  if (b.author !== undefined && !isStr(b.author)) problems.push('blueprint.author: text');
  if (b.source_url !== undefined && !isHaUrl(b.source_url)) problems.push('blueprint.source_url: invalid url');
  if (b.homeassistant !== undefined) {
    if (!isObject(b.homeassistant)) problems.push('blueprint.homeassistant: a mapping');
    else {
      extra(b.homeassistant, ['min_version'], 'blueprint.homeassistant', problems);
      if (b.homeassistant.min_version !== undefined && !isVersion(b.homeassistant.min_version))
        problems.push('blueprint.homeassistant.min_version: formatted as {major}.{minor}.{patch}');
    }
  }
  const inputs = b.input ?? {};
  if (!isObject(inputs)) problems.push('blueprint.input: a mapping');
  else {
    const seen = new Set<string>();
    const input = (name: string, v: unknown, where: string) => {
      if (seen.has(name)) problems.push(`Duplicate use of input key ${name} in blueprint.`);
      seen.add(name);
      if (v === null) return;
      if (!isObject(v)) return void problems.push(`${where}: null or a mapping`);
      extra(v, ['name', 'description', 'default', 'selector'], where, problems);
      for (const k of ['name', 'description']) if (v[k] !== undefined && !isStr(v[k])) problems.push(`${where}.${k}: text`);
      if (v.selector !== undefined) selectorProblems(v.selector, `${where}.selector`, problems);
      defaultProblems(v, where, problems);
    };
    for (const [k, v] of Object.entries(inputs)) {
      if (isObject(v) && 'input' in v) {
        extra(v, ['name', 'icon', 'description', 'collapsed', 'input'], `blueprint.input.${k}`, problems);
        if (!isObject(v.input)) problems.push(`blueprint.input.${k}.input: a mapping`);
        else for (const [kk, vv] of Object.entries(v.input)) input(kk, vv, `blueprint.input.${k}.input.${kk}`);
      } else input(k, v, `blueprint.input.${k}`);
    }
  }
  // The automation around it.
  if (b.domain === 'automation') {
    extra(doc, AUTOMATION_KEYS, 'automation', problems);
    if (doc.triggers === undefined) problems.push('automation: triggers required');
    if (doc.actions === undefined) problems.push('automation: actions required');
    if (doc.mode !== undefined && !['single', 'restart', 'queued', 'parallel'].includes(String(doc.mode))) problems.push('automation.mode');
    // `triggers`, `conditions`, `actions` and `trigger:` in a trigger are the syntax of 2024.10 on.
    const min = isObject(b.homeassistant) && isStr(b.homeassistant.min_version) ? String(b.homeassistant.min_version) : '0.0.0';
    const [maj, minor] = min.split('.').map(Number);
    if (maj < 2024 || (maj === 2024 && minor < 10))
      problems.push('blueprint.homeassistant.min_version: 2024.10.0 or later for this syntax');
    for (const [i, t] of ensureList(doc.triggers).entries())
      if (!isObject(t) || !isStr(t.trigger)) problems.push(`automation.triggers[${i}]: trigger required`);
    for (const a of actionsOf(doc.actions)) {
      // The mobile_app device action (homeassistant/components/mobile_app/device_action.py).
      if (a.domain === 'mobile_app') {
        extra(a, ['domain', 'type', 'device_id', 'message', 'title', 'data', 'alias'], 'automation.actions (mobile_app)', problems);
        if (a.type !== 'notify' || a.device_id === undefined || a.message === undefined)
          problems.push('automation.actions (mobile_app): type notify, device_id and message required');
      }
    }
  }
  // Every !input names a declared input.
  const declared = declaredInputs(doc);
  for (const ref of inputRefs({ ...doc, blueprint: undefined }))
    if (!declared.has(ref.name)) problems.push(`${ref.path}: !input ${ref.name} is not declared`);
  return problems;
}

/** Every action of a sequence, also inside choose / if / then / else / sequence. */
export function actionsOf(seq: unknown): Json[] {
  const out: Json[] = [];
  for (const a of ensureList(seq)) {
    if (!isObject(a)) continue;
    out.push(a);
    for (const k of ['then', 'else', 'sequence', 'default']) out.push(...actionsOf(a[k]));
    for (const c of ensureList(a.choose)) if (isObject(c)) out.push(...actionsOf(c.sequence));
  }
  return out;
}
