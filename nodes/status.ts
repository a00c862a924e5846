import type { ClientState } from '../core/client';
import type { DeviceError } from '../core/errors';
import type { NodeStatus } from './red';

/** The shared client's state, as the nodes show it. */
export type ConnectionState = ClientState;

/** Connection state of the shared client -> node status. `idle` means "about to log in". */
const CONNECTION: Record<ConnectionState, NodeStatus> = {
  idle: { fill: 'yellow', shape: 'ring', text: 'connecting' },
  connecting: { fill: 'yellow', shape: 'ring', text: 'connecting' },
  connected: { fill: 'green', shape: 'dot', text: 'connected' },
  error: { fill: 'red', shape: 'ring', text: 'error' },
  closed: { fill: 'grey', shape: 'ring', text: 'closed' },
};

/** Short, credential-free wording for the codes a user is most likely to meet. */
const REASONS: Record<string, string> = {
  login_failed_or_block: 'wrong username or password',
  user_locked_login: 'account locked',
  black_ip: 'address blocked',
  verify_failed: 'verification failed',
  no_permission: 'no permission',
  not_found: 'not supported by device',
  no_support: 'not supported by device',
  out_of_range: 'outside Range',
  device_busy: 'device busy',
  // The device is reachable; almost always its certificate is not trusted by this config node's settings.
  tls_error: 'TLS failed: check CA or fingerprint',
};

const MAX_TEXT = 40;

/** What a node shows for an error: a few words, never a credential (DeviceError reasons hold none). */
export function shortReason(err: Pick<DeviceError, 'error_code' | 'kind' | 'reason'> | undefined): string {
  if (!err) return 'error';
  const text =
    REASONS[err.error_code] ??
    (err.kind === 'transport' ? `unreachable (${err.error_code})` : err.error_code === 'bad_option' ? err.reason : err.error_code);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

export function connectionStatus(state: ConnectionState, err?: DeviceError): NodeStatus {
  const base = CONNECTION[state] ?? CONNECTION.error;
  return state === 'error' ? { ...base, text: shortReason(err) } : base;
}

export type UpgradeStep = 'reading' | 'validating' | 'requesting' | 'done' | 'failed';

/** Progress of nvr-upgrade, shown instead of the connection while a request runs. */
const UPGRADE: Record<UpgradeStep, NodeStatus> = {
  reading: { fill: 'blue', shape: 'ring', text: 'reading file' },
  validating: { fill: 'blue', shape: 'ring', text: 'validating' },
  requesting: { fill: 'yellow', shape: 'ring', text: 'requesting token' },
  done: { fill: 'green', shape: 'dot', text: 'token received' },
  failed: { fill: 'red', shape: 'ring', text: 'failed' },
};

export function upgradeStatus(step: UpgradeStep, err?: DeviceError): NodeStatus {
  const base = UPGRADE[step];
  return step === 'failed' ? { ...base, text: `failed: ${shortReason(err)}` } : base;
}

/** Request failures are shown briefly on the node that failed; the connection status comes back later. */
export function failureStatus(err: DeviceError): NodeStatus {
  return { fill: 'red', shape: 'ring', text: shortReason(err) };
}
