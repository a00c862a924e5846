import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NvrClient, type ClientOptions } from '../../core/client';
import { DeviceError } from '../../core/errors';
import { ANSWER_BOUNDS, Transport, WireHeaders } from '../../core/transport';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemInfoGet } from '../../core/pages/system-info';
import { defineOperation } from '../../core/operation';
import * as v from 'valibot';
import { clientRig, rejection } from './harness';
import { until } from '../helpers/until';

const PASSWORD = 'Tr4nsport-pw';
const INFO = '/API/SystemInfo/Base/Get';

const test = suite('transport');

const { setup, open, closeAll } = clientRig(PASSWORD);
test.after.each(closeAll);

test('a hanging device gives a transport timeout within the deadline', async () => {
  const { dev, c } = await setup({}, { timeoutMs: 200 });
  await c.login();
  dev.faults.set(INFO, 'hang');
  const t0 = Date.now();
  const e = await rejection(c.systemInfo());
  const took = Date.now() - t0;
  assert.is(e.kind, 'transport');
  assert.is(e.error_code, 'timeout');
  assert.is(e.reason, 'no answer within 200 ms');
  assert.ok(took >= 190 && took < 1_000, `took ${took} ms`);
  assert.is(c.state, 'error');
  // The client recovers on the next good answer.
  dev.faults.delete(INFO);
  await c.systemInfo();
  assert.is(c.state, 'connected');
});

/** An operation the fake device answers after `ms` (loose request: `{n}` tells calls apart). */
const SLOW = defineOperation({
  page: 'Test/Slow',
  operation: 'Get',
  request: v.looseObject({}),
  response: v.looseObject({}),
  description: 'slow answer',
});
const SLOW_PATH = '/API/Test/Slow/Get';
function slowDevice(ms: number, arrivals: number[]) {
  return {
    handlers: {
      [SLOW_PATH]: async (data: Record<string, unknown>) => {
        arrivals.push(data.n as number);
        await new Promise((r) => setTimeout(r, ms));
        return { n: data.n };
      },
    },
  };
}

test('the deadline counts time on the wire: a call queued behind two slow requests still succeeds', async () => {
  const arrivals: number[] = [];
  const { c } = await setup(slowDevice(300, arrivals), { timeoutMs: 1_000 });
  await c.login();
  const slow = [1, 2].map((n) => c.invoke(SLOW, { n }));
  const t0 = Date.now();
  const queued = await c.invoke(SLOW, { n: 3 }, { timeoutMs: 400 }); // waits ~300 ms, then 300 ms on the wire
  assert.equal(queued, { n: 3 });
  assert.ok(Date.now() - t0 >= 550, 'it did wait for a connection');
  await Promise.all(slow);
  assert.equal(arrivals, [1, 2, 3]);
});

test('queue wait has its own bound (4 x the deadline): behind two hung requests a call fails, never sent', async () => {
  const { dev, c } = await setup({}, { timeoutMs: 2_000 });
  await c.login();
  dev.faults.set(INFO, 'hang');
  // Raw calls: identical typed reads would share one device call (coalescing), not queue.
  const hung = [c.call(INFO), c.call(INFO)].map((p) => p.catch((e: unknown) => e));
  await until(() => dev.count(INFO) === 2);
  const t0 = Date.now();
  const queued = await rejection(c.invoke(systemInfoGet, {}, { timeoutMs: 100 }));
  const took = Date.now() - t0;
  assert.is(queued.error_code, 'timeout');
  assert.match(queued.reason, 'not sent: no free connection to the device within 400 ms');
  assert.ok(took >= 380 && took < 1_000, `took ${took} ms`);
  assert.is(dev.count(INFO), 2, 'the queued call never reached the device');
  await Promise.all(hung);
});

test('issue 9: a device answering in ~1 s; polls queued ahead of a command: the command leaves first and is confirmed', async () => {
  const arrivals: number[] = [];
  // 900 ms per answer, deadline 1200 ms: a command that counted its queue time (>= 900 ms) would fail.
  const { c } = await setup(slowDevice(900, arrivals), { timeoutMs: 1_200 });
  await c.login();
  const polls = [1, 2, 3, 4].map((n) => c.invoke(SLOW, { n }, { priority: 'poll' }));
  await until(() => arrivals.length === 2);
  const t0 = Date.now();
  const command = await c.invoke(SLOW, { n: 99 }); // priority 'command' by default
  const took = Date.now() - t0;
  assert.equal(command, { n: 99 });
  assert.ok(took >= 1_400, `waited for a connection, then ~900 ms on the wire (${took} ms)`);
  await Promise.all(polls);
  assert.equal(arrivals, [1, 2, 99, 3, 4], 'the queued command left before the polls queued ahead of it');
});

