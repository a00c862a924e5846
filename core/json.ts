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

/** Freezes `value` and everything in it: an answer (or what is derived from it) shared by every reader. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
