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
 * channel block of defaults, a whole Range of the same model): one frozen copy of each, shared by every device,
 * channel and answer that holds an equal one, for as long as one does. Built bottom-up: a node's key is its
 * plain values and the ids of its (already shared) children, so each node is read once. Bench, 100 recorders x 16
 * channels: about 9,000 schedule lists and 11,000 Range descriptors, nearly all alike.
 */
const shared = new Map<string, WeakRef<object>>();
const idOf = new WeakMap<object, string>();
/**
 * A node frozen here but equal to one already shared: that shared one. An answer may hold a node twice (a Range's
 * flat descriptor also nested in its group, nestFlatGroups): its second visit must find the shared copy too.
 */
const sharedFor = new WeakMap<object, object>();
let nextId = 0;
const forget = new FinalizationRegistry<string>((key) => {
  if (!shared.get(key)?.deref()) shared.delete(key);
});

/**
 * Freezes `value` and everything in it: an answer (or what is derived from it) shared by every reader. Returns
 * the frozen value, in which every part equal to one held elsewhere is that one shared copy: use the result.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Object.isFrozen(value)) return (sharedFor.get(value) as T | undefined) ?? value;
  const record = value as Record<string, unknown>;
  let key: string | undefined = Array.isArray(value) ? '[' : '{';
  // Object.keys, not Object.entries: one array per node instead of one more per member (every answer comes here).
  for (const k of Object.keys(record)) {
    const v = record[k];
    let part: string | undefined;
    if (typeof v === 'object' && v !== null) {
      const frozen = deepFreeze(v);
      if (frozen !== v) record[k] = frozen;
      const id = idOf.get(frozen);
      part = id === undefined ? undefined : `#${id}`; // frozen elsewhere, not one of ours: this node stays its own
    } else part = v === undefined ? 'u' : JSON.stringify(v);
    key = key !== undefined && part !== undefined ? `${key}${JSON.stringify(k)}:${part},` : undefined;
  }
  Object.freeze(value);
  if (key === undefined) return value;
  const known = shared.get(key)?.deref();
  if (known) {
    sharedFor.set(value, known);
    return known as T;
  }
  shared.set(key, new WeakRef(value));
  idOf.set(value, (nextId++).toString(36));
  forget.register(value, key);
  return value;
}
