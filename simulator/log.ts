/**
 * Request log that tests read. Entries hold the parsed request `data` with every password-like string field
 * redacted; headers (Authorization, Cookie) are never logged.
 */

export interface LogEntry {
  time: number;
  /** Request path without the query string. */
  path: string;
  /** Parsed request `data` (redacted); undefined when the body was not JSON. */
  data: unknown;
  status: number;
  error_code?: string;
  /** Set when the request was not a POST. */
  method?: string;
  /** Injected fault that shaped the answer, if any. */
  fault?: string;
}

const SECRET_KEY = /pass(word|wd)?|secret|cipher/i;
export const REDACTED = '***';

/** A copy of `x` with secret string fields replaced; `x` itself when there is nothing to redact (no copying). */
export function redact(x: unknown): unknown {
  if (Array.isArray(x)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < x.length; i++) {
      const el: unknown = x[i];
      if (typeof el !== 'object' || el === null) continue;
      const r = redact(el);
      if (r !== el) (copy ??= x.slice())[i] = r;
    }
    return copy ?? x;
  }
  if (typeof x !== 'object' || x === null) return x;
  const o = x as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(o)) {
    const v = o[key];
    let r = v;
    if (typeof v === 'string' && SECRET_KEY.test(key)) r = REDACTED;
    else if (typeof v === 'object' && v !== null) r = redact(v);
    if (r !== v) (copy ??= { ...o })[key] = r;
  }
  return copy ?? o;
}

export class RequestLog<T = LogEntry> {
  /** The array handed out as `Simulator.log` (and `connects`): kept as one object, trimmed in place. */
  readonly entries: T[] = [];

  constructor(private readonly limit: number) {}

  add(entry: T): void {
    this.entries.push(entry);
    // Amortised trimming: let it grow to twice the limit, then drop the oldest half at once.
    if (this.entries.length > this.limit * 2) this.entries.splice(0, this.entries.length - this.limit);
  }

  clear(): void {
    this.entries.length = 0;
  }
}
