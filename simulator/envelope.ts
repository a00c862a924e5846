/** Answer shapes of the device (spec 1 "Message envelope", field notes "Failure responses"). */
import type { OutgoingHttpHeaders } from 'node:http';

export interface Reply {
  status: number;
  body: string;
  contentType?: string;
  headers?: OutgoingHttpHeaders;
  /** For the request log. */
  error_code?: string;
}

export const success = (data: unknown = {}, headers?: OutgoingHttpHeaders): Reply => ({
  status: 200,
  body: `{"result":"success","data":${JSON.stringify(data)}}`,
  headers,
});

/** Success with a prebuilt body (Range answers). */
export const raw = (body: string, headers?: OutgoingHttpHeaders): Reply => ({ status: 200, body, headers });

/** Failure body (vendor): `{result:"failed", reason, error_code, data}`; `data` may carry extras (block_remain_time). */
export function failure(
  status: number,
  error_code: string,
  reason: string,
  headers?: OutgoingHttpHeaders,
  data: Record<string, unknown> = {},
): Reply {
  return {
    status,
    error_code,
    headers,
    body: JSON.stringify({ result: 'failed', reason, error_code, data }),
  };
}

export const paramError = (reason: string): Reply => failure(400, 'param_error', reason);

/** Login without (acceptable) credentials: 401 with the Digest challenge(s), one `WWW-Authenticate` header each. */
export const digestChallenge = (challenges: string[]): Reply =>
  failure(401, 'no_login', 'Digest authentication required', { 'WWW-Authenticate': challenges });
