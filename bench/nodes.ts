/**
 * Node-RED figures, measured in one run against one simulator:
 * - Get messages per second through `nvr-get` in a real Node-RED 4 runtime vs the bare client
 *   (`NvrClient.get`) with the same concurrency, and their ratio (goal >= 0.9). Two runtime variants:
 *   `loop` keeps N messages circulating inside the runtime (function -> nvr-get -> function -> back),
 *   the fair comparison with the bare client's N concurrent callers; `http` drives
 *   `http in -> nvr-get -> http response` from outside, which adds an HTTP hop per message.
 * - Live commands per second through `nvr-control` (floodlight of one channel per caller, toggled each time so
 *   every command is a real Set) vs the bare client's `setLive` with the same channels, and their ratio (goal
 *   >= 0.9); the `loop` form as above.
 * - Memory per configured device: RSS of a runtime with 20 `nvr-device` config nodes (each used by an
 *   `nvr-get` that has run once, so every session is open) minus one with none, divided by 20.
 * The simulator runs in its own process so that the client side (bench process or runtime) does not
 * share an event loop with it in either variant.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { NvrClient } from '../core';
import { repoRoot, startNodeRed, type NodeRedRuntime } from '../test/helpers/nodered-runtime';

const PAGE = 'AlarmConfig/Deterrence';
const REQUEST = { page_type: 'ChannelConfig' };
const CONCURRENCY = 4;
const DEVICES = 20;
const ROUNDS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SimProcess {
  url: string;
  stop(): Promise<void>;
}

/** The simulator in a child process (password through the environment, never on the command line). */
async function startSimulatorProcess(password: string): Promise<SimProcess> {
  const code = `
    const { startSimulator } = require(${JSON.stringify(join(repoRoot, 'dist', 'simulator'))});
    startSimulator({ password: process.env.SIM_PASSWORD, channels: 16, quiet: true }).then((s) => {
      process.stdout.write(JSON.stringify({ url: s.url }) + '\\n');
      process.on('SIGTERM', () => s.stop().then(() => process.exit(0)));
    });`;
  const child: ChildProcess = spawn(process.execPath, ['-e', code], {
    env: { ...process.env, SIM_PASSWORD: password },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((res, rej) => {
    let buf = '';
    child.stdout!.on('data', (b: Buffer) => {
      buf += b.toString();
      const line = buf.split('\n').find((l) => l.startsWith('{'));
      if (line) res(JSON.parse(line).url);
    });
    child.once('exit', (c) => rej(new Error(`simulator process exited with ${c}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.once('exit', () => res());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

/** `concurrency` callers, each awaiting `op` back to back until the deadline; completions per second. */
async function closedLoop(concurrency: number, ms: number, op: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  const until = t0 + ms;
  let count = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await op();
        count++;
      }
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}

// (A config node whose name equals its own id is never started by Node-RED: it counts as its own dependency.)
const device = (id: string, url: string, password: string) => ({
  id,
  type: 'nvr-device',
  name: `simulator ${id}`,
  url,
  heartbeat: '25',
  credentials: { username: 'admin', password },
});

/** Flow for both throughput variants, sharing one nvr-device. */
function throughputFlow(simUrl: string, password: string): object[] {
  return [
    { id: 'tab', type: 'tab', label: 'bench' },
    device('dev', simUrl, password),
    // http variant
    { id: 'h_in', z: 'tab', type: 'http in', url: '/get', method: 'post', wires: [['h_get']] },
    { id: 'h_get', z: 'tab', type: 'nvr-get', device: 'dev', page: PAGE, channel: '', data: '', wires: [['h_out']] },
    { id: 'h_out', z: 'tab', type: 'http response', wires: [] },
    // loop variant: start fans out N messages; each answer goes straight back into nvr-get until the deadline
    { id: 'l_start', z: 'tab', type: 'http in', url: '/loop/start', method: 'post', wires: [['l_fan']] },
    {
      id: 'l_fan',
      z: 'tab',
      type: 'function',
      outputs: 2,
      wires: [['l_get'], ['l_ack']],
      func: `
      const { concurrency, ms, request } = msg.payload;
      flow.set('count', 0); flow.set('finished', 0); flow.set('t0', Date.now()); flow.set('t1', 0);
      const until = Date.now() + ms;
      const out = [];
      for (let i = 0; i < concurrency; i++) out.push({ payload: request, request, until });
      return [out, { req: msg.req, res: msg.res, payload: { started: true } }];`,
    },
    { id: 'l_ack', z: 'tab', type: 'http response', wires: [] },
    { id: 'l_get', z: 'tab', type: 'nvr-get', device: 'dev', page: PAGE, channel: '', data: '', wires: [['l_again']] },
    {
      id: 'l_again',
      z: 'tab',
      type: 'function',
      outputs: 1,
      wires: [['l_get']],
      func: `
      flow.set('count', flow.get('count') + 1);
      if (Date.now() < msg.until) { msg.payload = msg.request; return msg; }
      flow.set('finished', flow.get('finished') + 1); flow.set('t1', Date.now());
      return null;`,
    },
    { id: 'l_catch', z: 'tab', type: 'catch', scope: ['l_get'], wires: [['l_err']] },
    {
      id: 'l_err',
      z: 'tab',
      type: 'function',
      outputs: 1,
      wires: [[]],
      func: `flow.set('errors', (flow.get('errors') || 0) + 1); flow.set('lastError', msg.error && msg.error.message); return null;`,
    },
    { id: 'l_read', z: 'tab', type: 'http in', url: '/loop/count', method: 'get', wires: [['l_count']] },
    {
      id: 'l_count',
      z: 'tab',
      type: 'function',
      outputs: 1,
      wires: [['l_out']],
      func: `
      msg.payload = { count: flow.get('count'), finished: flow.get('finished'), t0: flow.get('t0'), t1: flow.get('t1'), errors: flow.get('errors') || 0, lastError: flow.get('lastError') };
      return msg;`,
    },
    { id: 'l_out', z: 'tab', type: 'http response', wires: [] },
    // nvr-control loop: one message per channel, each answer (the live state) switches the floodlight the other way
    { id: 'c_start', z: 'tab', type: 'http in', url: '/control/start', method: 'post', wires: [['c_fan']] },
    {
      id: 'c_fan',
      z: 'tab',
      type: 'function',
      outputs: 2,
      wires: [['c_ctl'], ['c_ack']],
      func: `
      const { channels, ms } = msg.payload;
      flow.set('c_count', 0); flow.set('c_finished', 0); flow.set('c_t0', Date.now()); flow.set('c_t1', 0);
      const until = Date.now() + ms;
      return [channels.map((channel) => ({ channel, payload: true, until })), { req: msg.req, res: msg.res, payload: { started: true } }];`,
    },
    { id: 'c_ack', z: 'tab', type: 'http response', wires: [] },
    {
      id: 'c_ctl',
      z: 'tab',
      type: 'nvr-control',
      device: 'dev',
      mode: 'floodlight',
      channel: '',
      output: '',
      brightness: '',
      volume: '',
      duration: '',
      wires: [['c_again']],
    },
    {
      id: 'c_again',
      z: 'tab',
      type: 'function',
      outputs: 1,
      wires: [['c_ctl']],
      func: `
      flow.set('c_count', flow.get('c_count') + 1);
      if (Date.now() < msg.until) { msg.payload = !msg.payload.floodlight; return msg; }
      flow.set('c_finished', flow.get('c_finished') + 1); flow.set('c_t1', Date.now());
      return null;`,
    },
    { id: 'c_catch', z: 'tab', type: 'catch', scope: ['c_ctl'], wires: [['c_err']] },
    {
      id: 'c_err',
      z: 'tab',
      type: 'function',
      outputs: 1,
      wires: [[]],
      func: `flow.set('c_errors', (flow.get('c_errors') || 0) + 1); flow.set('c_lastError', msg.error && msg.error.message); return null;`,
    },
    { id: 'c_read', z: 'tab', type: 'http in', url: '/control/count', method: 'get', wires: [['c_count']] },
    {
      id: 'c_count',
      z: 'tab',
      type: 'function',
      outputs: 1,
      wires: [['c_out']],
      func: `
      msg.payload = { count: flow.get('c_count'), finished: flow.get('c_finished'), t0: flow.get('c_t0'), t1: flow.get('c_t1'), errors: flow.get('c_errors') || 0, lastError: flow.get('c_lastError') };
      return msg;`,
    },
    { id: 'c_out', z: 'tab', type: 'http response', wires: [] },
  ];
}

async function httpRate(nr: NodeRedRuntime, ms: number): Promise<number> {
  const body = JSON.stringify(REQUEST);
  return closedLoop(CONCURRENCY, ms, async () => {
    const r = await fetch(nr.url + '/get', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    if (r.status !== 200) throw new Error(`http variant: HTTP ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  });
}

/** Starts a loop inside the runtime (`/<route>/start`), waits for all its messages to finish; completions per second. */
async function runLoop(nr: NodeRedRuntime, route: 'loop' | 'control', ms: number, body: object, callers: number): Promise<number> {
  const r = await fetch(`${nr.url}/${route}/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, ms }),
  });
  if (!r.ok) throw new Error(`${route} start: HTTP ${r.status}`);
  await r.arrayBuffer();
  await sleep(ms);
  for (let i = 0; i < 200; i++) {
    const s = (await (await fetch(`${nr.url}/${route}/count`)).json()) as {
      count: number;
      finished: number;
      t0: number;
      t1: number;
      errors: number;
      lastError?: string;
    };
    if (s.errors) throw new Error(`${route} variant: ${s.errors} errors reached the catch node, last: ${s.lastError}`);
    if (s.finished === callers) return s.count / ((s.t1 - s.t0) / 1000);
    await sleep(50);
  }
  throw new Error(`${route} variant did not finish`);
}

const loopRate = (nr: NodeRedRuntime, ms: number) => runLoop(nr, 'loop', ms, { concurrency: CONCURRENCY, request: REQUEST }, CONCURRENCY);
const controlRate = (nr: NodeRedRuntime, ms: number, channels: string[]) => runLoop(nr, 'control', ms, { channels }, channels.length);

/** One caller per channel, each switching its own channel's floodlight the other way, back to back. */
async function bareControl(client: NvrClient, channels: string[], ms: number): Promise<number> {
  const t0 = performance.now();
  const until = t0 + ms;
  let count = 0;
  await Promise.all(
    channels.map(async (channel) => {
      let on = true;
      while (performance.now() < until) {
        on = !(await client.setLive(channel, { floodlight: on })).floodlight;
        count++;
      }
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}

/** Median of a few RSS samples after the runtime settled. */
async function settledRss(nr: NodeRedRuntime): Promise<number> {
  await sleep(2000);
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(nr.rssBytes());
    await sleep(200);
  }
  return samples.sort((a, b) => a - b)[2];
}

function memoryFlow(simUrl: string, password: string, devices: number): object[] {
  const flow: object[] = [
    { id: 'tab', type: 'tab', label: 'memory' },
    { id: 'm_read', z: 'tab', type: 'http in', url: '/mem/count', method: 'get', wires: [['m_count']] },
    {
      id: 'm_count',
      z: 'tab',
      type: 'function',
      outputs: 1,
      wires: [['m_out']],
      func: `msg.payload = { done: flow.get('done') || 0 }; return msg;`,
    },
    { id: 'm_out', z: 'tab', type: 'http response', wires: [] },
    {
      id: 'm_done',
      z: 'tab',
      type: 'function',
      outputs: 1,
      wires: [[]],
      func: `flow.set('done', (flow.get('done') || 0) + 1); return null;`,
    },
  ];
  for (let i = 0; i < devices; i++) {
    flow.push(
      device(`dev${i}`, simUrl, password),
      {
        id: `inj${i}`,
        z: 'tab',
        type: 'inject',
        once: true,
        onceDelay: 0.1,
        repeat: '',
        payload: JSON.stringify(REQUEST),
        payloadType: 'json',
        wires: [[`get${i}`]],
      },
      { id: `get${i}`, z: 'tab', type: 'nvr-get', device: `dev${i}`, page: PAGE, channel: '', data: '', wires: [['m_done']] },
    );
  }
  return flow;
}

async function rssWithDevices(simUrl: string, password: string, devices: number): Promise<number> {
  const nr = await startNodeRed({ nodeRedDir: join(repoRoot, 'node_modules', 'node-red') });
  try {
    await nr.deploy(memoryFlow(simUrl, password, devices));
    for (let i = 0; ; i++) {
      const { done } = (await (await fetch(nr.url + '/mem/count')).json()) as { done: number };
      if (done === devices) break;
      if (i > 300) throw new Error(`only ${done} of ${devices} nvr-get nodes answered:\n${nr.logs().slice(-3000)}`);
      await sleep(100);
    }
    return await settledRss(nr);
  } finally {
    await nr.stop();
  }
}

export async function benchNodes(): Promise<Record<string, number>> {
  // Seconds per measurement (each variant is measured ROUNDS times).
  const seconds = Number(process.env.BENCH_NODES_SECONDS || Math.min(3, Number(process.env.BENCH_SECONDS || 3)));
  const ms = Math.max(1, seconds) * 1000;
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulatorProcess(password);
  let client: NvrClient | undefined;
  let nr: NodeRedRuntime | undefined;
  try {
    client = new NvrClient({ url: sim.url, username: 'admin', password, heartbeatMs: 0 });
    const bare = () => client!.get(PAGE, REQUEST);
    nr = await startNodeRed({ nodeRedDir: join(repoRoot, 'node_modules', 'node-red') });
    await nr.deploy(throughputFlow(sim.url, password));

    // One online floodlight channel per caller (the simulator's layout decides which).
    const channels = (await client.channelSlots())
      .filter((c) => c.online && c.hardware.floodlight)
      .map((c) => c.id)
      .slice(0, CONCURRENCY);

    // Warm-up (JIT, sessions, Range caches, keep-alive connections) for each variant.
    await closedLoop(CONCURRENCY, 1000, bare);
    await loopRate(nr, 1000);
    await httpRate(nr, 1000);
    await bareControl(client, channels, 1000);
    await controlRate(nr, 1000, channels);

    // Rounds alternate the variants so that drift (simulator JIT, GC, other load) hits all of them.
    const rates = {
      bare: [] as number[],
      loop: [] as number[],
      http: [] as number[],
      bareControl: [] as number[],
      control: [] as number[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      rates.bare.push(await closedLoop(CONCURRENCY, ms, bare));
      rates.loop.push(await loopRate(nr, ms));
      rates.http.push(await httpRate(nr, ms));
      rates.bareControl.push(await bareControl(client, channels, ms));
      rates.control.push(await controlRate(nr, ms, channels));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const bareRate = median(rates.bare);
    const loop = median(rates.loop);
    const http = median(rates.http);
    const bareControlRate = median(rates.bareControl);
    const control = median(rates.control);
    await nr.stop();
    nr = undefined;
    await client.close();
    client = undefined;

    const throughput = {
      concurrency: CONCURRENCY,
      seconds_per_variant: seconds * ROUNDS, // median of ROUNDS measurements each
      bare_client_get_per_s: bareRate,
      nodered_loop_get_per_s: loop,
      nodered_http_get_per_s: http,
      // The loop variant is the fair one: same N concurrent Gets, no extra HTTP hop.
      ratio_loop_vs_bare: loop / bareRate,
      ratio_http_vs_bare: http / bareRate,
      control_channels: channels.length,
      bare_client_set_live_per_s: bareControlRate,
      nodered_loop_control_per_s: control,
      ratio_control_vs_bare: control / bareControlRate,
    };
    // BENCH_NODES_MEMORY=0 measures throughput only (two more runtimes and 20 sessions otherwise).
    if (process.env.BENCH_NODES_MEMORY === '0') return throughput;
    const rss0 = await rssWithDevices(sim.url, password, 0);
    const rss20 = await rssWithDevices(sim.url, password, DEVICES);
    const MB = 1024 * 1024;
    return {
      ...throughput,
      rss_0_devices_mb: rss0 / MB,
      rss_20_devices_mb: rss20 / MB,
      mb_per_device: (rss20 - rss0) / DEVICES / MB,
    };
  } finally {
    await nr?.stop();
    await client?.close();
    await sim.stop();
  }
}
