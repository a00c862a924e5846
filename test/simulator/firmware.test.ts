import { pbkdf2Sync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimulator, type Simulator } from '../../simulator';
import { PASSWORD, RawClient, until } from './raw-client';

const test = suite('simulator: firmware (local upload, online check and upgrade, reboot)');

let sim: Simulator;
test.before.each(async () => {
  sim = await startSimulator({ password: PASSWORD, upgradeStepMs: 20, rebootMs: 300 });
});
test.after.each(() => sim.stop());

/** An ASCII firmware image of the simulator (`SIMFW:<version>` then padding). */
const image = (version: string, size = 4096) => `SIMFW:${version}\n`.padEnd(size, 'A');
const head = (file: string) => [...Buffer.from(file.slice(0, 3072), 'latin1')];
const AUTH = { seq: 1, cipher: 'c2VjcmV0' };

async function client(): Promise<RawClient> {
  const c = new RawClient(sim.url);
  assert.is((await c.login()).status, 200);
  return c;
}

async function token(c: RawClient, file: string) {
  const res = await c.post('/API/Maintenance/SystemUpgrade/Token', {
    file_name: 'fw.sw',
    file_size: file.length,
    upgrade_head: head(file),
    base_secondary_authentication: AUTH,
  });
  assert.is(res.status, 200, res.text);
  assert.is(res.headers['x-upgrade-token'], res.json.data.upgrade_token, 'the token in the header too (newer pages)');
  assert.is(res.json.data.resume_timeout, 180);
  return res.json.data.upgrade_token as string;
}

const upload = (c: RawClient, file: string, t?: string) =>
  c.post('/API/Maintenance/SystemUpgrade/Upgrade', undefined, {
    body: file,
    headers: { 'Content-Type': 'application/octet-stream', ...(t ? { 'X-Upgrade-Token': t } : {}) },
  });

test('local upgrade: token, the file with X-Upgrade-Token, {} and then a reboot that drops sessions', async () => {
  const c = await client();
  const file = image('9.0.1');
  const t = await token(c, file);
  const res = await upload(c, file, t);
  assert.is(res.status, 200, res.text);
  assert.equal(res.json, { result: 'success', data: {} });
  await until(() => sim.firmware.rebooting, 'reboot');
  assert.is(sim.firmware.installed, '9.0.1');
  const during = await c.post('/API/SystemInfo/Base/Get', {});
  assert.is(during.json.error_code, 'device_reboot');
  await until(() => !sim.firmware.rebooting, 'back', 2000);
  const after = await c.post('/API/SystemInfo/Base/Get', {});
  assert.is(after.status, 400, 'the old session is gone');
  const again = await client();
  assert.is((await again.post('/API/SystemInfo/Base/Get', {})).json.data.software_version, '9.0.1');
});

test('local upgrade: without the header the session token is used (older pages); a token is used once', async () => {
  const c = await client();
  const file = image('9.0.2');
  const t = await token(c, file);
  const res = await upload(c, file);
  assert.is(res.status, 200, res.text);
  const reused = await upload(c, file, t);
  assert.is(reused.json.error_code, 'token_invalid');
});

test('local upgrade refusals: bad token, wrong size, head differs, not an image, same version', async () => {
  const c = await client();
  const file = image('9.1.0');
  assert.is((await upload(c, file, 'f'.repeat(32))).json.error_code, 'token_invalid');
  let t = await token(c, file);
  assert.is((await upload(c, file + 'B', t)).json.error_code, 'file_error');
  t = await token(c, file);
  assert.is((await upload(c, image('9.1.1'), t)).json.error_code, 'file_error');
  const junk = 'X'.repeat(4096);
  t = await token(c, junk);
  assert.match((await upload(c, junk, t)).json.reason, /Not a firmware image/);
  const same = image(sim.firmware.installed);
  t = await token(c, same);
  assert.is((await upload(c, same, t)).json.error_code, 'no_need_upgrade');
  assert.equal(sim.firmware.installs, []);
});

test('online: Check finds nothing, then a published version; Upgrade runs with Progress and reboots', async () => {
  const c = await client();
  const before = sim.firmware.installed;
  let check = await c.post('/API/Maintenance/FtpUpgrade/Check', {});
  assert.equal(check.json.data, { Upgrade_button: false, lang_strs: {}, has_new_firmware: false, cur_version: before, new_version: '' });
  assert.is((await c.post('/API/Maintenance/FtpUpgrade/Upgrade', {})).json.error_code, 'no_need_upgrade');
  sim.firmware.publish('9.2.0');
  check = await c.post('/API/Maintenance/FtpUpgrade/Check', {});
  assert.is(check.json.data.has_new_firmware, true);
  assert.is(check.json.data.new_version, '9.2.0');
  assert.is((await c.post('/API/Maintenance/FtpUpgrade/Upgrade', {})).status, 200);
  assert.is((await c.post('/API/Maintenance/FtpUpgrade/Upgrade', {})).json.error_code, 'updating');
  const seen = new Set<string>();
  for (let i = 0; i < 300; i++) {
    const p = await c.post('/API/Maintenance/FtpUpgrade/Progress', {});
    if (p.status !== 200) {
      assert.is(p.json?.error_code, 'device_reboot');
      break;
    }
    seen.add(p.json.data.upgrade_state);
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(seen.has('upgrade_download'), [...seen].join());
  assert.equal(sim.firmware.installs, ['9.2.0']);
});

test('secondary authentication: TransKey/Get hands out a salt; Token checks the PBKDF2 cipher of the password; a salt serves once', async () => {
  const c = await client();
  const keys = await c.post('/API/Maintenance/TransKey/Get', { type: ['base_salt', 'base_x_public'] });
  assert.is(keys.status, 200, keys.text);
  const salt = (keys.json.data.Key_lists as Array<Record<string, any>>).find((k) => k.type === 'base_salt')!;
  assert.match(salt.key, /^0[A-Za-z0-9+/]+=*$/);
  assert.ok(Number.isInteger(salt.iter) && Number.isInteger(salt.seq));
  const cipher = pbkdf2Sync(PASSWORD, salt.key, salt.iter, 32, 'sha256').toString('base64');
  const file = image('V7.7.7');
  const ask = (auth: unknown) =>
    c.post('/API/Maintenance/SystemUpgrade/Token', {
      file_name: 'fw.sw',
      file_size: file.length,
      upgrade_head: head(file),
      base_secondary_authentication: auth,
    });
  const wrongSalt = (await c.post('/API/Maintenance/TransKey/Get', { type: ['base_salt'] })).json.data.Key_lists[0];
  const wrong = await ask({ seq: wrongSalt.seq, cipher: cipher });
  assert.is(wrong.json.error_code, 'current_pwd_error', wrong.text);
  const right = await ask({ seq: salt.seq, cipher });
  assert.is(right.status, 200, right.text);
  const again = await ask({ seq: salt.seq, cipher });
  assert.is(again.json.error_code, 'current_pwd_error', 'a salt serves once');
  const bad = await c.post('/API/Maintenance/TransKey/Get', { type: 'base_salt' });
  assert.is(bad.json.error_code, 'param_error');
});

test('pages with members they do not take are refused', async () => {
  const c = await client();
  assert.is((await c.post('/API/Maintenance/FtpUpgrade/Check', { x: 1 })).json.error_code, 'param_error');
});

test.run();
