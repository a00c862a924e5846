/**
 * Shared set-up of the node-red-node-test-helper suites: the real `node-red` runtime (in process),
 * the five node modules (seven node types), a simulator, and small waiting helpers. Every suite stops
 * what it starts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'uvu';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../simulator';
import nvrDevice from '../../nodes/nvr-device/nvr-device';
import nvrRequest from '../../nodes/nvr-request/nvr-request';
import nvrUpgrade from '../../nodes/nvr-upgrade/nvr-upgrade';
import nvrEvent from '../../nodes/nvr-event/nvr-event';
import nvrControl from '../../nodes/nvr-control/nvr-control';
import { until } from '../helpers/until';

export const helper = require('node-red-node-test-helper');
helper.init(require.resolve('node-red'));

export const NODES = [nvrDevice, nvrRequest, nvrUpgrade, nvrEvent, nvrControl];

export type Msg = Record<string, any>;
export type Status = { fill?: string; shape?: string; text?: string };
export type FlowNode = Record<string, unknown> & { id: string; type: string };

export const TAB = 'tab1';
export const DEV = 'dev1';

export function newPassword(): string {
  return randomBytes(12).toString('base64url');
}

export async function simulator(opts: Partial<SimulatorOptions> & { password: string }): Promise<Simulator> {
  return startSimulator({ quiet: true, ...opts });
}

export interface SimulatorContext {
  sim?: Simulator;
  password: string;
}

/**
 * The hooks every helper suite needs: one simulator (with the suite's password) and the helper's
 * server for the whole suite, and after each test the flows unloaded and the request log cleared.
 */
export function useSimulator<C extends SimulatorContext>(test: Test<C>, opts: Partial<SimulatorOptions> = {}): void {
  test.before(async (ctx) => {
    ctx.sim = await simulator({ password: ctx.password, ...opts });
    await helper.startServer();
  });
  test.after(async (ctx) => {
    await helper.stopServer();
    await ctx.sim?.stop();
  });
  test.after.each(async (ctx) => {
    await helper.unload();
    ctx.sim?.clearLog();
  });
}

/** A tab, an nvr-device pointing at `url`, and the given nodes (put on the tab). */
export function flowWith(url: string, nodes: FlowNode[], device: Record<string, unknown> = {}): FlowNode[] {
  return [
    { id: TAB, type: 'tab', label: 'test' },
    { id: DEV, type: 'nvr-device', name: 'sim', url, heartbeat: '25', tls_ca: '', tls_fingerprint: '', ...device },
    ...nodes.map((n) => ({ z: TAB, ...n })),
  ];
}

/** The tool-made authentication the nvr-upgrade suites send with a firmware (the node passes it on as it is). */
export const UPGRADE_AUTH = { seq: 1, cipher: 'from-the-device-tools' };
export const UPGRADE_TOKEN_PATH = '/API/Maintenance/SystemUpgrade/Token';

/** An nvr-upgrade `u1` (`props` over its defaults) wired to helper `out`, its errors caught into helper `caught`. */
export function upgradeFlow(sim: Simulator, props: Record<string, unknown> = {}): FlowNode[] {
  return flowWith(sim.url, [
    { id: 'u1', type: 'nvr-upgrade', name: '', device: DEV, file: '', wires: [['out']], ...props },
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: ['u1'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ]);
}

/** A temporary directory for the whole suite (`ctx.dir`), removed after it. */
export function useTempDir<C extends { dir?: string }>(test: Test<C>, prefix: string): void {
  test.before(async (ctx) => {
    ctx.dir = await mkdtemp(join(tmpdir(), prefix));
  });
  test.after(async (ctx) => {
    if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
  });
}

export function credentials(password: string, username = 'admin') {
  return { [DEV]: { username, password } };
}

export async function load(flow: FlowNode[], creds: Record<string, Record<string, string>> = {}): Promise<void> {
  await helper.load(NODES, flow, creds);
}

export function node(id: string): any {
  return helper.getNode(id);
}

/** Every status the node has shown so far (the helper spies on Node.prototype.status). */
export function statusesOf(id: string): Status[] {
  const n = node(id);
  const spy = helper._NodePrototype.status;
  return spy
    .getCalls()
    .filter((c: any) => c.thisValue === n)
    .map((c: any) => c.args[0]);
}

/** `until` that hands back what the probe found. */
export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  let found: T | undefined | false;
  await until(() => !!(found = probe()), what, timeoutMs);
  return found as T;
}

/**
 * Counts, from now on, the failed attempts of the event stream that the config node `device` shares among its
 * nvr-event nodes (a probe subscriber: it hears each failure after the nodes have handled it).
 */
export function eventStreamFailures(device = DEV): () => number {
  let failures = 0;
  node(device).events.subscribe('test-probe', {
    event: () => undefined,
    failed: () => failures++,
    recovered: () => undefined,
  });
  return () => failures;
}

/** The next message a helper node receives. */
export function nextMessage(id: string, timeoutMs = 5000): Promise<Msg> {
  const n = node(id);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      n.removeListener('input', onInput);
      reject(new Error(`no message on ${id} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onInput = (msg: Msg) => {
      clearTimeout(timer);
      resolve(msg);
    };
    n.once('input', onInput);
  });
}

/** Sends `msg` into node `into` and waits for the first message on `out` or on the catch helper `caught`. */
export async function exchange(
  into: string,
  msg: Msg,
  out = 'out',
  caught = 'caught',
  timeoutMs = 8000,
): Promise<{ out?: Msg; caught?: Msg }> {
  const outNode = node(out);
  const caughtNode = node(caught);
  return new Promise((resolve, reject) => {
    const finish = (r: { out?: Msg; caught?: Msg }) => {
      clearTimeout(timer);
      outNode?.removeListener('input', onOut);
      caughtNode?.removeListener('input', onCaught);
      resolve(r);
    };
    const onOut = (m: Msg) => finish({ out: m });
    const onCaught = (m: Msg) => finish({ caught: m });
    const timer = setTimeout(() => {
      outNode?.removeListener('input', onOut);
      caughtNode?.removeListener('input', onCaught);
      reject(new Error(`no answer from ${into} within ${timeoutMs} ms`));
    }, timeoutMs);
    outNode?.on('input', onOut);
    caughtNode?.on('input', onCaught);
    node(into).receive(msg);
  });
}

/** Timers alive in the process (to check that close leaves none behind). */
export function timerCount(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

export const paths = (sim: Simulator) => sim.log.map((e) => e.path);
