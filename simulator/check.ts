/**
 * The simulator's own Range check (rule R1/R2), deliberately independent of the client's validator: a Set is
 * judged against the Range the simulator itself serves. Every problem is reported as "<path>: <what>", the path
 * dotted inside `data` (`channel_info.CH1.siren_time`, array elements by index).
 */
import { Descriptor, RangeMap, isDescriptor, isPlainObject } from './descriptors';

const CHANNEL_ID = /^(CH|IP_CH|WIFI_CH)[1-9]\d*$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export interface CheckOptions {
  /** Top-level keys that are not parameters, with the values each may take (page_type). */
  topMeta?: Readonly<Record<string, readonly string[]>>;
  /** Keys of a channel block that are not parameters, with their allowed values (Deterrence `page: "chn_floodlight"`). */
  channelMeta?: Readonly<Record<string, readonly string[]>>;
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

  /** `value` (an object of the request) against a map of member descriptors. */
  members(value: Record<string, unknown>, members: RangeMap, path: string, channelMap: boolean, channel?: string): void {
    for (const key of Object.keys(value)) {
      const here = join(path, key);
      if (path === '' && this.opts.topMeta && Object.hasOwn(this.opts.topMeta, key)) {
        const allowed = this.opts.topMeta[key];
        if (!allowed.includes(value[key] as string)) this.bad(here, `must be one of ${allowed.join(', ')}, got ${show(value[key])}`);
        continue;
      }
      const cm = channel !== undefined ? this.opts.channelMeta : undefined;
      if (cm && Object.hasOwn(cm, key)) {
        if (!cm[key].includes(value[key] as string)) this.bad(here, `must be one of ${cm[key].join(', ')}, got ${show(value[key])}`);
        continue;
      }
      if (channel !== undefined && key === 'chn_index') {
        if (value[key] !== channel) this.bad(here, `must be "${channel}", got ${show(value[key])}`);
        continue;
      }
      const d = Object.hasOwn(members, key) ? members[key] : undefined;
      if (d === undefined) {
        if (channelMap && CHANNEL_ID.test(key)) this.bad(here, 'unknown channel (absent from Range)');
        else this.bad(here, 'unsupported field (absent from Range)');
      } else if (!isDescriptor(d)) {
        this.bad(here, 'not a settable parameter');
      } else {
        this.value(value[key], d, here, channelMap ? key : undefined, key === 'channel_info' && path === '');
      }
    }
  }

  value(v: unknown, d: Descriptor, path: string, channel: string | undefined, isChannelInfo: boolean): void {
    if (d.mode === 'r') return this.bad(path, 'read-only field');
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
        if (isPlainObject(d.items)) this.members(v, d.items, path, isChannelInfo, channel);
        return;
      case 'array':
        return this.array(v, d, path);
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

  private array(v: unknown, d: Descriptor, path: string): void {
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
        if (isDescriptor(el)) this.value(v[i], el, join(path, i), undefined, false);
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
  else c.members(data, range, '', false);
  return c.problems;
}