test('per-call timeout overrides the default', async () => {
  const { dev, c } = await setup({}, { timeoutMs: 5_000 });
  await c.login();
  dev.faults.set(INFO, 'hang');
  const t0 = Date.now();
  const e = await rejection(c.invoke(systemInfoGet, {}, { timeoutMs: 100 }));
  assert.is(e.error_code, 'timeout');
  assert.ok(Date.now() - t0 < 1_000);
});

test('HTML with HTTP 500: transport error saying so', async () => {
  const { dev, c } = await setup();
  await c.login();
  dev.faults.set(INFO, 'html');
  const e = await rejection(c.systemInfo());
  assert.is(e.kind, 'transport');
  assert.is(e.status, 500);
  assert.is(e.message, 'SystemInfo/Base/Get: http_error (device answered HTML, not JSON (HTTP 500))');
});

test('HTML with HTTP 200: invalid answer', async () => {
  const { dev, c } = await setup();
  await c.login();
  dev.faults.set(INFO, 'html200');
  const e = await rejection(c.systemInfo());
  assert.is(e.kind, 'invalid_answer');
  assert.is(e.reason, 'device answered HTML, not JSON (HTTP 200)');
});

test('plain HTTP 500', async () => {
  const { dev, c } = await setup();
  await c.login();
  dev.faults.set(INFO, 'http500');
  const e = await rejection(c.systemInfo());
  assert.is(e.kind, 'transport');
  assert.is(e.error_code, 'http_error');
  assert.is(e.reason, 'device answered text, not JSON (HTTP 500)');
});

test('truncated JSON (body ends early) and a connection cut mid-body', async () => {
  const { dev, c } = await setup();
  await c.login();
  dev.faults.set(INFO, 'truncated');
  const t = await rejection(c.systemInfo());
  assert.is(t.kind, 'invalid_answer');
  assert.is(t.reason, 'device answered truncated or malformed JSON (HTTP 200)');
  dev.faults.set(INFO, 'cut');
  const cut = await rejection(c.systemInfo());
  assert.is(cut.kind, 'transport');
  assert.is(cut.error_code, 'network_error');
  assert.match(cut.reason, /closed|reset|terminated/);
});

test('an answer behind a byte-order mark, in chunks that split a character, is read whole', async () => {
  const { dev, c } = await setup();
  await c.login();
  dev.faults.set(INFO, 'bom_chunked');
  const info = (await c.call(INFO)) as { device_type?: string; channel_max?: number };
  assert.is(info.device_type, 'N7516 Caméra');
  assert.is(info.channel_max, 8);
  assert.is(c.state, 'connected');
});

/**
 * A device that answers every request with `size` bytes of JSON-looking text, streamed in 64 KB chunks as fast as
 * the socket takes them (nothing of that size is ever allocated); `sent` counts what left before the client hung up.
 */
async function hugeAnswerServer(size: number, declare: boolean): Promise<{ server: Server; url: string; sent: () => number }> {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(size) } : {}) });
    let left = size;
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const n = Math.min(left, chunk.length);
        left -= n;
        sent += n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
      }
      if (left <= 0) res.end();
    };
    res.on('error', () => undefined);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent };
}

for (const declare of [true, false]) {
  test(`a 600 MB answer (${declare ? 'Content-Length' : 'chunked, no length'}) is refused before it is buffered: a clear error, the connection closed early`, async () => {
    const SIZE = 600 * 2 ** 20;
    const dev = await hugeAnswerServer(SIZE, declare);
    const t = new Transport({ url: dev.url, timeoutMs: 20_000, maxConnections: 1 });
    try {
      const e = await rejection(t.post('/API/SystemInfo/Base/Get', {}));
      assert.is(e.error_code, 'answer_too_large');
      assert.is(e.kind, 'invalid_answer');
      assert.match(e.reason, declare ? /announced an answer of 600 MB, over the 4 MB this page may send/ : /went past 4 MB/);
      // What left the device before the client hung up: the bound and socket buffers, not the 600 MB.
      await sleep(200);
      assert.ok(dev.sent() < 64 * 2 ** 20, `${dev.sent()} bytes sent before the connection closed`);
      assert.ok(dev.sent() < SIZE / 8);
    } finally {
      await t.close();
      dev.server.closeAllConnections();
      await new Promise((r) => dev.server.close(r));
    }
  });
}

