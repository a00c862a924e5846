/**
 * The simulator's own Range check (rule R1/R2), deliberately independent of the client's validator: a Set is
 * judged against the Range the simulator itself serves. Every problem is reported as "<path>: <what>", the path
 * dotted inside `data` (`channel_info.CH1.siren_time`, array elements by index).
 */
import { isDeepStrictEqual } from 'node:util';
import { Descriptor, RangeMap, isDescriptor, isPlainObject } from './descriptors';

const CHANNEL_ID = /^(CH|IP_CH|WIFI_CH)[1-9]\d*$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * What a key that is not a parameter may hold: one of these strings (`page_type`), `'channel'` (a channel of the
 * device: the UI's `chn_index`, `selectedChn`), or `'any'` (a UI leftover such as the Disarming `schedule` grid).
 */
type MetaRule = readonly string[] | 'channel' | 'any';
export type MetaRules = Readonly<Record<string, MetaRule>>;

interface CheckOptions {
  /** Top-level keys that are not parameters (page_type, UI leftovers). */
  topMeta?: MetaRules;
  /** Keys of a channel block that are not parameters (Deterrence `page: "chn_floodlight"`). */
  channelMeta?: MetaRules;
  /** Groups of a channel block whose members the Range lists flat in the block (vendor ImageControl `FullColorMode`). */
  flatGroups?: readonly string[];
  /** Every channel of the device: a Get marker (`{reason}`, `{status, reason}`) sent back for one of them is ignored. */
  channels?: ReadonlySet<string>;
  /** The Get answer now: a read-only member sent back unchanged is accepted (the UI sends the whole Get back). */
  current?: unknown;
}

/** A channel entry of a Get that carries no parameters: `{"reason":"Not configured"}`, `{"status":"Offline","reason":"Not support"}`. */
export function isGetMarker(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => (k === 'status' || k === 'reason') && typeof v[k] === 'string') && 'reason' in v;
}

function metaProblem(rule: MetaRule, v: unknown, channels: ReadonlySet<string> | undefined): string | undefined {
  if (rule === 'any') return undefined;
  if (rule === 'channel') {
    return typeof v === 'string' && (channels === undefined || channels.has(v))
      ? undefined
      : `must be a channel of the device, got ${show(v)}`;
  }
  return rule.includes(v as string) ? undefined : `must be one of ${rule.join(', ')}, got ${show(v)}`;
}

function show(x: unknown): string {
  if (typeof x === 'string') return JSON.stringify(x.length > 32 ? `${x.slice(0, 32)}...` : x);
  if (Array.isArray(x)) return 'an array';
  if (x === null) return 'null';
  if (typeof x === 'object') return 'an object';
  return String(x);
}

