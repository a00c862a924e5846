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
  /** Dotted path inside `data`, e.g. `channel_info.CH1.siren_time`. */
  path: string;
  problem: 'unsupported' | 'read_only' | 'enum' | 'min' | 'max' | 'length' | 'size' | 'type' | 'channel';
  message: string;
}

/** Device error codes (field notes) to the kind a caller acts on. Unknown codes are `rejected`. */
const KIND_BY_CODE: Readonly<Record<string, ErrorKind>> = {
  no_login: 'session',
  expired: 'session',
  token_invalid: 'session',
  no_heartbeat: 'session',
  one_IE: 'session',
  login_at_other: 'session',
  forced_offline: 'session',
  have_login: 'session',
  device_busy: 'busy',
  data_saving_busy: 'busy',
  frequent_operation: 'busy',
  service_unavailable_error: 'busy',
  not_found: 'unsupported',
  no_support: 'unsupported',
  method_not_allowed: 'unsupported',
  login_failed_or_block: 'lockout',
  black_ip: 'lockout',
  user_locked_login: 'lockout',
  verify_failed: 'lockout',
};

/** Codes after which the client logs in again once, transparently. */
export const RELOGIN_CODES: ReadonlySet<string> = new Set([
  'no_login', 'expired', 'token_invalid', 'no_heartbeat', 'one_IE', 'login_at_other', 'forced_offline',
]);

export function kindOfCode(code: string): ErrorKind {
  return KIND_BY_CODE[code] ?? 'rejected';
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

  constructor(init: DeviceErrorInit) {
    const where = init.page ? `${init.page}${init.operation ? `/${init.operation}` : ''}: ` : '';
    const list = init.violations?.length ? `: ${init.violations.map((x) => `${x.path} ${x.message}`).join('; ')}` : '';
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
  }

  toJSON() {
    return {
      kind: this.kind, error_code: this.error_code, reason: this.reason, status: this.status,
      channel_errors: this.channel_errors, page: this.page, operation: this.operation, violations: this.violations,
    };
  }
}
