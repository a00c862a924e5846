/** A JSON object: not null, not an array. Device answers, request `data` and Range maps are all of this shape. */
export function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
