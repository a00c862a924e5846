/** What a caller can do about an error: re-login, retry later, treat as absent (R2), give up... */
export type ErrorKind =
  | 'session' // log in again (done transparently once by the client)
  | 'busy' // retry later
  | 'unsupported' // the device does not have this page/field (R2): not an outage
  | 'rejected' // the device refused the request (param_error, no_permission, ...)
  | 'lockout' // login refused or blocked: never retry in a tight loop
  | 'transport' // network, timeout, TLS, HTTP 5xx without a JSON answer
  | 'invalid_answer' // the device answered something that is not the documented shape
  | 'invalid_request'; // refused locally before sending (Range violation, bad input)

export interface ChannelError {
  channel: string;
  error_code: string;
}

export interface Violation {
  /** Dotted path inside `data`, e.g. `channel_info.CH1.siren_time`: the field as the user gave it; '' for the whole. */
  path: string;
  /** `not_described`: the Range lists the field as a plain value (a setting of the page), not as a descriptor. */
  problem: 'unsupported' | 'not_described' | 'read_only' | 'enum' | 'min' | 'max' | 'length' | 'size' | 'type' | 'channel';
  /**
   * What is wrong, as a predicate that follows the field's name ("must be at most 180 (got 999)", "is read-only on
   * this device"); with an empty path, a sentence of its own. violationText joins them: one rule for every refusal.
   */
  message: string;
}

/** A violation as a sentence a user understands: "channel_info.CH1.siren_time must be at most 180 (got 999)". */
export function violationText(v: Pick<Violation, 'path' | 'message'>): string {
  return v.path ? `${v.path} ${v.message}` : v.message;
}

/**
 * Every error code of the vendor's list (vendor facts a) to the kind a caller acts on. A code missing
 * here is unknown: `rejected`, and on a session that worked it makes the session suspect (see Session).
 */
const KIND_BY_CODE: Readonly<Record<string, ErrorKind>> = {
  // session: log in again
  no_login: 'session',
  expired: 'session',
  logout: 'session',
  login_at_other: 'session',
  forced_offline: 'session',
  one_IE: 'session',
  no_heartbeat: 'session',
  user_expired: 'session',
  passwd_expired: 'session',
  token_invalid: 'session',
  session_invalid: 'session',
  // the device changed under the session: drop it, the next call logs in
  device_reboot: 'session',
  param_changed: 'session',
  network_changed: 'session',
  ssl_error: 'session',
  disk_changed: 'session',
  ipc_state_changed: 'session',
  // retry later
  have_login: 'busy',
  device_busy: 'busy',
  data_saving_busy: 'busy',
  frequent_operation: 'busy',
  function_busy: 'busy',
  service_unavailable_error: 'busy',
  device_play_locked: 'busy',
  search_failed: 'busy',
  in_user_interface: 'busy',
  updating: 'busy',
  // absent (R2)
  not_found: 'unsupported',
  no_support: 'unsupported',
  method_not_allowed: 'unsupported',
  // login refused or blocked: never retried in a loop
  login_failed_or_block: 'lockout',
  black_ip: 'lockout',
  user_locked_login: 'lockout',
  verify_failed: 'lockout',
  netip_limited: 'lockout',
  current_pwd_error_ntime: 'lockout',
  // the device refused this request
  ...Object.fromEntries(
    [
      'param_error',
      'no_permission',
      'first_login',
      'passwd_expired_login',
      'part_failed',
      'default_failed',
      'token_generation_failed',
      'network_port_conflict',
      'group_name_error',
      'user_expired_login',
      'save_failed',
      'pwd_weak',
      'modify_failed',
      'modify_failed_pwd_err',
      'modify_failed_syntax_err',
      'operation_failed',
      'illegal_request',
      'overreach',
      'short_modify_time',
      'current_pwd_error',
      'username_empty',
      'username_repeat',
      'username_invalid',
      'unmatched_pwd',
      'pwd_empty',
      'pwd_length_err',
      'pwd_equal_name',
      'pwd_equal_old',
      'pwd_repeated',
      'pwd_weak_rule',
      'pwd_risk',
      'pwd_invalid',
      'user_auth_failed',
      'data_error',
      'net_unreachable_or_dns_wrong',
      'connect_server_err',
      'check_smtp_port',
      'tls_ssl_handshake_err',
      'email_connect_err',
      'lack_memory',
      'file_error',
      'no_need_upgrade',
      'not_modified',
      'http_redirect_https',
      'payload_too_large',
      'uri_too_long',
      'internal_server_error',
      'illegal_operation',
      'server_mutually',
      'readerID_invalid',
      'position_invalid',
    ].map((code) => [code, 'rejected' as const]),
  ),
};

