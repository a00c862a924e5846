/**
 * Logging with levels. The bridge logs through `redacting()`: a line that contains a configured password (typed
 * into a command, echoed by an error) has it replaced, whoever built the line.
 */
import type { Quoter } from '../../core/quote';

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

/** `scheme://user:password@host` -> `scheme://user:***@host` (a URL typed into a payload or an error). */
export function maskUrlCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, '$1***@');
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

function defaultSink(level: LogLevel, line: string): void {
  const stamp = new Date().toISOString();
  const out = `${stamp} ${level.toUpperCase().padEnd(5)} ${line}\n`;
  if (level === 'error' || level === 'warn') process.stderr.write(out);
  else process.stdout.write(out);
}

export function createLogger(opts: { level?: LogLevel; sink?: LogSink; prefix?: string } = {}): Logger {
  const level = opts.level ?? 'info';
  const sink = opts.sink ?? defaultSink;
  const prefix = opts.prefix ? `[${opts.prefix}] ` : '';
  const emit = (l: LogLevel, msg: string) => {
    if (RANK[l] < RANK[level]) return;
    try {
      sink(l, prefix + msg);
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
    child: (p) => createLogger({ level, sink, prefix: opts.prefix ? `${opts.prefix}/${p}` : p }),
  };
}

/** The same logger with every configured secret replaced in its lines (children too). */
export function redacting(log: Logger, q: Pick<Quoter, 'redact'>): Logger {
  const emit = (l: LogLevel, m: string) => {
    if (log.enabled(l)) log[l](q.redact(m));
  };
  return {
    get level() {
      return log.level;
    },
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
    enabled: (l) => log.enabled(l),
    child: (p) => redacting(log.child(p), q),
  };
}

/** Error to one line; never includes request headers or bodies. */
export function errorText(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) return String((err as Error).message);
  return String(err);
}
