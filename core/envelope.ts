import type * as v from 'valibot';
import { DeviceError, type ChannelError } from './errors';
import { isPlainObject, quoteBigIntegers } from './json';

/** Reading the device's JSON envelope and turning every kind of bad answer into a DeviceError. */

export interface AnswerContext {
  page?: string;
  operation?: string;
  /** `version`: accept `{version, data}` (cross counting Get); `any`: accept both (raw calls). */
  envelope?: 'result' | 'version' | 'any';
}

/** A body that is not JSON, by HTTP status: what it most likely means. */
const NON_JSON_BY_STATUS: Readonly<Record<number, { error_code: string; kind: DeviceError['kind'] }>> = {
  401: { error_code: 'no_login', kind: 'session' },
  404: { error_code: 'not_found', kind: 'unsupported' },
  405: { error_code: 'method_not_allowed', kind: 'unsupported' },
};

function describeBody(text: string, contentType: string | null): string {
  const t = text.trimStart();
  if (!t) return 'an empty body';
  if (/html/i.test(contentType ?? '') || /^<(!doctype|html|head|body|\?xml)/i.test(t) || t.startsWith('<')) return 'HTML, not JSON';
  if (/^[[{]/.test(t)) return 'truncated or malformed JSON';
  return 'text, not JSON';
}

/** The failure for an answer that is not a JSON object. 5xx is a transport problem, 2xx a bad answer. */
function nonJson(status: number, what: string, ctx: AnswerContext): DeviceError {
  const reason = `device answered ${what} (HTTP ${status})`;
  const mapped = NON_JSON_BY_STATUS[status];
  if (mapped) return new DeviceError({ ...mapped, reason, status, page: ctx.page, operation: ctx.operation });
  const kind = status >= 500 || status === 408 || status === 429 ? 'transport' : 'invalid_answer';
  const error_code = kind === 'transport' ? 'http_error' : 'invalid_answer';
  return new DeviceError({ kind, error_code, reason, status, page: ctx.page, operation: ctx.operation });
}

function channelErrors(x: unknown): ChannelError[] {
  if (!Array.isArray(x)) return [];
  return x
    .filter((e): e is Record<string, unknown> => !!e && typeof e === 'object')
    .map((e) => ({ channel: String(e.channel ?? ''), error_code: String(e.error_code ?? '') }));
}

/** The JSON body of an answer, or the DeviceError saying why there is none. */
export function parseBody(status: number, text: string, contentType: string | null, ctx: AnswerContext = {}): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(quoteBigIntegers(text)); // u64 members keep their digits (core/json.ts)
  } catch {
    throw nonJson(status, describeBody(text, contentType), ctx);
  }
  if (!isPlainObject(body)) throw nonJson(status, `JSON that is not an object`, ctx);
  return body;
}

/** A count or a number of seconds in a refusal's `data`: an int (vendor), or its digits as a string (seen on hardware). */
function whole(x: unknown): number | undefined {
  const n = typeof x === 'string' && /^\s*\d+\s*$/.test(x) ? Number(x) : x;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * What a refusal's `data` says beyond its code (vendor facts a, b): how long the device refuses (`block_remain_time` on a
 * blocked login, `remain_locked_time`), in seconds, and on a refused login the failed logins it counts (`fail_login_count`).
 */
function refusalData(data: unknown): { retryAfterMs?: number; failedLogins?: number } {
  if (typeof data !== 'object' || data === null) return {};
  const d = data as Record<string, unknown>;
  const s = [d.block_remain_time, d.remain_locked_time].map(whole).find((x) => x !== undefined);
  const failed = whole(d.fail_login_count);
  return { ...(s !== undefined ? { retryAfterMs: s * 1000 } : {}), ...(failed !== undefined ? { failedLogins: failed } : {}) };
}

/**
 * `data` of a successful answer; a DeviceError for a failed one. Judged by `result`, not by the HTTP
 * status: some firmwares send session errors with 200, and a failure body may come with 401 or 400.
 */
export function unwrapEnvelope(status: number, body: Record<string, unknown>, ctx: AnswerContext = {}): unknown {
  const where = { status, page: ctx.page, operation: ctx.operation };
  if (body.result === 'success') return body.data ?? {};
  if (body.result === 'failed' || (body.result === undefined && typeof body.error_code === 'string')) {
    const error_code = typeof body.error_code === 'string' && body.error_code ? body.error_code : 'unknown_error';
    const reason = typeof body.reason === 'string' && body.reason ? body.reason : `device refused the request (HTTP ${status})`;
    throw new DeviceError({ error_code, reason, channel_errors: channelErrors(body.ch_error_code), ...refusalData(body.data), ...where });
  }
  const versionOk = ctx.envelope === 'version' || ctx.envelope === 'any';
  if (body.result === undefined && versionOk && 'data' in body && status < 400) return body.data ?? {};
  if (status >= 500) throw nonJson(status, 'JSON without a result', ctx);
  const got = body.result === undefined ? 'no result field' : `result ${JSON.stringify(body.result)}`;
  throw new DeviceError({ kind: 'invalid_answer', error_code: 'invalid_answer', reason: `answer has ${got} (HTTP ${status})`, ...where });
}

/** Parse and unwrap in one step. */
export function parseAnswer(status: number, text: string, contentType: string | null, ctx: AnswerContext = {}): unknown {
  return unwrapEnvelope(status, parseBody(status, text, contentType, ctx), ctx);
}

/** Dotted path of a valibot issue, descending into union branches to the most telling leaf. */
function leafIssues(issue: v.BaseIssue<unknown>, prefix: string[]): Array<{ path: string[]; issue: v.BaseIssue<unknown> }> {
  const here = [...prefix, ...(issue.path ?? []).map((p) => String((p as { key: unknown }).key))];
  if (issue.type === 'union' && issue.issues?.length) {
    // A union fails in every branch. The branch the device meant is the one whose issue is about a present value
    // (not a missing key), best one of the right type that failed a check (PTZ index: a string, but not hex).
    const present = issue.issues.filter((i) => i.received !== 'undefined');
    const checked = present.filter((i) => i.kind === 'validation');
    const pick = checked.length ? checked : present.length ? present : issue.issues;
    return leafIssues(pick[0], here);
  }
  return [{ path: here, issue }];
}

/** `data.channel_info.CH1.siren_time: expected number, got "x"` for each issue (at most 5). */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[], root = 'data'): string {
  const lines = issues.slice(0, 5).map((i) => {
    const [leaf] = leafIssues(i, []);
    const path = [root, ...leaf.path].join('.');
    const { expected, received } = leaf.issue;
    return expected != null ? `${path}: expected ${expected}, got ${received}` : `${path}: ${leaf.issue.message}`;
  });
  if (issues.length > 5) lines.push(`and ${issues.length - 5} more`);
  return lines.join('; ');
}
