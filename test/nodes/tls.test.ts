/**
 * TLS per nvr-device against an https simulator with a self-signed certificate: a pinned fingerprint
 * and a CA each work for their own config node only, while a third device in the same runtime with
 * neither is refused (and says why in the status). The "test connection" route takes the dialog's
 * TLS values. Needs `openssl` to make the certificate; skipped without it (failed under CI=true).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import * as https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingSuite } from '../helpers/missing';
import {
  helper,
  credentials,
  DEV,
  flowWith,
  load,
  newPassword,
  paths,
  statusesOf,
  waitFor,
  useSimulator,
  type SimulatorContext,
} from './harness';

interface Ctx extends SimulatorContext {
  cert: string;
  fingerprint: string;
}

function selfSigned(): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-nodes-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pair = selfSigned();
if (!pair) {
  missingSuite('nodes: TLS per nvr-device', 'openssl could not make a certificate');
} else {
  const fingerprint = new X509Certificate(pair.cert).fingerprint256;
  const test = suite<Ctx>('nodes: TLS per nvr-device', { password: newPassword(), cert: pair.cert, fingerprint });
  useSimulator(test, { tls: pair });

  const get = (id: string, device: string) => ({
    id,
    type: 'nvr-get',
    device,
    page: 'AlarmConfig/Deterrence',
    channel: '',
    data: '',
    wires: [[]],
  });

  test('pinned fingerprint and CA: connected; the same runtime refuses the device without either', async (ctx) => {
    const url = ctx.sim!.url;
    assert.ok(url.startsWith('https://'), url);
    const flow = flowWith(
      url,
      [
        get('pinned', DEV),
        { id: 'dev-ca', type: 'nvr-device', url, heartbeat: '25', tls_ca: ctx.cert, tls_fingerprint: '' },
        get('ca', 'dev-ca'),
        { id: 'dev-none', type: 'nvr-device', url, heartbeat: '25', tls_ca: '', tls_fingerprint: '' },
        get('none', 'dev-none'),
      ],
      { tls_fingerprint: ctx.fingerprint.toLowerCase() },
    );
    const creds = {
      ...credentials(ctx.password),
      'dev-ca': { username: 'admin', password: ctx.password },
      'dev-none': { username: 'admin', password: ctx.password },
    };
    await load(flow, creds);
    for (const id of ['pinned', 'ca']) {
      await waitFor(() => statusesOf(id).find((s) => s.fill === 'green'), `${id} connected`);
    }
    const refused = await waitFor(() => statusesOf('none').find((s) => s.fill === 'red'), 'refused');
    assert.equal(refused, { fill: 'red', shape: 'ring', text: 'TLS failed: check CA or fingerprint' });
    assert.not.ok(statusesOf('none').some((s) => s.fill === 'green'));
    // Nothing was switched off for the whole process.
    assert.is(process.env.NODE_TLS_REJECT_UNAUTHORIZED, undefined);
    assert.is(https.globalAgent.options.rejectUnauthorized, undefined);
    assert.is(https.globalAgent.options.ca, undefined);
  });

  test("test connection uses the dialog's TLS values", async (ctx) => {
    await load([{ id: 'tab1', type: 'tab', label: 'empty' }]);
    const post = (body: object) => helper.request().post('/nvr-device/test').send(body).set('content-type', 'application/json');
    const base = { url: ctx.sim!.url, username: 'admin', password: ctx.password };
    const pinned = await post({ ...base, tls_fingerprint: ctx.fingerprint });
    assert.is(pinned.status, 200, pinned.text);
    const ca = await post({ ...base, tls_ca: ctx.cert });
    assert.is(ca.status, 200, ca.text);
    ctx.sim!.clearLog();
    const none = await post(base);
    assert.is(none.status, 502, none.text);
    assert.is(none.body.error.error_code, 'tls_error');
    assert.equal(paths(ctx.sim!), [], 'nothing reached the device');
  });

  test.run();
}
