/**
 * TLS per connection: to the broker with a CA file or a pinned certificate fingerprint (self-signed broker; a
 * wrong pin is refused before the CONNECT packet, which carries the password, leaves), and to each device the
 * same way. Nothing is switched off for the process. Needs `openssl` to make the test certificate; skipped
 * without it (failed under CI=true).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { suite } from 'uvu';
import { startBridge } from '../../bridge/bridge';
import { parseConfig } from '../../bridge/base/config';
import { createLogger } from '../../bridge/base/log';
import { startSimulator, type Simulator } from '../../simulator';
import { missingTool, testIf } from '../helpers/missing';

const test = suite<{
  dir: string;
  key: string;
  cert: string;
  fingerprint: string;
  port: number;
  server?: tls.Server;
  stopBroker?: () => Promise<void>;
  sim?: Simulator;
  sawPlain: number;
}>('bridge tls');

const opensslMissing = missingTool('openssl');

test.before(async (ctx) => {
  ctx.sawPlain = 0;
  if (opensslMissing) return;
  ctx.dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(ctx.dir, 'key.pem'),
      '-out',
      join(ctx.dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  ctx.key = readFileSync(join(ctx.dir, 'key.pem'), 'utf8');
  ctx.cert = readFileSync(join(ctx.dir, 'cert.pem'), 'utf8');
  ctx.fingerprint = new X509Certificate(ctx.cert).fingerprint256;
  const { Aedes } = await import('aedes');
  const aedes = await Aedes.createBroker();
  const sockets = new Set<Socket>();
  ctx.server = tls.createServer({ key: ctx.key, cert: ctx.cert }, (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    aedes.handle(s);
  });
  await new Promise<void>((r) => ctx.server!.listen(0, '127.0.0.1', () => r()));
  ctx.port = (ctx.server.address() as { port: number }).port;
  ctx.stopBroker = async () => {
    const closed = new Promise<void>((r) => ctx.server!.close(() => r()));
    for (const s of sockets) s.destroy();
    await closed;
    await new Promise<void>((r) => aedes.close(() => r()));
  };
  ctx.sim = await startSimulator({ password: 'tls-device-pw' });
});

test.after(async (ctx) => {
  await ctx.stopBroker?.();
  await ctx.sim?.stop();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

function config(ctx: { port: number; sim?: Simulator }, tlsOpts: Record<string, string>) {
  return parseConfig(
    {
      mqtt: { url: `mqtts://127.0.0.1:${ctx.port}`, username: 'bridge', password: 'tls-mqtt-pw', tls: tlsOpts },
      devices: [{ id: 'nvr', url: ctx.sim!.url, username: 'admin', password: 'tls-device-pw', poll_interval: 5 }],
    },
    { env: {}, baseDir: '/' },
  ).config;
}

const quiet = () => createLogger({ level: 'error', sink: () => undefined });

testIf(test, opensslMissing, 'pinned fingerprint: connects to a self-signed broker', async (ctx) => {
  const bridge = await startBridge(config(ctx, { fingerprint: ctx.fingerprint }), {
    log: quiet(),
    connectTimeoutMs: 5000,
  });
  await bridge.stop();
});

testIf(test, opensslMissing, 'CA file: connects; without it the self-signed broker is refused', async (ctx) => {
  const bridge = await startBridge(config(ctx, { ca_file: join(ctx.dir, 'cert.pem') }), {
    log: quiet(),
    connectTimeoutMs: 5000,
  });
  await bridge.stop();
  await assert.rejects(startBridge(config(ctx, {}), { log: quiet(), connectTimeoutMs: 1500, reconnectPeriodMs: 300 }), /no connection/);
});

testIf(test, opensslMissing, 'wrong pin: refused, and no byte of CONNECT (password) is sent', async (ctx) => {
  const wrong = 'AB'.repeat(32);
  let received = 0;
  const onConn = (s: tls.TLSSocket) => s.on('data', (d: Buffer) => (received += d.length));
  ctx.server!.prependListener('secureConnection', onConn);
  const lines: string[] = [];
  await assert.rejects(
    startBridge(config(ctx, { fingerprint: wrong }), {
      log: createLogger({ level: 'debug', sink: (_l, line) => lines.push(line) }),
      connectTimeoutMs: 1500,
      reconnectPeriodMs: 300,
    }),
    /no connection/,
  );
  ctx.server!.off('secureConnection', onConn);
  assert.equal(received, 0, 'nothing sent over a connection with the wrong certificate');
  assert.ok(
    lines.some((l) => /fingerprint .* does not match/.test(l)),
    lines.join('\n'),
  );
  assert.ok(!lines.some((l) => l.includes('tls-mqtt-pw')));
});

testIf(
  test,
  opensslMissing,
  'devices over HTTPS: pinned fingerprint or CA file per device; no pin, wrong pin: offline; nothing process-wide',
  async (ctx) => {
    const { startEmbeddedBroker } = await import('../../bridge/mqtt/broker');
    const broker = await startEmbeddedBroker({ port: 0 });
    const cam = await startSimulator({ password: 'tls-cam-pw', profile: 'ipc', tls: { key: ctx.key, cert: ctx.cert } });
    const device = (id: string, tls?: Record<string, string>) => ({
      id,
      url: cam.url,
      username: 'admin',
      password: 'tls-cam-pw',
      poll_interval: 0.2,
      ...(tls ? { tls } : {}),
    });
    const lines: string[] = [];
    const bridge = await startBridge(
      parseConfig(
        {
          mqtt: { url: broker.url },
          devices: [
            device('pinned', { fingerprint: ctx.fingerprint }),
            device('ca', { ca_file: join(ctx.dir, 'cert.pem') }),
            device('unpinned'),
            device('wrongpin', { fingerprint: 'AB'.repeat(32) }),
          ],
        },
        { env: {}, baseDir: '/' },
      ).config,
      {
        log: createLogger({ level: 'debug', sink: (_l, line) => lines.push(line) }),
        offlineAfter: 1,
        backoff: { minMs: 100, maxMs: 200 },
      },
    );
    try {
      const settled = () => [...bridge.devices.values()].every((h) => h.poller.isOnline !== undefined);
      for (let i = 0; i < 100 && !settled(); i++) await new Promise((r) => setTimeout(r, 50));
      const online = Object.fromEntries([...bridge.devices].map(([id, h]) => [id, h.online]));
      assert.deepEqual(online, { pinned: true, ca: true, unpinned: false, wrongpin: false });
      assert.ok(
        lines.some((l) => l.includes('[wrongpin]') && /fingerprint/i.test(l)),
        lines.filter((l) => l.includes('wrongpin')).join('\n'),
      );
      // The pins and CAs above belong to their connections: this process still refuses the self-signed certificate.
      assert.equal(process.env.NODE_TLS_REJECT_UNAUTHORIZED, undefined);
      await assert.rejects(fetch(`${cam.url}/API/Login/DeviceInfo/Get`, { method: 'POST', body: '{}' }));
    } finally {
      await bridge.stop();
      await cam.stop();
      await broker.stop();
    }
  },
);

test.run();
