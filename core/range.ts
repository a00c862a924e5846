import * as v from 'valibot';
import { isChannelId } from './channels';
import { isPlainObject } from './json';
import { members } from './members';
import { isPtzHex, ptzPresetIndices } from './ptz';

/**
 * Range descriptor (spec 1, "Range descriptor convention"). A Range response `data` mixes descriptors (objects
 * with a string `type`) and plain meta values (`channel_max: 8`, `channel: [...]`, `support_copy: true`).
 */
export const DESCRIPTOR_TYPES = ['bool', 'string', 'int32', 'object', 'array'] as const;
export type DescriptorType = (typeof DESCRIPTOR_TYPES)[number];

// `type` and `mode` are plain strings in the schema: a device that reports an unknown type (or mode) still yields
// a usable Range; the validator leaves values of unknown types unchecked and treats only mode "r" as read-only.
const descriptorFields = {
  type: v.string(),
  mode: v.optional(v.string()),
  ...members(['min', 'max', 'min_len', 'max_len', 'min_size', 'max_size', 'size'], v.optional(v.number())),
  ...members(['default_value', 'default_value_frontal', 'default_value_multi'], v.optional(v.unknown())),
  description: v.optional(v.string()),
};
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a schema kept for its inferred type
const DescriptorBase = v.looseObject(descriptorFields);

/**
 * `items` by descriptor type: string -> allowed values; int32 -> allowed numbers, or for linkage_ptz_point_index
 * (8.2.3+) a 64-hex-digit preset set; object -> member name to descriptor (or plain value); array -> element
 * descriptors, or allowed element values.
 */
export type RangeItems = string | readonly unknown[] | { readonly [key: string]: unknown };

/** TypeScript cannot infer a recursive type, so everything but `items` is inferred and `items` is added here. */
export type RangeDescriptor = v.InferOutput<typeof DescriptorBase> & { items?: RangeItems };

/** A member of a Range map: a descriptor when it looks like one, any plain value otherwise. */
const RangeMember: v.GenericSchema<unknown> = v.lazy((input) => (isDescriptor(input) ? RangeDescriptor : v.unknown()));

const RangeItemsSchema: v.GenericSchema<RangeItems> = v.lazy((input) => {
  if (typeof input === 'string') return v.string();
  if (Array.isArray(input)) return v.array(RangeMember);
  return v.record(v.string(), RangeMember);
});

export const RangeDescriptor: v.GenericSchema<RangeDescriptor> = v.looseObject({
  ...descriptorFields,
  items: v.optional(RangeItemsSchema),
});

/** A Range response field that may be a descriptor or, on some devices, the plain value itself. */
export function rangeField<S extends v.GenericSchema>(plain: S) {
  return v.lazy((input) => (isDescriptor(input) ? RangeDescriptor : plain));
}

export function isDescriptor(x: unknown): x is RangeDescriptor {
  return isPlainObject(x) && typeof x.type === 'string';
}

