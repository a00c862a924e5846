/**
 * Logging with levels and a redaction step: every configured secret (MQTT and device passwords) is
 * replaced by `***` before a line is written, and URL user-info is masked, so no secret ever reaches
 * a log. The same redactor guards MQTT payloads (bridge/mqtt.ts).
 */

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogSink = (level: LogLevel, line: string) => void;

export interface Logger {
  readonly level: LogLevel;
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  enabled(level: LogLevel): boolean;
  /** A logger whose lines start with `[prefix] `, same level, sink and secrets. */
  child(prefix: string): Logger;
}

/** Replaces every known secret in a string. Secrets are added as the config is read. */
export class Redactor {
  private secrets: string[] = [];

  add(secret: string | undefined): void {
    if (!secret || this.secrets.includes(secret)) return;
    this.secrets.push(secret);
    // Longest first, so that a secret containing another one is masked whole.
    this.secrets.sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.secrets.length;
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) {
      if (!out.includes(s)) continue;
      // A short secret is masked where it stands alone, not inside words ("x" must not turn "prefix" into "prefi***").
      out = s.length >= 6 ? out.split(s).join('***') : out.replace(this.shortPattern(s), '***');
    }
    // scheme://user:password@host
    return out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, '$1***@');
  }

  contains(text: string): boolean {
    return this.secrets.some((s) => (s.length >= 6 ? text.includes(s) : this.shortPattern(s).test(text)));
  }

  private readonly patterns = new Map<string, RegExp>();

  private shortPattern(s: string): RegExp {
    let re = this.patterns.get(s);
    if (!re) {
      re = new RegExp(`(?<![A-Za-z0-9])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`, 'g');
      this.patterns.set(s, re);
    }
    re.lastIndex = 0;
    return re;
  }
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

export function defaultSink(level: LogLevel, line: string): void {
  const stamp = new Date().toISOString();
  const out = `${stamp} ${level.toUpperCase().padEnd(5)} ${line}\n`;
  if (level === 'error' || level === 'warn') process.stderr.write(out);
  else process.stdout.write(out);
}

export function createLogger(opts: { level?: LogLevel; sink?: LogSink; redactor?: Redactor; prefix?: string } = {}): Logger {
  const level = opts.level ?? 'info';
  const sink = opts.sink ?? defaultSink;
  const redactor = opts.redactor ?? new Redactor();
  const prefix = opts.prefix ? `[${opts.prefix}] ` : '';
  const emit = (l: LogLevel, msg: string) => {
    if (RANK[l] < RANK[level]) return;
    try {
      sink(l, redactor.redact(prefix + msg));
    } catch {
      // a broken sink must never take the bridge down
    }
  };
  return {
    level,
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
    enabled: (l) => RANK[l] >= RANK[level],
    child: (p) => createLogger({ level, sink, redactor, prefix: opts.prefix ? `${opts.prefix}/${p}` : p }),
  };
}

/** Error to one line; never includes request headers or bodies. */
export function errorText(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) return String((err as Error).message);
  return String(err);
}
