/** One schema for several members: `members(['min', 'max'], v.optional(v.number()))` is `{min: ..., max: ...}`. */
export function members<const K extends readonly string[], S>(keys: K, schema: S): Record<K[number], S> {
  return Object.fromEntries(keys.map((k) => [k, schema])) as Record<K[number], S>;
}
