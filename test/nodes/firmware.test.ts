/**
 * nvr-upgrade in mode `upgrade`: the whole local upgrade from a Buffer or a path (token, then the file with
 * X-Upgrade-Token), each step in the status and in msg.steps; refusals at the Catch node with nothing sent (a malformed msg.auth,
 * too big) or with the device's answer (a file that is no firmware image); without msg.auth the secondary authentication
 * is built from the device's password.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Simulator } from '../../simulator';
import {
  credentials,
  exchange,
  load,
  newPassword,
  paths,
  statusesOf,
  upgradeFlow,
  UPGRADE_AUTH,
  UPGRADE_TOKEN_PATH,
  useTempDir,
  waitFor,
  useSimulator,
  type SimulatorContext,
} from './harness';

interface Ctx extends SimulatorContext {
  dir?: string;
}
const test = suite<Ctx>('nodes: nvr-upgrade whole upgrade', { password: newPassword() });
const TOKEN = UPGRADE_TOKEN_PATH;
const UPLOAD = '/API/Maintenance/SystemUpgrade/Upgrade';
const TRANS_KEY = '/API/Maintenance/TransKey/Get';
const AUTH = UPGRADE_AUTH;

const flow = (sim: Simulator, props: Record<string, unknown> = {}) => upgradeFlow(sim, { mode: 'upgrade', ...props });
const image = (version: string, size = 16 * 1024) => {
  const b = Buffer.alloc(size, 0x5a);
  b.write(`SIMFW:${version}\n`, 0, 'latin1');
  return b;
};

useSimulator(test, { rebootMs: 200 });
useTempDir(test, 'nvr2mqtt-fw-nodes-');

test('a Buffer: token, upload, accepted; steps in msg.steps and the status', async ({ sim, password }) => {
  await load(flow(sim!), credentials(password));
  const r = await exchange('u1', { payload: image('9.7.0'), file_name: 'fw.sw', auth: AUTH });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.equal(r.out.payload, { file_name: 'fw.sw', file_size: 16 * 1024, accepted: true });
  assert.is(r.out.operation, 'Upgrade');
  assert.equal(
    r.out.steps.map((s: { step: string }) => s.step),
    ['checked', 'token', 'uploading', 'done'],
  );
  assert.equal(
    paths(sim!).filter((p) => p === TOKEN || p === UPLOAD),
    [TOKEN, UPLOAD],
  );
  const texts = statusesOf('u1').map((s) => s.text);
  assert.ok(texts.includes('uploading file') && texts.at(-1)!.startsWith('file accepted'), JSON.stringify(texts));
  await waitFor(() => sim!.firmware.installs.includes('9.7.0'), 'installed');
});

test('a path from the file property', async ({ sim, password, dir }) => {
  await waitFor(() => !sim!.firmware.busy, 'device back');
  const file = join(dir!, 'fw_9.8.0.sw');
  await writeFile(file, image('9.8.0'));
  await load(flow(sim!, { file }), credentials(password));
  const r = await exchange('u1', { payload: 1, auth: AUTH });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.payload.file_name, 'fw_9.8.0.sw');
  await waitFor(() => sim!.firmware.installs.includes('9.8.0'), 'installed');
});

test("without msg.auth: the secondary authentication is built from the device's password (a fresh salt, the simulator checks the cipher)", async ({
  sim,
  password,
}) => {
  await waitFor(() => !sim!.firmware.busy, 'device back');
  await load(flow(sim!), credentials(password));
  await waitFor(() => statusesOf('u1').some((s) => s.fill === 'green'), 'connected');
  sim!.clearLog();
  const r = await exchange('u1', { payload: image('9.9.0'), file_name: 'fw.sw' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.equal(r.out.payload, { file_name: 'fw.sw', file_size: 16 * 1024, accepted: true });
  // The salt first, then the token carrying that salt's seq (the simulator refuses a wrong cipher with current_pwd_error).
  const sent = paths(sim!).filter((p) => p === TRANS_KEY || p === TOKEN || p === UPLOAD);
  assert.equal(sent, [TRANS_KEY, TOKEN, UPLOAD]);
  const auth = (sim!.log.find((e) => e.path === TOKEN)!.data as any).base_secondary_authentication;
  assert.ok(Number.isInteger(auth.seq) && auth.seq >= 1, JSON.stringify(auth));
  assert.not.ok(JSON.stringify(sim!.log).includes(password), 'the password itself is never sent');
  await waitFor(() => sim!.firmware.installs.includes('9.9.0'), 'installed');
});

test('refused with nothing sent: a malformed msg.auth, too big', async ({ sim, password }) => {
  await waitFor(() => !sim!.firmware.busy, 'device back');
  await load(flow(sim!), credentials(password));
  await waitFor(() => statusesOf('u1').some((s) => s.fill === 'green'), 'connected');
  sim!.clearLog();
  const badAuth = await exchange('u1', { payload: image('9.9.1'), auth: { seq: 'one' } });
  assert.is(badAuth.caught?.error.code, 'bad_auth');
  const big = await exchange('u1', { payload: Buffer.alloc((100 << 20) + 1) });
  assert.is(big.caught?.error.code, 'invalid_firmware');
  assert.equal(paths(sim!), [], 'nothing sent');
});

test("a file that is no firmware image: the device's answer at the Catch node", async ({ sim, password }) => {
  await waitFor(() => !sim!.firmware.busy, 'device back');
  await load(flow(sim!), credentials(password));
  const r = await exchange('u1', { payload: Buffer.alloc(8192, 0x41) });
  assert.ok(r.caught, 'refused');
  assert.is(r.caught.error.code, 'file_error');
});

test.run();