test('an answer just under the bound is read whole; pictures (Event/Check, Snapshot/Get) may be larger', async () => {
  const dev = await hugeAnswerServer(ANSWER_BOUNDS.json - 1, false);
  const t = new Transport({ url: dev.url, timeoutMs: 20_000, maxConnections: 1 });
  try {
    const res = await t.post('/API/SystemInfo/Base/Get', {});
    assert.is(res.text.length, ANSWER_BOUNDS.json - 1);
    const pictures = await t.post('/API/Event/Check', {});
    assert.is(pictures.text.length, ANSWER_BOUNDS.json - 1);
  } finally {
    await t.close();
    dev.server.closeAllConnections();
    await new Promise((r) => dev.server.close(r));
  }
  const big = await hugeAnswerServer(ANSWER_BOUNDS.json + 1024, true);
  const t2 = new Transport({ url: big.url, timeoutMs: 20_000, maxConnections: 1 });
  try {
    assert.is((await t2.post('/API/Event/Check', {})).text.length, ANSWER_BOUNDS.json + 1024, 'a picture answer over the JSON bound');
    assert.is((await rejection(t2.post('/API/Login/Heartbeat', {}))).error_code, 'answer_too_large');
  } finally {
    await t2.close();
    big.server.closeAllConnections();
    await new Promise((r) => big.server.close(r));
  }
});

test('answer headers: names in any case, every Set-Cookie line kept in order', () => {
  const raw = ['Set-Cookie', 'lang=en; path=/', 'X-CsrfToken', 'abc', 'set-cookie', 'session=42; HttpOnly'].map((s) => Buffer.from(s));
  const h = WireHeaders.fromRaw(raw);
  assert.equal(h.getSetCookie(), ['lang=en; path=/', 'session=42; HttpOnly']);
  assert.is(h.get('x-csrftoken'), 'abc');
  assert.is(h.get('X-CSRFTOKEN'), 'abc');
  assert.is(h.get('content-type'), null);
});

test('connection refused', async () => {
  const { dev } = await setup();
  const url = dev.url;
  await dev.stop();
  open.splice(open.indexOf(dev), 1);
  const c = new NvrClient({ url, username: 'admin', password: PASSWORD, heartbeatMs: 0 });
  open.push(c);
  const e = await rejection(c.login());
  assert.is(e.kind, 'transport');
  assert.is(e.reason, 'connection refused');
  assert.not.match(JSON.stringify(e) + e.message, PASSWORD);
});

test('at most maxConnections sockets for 20 concurrent calls, reused', async () => {
  const { dev, c } = await setup();
  await Promise.all(Array.from({ length: 20 }, () => c.call(INFO)));
  await Promise.all(Array.from({ length: 20 }, () => c.call(INFO)));
  assert.is(dev.ok(INFO), 40);
  assert.ok(dev.connections <= 2, `connections: ${dev.connections}`);
  assert.ok(dev.connections >= 1);
});

test('both connections stay in use: steady calls and bursts open no connection after the first two', async () => {
  // The device keeps an idle connection 3 s: undici then reuses one idle for at most 1 s (2 s less, its margin).
  const { dev, c } = await setup({ keepAliveMs: 3_000 });
  await c.login();
  let steady = true;
  // One call every 250 ms (as event checks go), bursts of two (as a poll's reads go) 1.5 s apart.
  const checks = (async () => {
    while (steady) {
      await c.call(INFO);
      await sleep(250);
    }
  })();
  for (let burst = 0; burst < 3; burst++) {
    await Promise.all([c.call(INFO), c.call(INFO)]);
    await sleep(1_500);
  }
  steady = false;
  await checks;
  // Taking the first free connection each time left the second idle past its keep-alive: a connect per burst (4).
  assert.is(dev.connections, 2);
});

