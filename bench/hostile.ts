/**
 * Issue 38's figures for what comes from outside (printed, never asserted):
 * - RSS while a device answers 100 MB (streamed, never allocated by the "device"): with the answer bound (the
 *   default: 4 MB for a JSON page, 32 MB for Event/Check) and without it (`maxAnswerBytes: Infinity`, what the
 *   transport did before), the peak above the start and what stays;
 * - a slowloris on the push listener: 1,100 half-sent requests (the issue's run, over a 1,024 descriptor limit), the
 *   sockets the listener holds as time passes (and the clients', backlog included), this process's file descriptors
 *   at the peak (the clients' too: they run here), the warning lines it cost, and
 *   whether a device request made meanwhile gets its answer.
 * BENCH_SLOWLORIS (default 1100) sets the number of slow clients, BENCH_HUGE_MB (default 100) the answer.
 */
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../bridge/base/log';
import { PushListener } from '../bridge/device/push-listener';
import { DeviceError } from '../core/errors';
import { Transport } from '../core/transport';

type Figures = Record<string, number | string>;
const MB = 2 ** 20;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A "device" that answers `size` bytes in 64 KB chunks as the socket takes them; counts what left. */
function hugeDevice(size: number): { server: Server; sent: () => number } {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const server = createServer((req, res) => {
    req.resume();
    res.on('error', () => undefined);
    res.writeHead(200, { 'content-type': 'application/json' }); // no Content-Length: the bytes must be counted
    let left = size;
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const n = Math.min(left, chunk.length);
        left -= n;
        sent += n;
        if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
      }
      if (left <= 0) res.end();
    };
    pump();
  });
  return { server, sent: () => sent };
}

async function rssDuring(path: string, size: number, maxAnswerBytes: number | undefined, label: string): Promise<Figures> {
  const dev = hugeDevice(size);
  const url = await listen(dev.server);
  const t = new Transport({ url, timeoutMs: 60_000, maxConnections: 1 });
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const t0 = performance.now();
  let outcome: string;
  try {
    const res = await t.post(path, {}, maxAnswerBytes === undefined ? {} : { maxAnswerBytes });
    outcome = `read whole (${Math.round(res.text.length / MB)} MB)`;
  } catch (err) {
    outcome = err instanceof DeviceError ? err.error_code : String(err);
  }
  const ms = performance.now() - t0;
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);
  await t.close();
  dev.server.closeAllConnections();
  await new Promise((r) => dev.server.close(r));
  await sleep(100);
  global.gc?.();
  return {
    [`${label}_outcome`]: outcome,
    [`${label}_rss_start_mb`]: start / MB,
    [`${label}_rss_peak_above_start_mb`]: (peak - start) / MB,
    [`${label}_rss_after_mb`]: process.memoryUsage().rss / MB,
    [`${label}_device_sent_mb`]: dev.sent() / MB,
    [`${label}_ms`]: ms,
  };
}

const fds = () => readdirSync('/proc/self/fd').length;

async function slowloris(n: number): Promise<Figures> {
  let warnings = 0;
  const listener = await PushListener.start(
    '127.0.0.1',
    '127.0.0.1',
    0,
    createLogger({ sink: (level) => void (level === 'warn' && warnings++) }),
    1,
  );
  const device = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"result":"success"}');
  });
  const t = new Transport({ url: await listen(device), timeoutMs: 5_000, maxConnections: 1 });
  const open = new Set<Socket>();
  const fdsBefore = fds();
  let fdsPeak = fdsBefore;
  const t0 = Date.now();
  for (let i = 0; i < n; i++) {
    const s = connect(listener.port, '127.0.0.1', () => s.write('GET /nvr2mqtt/ HTTP/1.1\r\nhost: x\r\n'));
    open.add(s);
    s.on('error', () => undefined);
    s.on('close', () => open.delete(s));
    s.resume();
    if (i % 100 === 99) await sleep(1); // let the accepts run
  }
  const figures: Figures = { slowloris_clients: n };
  await sleep(300);
  fdsPeak = Math.max(fdsPeak, fds());
  const d0 = performance.now();
  try {
    await t.post('/API/Login/Heartbeat', {});
    figures.slowloris_device_request = 'answered';
  } catch (err) {
    figures.slowloris_device_request = `failed: ${err instanceof DeviceError ? err.reason : String(err)}`;
  }
  figures.slowloris_device_request_ms = performance.now() - d0;
  for (const at of [1, 3, 5, 7, 9]) {
    await sleep(Math.max(0, t0 + at * 1000 - Date.now()));
    fdsPeak = Math.max(fdsPeak, fds());
    figures[`slowloris_client_sockets_open_after_${at}s`] = open.size;
    figures[`slowloris_listener_sockets_after_${at}s`] = await listener.sockets();
  }
  figures.slowloris_fds_before = fdsBefore;
  figures.slowloris_fds_peak = fdsPeak;
  figures.slowloris_warning_lines = warnings;
  for (const s of open) s.destroy();
  await t.close();
  await listener.close();
  device.closeAllConnections();
  await new Promise((r) => device.close(r));
  return figures;
}

export async function benchHostile(): Promise<Figures> {
  const size = Number(process.env.BENCH_HUGE_MB ?? 100) * MB;
  return {
    ...(await rssDuring('/API/SystemInfo/Base/Get', size, undefined, 'huge_answer_json_page')),
    ...(await rssDuring('/API/Event/Check', size, undefined, 'huge_answer_event_check')),
    ...(await rssDuring('/API/Event/Check', size, Infinity, 'huge_answer_unbounded')),
    ...(await slowloris(Number(process.env.BENCH_SLOWLORIS ?? 1100))),
  };
}

if (require.main === module) {
  void benchHostile().then((f) => {
    for (const [k, v] of Object.entries(f)) console.log(`${k.padEnd(44)} ${typeof v === 'number' ? +v.toFixed(1) : v}`);
  });
}
