/**
 * Shared set-up of the contract tests: a simulator and a client talking to it, always closed together, plus
 * small readers of the simulator's request log. Not a test file itself (no `.test` in the name).
 */
import * as assert from 'uvu/assert';
import { NvrClient, type ClientOptions } from '../../core/client';
import { DeviceError } from '../../core/errors';
import { startSimulator, type LogEntry, type Simulator, type SimulatorOptions } from '../../simulator';

export const PASSWORD = 'Contract-pw-7731';
export const LOGIN = '/API/Web/Login';

/** The four device variants every page is checked against. */
export const VARIANTS = [
  { profile: 'nvr', firmware: '8.2.3' },
  { profile: 'nvr', firmware: '8.2.4' },
  { profile: 'ipc', firmware: '8.2.3' },
  { profile: 'ipc', firmware: '8.2.4' },
] as const;
export type Variant = (typeof VARIANTS)[number];

export interface Rig {
  sim: Simulator;
  client: NvrClient;
}

export async function openRig(sim: Partial<SimulatorOptions> = {}, client: Partial<ClientOptions> = {}): Promise<Rig> {
  const s = await startSimulator({ password: PASSWORD, ...sim });
  try {
    const c = new NvrClient({ url: s.url, username: 'admin', password: PASSWORD, heartbeatMs: 0, timeoutMs: 3_000, ...client });
    return { sim: s, client: c };
  } catch (err) {
    await s.stop();
    throw err;
  }
}

export async function closeRig(rig: Rig | undefined): Promise<void> {
  if (!rig) return;
  await rig.client.close();
  await rig.sim.stop();
}

/** Runs `fn` with a fresh simulator and client and closes both whatever happens. */
export async function withRig(
  sim: Partial<SimulatorOptions>,
  client: Partial<ClientOptions>,
  fn: (rig: Rig) => Promise<void>,
): Promise<void> {
  const rig = await openRig(sim, client);
  try {
    await fn(rig);
  } finally {
    await closeRig(rig);
  }
}

/** The DeviceError a promise rejects with (fails the test when it resolves or throws something else). */
export async function rejection(p: Promise<unknown>): Promise<DeviceError> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof DeviceError)) throw new Error(`expected a DeviceError, got ${String(err)}`, { cause: err });
    return err;
  }
  assert.unreachable('expected a rejection, but the call succeeded');
  throw new Error('unreachable');
}

export function entries(sim: Simulator, path: string): LogEntry[] {
  return sim.log.filter((e) => e.path === path);
}

export function paths(sim: Simulator): string[] {
  return sim.log.map((e) => e.path);
}

export type Obj = Record<string, unknown>;

export function obj(x: unknown, what: string): Obj {
  assert.ok(!!x && typeof x === 'object' && !Array.isArray(x), `${what} should be an object, got ${JSON.stringify(x)}`);
  return x as Obj;
}

/** What a per-variant contract case gets: the device variant, its simulator and a client logged in to it. */
export interface Ctx {
  v: Variant;
  sim: Simulator;
  client: NvrClient;
  nvr: boolean;
  legacy: boolean;
  channels: string[];
}

/** One check of one registry operation, run against every variant. */
export interface Case {
  op: import('../../core/operation').OperationDef;
  run(c: Ctx): Promise<void>;
}

/** Get shapes of channels a page does not cover (vendor samples): offline IP camera, empty slot, no such hardware. */
export const OFFLINE = { status: 'Offline', reason: 'Not support' };
export const NOT_CONFIGURED = { reason: 'Not configured' };
export const NOT_SUPPORT = { reason: 'Not support' };
/** The NVR profile's 8 slots (simulator/README.md): IP_CH2 offline, IP_CH3 empty, WIFI_CH1 the battery camera. */
export const ALL_NVR = ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'IP_CH3', 'WIFI_CH1'];

/** The last request the simulator logged for `path`, which must exist and have succeeded. */
export function lastOk(sim: Simulator, path: string): Obj {
  const list = entries(sim, path);
  assert.ok(list.length > 0, `no request to ${path} in the simulator log`);
  const e = list[list.length - 1];
  assert.is(e.status, 200, `${path} answered ${e.status} ${e.error_code ?? ''}`);
  return obj(e.data, `${path} request data`);
}

export { until } from '../helpers/until';