/** Member `key` of a map, own properties only (a payload key `constructor` must not find Object.prototype's). */
function own(map: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

const NO_PREFIX: readonly string[] = [];

/**
 * Descriptor at `path` inside a Range `data`: `['channel_info', 'CH1', 'siren_time']`. Array elements are reached
 * by index (`['ptz_info', '0', 'ptz_chn']`); a single element descriptor covers every index. `prefix`: path
 * elements before `path` (`['channel_info', 'CH1']`), so that a caller need not build the joined array.
 * Undefined when the path leads nowhere or to a plain value.
 */
export function descriptorAt(
  rangeData: Record<string, unknown>,
  path: readonly string[],
  prefix: readonly string[] = NO_PREFIX,
): RangeDescriptor | undefined {
  const length = prefix.length + path.length;
  const key = (i: number) => (i < prefix.length ? prefix[i] : path[i - prefix.length]);
  if (length === 0) return undefined;
  let node: unknown = own(rangeData, key(0));
  for (let i = 1; i < length && node !== undefined; i++) {
    if (!isDescriptor(node)) return undefined;
    const items = node.items;
    if (Array.isArray(items)) {
      const index = Number(key(i));
      if (!Number.isInteger(index) || index < 0) return undefined;
      node = items.length === 1 ? items[0] : items[index];
    } else if (isPlainObject(items)) {
      node = own(items, key(i));
    } else {
      return undefined;
    }
  }
  return isDescriptor(node) ? node : undefined;
}

/**
 * `rangeData` with each group of `groups` the channel blocks lack described as an object of the block's own (flat)
 * members: the Range's placement of members a Get nests (PageDef `rangeFlattens`). A block that describes the
 * group itself is left as it is; so is a Range without channel blocks. Returns `rangeData` when nothing is added.
 */
export function nestFlatGroups(rangeData: Record<string, unknown>, groups: readonly string[] | undefined): Record<string, unknown> {
  const map = groups?.length ? channelMap(rangeData) : undefined;
  if (!map || !groups) return rangeData;
  let out: Record<string, unknown> | undefined;
  for (const [ch, block] of Object.entries(map)) {
    if (!isDescriptor(block) || !isPlainObject(block.items)) continue;
    const flat = block.items;
    const missing = groups.filter((g) => !Object.hasOwn(flat, g));
    if (!missing.length) continue;
    out ??= { ...map };
    // The group's members are the block's flat members as the Range gives them (a copy: no cycle).
    const items: Record<string, unknown> = { ...flat };
    for (const g of missing) items[g] = { type: 'object', items: { ...flat } };
    out[ch] = { ...block, items };
  }
  return out ? { ...rangeData, channel_info: { ...(rangeData.channel_info as object), items: out } } : rangeData;
}

function channelMap(rangeData: Record<string, unknown>): Record<string, unknown> | undefined {
  const ci = own(rangeData, 'channel_info');
  return isDescriptor(ci) && isPlainObject(ci.items) ? ci.items : undefined;
}

/** Channel ids listed in `channel_info.items`, in the device's order. */
export function supportedChannels(rangeData: Record<string, unknown>): string[] {
  const map = channelMap(rangeData);
  return map ? Object.keys(map).filter(isChannelId) : [];
}

/** Field descriptors of one channel (`channel_info.items.<ch>.items`), or undefined when the channel is absent. */
export function channelFields(rangeData: Record<string, unknown>, ch: string): Readonly<Record<string, RangeDescriptor>> | undefined {
  const map = channelMap(rangeData);
  const block = map ? own(map, ch) : undefined;
  if (!isDescriptor(block) || !isPlainObject(block.items)) return undefined;
  const out: Record<string, RangeDescriptor> = {};
  for (const [key, d] of Object.entries(block.items)) if (isDescriptor(d)) out[key] = d;
  return out;
}

export interface Bounds {
  min?: number;
  max?: number;
  /** Allowed values: `items` of a string/int32 descriptor; for a PTZ hex set, the available preset indices. */
  options?: ReadonlyArray<string | number>;
  readOnly: boolean;
  default?: unknown;
  /** Face parameters: defaults for face_angle `FrontalView` / `Multiangle` (fall back to `default`). */
  defaultFrontal?: unknown;
  defaultMulti?: unknown;
  minLength?: number;
  maxLength?: number;
}

/** The limits of one descriptor, in the form UI and Home Assistant discovery need. */
export function boundsOf(desc: RangeDescriptor): Bounds {
  const b: Bounds = { readOnly: desc.mode === 'r' };
  if (desc.min !== undefined) b.min = desc.min;
  if (desc.max !== undefined) b.max = desc.max;
  if (desc.min_len !== undefined) b.minLength = desc.min_len;
  if (desc.max_len !== undefined) b.maxLength = desc.max_len;
  const items = desc.items;
  if (Array.isArray(items) && (desc.type === 'string' || desc.type === 'int32')) {
    b.options = items.filter((x): x is string | number => typeof x === 'string' || typeof x === 'number');
  } else if (desc.type === 'int32' && isPtzHex(items)) {
    b.options = ptzPresetIndices(items);
  }
  if (desc.default_value !== undefined) b.default = desc.default_value;
  const frontal = desc.default_value_frontal ?? desc.default_value;
  const multi = desc.default_value_multi ?? desc.default_value;
  if (frontal !== undefined) b.defaultFrontal = frontal;
  if (multi !== undefined) b.defaultMulti = multi;
  return b;
}

/**
 * Default of a descriptor for a face angle: `FrontalView` -> default_value_frontal, `Multiangle` ->
 * default_value_multi, each falling back to default_value (spec 2.10: roll/pitch/yaw range, picture_quality).
 */
export function defaultFor(desc: RangeDescriptor, faceAngle?: string): unknown {
  if (faceAngle === 'FrontalView' && desc.default_value_frontal !== undefined) return desc.default_value_frontal;
  if (faceAngle === 'Multiangle' && desc.default_value_multi !== undefined) return desc.default_value_multi;
  return desc.default_value;
}