test('maxConnections: 1 means one socket', async () => {
  const { dev, c } = await setup({}, { maxConnections: 1 });
  await Promise.all(Array.from({ length: 10 }, () => c.call(INFO)));
  assert.is(dev.connections, 1);
});

test('bad options are refused up front, without the password', () => {
  const bad = (o: Partial<ClientOptions>) => {
    try {
      new NvrClient({ url: 'http://127.0.0.1:1', username: 'admin', password: PASSWORD, ...o });
    } catch (err) {
      assert.instance(err, DeviceError);
      assert.is((err as DeviceError).kind, 'invalid_request');
      assert.not.match((err as Error).message, PASSWORD);
      return (err as DeviceError).reason;
    }
    throw new Error('expected a refusal');
  };
  assert.match(bad({ url: `http://admin:${PASSWORD}@127.0.0.1/` }), 'must not carry credentials');
  assert.match(bad({ tls: { fingerprint: 'abc' } }), '64 hex digits');
  assert.match(bad({ timeoutMs: -1 }), 'timeoutMs');
  assert.match(bad({ url: 'ftp://x' }), 'scheme');
  // What users type first: a bare address or host:port. Said in words, with what to write instead.
  assert.is(
    bad({ url: '192.168.1.10' }),
    'the device URL "192.168.1.10" must start with http:// or https:// (for example http://192.168.1.10)',
  );
  assert.is(
    bad({ url: 'nvr.local:8080' }),
    'the device URL "nvr.local:8080" must start with http:// or https:// (for example http://nvr.local:8080)',
  );
});

// --- TLS ---------------------------------------------------------------------------------------

const tlsTest = suite<{ dir: string; key: string; cert: string; fp: string; otherFp: string }>('transport TLS', {
  dir: '',
  key: '',
  cert: '',
  fp: '',
  otherFp: '',
});

function selfSigned(dir: string, name: string) {
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
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      join(dir, `${name}.key`),
      '-out',
      join(dir, `${name}.crt`),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, `${name}.crt`), 'utf8');
  return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert, fp: new X509Certificate(cert).fingerprint256 };
}

tlsTest.before((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-tls-'));
  const a = selfSigned(ctx.dir, 'device');
  const b = selfSigned(ctx.dir, 'other');
  Object.assign(ctx, { key: a.key, cert: a.cert, fp: a.fp, otherFp: b.fp });
});
tlsTest.after.each(closeAll);
tlsTest.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

tlsTest('pinned fingerprint: self-signed certificate accepted (colons and case ignored)', async (ctx) => {
  const { dev, c } = await setup({ tls: { key: ctx.key, cert: ctx.cert } }, { tls: { fingerprint: ctx.fp.toLowerCase() } });
  assert.ok(dev.url.startsWith('https://127.0.0.1:'));
  assert.is((await c.systemInfo()).device_type, 'N7516');
  const { c: c2 } = await setup({ tls: { key: ctx.key, cert: ctx.cert } }, { tls: { fingerprint: ctx.fp.replace(/:/g, '') } });
  await c2.login();
});

tlsTest('wrong pin refused with a clear TLS error; nothing reaches the device', async (ctx) => {
  const { dev, c } = await setup({ tls: { key: ctx.key, cert: ctx.cert } }, { tls: { fingerprint: ctx.otherFp } });
  const e = await rejection(c.login());
  assert.is(e.kind, 'transport');
  assert.is(e.error_code, 'tls_error');
  assert.match(e.reason, 'does not match the pinned one');
  assert.is(dev.log.length, 0);
});

tlsTest('no pin, no CA: the self-signed certificate is refused', async (ctx) => {
  const { dev, c } = await setup({ tls: { key: ctx.key, cert: ctx.cert } });
  const e = await rejection(c.login());
  assert.is(e.error_code, 'tls_error');
  assert.match(e.reason, 'self-signed');
  assert.is(dev.log.length, 0);
});

tlsTest('CA given: the certificate verifies', async (ctx) => {
  const { c } = await setup({ tls: { key: ctx.key, cert: ctx.cert } }, { tls: { ca: ctx.cert } });
  await c.login();
});

tlsTest('process-wide TLS settings untouched', () => {
  assert.is(process.env.NODE_TLS_REJECT_UNAUTHORIZED, undefined);
});

test.run();
tlsTest.run();
