/**
 * Quoting what a user sent (a command value, a key, a page name, a transaction) in a refusal, a response or a log
 * line: clipped, and never a configured secret. Someone may type a password into a command by mistake; repeating it
 * on a bus every subscriber reads, or in a log, would publish it. The bridge and the Node-RED nodes build one
 * `Quoter` from the passwords they know and use it on every path that quotes or reports.
 */

/** What stands in for a quoted text that contains a configured secret. */
export const WITHHELD = '(withheld: contains a configured password)';

/** What stands in for a secret inside a line that is otherwise kept (a log line, an error reason). */
export const REDACTED = '***';

/** Secrets shorter than this are not looked for: a one-character password would blank every line. */
const MIN_SECRET = 4;

export interface Quoter {
  /** Text taken from a message, fit to quote: clipped to `max` characters, withheld whole when it contains a secret. */
  quote(text: string, max?: number): string;
  /** Any value as a short description for a refusal: a string quoted (JSON), a number as is, "an object"... */
  describe(x: unknown, max?: number): string;
  /** A line with every secret in it replaced (for lines built elsewhere: errors, logs). */
  redact(text: string): string;
  /** A JSON value with every secret in its strings (keys included) replaced; the same value when none is. */
  redactDeep<T>(x: T): T;
  /** True when the text contains a secret. */
  hasSecret(text: string): boolean;
}

/**
 * `secrets` is read on each use: a list that changes (Node-RED's device nodes come and go) stays current. A secret
 * counts where it stands as a token of its own: password 123456 is not found inside a transaction id tx-1234567.
 */
export function quoter(secrets: () => Iterable<string | undefined>): Quoter {
  const patterns = new Map<string, RegExp>();
  const pattern = (s: string) => {
    let re = patterns.get(s);
    if (!re) patterns.set(s, (re = new RegExp(`(?<![0-9A-Za-z])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`, 'g')));
    return re;
  };
  const list = () => [...secrets()].filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET).map(pattern);
  const hasSecret = (text: string) =>
    list().some((re) => {
      re.lastIndex = 0;
      return re.test(text);
    });
  const redact = (text: string) => list().reduce((t, re) => t.replace(re, REDACTED), text);
  const quote = (text: string, max = 64) => (hasSecret(text) ? WITHHELD : clip(text, max));
  const redactDeep = <T>(x: T): T => deep(x, redact, 0) as T;
  return {
    quote,
    hasSecret,
    redact,
    redactDeep,
    describe: (x, max = 40) => describeValue(x, (t) => quote(t, max)),
  };
}

/** A quoter that knows no secret (tests, and code that has none configured): it only clips. */
export const noSecrets: Quoter = quoter(() => []);

function clip(s: string, n = 64): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}

function describeValue(x: unknown, quote: (text: string) => string): string {
  if (typeof x === 'string') return JSON.stringify(quote(x));
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'object') return 'an object';
  return String(x);
}

function deep(x: unknown, redact: (t: string) => string, depth: number): unknown {
  if (typeof x === 'string') return redact(x);
  if (x === null || typeof x !== 'object' || depth > 64) return x;
  if (Array.isArray(x)) return x.map((e) => deep(e, redact, depth + 1));
  if (Object.getPrototypeOf(x) !== Object.prototype && Object.getPrototypeOf(x) !== null) return x;
  return Object.fromEntries(Object.entries(x).map(([k, v]) => [redact(k), deep(v, redact, depth + 1)]));
}