function join(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

/** Bit `i` of a 256-bit little-endian hex string: byte i>>3 is hex digits [2(i>>3), 2(i>>3)+1]. */
function hexBit(hex: string, i: number): boolean {
  const byte = parseInt(hex.slice((i >> 3) * 2, (i >> 3) * 2 + 2), 16);
  return Number.isFinite(byte) && ((byte >> (i & 7)) & 1) === 1;
}

class Checker {
  readonly problems: string[] = [];

  constructor(private readonly opts: CheckOptions) {}

  private bad(path: string, what: string): void {
    this.problems.push(`${path}: ${what}`);
  }

  /** `value` (an object of the request) against a map of member descriptors; `cur` is the same object in the Get now. */
  members(
    value: Record<string, unknown>,
    members: RangeMap,
    path: string,
    channelMap: boolean,
    channel: string | undefined,
    cur: unknown,
  ): void {
    const meta = path === '' ? this.opts.topMeta : channel !== undefined ? this.opts.channelMeta : undefined;
    for (const key of Object.keys(value)) {
      const here = join(path, key);
      if (meta && Object.hasOwn(meta, key)) {
        const problem = metaProblem(meta[key], value[key], this.opts.channels);
        if (problem) this.bad(here, problem);
        continue;
      }
      if (channelMap && this.opts.channels?.has(key) && isGetMarker(value[key])) continue;
      if (channel !== undefined && key === 'chn_index') {
        if (value[key] !== channel) this.bad(here, `must be "${channel}", got ${show(value[key])}`);
        continue;
      }
      const d = Object.hasOwn(members, key) ? members[key] : undefined;
      if (d === undefined && channel !== undefined && path.endsWith(channel) && this.opts.flatGroups?.includes(key)) {
        // The Get nests these members, the Range describes them beside the group: check them there.
        const now = isPlainObject(cur) ? cur[key] : undefined;
        if (!isPlainObject(value[key])) this.bad(here, `wrong type: expected object, got ${show(value[key])}`);
        else this.members(value[key], members, here, false, channel, now);
      } else if (d === undefined) {
        if (channelMap && CHANNEL_ID.test(key)) this.bad(here, 'unknown channel (absent from Range)');
        else this.bad(here, 'unsupported field (absent from Range)');
      } else if (!isDescriptor(d)) {
        this.bad(here, 'not a settable parameter');
      } else {
        const now = isPlainObject(cur) ? cur[key] : undefined;
        this.value(value[key], d, here, channelMap ? key : undefined, key === 'channel_info' && path === '', now);
      }
    }
  }

  value(v: unknown, d: Descriptor, path: string, channel: string | undefined, isChannelInfo: boolean, cur: unknown): void {
    if (d.mode === 'r') {
      if (cur !== undefined && isDeepStrictEqual(v, cur)) return; // sent back unchanged
      return this.bad(path, 'read-only field');
    }
    switch (d.type) {
      case 'bool':
        if (typeof v !== 'boolean') this.bad(path, `wrong type: expected bool, got ${show(v)}`);
        return;
      case 'int32':
        return this.int(v, d, path);
      case 'string':
        return this.string(v, d, path);
      case 'object':
        if (!isPlainObject(v)) return this.bad(path, `wrong type: expected object, got ${show(v)}`);
        if (isPlainObject(d.items)) this.members(v, d.items, path, isChannelInfo, channel, cur);
        return;
      case 'array':
        return this.array(v, d, path, cur);
      default:
        return this.bad(path, `unknown descriptor type ${show(d.type)}`);
    }
  }

  private int(v: unknown, d: Descriptor, path: string): void {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) {
      return this.bad(path, `wrong type: expected int32, got ${show(v)}`);
    }
    if (d.min !== undefined && v < d.min) return this.bad(path, `${v} is below the minimum ${d.min}`);
    if (d.max !== undefined && v > d.max) return this.bad(path, `${v} is above the maximum ${d.max}`);
    if (Array.isArray(d.items) && !d.items.includes(v)) return this.bad(path, `${v} is not one of the allowed values`);
    if (typeof d.items === 'string' && !hexBit(d.items, v)) return this.bad(path, `option ${v} is not available`);
  }

  private string(v: unknown, d: Descriptor, path: string): void {
    if (typeof v !== 'string') return this.bad(path, `wrong type: expected string, got ${show(v)}`);
    if (Array.isArray(d.items) && !d.items.includes(v)) {
      return this.bad(path, `${show(v)} is not one of ${d.items.map((x) => JSON.stringify(x)).join(', ')}`);
    }
    // The specification counts string limits in bytes ("max 63 bytes").
    if (d.min_len !== undefined || d.max_len !== undefined) {
      const n = Buffer.byteLength(v, 'utf8');
      if (d.min_len !== undefined && n < d.min_len) return this.bad(path, `length ${n} is below min_len ${d.min_len}`);
      if (d.max_len !== undefined && n > d.max_len) return this.bad(path, `length ${n} is above max_len ${d.max_len}`);
    }
  }

  private array(v: unknown, d: Descriptor, path: string, cur: unknown): void {
    if (!Array.isArray(v)) return this.bad(path, `wrong type: expected array, got ${show(v)}`);
    const n = v.length;
    if (d.size !== undefined && n !== d.size) return this.bad(path, `array size ${n}, must be exactly ${d.size}`);
    if (d.min_size !== undefined && n < d.min_size) return this.bad(path, `array size ${n} is below min_size ${d.min_size}`);
    if (d.max_size !== undefined && n > d.max_size) return this.bad(path, `array size ${n} is above max_size ${d.max_size}`);
    if (!Array.isArray(d.items) || d.items.length === 0) return;
    const first: unknown = d.items[0];
    if (isDescriptor(first)) {
      // One element descriptor applies to every element; several form a tuple.
      const single = d.items.length === 1;
      for (let i = 0; i < n; i++) {
        const el: unknown = single ? first : d.items[i];
        if (isDescriptor(el)) this.value(v[i], el, join(path, i), undefined, false, Array.isArray(cur) ? cur[i] : undefined);
      }
    } else {
      for (let i = 0; i < n; i++) {
        if (!d.items.includes(v[i])) this.bad(join(path, i), `${show(v[i])} is not one of the allowed values`);
      }
    }
  }
}

/** Problems of a Set `data` against the page's Range `data`; empty when the Set is acceptable. */
export function checkSet(data: unknown, range: RangeMap, opts: CheckOptions = {}): string[] {
  const c = new Checker(opts);
  if (!isPlainObject(data)) c.problems.push(`data: wrong type: expected object, got ${show(data)}`);
  else c.members(data, range, '', false, undefined, opts.current);
  return c.problems;
}
