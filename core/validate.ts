import type { Violation } from './errors';
import { isChannelId } from './channels';
import { isPlainObject } from './json';
import { isPtzHex, ptzHexHas, ptzPresetIndices } from './ptz';
import { isDescriptor as isDesc, type RangeDescriptor } from './range';

/**
 * Checks a Get/Set payload against a Range `data` (rules R1, R2) and lists every violation with its dotted path
 * inside `data` (`channel_info.CH1.siren_time`; array elements by index: `ptz_info.0.ptz_chn`).
 *
 * Hot path (a Set is checked before every send): plain loops over module-level functions, no closures or
 * valibot, and no allocation unless a violation is found. The current path lives in a module-level stack; this
 * is safe because the walk is synchronous and calls nothing that could re-enter it.
 */

export interface ValidateOptions {
  /** Keys that are not parameters (page_type, chn_index, ...): skipped at the top level and inside any object. */
  metaKeys?: readonly string[];
}

type Map = Record<string, unknown>;
type Desc = RangeDescriptor;

const NO_META: readonly string[] = [];
const stack: Array<string | number> = [];
let depth = 0;
let meta: readonly string[] = NO_META;
let out: Violation[] = [];

function pathOf(): string {
  let s = '';
  for (let i = 0; i < depth; i++) s = i === 0 ? String(stack[0]) : `${s}.${stack[i]}`;
  return s;
}

