import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NvrClient } from '../../core/client';
import { firmwareVersions } from '../../core/firmware';
import { startSimulator, type Simulator } from '../../simulator';
import { rejection, until } from './harness';

/** core's firmware against the simulator: local upgrade end to end, its refusals, online check and upgrade. */
const test = suite('client: firmware');
const PASSWORD = 'Fw-pass-1';
const AUTH = { seq: 1, cipher: 'c2VjcmV0' };
let sim: Simulator;
let c: NvrClient;
let dir = '';

test.before.each(async () => {
  sim = await startSimulator({ password: PASSWORD, upgradeStepMs: 20, rebootMs: 300 });
  c = new NvrClient({ url: sim.url, username: 'admin', password: PASSWORD, heartbeatMs: 0, timeoutMs: 2000 });
  dir = await mkdtemp(join(tmpdir(), 'nvr2mqtt-fw-'));
});
test.after.each(async () => {
  await c.close();
  await sim.stop();
  await rm(dir, { recursive: true, force: true });
});

const image = (version: string, size = 64 * 1024) => {
  const b = Buffer.alloc(size, 0xa5);
  b.write(`SIMFW:${version}\n`, 0, 'latin1');
  return b;
};
const sent = (path: string) => sim.log.filter((e) => e.path === path).length;
const TOKEN = '/API/Maintenance/SystemUpgrade/Token';
const UPLOAD = '/API/Maintenance/SystemUpgrade/Upgrade';
const TRANS_KEY = '/API/Maintenance/TransKey/Get';

test('local upgrade from a path: steps reported in order, token then upload, the device installs and reboots', async () => {
  const path = join(dir, 'fw_9.3.0.sw');
  await writeFile(path, image('9.3.0', 3 << 20));
  const steps: string[] = [];
  const t0 = Date.now();
  const done = await c.upgradeFirmware({ file: path, auth: AUTH, onStep: (s) => steps.push(s) });
  const ms = Date.now() - t0;
  assert.equal(done, { file_name: 'fw_9.3.0.sw', file_size: 3 << 20 });
  assert.equal(steps, ['checked', 'token', 'uploading', 'done']);
  assert.equal([sent(TOKEN), sent(UPLOAD)], [1, 1]);
  assert.equal(sim.log.find((e) => e.path === UPLOAD)?.data, { bytes: 3 << 20 });
  await until(() => sim.firmware.installs.length === 1, 'install');
  assert.is(sim.firmware.installed, '9.3.0');
  console.log(`    local upgrade of 3 MiB from a path over loopback: ${ms} ms`);
});

test('local upgrade from a Buffer', async () => {
  await c.upgradeFirmware({ file: image('9.3.1'), file_name: 'fw.sw', auth: AUTH });
  await until(() => sim.firmware.installs.length === 1, 'install');
});

test('without auth: the secondary authentication is built from the configured password (a fresh salt, checked by the device)', async () => {
  const done = await c.upgradeFirmware({ file: image('9.3.2'), file_name: 'fw.sw' });
  assert.equal(done, { file_name: 'fw.sw', file_size: 64 * 1024 });
  const order = sim.log.map((e) => e.path).filter((p) => p === TRANS_KEY || p === TOKEN || p === UPLOAD);
  assert.equal(order, [TRANS_KEY, TOKEN, UPLOAD]);
  await until(() => sim.firmware.installs.length === 1, 'install');
  // The token alone too: same rule, one place (core/secondary-auth.ts).
  await until(() => !sim.firmware.busy, 'device back');
  sim.clearLog();
  const token = await c.upgradeToken({ file: image('9.3.3'), file_name: 'fw.sw' });
  assert.type(token.upgrade_token, 'string');
  const answered = sim.log.filter((e) => e.status === 200).map((e) => e.path);
  assert.equal(
    answered.filter((p) => p === TRANS_KEY || p === TOKEN),
    [TRANS_KEY, TOKEN],
  );
});

test('bad inputs: nothing is sent (a malformed auth, too big, too small, missing file)', async () => {
  sim.clearLog();
  const badAuth = await rejection(c.upgradeFirmware({ file: image('9.4.0'), auth: { seq: 'one' } as never }));
  assert.is(badAuth.error_code, 'bad_auth');
  const big = await rejection(c.upgradeFirmware({ file: Buffer.alloc((100 << 20) + 1), auth: AUTH }));
  assert.match(big.reason, /at most 104857600 bytes/);
  const small = await rejection(c.upgradeFirmware({ file: Buffer.alloc(100), auth: AUTH }));
  assert.match(small.reason, /at least 3072 bytes/);
  const missing = await rejection(c.upgradeFirmware({ file: join(dir, 'nope.sw'), auth: AUTH }));
  assert.match(missing.reason, /ENOENT/);
  assert.equal(sim.log, [], 'not even a login');
});

test("the device's answer is the signal: a wrong file, a busy device", async () => {
  const wrong = await rejection(c.upgradeFirmware({ file: Buffer.alloc(8192, 0x41), auth: AUTH }));
  assert.is(wrong.error_code, 'file_error');
  sim.firmware.publish('9.5.0');
  await c.checkFirmware();
  await c.invoke((await import('../../core')).firmwareOnlineUpgrade, {});
  const busy = await rejection(c.upgradeFirmware({ file: image('9.5.1'), auth: AUTH }));
  assert.is(busy.error_code, 'updating');
  assert.is(sent(UPLOAD), 1, 'the wrong file only: no upload without a token');
});

test('online: check finds nothing, then the published version; upgrade with progress to the end', async () => {
  const installed = sim.firmware.installed;
  assert.equal(await c.checkFirmware(), {
    installed: `V${sim.profile.firmware}-20221014`,
    latest: `V${sim.profile.firmware}-20221014`,
    available: false,
  });
  assert.is(installed, `V${sim.profile.firmware}-20221014`);
  sim.firmware.publish('V9.9.0-20260101');
  const v = await c.checkFirmware();
  assert.equal(v, { installed, latest: 'V9.9.0-20260101', available: true });
  const seen: number[] = [];
  const t0 = Date.now();
  const end = await c.onlineUpgrade({ pollMs: 15, onProgress: (p) => seen.push(p.percent) });
  console.log(`    online upgrade (12 steps of 20 ms) followed in ${Date.now() - t0} ms, ${seen.length} progress reads`);
  assert.ok(['upgrade_upgrade_succeed', 'rebooting'].includes(end.state), end.state);
  assert.ok(
    seen.some((p) => p > 0 && p < 100),
    seen.join(),
  );
  await until(() => sim.firmware.installed === 'V9.9.0-20260101', 'installed');
});

test("the vendor's Check sample (has_new_firmware true, empty versions): an update is available, its version unknown", () => {
  const sample = { Upgrade_button: true, lang_strs: {}, has_new_firmware: true, cur_version: '', new_version: '' };
  assert.equal(firmwareVersions('V8.2.3-20221014', sample), { installed: 'V8.2.3-20221014', latest: 'unknown', available: true });
  assert.equal(firmwareVersions('V8.2.3-20221014', { ...sample, has_new_firmware: false }), {
    installed: 'V8.2.3-20221014',
    latest: 'V8.2.3-20221014',
    available: false,
  });
});

test.run();
