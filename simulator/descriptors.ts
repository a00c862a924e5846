/** Range descriptor model of the simulator (spec 1, "Range descriptor convention") and small builders. */

export type DescriptorType = 'bool' | 'string' | 'int32' | 'object' | 'array';

export interface Descriptor {
  type: DescriptorType;
  /** string/int32: allowed values; int32 PTZ index (new firmware): 64-hex-digit preset set;
   *  object: member name -> descriptor; array: one element descriptor (applies to every element) or allowed values. */
  items?: readonly unknown[] | string | Readonly<Record<string, unknown>>;
  mode?: 'r' | 'rw';
  min?: number;
  max?: number;
  min_len?: number;
  max_len?: number;
  min_size?: number;
  max_size?: number;
  size?: number;
  default_value?: unknown;
  default_value_frontal?: unknown;
  default_value_multi?: unknown;
  description?: string;
}

/** A Range `data` (or an object's `items`): descriptors mixed with plain meta values (channel_max, support_copy). */
export type RangeMap = Record<string, unknown>;

type Extra = Partial<Descriptor>;

export const bool = (extra?: Extra): Descriptor => ({ type: 'bool', mode: 'rw', ...extra });
export const int = (min: number, max: number, extra?: Extra): Descriptor => ({ type: 'int32', mode: 'rw', min, max, ...extra });
export const intOf = (items: readonly number[], extra?: Extra): Descriptor => ({ type: 'int32', mode: 'rw', items, ...extra });
export const list = (items: readonly string[], extra?: Extra): Descriptor => ({ type: 'string', mode: 'rw', items, ...extra });
export const text = (min_len: number, max_len: number, extra?: Extra): Descriptor => ({
  type: 'string',
  mode: 'rw',
  min_len,
  max_len,
  ...extra,
});
export const obj = (items: RangeMap, extra?: Extra): Descriptor => ({ type: 'object', items, ...extra });
export const arr = (element: Descriptor, bounds: Pick<Descriptor, 'min_size' | 'max_size' | 'size'>, extra?: Extra): Descriptor => ({
  type: 'array',
  items: [element],
  ...bounds,
  ...extra,
});
/** Read-only variant (mode "r"): shown by Get, refused by Set. */
export const ro = (d: Descriptor): Descriptor => ({ ...d, mode: 'r' });

export function isDescriptor(x: unknown): x is Descriptor {
  return isPlainObject(x) && typeof x.type === 'string';
}

export function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The value a fresh device holds for a descriptor: default_value, else the first allowed value, else the minimum. */
function defaultOf(d: Descriptor): unknown {
  if (d.default_value !== undefined) return structuredClone(d.default_value);
  switch (d.type) {
    case 'bool':
      return false;
    case 'int32':
      return Array.isArray(d.items) ? d.items[0] : (d.min ?? 0);
    case 'string':
      return Array.isArray(d.items) ? d.items[0] : 'x'.repeat(d.min_len ?? 0);
    case 'object':
      return isPlainObject(d.items) ? defaultsOf(d.items) : {};
    case 'array': {
      const el: unknown = Array.isArray(d.items) ? d.items[0] : undefined;
      if (!d.size || !isDescriptor(el)) return [];
      return Array.from({ length: d.size }, () => defaultOf(el));
    }
  }
}

/** Defaults of every descriptor member of a map (plain meta values are not state). */
export function defaultsOf(members: RangeMap, omit?: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(members)) {
    const d = members[key];
    if (isDescriptor(d) && !omit?.has(key)) out[key] = defaultOf(d);
  }
  return out;
}
