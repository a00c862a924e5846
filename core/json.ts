/** A JSON object: not null, not an array. Device answers, request `data` and Range maps are all of this shape. */
export function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Members whose integer values may exceed 2^53 (DeviceInfo `dev_type` is a u64). JSON.parse would round them,
 * so their digits are quoted in the raw text first and they arrive as strings.
 */
const BIG_INT_MEMBERS = /"(dev_type)"(\s*:\s*)(-?\d{16,})(?=\s*[,}\]])/g;

export function quoteBigIntegers(text: string): string {
  return text.includes('"dev_type"') ? text.replace(BIG_INT_MEMBERS, '"$1"$2"$3"') : text;
}

/**
 * The parts of answers that repeat (a day's 48 half-hours of a schedule, a Range's descriptor of a switch, a
 * channel block of defaults): one frozen copy of each, shared by every device, channel and answer that holds an
 * equal one, for as long as one does. Only leaves (an array or object of plain values) are compared, by their
 * JSON text. Bench, 100 recorders x 16 channels: about 9,000 schedule lists and 11,000 Range descriptors,
 * nearly all alike.
 */
const leaves = new Map<string, WeakRef<object>>();
const forgetLeaf = new FinalizationRegistry<string>((key) => {
  if (!leaves.get(key)?.deref()) leaves.delete(key);
});

function sharedLeaf<T extends object>(leaf: T): T {
  const key = JSON.stringify(leaf);
  const known = leaves.get(key)?.deref();
  if (known) return known as T;
  leaves.set(key, new WeakRef(leaf));
  forgetLeaf.register(leaf, key);
  return leaf;
}

/**
 * Freezes `value` and everything in it: an answer (or what is derived from it) shared by every reader. Returns
 * the frozen value, in which equal leaves are one shared copy ({@link sharedLeaf}): use the result.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const record = value as Record<string, unknown>;
  let leaf = true;
  for (const [k, v] of Object.entries(record)) {
    if (typeof v !== 'object' || v === null) continue;
    leaf = false;
    const frozen = deepFreeze(v);
    if (frozen !== v) record[k] = frozen;
  }
  Object.freeze(value);
  return leaf ? sharedLeaf(value) : value;
}
