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

/** Warnings said once per kind and interval (see `limitRepeats`). */
export interface RepeatLimited {
  /** Logs `line` unless a warning of `kind` was logged within the interval; then only counts it. */
  warn(kind: string, line: string): void;
  /** Says the counts not said yet (on close). */
  flush(): void;
}

/**
 * Repeated warnings of one kind (a flood of refused pushes: guessed paths, unreadable requests) cost one line, not
 * one each: the first of a kind is logged at once, those after it within `intervalMs` are counted, and at the end
 * of the interval one line gives the last of them with the count. A kind quiet for a whole interval starts over.
 */
export function limitRepeats(log: Logger, intervalMs = 60_000): RepeatLimited {
  const kinds = new Map<string, { count: number; last: string; timer: NodeJS.Timeout }>();
  const say = (k: { count: number; last: string }) =>
    log.warn(`${k.last} (${k.count.toLocaleString('en-US')} times in the last ${Math.round(intervalMs / 1000)} s)`);
  const open = (kind: string) => {
    const timer = setTimeout(() => {
      const k = kinds.get(kind)!;
      kinds.delete(kind);
      if (!k.count) return;
      say(k);
      open(kind); // a flood that goes on: one line an interval
    }, intervalMs);
    kinds.set(kind, { count: 0, last: '', timer: timer.unref() });
  };
  return {
    warn(kind, line) {
      const k = kinds.get(kind);
      if (k) {
        k.count++;
        k.last = line;
        return;
      }
      log.warn(line);
      open(kind);
    },
    flush() {
      for (const k of kinds.values()) {
        clearTimeout(k.timer);
        if (k.count) say(k);
      }
      kinds.clear();
    },
  };
}
