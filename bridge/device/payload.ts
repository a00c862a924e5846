/**
 * Command payloads as they arrive on MQTT: a JSON object (bounded size and depth) or a bare value, and the value
 * coerced to the type a Range descriptor asks for. Text quoted back in refusals goes through core's Quoter.
 */
import type { Violation } from '../../core';
import type { Quoter } from '../../core/quote';
import { switchValue } from '../../core/words';
import { isPlainObject } from '../../core/json';
import { Refusal } from './refusal';
import type { Json } from './state';
import type { Row } from './table';

/** Largest command or request payload read (bytes). */
export const MAX_PAYLOAD = 64 * 1024;

function checkSize(payload: Buffer): void {
  if (payload.length > MAX_PAYLOAD) throw new Refusal(`payload too large (${payload.length} bytes, at most ${MAX_PAYLOAD})`);
}

/** Parses a JSON payload that must be an object. */
export function parseObject(payload: Buffer): Json {
  checkSize(payload);
  let doc: unknown;
  try {
    doc = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new Refusal('payload is not valid JSON');
  }
  if (!isPlainObject(doc)) {
    throw new Refusal(`payload must be a JSON object (got ${doc === null ? 'null' : Array.isArray(doc) ? 'an array' : typeof doc})`);
  }
  // Every later step (Range check, meta check, masking) walks the document: bound its depth first.
  if (nestedDeeperThan(doc, MAX_DEPTH)) throw new Refusal(`payload nested too deeply (more than ${MAX_DEPTH} levels)`);
  return doc;
}

const MAX_DEPTH = 32;

/** True when objects/arrays nest deeper than `max` (iterative: a 30,000-deep document must not overflow). */
function nestedDeeperThan(doc: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[doc, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** A value as sent (JSON member or bare payload) to the type the Range descriptor asks for. */
export function coerce(row: Row, type: string, raw: unknown, current: unknown, q: Quoter): unknown {
  const fail = (expected: string): never => {
    throw new Refusal(`${row.key}: wrong type: expected ${expected} (got ${q.describe(raw)})`, { key: row.key });
  };
  if (type === 'bool') {
    if (typeof raw === 'number' && (raw === 0 || raw === 1)) return raw === 1;
    const w = typeof raw === 'string' ? raw.trim().toUpperCase() : undefined;
    if (w !== undefined && row.words && Object.hasOwn(row.words, w)) return row.words[w];
    const value = switchValue(raw, current);
    if (value !== undefined) return value;
    return fail(row.words ? `${Object.keys(row.words).join('/')} or true/false` : 'ON/OFF or true/false');
  }
  if (type === 'int32') {
    let n: number | undefined;
    if (typeof raw === 'number') n = raw;
    else if (typeof raw === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(raw)) n = Number(raw);
    if (n === undefined || !Number.isFinite(n)) return fail('a number');
    if (!Number.isInteger(n)) throw new Refusal(`${row.key}: must be a whole number (got ${q.describe(raw)})`, { key: row.key });
    return n;
  }
  if (type === 'string') {
    if (typeof raw === 'string') return raw;
    if (typeof raw === 'number') return String(raw);
    return fail('a string');
  }
  throw new Refusal(`${row.key}: the device reports a ${type} here; not settable from MQTT`, { key: row.key });
}

/**
 * Range violations as quoted back: core's messages repeat the value sent; a value containing a configured
 * password is described by its problem only.
 */
export function shownViolations(
  violations: readonly Violation[],
  input: unknown,
  q: Quoter,
): Array<Pick<Violation, 'path' | 'problem' | 'message'>> {
  if (JSON.stringify(q.redactDeep(input)) === JSON.stringify(input))
    return violations.map(({ path, problem, message }) => ({ path, problem, message }));
  return violations.map(({ path, problem }) => ({
    path,
    problem,
    message: `not accepted (${problem}); the value contains a configured password, so it is not repeated`,
  }));
}

/** A bare `set/<key>` payload: the text itself, or a JSON scalar when it is one ("5", "\"Alarm1\"", true). */
export function bareValue(payload: Buffer): unknown {
  checkSize(payload);
  const text = payload.toString('utf8');
  const t = text.trim();
  if (t.startsWith('"') || t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch {
      // not JSON: the text as it is
    }
  }
  return t;
}