function report(problem: Violation['problem'], message: string): void {
  out.push({ path: pathOf(), problem, message });
}

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'string') return JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}...` : x);
  if (typeof x === 'object') return 'object';
  return String(x);
}

/** `"a", "b", 3`: allowed values as they are written in JSON. */
function quotedList(items: readonly unknown[]): string {
  return items.map((x) => JSON.stringify(x)).join(', ');
}

/** Payload object `value` against a map of member descriptors (a Range `data`, or an object's `items`). */
function checkMembers(value: Map, members: Map): void {
  for (const key in value) {
    if (meta.length !== 0 && meta.indexOf(key) !== -1) continue;
    const d = members[key];
    stack[depth++] = key;
    if (isDesc(d)) {
      checkValue(value[key], d);
    } else if (d === undefined || !Object.hasOwn(members, key)) {
      if (isChannelId(key)) report('channel', 'is not a channel of this page on the device');
      // A Range channel block carries `status` only while the channel is offline (spec 2.2, 2.6), and then its
      // fields are missing because the camera is away, not because the device lacks them.
      else if (depth >= 2 && isChannelId(stack[depth - 2]) && isDesc(members.status))
        report('unsupported', 'is not available while the channel is offline');
      else report('unsupported', `is not a setting this device offers${didYouMean(key, members)}`);
    } else {
      // A plain Range value (enable_export: true, default_timeout: 60, channel_max): what the page says about
      // itself, not a field it takes. R1: only what Range describes may be sent.
      report('not_described', `cannot be set: the device reports it as a fact of the page (${describe(d)}), not as a setting`);
    }
    depth--;
  }
}

function checkValue(value: unknown, d: Desc): void {
  if (d.mode === 'r') {
    report('read_only', 'is read-only on this device');
    return;
  }
  switch (d.type) {
    case 'bool':
      if (typeof value !== 'boolean') report('type', `must be a boolean (got ${describe(value)})`);
      return;
    case 'int32':
      checkInt(value, d);
      return;
    case 'string':
      checkString(value, d);
      return;
    case 'object':
      if (!isPlainObject(value)) report('type', `must be an object (got ${describe(value)})`);
      else if (isPlainObject(d.items)) checkMembers(value, d.items);
      return;
    case 'array':
      checkArray(value, d);
      return;
    default:
    // A type the spec does not define: the device knows what it means, we cannot check it.
  }
}

function checkInt(value: unknown, d: Desc): void {
  const items = d.items;
  if (typeof value !== 'number') {
    // Also linkage_ptz_point_index from 8.2.3: only its Range `items` is the hex preset set (spec 2.3);
    // the value sent stays one int32 index.
    report('type', `must be an integer (got ${describe(value)})`);
    return;
  }
  if ((value | 0) !== value) {
    report('type', `must be a 32-bit integer (got ${describe(value)})`);
    return;
  }
  if (d.min !== undefined && value < d.min) report('min', `must be at least ${d.min} (got ${value})`);
  else if (d.max !== undefined && value > d.max) report('max', `must be at most ${d.max} (got ${value})`);
  else if (Array.isArray(items)) {
    if (items.length !== 0 && items.indexOf(value) === -1) report('enum', `must be one of ${items.join(', ')} (got ${value})`);
  } else if (typeof items === 'string' && isPtzHex(items) && (value < 0 || value > 255 || !ptzHexHas(items, value))) {
    report('enum', `must be one of the available presets ${ptzPresetIndices(items).join(', ')} (got ${value})`);
  }
}

function checkString(value: unknown, d: Desc): void {
  if (typeof value !== 'string') {
    report('type', `must be a string (got ${describe(value)})`);
    return;
  }
  const items = d.items;
  if (Array.isArray(items) && items.length !== 0 && items.indexOf(value) === -1) {
    report('enum', `must be one of ${quotedList(items)} (got ${describe(value)})`);
    return;
  }
  // Length in UTF-8 bytes: the spec bounds strings in bytes ("max 63 bytes") and firmware stores them
  // in byte buffers, so counting characters could let through a name the device refuses. ASCII: same.
  const len = d.min_len === undefined && d.max_len === undefined ? 0 : Buffer.byteLength(value, 'utf8');
  if (d.min_len !== undefined && len < d.min_len) {
    report('length', `must be at least ${d.min_len} bytes long (got ${len})`);
  } else if (d.max_len !== undefined && len > d.max_len) {
    report('length', `must be at most ${d.max_len} bytes long (got ${len})`);
  }
}

function checkArray(value: unknown, d: Desc): void {
  if (!Array.isArray(value)) {
    report('type', `must be an array (got ${describe(value)})`);
    return;
  }
  const n = value.length;
  if (d.size !== undefined && n !== d.size) report('size', `must have exactly ${d.size} elements (got ${n})`);
  else if (d.min_size !== undefined && n < d.min_size) report('size', `must have at least ${d.min_size} elements (got ${n})`);
  else if (d.max_size !== undefined && n > d.max_size) report('size', `must have at most ${d.max_size} elements (got ${n})`);
  const items = d.items;
  // `items` as one element descriptor object rather than a list of them (vendor: disarming_channel).
  if (isDesc(items)) {
    for (let i = 0; i < n; i++) {
      stack[depth++] = i;
      checkValue(value[i], items);
      depth--;
    }
    return;
  }
  if (!Array.isArray(items) || items.length === 0) return;
  if (isMemberMap(items[0])) {
    // Element given as its members' descriptors without a `type` (vendor: disarming_schedule, week).
    const single = items.length === 1;
    for (let i = 0; i < n; i++) {
      const members = (single ? items[0] : items[i]) as Map;
      stack[depth++] = i;
      if (!isPlainObject(value[i])) report('type', `must be an object (got ${describe(value[i])})`);
      else if (isPlainObject(members)) checkMembers(value[i] as Map, members);
      depth--;
    }
    return;
  }
  if (isDesc(items[0])) {
    // One element descriptor applies to every element; several form a tuple (elements past its end: size rules only).
    const single = items.length === 1;
    for (let i = 0; i < n; i++) {
      const ed: unknown = single ? items[0] : items[i];
      if (!isDesc(ed)) continue;
      stack[depth++] = i;
      checkValue(value[i], ed);
      depth--;
    }
  } else {
    // Plain values: the allowed element values (etr_sync_items, siren_support_format...).
    for (let i = 0; i < n; i++) {
      if (items.indexOf(value[i]) !== -1) continue;
      stack[depth++] = i;
      report('enum', `must be one of ${quotedList(items)} (got ${describe(value[i])})`);
      depth--;
    }
  }
}

/** A plain object (not a descriptor) whose members are descriptors: an element shape without `type`. */
function isMemberMap(x: unknown): boolean {
  if (!isPlainObject(x) || isDesc(x)) return false;
  for (const k in x) if (isDesc(x[k])) return true;
  return false;
}

/** Levenshtein distance, two rows. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The member of `members` nearest to `key` when it is plausibly a typo (`siren_volume` -> siren_value):
 * `; did you mean siren_value?`, or '' when nothing is close. Only runs when a violation is reported.
 */
export function nearestField(key: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = editDistance(key.toLowerCase(), c.toLowerCase());
    if (d < bestDist || (d === bestDist && best !== undefined && c < best)) {
      best = c;
      bestDist = d;
    }
  }
  // Up to one edit per five characters (at least one, at most three): siren_volume -> siren_value, not siren_colour.
  return best !== undefined && bestDist <= Math.min(3, Math.max(1, Math.floor(key.length / 5))) ? best : undefined;
}

function didYouMean(key: string, members: Map): string {
  const names: string[] = [];
  for (const k in members) if (isDesc(members[k]) && members[k].mode !== 'r') names.push(k);
  const near = nearestField(key, names);
  return near ? `; did you mean ${near}?` : '';
}

export function validateAgainstRange(payload: unknown, rangeData: Record<string, unknown>, opts?: ValidateOptions): Violation[] {
  const result: Violation[] = [];
  out = result;
  depth = 0;
  meta = opts?.metaKeys ?? NO_META;
  try {
    if (!isPlainObject(payload)) report('type', `the data must be an object (got ${describe(payload)})`);
    else checkMembers(payload, rangeData);
  } finally {
    out = [];
    meta = NO_META;
    depth = 0;
  }
  return result;
}

/**
 * A copy of `payload` keeping only what a Set may carry: fields the Range describes and does not mark read-only
 * (objects recursively), plus meta keys. Use it to send a Get block back (Deterrence Set) without tripping R1/R2.
 */
export function writableSubset<T>(payload: T, rangeData: Record<string, unknown>, opts?: ValidateOptions): T {
  const metaKeys = opts?.metaKeys ?? NO_META;
  const pick = (value: Map, members: Map): Map => {
    const res: Map = {};
    for (const key of Object.keys(value)) {
      if (metaKeys.includes(key)) {
        res[key] = value[key];
        continue;
      }
      if (!Object.hasOwn(members, key)) continue;
      const d = members[key];
      // A plain Range value is no field (see checkMembers): never echoed back.
      if (!isDesc(d) || d.mode === 'r') continue;
      else if (d.type === 'object' && isPlainObject(d.items) && isPlainObject(value[key])) res[key] = pick(value[key], d.items);
      else res[key] = value[key];
    }
    return res;
  };
  return (isPlainObject(payload) ? pick(payload, rangeData) : payload) as T;
}
