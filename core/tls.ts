import type { TLSSocket } from 'node:tls';
import { buildConnector } from 'undici';
import { DeviceError } from './errors';

/** TLS to one device: a CA of its own or a pinned certificate fingerprint (self-signed devices). */

export interface TlsOptions {
  /** CA certificate(s) (PEM) the device certificate must chain to. */
  ca?: string | Buffer;
  /**
   * SHA-256 fingerprint of the device certificate (hex, colons and case ignored). With a pin, the
   * certificate whose fingerprint matches is accepted even when self-signed or issued for another
   * host name, and every other certificate is refused. With `ca` as well, both must hold.
   */
  fingerprint?: string;
}

export const PIN_MISMATCH = 'ERR_NVR_CERT_PIN_MISMATCH';

/** `AB:cd:...` or `abcd...` to 64 upper-case hex digits; throws on anything else. */
export function normalizeFingerprint(fp: string): string {
  const hex = fp.replace(/[:\s]/g, '').toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw new DeviceError({
      kind: 'invalid_request',
      error_code: 'bad_option',
      reason: 'tls.fingerprint must be a SHA-256 fingerprint: 64 hex digits, colons allowed',
    });
  }
  return hex;
}

/** The undici connector for `tls`: default verification, or the pin (and the CA when given). */
export function connector(tls: TlsOptions | undefined) {
  const pin = tls?.fingerprint ? normalizeFingerprint(tls.fingerprint) : undefined;
  if (!pin) return buildConnector({ ca: tls?.ca, rejectUnauthorized: true });
  // Chain and host name checks are replaced by the pin (or kept for the CA, checked below); no
  // TLS session cache so that every connection shows its certificate.
  const base = buildConnector({ ca: tls?.ca, rejectUnauthorized: false, maxCachedSessions: 0 });
  return (opts: buildConnector.Options, cb: buildConnector.Callback) =>
    base(opts, (err, socket) => {
      if (err || !socket) return cb(err ?? new Error('no socket'), null);
      const tlsSocket = socket as TLSSocket;
      const cert = typeof tlsSocket.getPeerCertificate === 'function' ? tlsSocket.getPeerCertificate() : undefined;
      const got = cert?.fingerprint256?.replace(/:/g, '').toUpperCase();
      let problem: string | undefined;
      if (!got) problem = 'TLS: the device presented no certificate';
      else if (got !== pin) problem = `TLS: certificate fingerprint ${cert!.fingerprint256} does not match the pinned one`;
      else if (tls?.ca && !tlsSocket.authorized) problem = `TLS: certificate not signed by the given CA (${tlsSocket.authorizationError})`;
      if (!problem) return cb(null, socket);
      socket.destroy();
      cb(Object.assign(new Error(problem), { code: PIN_MISMATCH }), null);
    });
}
