import { digestAuthorization, pickDigestChallenge } from './digest';
import { parseAnswer, type AnswerContext } from './envelope';
import { DeviceError } from './errors';
import type { Transport, WireResponse } from './transport';

/** The Digest login exchange (vendor facts b): POST without credentials, 401 + challenge, POST the answer. */

export const LOGIN_PATH = '/API/Web/Login';
const CTX = { page: 'Web', operation: 'Login', envelope: 'any' } as const;

export const envelope = (data: unknown) => ({ version: '1.0', data: data ?? {} });

/** `data` of a device answer, or the DeviceError it amounts to. */
export function parse(res: WireResponse, ctx: AnswerContext): unknown {
  return parseAnswer(res.status, res.text, res.headers.get('content-type'), ctx);
}

/**
 * Log in; resolves with the accepting response (its cookies and token are the caller's to keep) and its
 * `data`, or throws the refusal. A `stale` nonce (not a refusal) gets one more answer, nothing else does.
 */
export async function digestLogin(transport: Transport, username: string, password: string): Promise<{ res: WireResponse; data: unknown }> {
  let res = await transport.post(LOGIN_PATH, envelope({}));
  if (res.status === 401) {
    let challenge = pickDigestChallenge(res.headers.get('www-authenticate'));
    if (!challenge) throw noDigest(res);
    for (let round = 0; challenge && round < 2; round++) {
      const authorization = digestAuthorization(challenge, { method: 'POST', uri: transport.pathOf(LOGIN_PATH), username, password });
      res = await transport.post(LOGIN_PATH, envelope({}), { headers: { authorization } });
      if (res.status !== 401) break;
      const next = pickDigestChallenge(res.headers.get('www-authenticate'));
      challenge = next?.stale ? next : undefined;
    }
  }
  try {
    return { res, data: parse(res, CTX) };
  } catch (err) {
    // A bare 401 after answering the challenge is a refusal of the credentials.
    if (res.status === 401 && err instanceof DeviceError && (err.kind === 'session' || err.kind === 'invalid_answer')) {
      throw new DeviceError({ error_code: 'login_failed_or_block', reason: 'credentials refused (HTTP 401)', status: 401, ...CTX });
    }
    throw err;
  }
}

/** 401 without a Digest challenge: unless the body says more, this client cannot log in there. */
function noDigest(res: WireResponse): DeviceError {
  try {
    parse(res, CTX);
  } catch (err) {
    if (err instanceof DeviceError && err.kind !== 'session' && err.kind !== 'invalid_answer') return err;
  }
  const offered = res.headers.get('www-authenticate')?.split(/\s/)[0];
  return new DeviceError({
    kind: 'rejected',
    error_code: 'unsupported_auth',
    status: res.status,
    page: CTX.page,
    operation: CTX.operation,
    reason: `device asked for authentication without a Digest challenge${offered ? ` (offered: ${offered})` : ''}`,
  });
}
