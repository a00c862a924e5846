import { DeviceError, violationText, type ErrorKind } from '../../core/errors';
import { nodeQuoter } from './secrets';

/** Which request an error belongs to. */
type Where = { page?: string; operation?: string };

/** Anything thrown below a node becomes a DeviceError (the client already throws only those). */
export function asDeviceError(e: unknown, where: Where = {}): DeviceError {
  if (e instanceof DeviceError) return e;
  const reason = e instanceof Error ? e.message : String(e);
  return new DeviceError({ kind: 'transport', error_code: 'unexpected', reason, cause: e, ...where });
}

/** A refusal decided by the node itself before anything is sent. */
export function invalidRequest(error_code: string, reason: string, where: Where = {}) {
  return new DeviceError({ kind: 'invalid_request', error_code, reason, ...where });
}

/**
 * Library wording a flow author cannot act on -> what they can do in Node-RED. The client speaks
 * to programs ("call login()"); a node's user deploys or restarts instead.
 */
const USER_WORDING: ReadonlyArray<[RegExp, string]> = [
  [/\(call login\(\) to retry now\)/g, '(deploy the device again to retry now)'],
  [/\bcall (\w+)\(\)/g, 'retry'],
];

function userReason(reason: string): string {
  return USER_WORDING.reduce((s, [re, by]) => s.replace(re, by), reason);
}

/**
 * What happened, as the error's name: Node-RED shows `<name>: <message>` in the debug sidebar, the
 * log and a Catch node's `msg.error.message` (a class name such as "DeviceError" says nothing).
 */
const KIND_WORDS: Readonly<Record<ErrorKind, string>> = {
  session: 'Session with the device lost',
  busy: 'Device busy',
  unsupported: 'Not supported by the device',
  rejected: 'Refused by the device',
  lockout: 'Login refused',
  transport: 'Device unreachable',
  invalid_answer: 'Unexpected answer from the device',
  invalid_request: 'Not sent',
};

/**
 * The message in the user's words, after the kind's name ("Not sent: ..."): each violation as a sentence where there
 * are some (they say more than the reason's count of them), else the reason; and the page it was about.
 */
function userMessage(d: {
  reason: string;
  violations?: ReadonlyArray<{ path: string; message: string }>;
  page?: string;
  operation?: string;
}) {
  const what = d.violations?.length ? d.violations.map(violationText).join('; ') : d.reason;
  const where = d.page ? ` (${d.page}${d.operation ? ` ${d.operation}` : ''})` : '';
  return `${what}${where}`;
}

/**
 * The error handed to `done(err)`. Node-RED builds the Catch node's `msg.error` from the Error's
 * message plus its own `code`, `stack` and `cause` properties only, so the device details travel
 * as `code` (= error_code) and `cause` (= {kind, error_code, reason, violations, ...}); the
 * properties stay on the error object too for code that receives it directly.
 */
export function forDone(e: unknown, where: Where = {}): DeviceError {
  // Whatever built the error, no deployed device's password leaves the node (Catch node, debug sidebar, log).
  const json = asDeviceError(e, where).toJSON();
  const details = nodeQuoter.redactDeep({
    ...json,
    reason: userReason(json.reason),
    page: json.page ?? where.page,
    operation: json.operation ?? where.operation,
  });
  const out = new DeviceError({ ...details, cause: details });
  out.name = KIND_WORDS[out.kind] ?? 'Error';
  out.message = userMessage(details);
  out.stack = `${out.name}: ${out.message}`;
  Object.defineProperty(out, 'code', { value: details.error_code, enumerable: true });
  return out;
}
