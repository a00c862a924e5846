/**
 * Issue 38: the push listener faces anyone on the network. A request it cannot read gets a 4xx and the bridge lives
 * on; slow clients cannot hold its sockets; floods of wrong pushes cost a few log lines; a flood of right ones a
 * bounded number of event checks. Real broker, simulator and bridge.
 */
import * as assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import { listenAddress } from '../../bridge/device/listen-address';
import { PushListener, pushSocketBound, SLOW_CLIENT_BOUNDS } from '../../bridge/device/push-listener';
import { createLogger } from '../../bridge/base/log';
import { json, setup, until, type Fixture } from './fixture';

const test = suite<{ fx: Fixture; port: number; path: string }>('bridge push listener, hostile');

const checks = (fx: Fixture) => fx.sims.get('nvr')!.log.filter((e) => e.path === '/API/Event/Check').length;

/** Sends `raw` on a new connection and resolves with everything the listener answered before it closed. */
function rawExchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** The device pushes (what the simulator does on an alarm): a GET on its path from its own address. */
function devicePush(port: number, path: string): Promise<string> {
  return rawExchange(port, `GET /${path}?EventType=VideoMotion HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
}

/** `send` `n` times, `concurrency` at once. */
async function flood(n: number, concurrency: number, send: () => Promise<unknown>): Promise<void> {
  let left = n;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await send();
    }),
  );
}

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'push-hostile',
    devices: [{ id: 'nvr', poll: 3600, events: 'push', eventInterval: 60 }],
    push: { address: '127.0.0.1', port: 0, listen: '127.0.0.1' },
    noWait: true,
  });
  const sim = ctx.fx.sims.get('nvr')!;
  await until(
    () => typeof sim.pushSettings.url === 'string' && String(sim.pushSettings.url).startsWith('nvr2mqtt/'),
    'the push set up',
    8000,
  );
  ctx.port = Number(sim.pushSettings.port);
  ctx.path = String(sim.pushSettings.url);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

test('a request the listener cannot read gets a 4xx, the bridge lives on and hears the device after it', async ({ fx, port, path }) => {
  const status = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  assert.equal(status(await rawExchange(port, 'GET //[ HTTP/1.1\r\nhost: x\r\n\r\n')), 400, 'a target that is no URL');
  assert.equal(status(await rawExchange(port, 'GET http://[::1 HTTP/1.1\r\nhost: x\r\n\r\n')), 400, 'a broken absolute URL');
  assert.equal(status(await rawExchange(port, 'FROB / HTTP/1.1\r\nhost: x\r\n\r\n')), 400, 'an unknown method');
  assert.equal(status(await rawExchange(port, 'this is not HTTP\r\n\r\n')), 400, 'no request line at all');
  const huge = `GET /${path} HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`;
  assert.equal(status(await rawExchange(port, huge)), 431, 'headers too large');
  const before = checks(fx);
  assert.equal(status(await devicePush(port, path)), 200, 'the device is still heard');
  await until(() => checks(fx) > before, 'the check the push asked for');
});

test('clients that keep their side open after a refusal hold no socket of the listener', async () => {
  const listener = await PushListener.start('127.0.0.1', '127.0.0.1', 0, createLogger({ sink: () => undefined }), 1);
  const clients: Socket[] = [];
  try {
    const answers = ['FROB / HTTP/1.1', 'GET //[ HTTP/1.1', 'GET /nvr2mqtt/x HTTP/1.1', `GET / HTTP/1.1\r\nx: ${'a'.repeat(20_000)}`].map(
      (line) =>
        new Promise<string>((resolve) => {
          const s = connect({ port: listener.port, host: '127.0.0.1', allowHalfOpen: true }, () => s.write(`${line}\r\nhost: x\r\n\r\n`));
          clients.push(s);
          let answer = '';
          s.setEncoding('utf8');
          s.on('data', (d: string) => (answer += d));
          s.on('end', () => resolve(answer));
          s.on('error', () => undefined);
        }),
    );
    assert.deepEqual(
      (await Promise.all(answers)).map((a) => a.slice(0, 12)),
      ['HTTP/1.1 400', 'HTTP/1.1 400', 'HTTP/1.1 404', 'HTTP/1.1 431'],
    );
    const end = Date.now() + 2_000;
    let held: number;
    while ((held = await listener.sockets()) > 0 && Date.now() < end) await sleep(20);
    assert.equal(held, 0, 'no socket held after the refusals');
  } finally {
    for (const s of clients) s.destroy();
    await listener.close();
  }
});

test('slow clients (slowloris) hold a bounded number of sockets, for seconds; the devices are still read', async ({ fx, port }) => {
  const BOUND = pushSocketBound(1); // one device pushes
  const SLOW = BOUND + 150;
  const open = new Set<Socket>();
  await Promise.all(
    Array.from(
      { length: SLOW },
      () =>
        new Promise<void>((resolve) => {
          const s = connect(port, '127.0.0.1', () => {
            s.write('GET /nvr2mqtt/ HTTP/1.1\r\nhost: x\r\n'); // never finished
            resolve();
          });
          open.add(s);
          s.on('error', () => undefined);
          s.on('close', () => open.delete(s));
          s.resume();
        }),
    ),
  );
  // Beyond the bound the listener closes sockets as they come.
  await until(() => open.size <= BOUND, `at most ${BOUND} sockets held`, 3000);
  // Meanwhile the bridge still reads its device.
  const r = fx.recorder;
  const since = r.count;
  await r.publish(`${fx.base}/bridge/request/refresh`, JSON.stringify({ device: 'nvr', transaction: 'during-slowloris' }));
  const res = json(await r.waitTopic(`${fx.base}/bridge/response/refresh`, (j) => j.transaction === 'during-slowloris', 5000, since));
  assert.equal(res.status, 'ok');
  // And the held ones are let go once their headers are late.
  const bound = SLOW_CLIENT_BOUNDS.headersTimeout + 2 * SLOW_CLIENT_BOUNDS.connectionsCheckingInterval + 1_000;
  await until(() => open.size === 0, 'every slow socket closed', bound);
});

test('a flood of pushes on the device path costs the device one event check a second at most', async ({ fx, port, path }) => {
  const before = checks(fx);
  const started = Date.now();
  let pushes = 0;
  const FLOOD_MS = 3_000;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (Date.now() - started < FLOOD_MS) {
        await devicePush(port, path);
        pushes++;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 1_200)); // the one pending check
  const made = checks(fx) - before;
  assert.ok(pushes > 100, `a flood: ${pushes} pushes`);
  assert.ok(made >= 1, 'the pushes were heard');
  assert.ok(made <= Math.ceil(seconds) + 2, `${made} event checks for ${pushes} pushes in ${seconds} s`);
});

test('5,000 pushes to guessed paths: a line or two in the log, the count said on stop', async ({ fx, port }) => {
  const refusedLines = () => fx.logs.filter((l) => l.includes('refused: no such push path'));
  const guess = () => rawExchange(port, `GET /nvr2mqtt/${'0'.repeat(32)} HTTP/1.1\r\nhost: x\r\n\r\n`);
  await flood(5_000, 50, guess);
  assert.ok(refusedLines().length <= 2, `${refusedLines().length} lines for 5,000 refusals`);
  const before = refusedLines().length;
  await fx.bridge.stop();
  const said = refusedLines().slice(before).join('\n');
  assert.match(said, new RegExp(`\\((${(5_000 - before).toLocaleString('en-US')}) times in the last 60 s\\)`), said);
  await fx.restartBridge(); // for the fixture's stop()
});

test('listen: an address as given, an interface by name, else push.address when it is this machine', () => {
  const ifs = {
    lo: [{ address: '127.0.0.1', family: 'IPv4' }],
    eth0: [
      { address: 'fe80::1', family: 'IPv6' },
      { address: '192.168.1.5', family: 'IPv4' },
    ],
    wg0: [{ address: 'fe80::2', family: 'IPv6' }],
  } as unknown as Parameters<typeof listenAddress>[2];
  assert.equal(listenAddress('10.0.0.7', '192.168.1.5', ifs).host, '10.0.0.7');
  assert.equal(listenAddress('eth0', '10.9.9.9', ifs).host, '192.168.1.5', 'the interface: its IPv4 address');
  assert.equal(listenAddress('wg0', '10.9.9.9', ifs).host, 'fe80::2%wg0', 'a link-local address with its interface');
  assert.equal(listenAddress(undefined, '192.168.1.5', ifs).host, '192.168.1.5', 'only where the devices call');
  assert.equal(listenAddress(undefined, '203.0.113.9', ifs).host, '0.0.0.0', 'behind a port mapping: every address');
  assert.equal(listenAddress(undefined, 'bridge.lan', ifs).host, '0.0.0.0');
  assert.throws(
    () => listenAddress('eth9', '192.168.1.5', ifs),
    /push\.listen: "eth9" is neither an IP address nor an interface of this machine \(interfaces: lo, eth0, wg0\)/,
  );
});

test.run();