/** Codes after which the client logs in again once, transparently, and repeats the call. */
export const RELOGIN_CODES: ReadonlySet<string> = new Set([
  'no_login',
  'expired',
  'logout',
  'login_at_other',
  'forced_offline',
  'one_IE',
  'no_heartbeat',
  'user_expired',
  'passwd_expired',
  'token_invalid',
  'session_invalid',
]);

/** Codes after which the session is dropped without repeating the call: the next call logs in afresh. */
export const RESET_CODES: ReadonlySet<string> = new Set([
  'device_reboot',
  'param_changed',
  'network_changed',
  'ssl_error',
  'disk_changed',
  'ipc_state_changed',
]);

/** Login answers that hold further logins until a backoff ends (no storm): lock-outs and `have_login`. */
export function holdsLogin(err: DeviceError): boolean {
  return err.kind === 'lockout' || err.error_code === 'have_login';
}

/** The code is in the vendor's list. */
export function isKnownCode(code: string): boolean {
  return Object.hasOwn(KIND_BY_CODE, code);
}

export function kindOfCode(code: string): ErrorKind {
  return Object.hasOwn(KIND_BY_CODE, code) ? KIND_BY_CODE[code] : 'rejected';
}

export interface DeviceErrorInit {
  kind?: ErrorKind;
  error_code: string;
  reason: string;
  status?: number;
  channel_errors?: ChannelError[];
  page?: string;
  operation?: string;
  violations?: Violation[];
  /** How long the device says it refuses (`data.block_remain_time`, `data.remain_locked_time`), in ms. */
  retryAfterMs?: number;
  /** A refused login: the failed logins the device counts since the last one that worked (`data.fail_login_count`). */
  failedLogins?: number;
  cause?: unknown;
}

/** The one error class of the client. Its message never contains credentials. */
export class DeviceError extends Error {
  readonly kind: ErrorKind;
  readonly error_code: string;
  readonly reason: string;
  readonly status?: number;
  readonly channel_errors: ChannelError[];
  readonly page?: string;
  readonly operation?: string;
  readonly violations: Violation[];
  readonly retryAfterMs?: number;
  readonly failedLogins?: number;

  constructor(init: DeviceErrorInit) {
    const where = init.page ? `${init.page}${init.operation ? `/${init.operation}` : ''}: ` : '';
    const list = init.violations?.length ? `: ${init.violations.map(violationText).join('; ')}` : '';
    super(`${where}${init.error_code} (${init.reason})${list}`, init.cause ? { cause: init.cause } : undefined);
    this.name = 'DeviceError';
    this.kind = init.kind ?? kindOfCode(init.error_code);
    this.error_code = init.error_code;
    this.reason = init.reason;
    this.status = init.status;
    this.channel_errors = init.channel_errors ?? [];
    this.page = init.page;
    this.operation = init.operation;
    this.violations = init.violations ?? [];
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.failedLogins !== undefined) this.failedLogins = init.failedLogins;
  }

  toJSON() {
    return {
      kind: this.kind,
      error_code: this.error_code,
      reason: this.reason,
      status: this.status,
      channel_errors: this.channel_errors,
      page: this.page,
      operation: this.operation,
      violations: this.violations,
    };
  }
}
