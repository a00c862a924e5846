import { pbkdf2Sync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, startSimulator } from '../../simulator';
import { PASSWORD, RawClient, until } from './raw-client';

/**
 * The simulator's maintenance pages, with a raw client (nothing from core): TransKey salts, DeviceReboot in both of
 * the vendor's request shapes with a cipher built from a salt, a reboot that drops sessions and answers
 * `device_reboot` for a while, IPCReboot through the NVR; wrong or reused secrets refused.
 */

const test = suite<{ sim: Simulator }>('simulator: reboot');
test.after.each(async (ctx) => {
  await ctx.sim?.stop();
});

async function salt(c: RawClient): Promise<{ seq: number; cipher: string }> {
  const res = await c.post('/API/Maintenance/TransKey/Get', { type: ['base_salt'] });
  assert.is(res.status, 200, res.text);
  const k = res.json.data.Key_lists[0];
  assert.is(k.type, 'base_salt');
  assert.ok(k.key.startsWith('0'), 'a leading 0 before the base64 (vendor samples)');
  return { seq: k.seq, cipher: pbkdf2Sync(PASSWORD, k.key, k.iter, 32, 'sha256').toString('base64') };
}

for (const shape of ['flat {cipher, seq}', 'wrapped {base_secondary_authentication}'] as const) {
  test(`DeviceReboot, ${shape}: accepted, sessions dropped, device_reboot for rebootMs, then a login works`, async (ctx) => {
    const sim = (ctx.sim = await startSimulator({ password: PASSWORD, rebootMs: 300 }));
    const c = new RawClient(sim.url);
    await c.login();
    const auth = await salt(c);
    assert.is(auth.cipher.length, 44);
    const data = shape.startsWith('flat') ? auth : { base_secondary_authentication: auth };
    const res = await c.post('/API/Maintenance/DeviceReboot/Set', data);
    assert.equal([res.status, res.json.result], [200, 'success'], res.text);
    await until(() => sim.reboots === 1, 'the reboot');
    const during = await c.post('/API/Login/ChannelInfo/Get');
    assert.equal([during.status, during.json.error_code], [400, 'device_reboot']);
    const login = await c.post('/API/Web/Login', {}, { anonymous: true });
    assert.equal([login.status, login.json.error_code], [400, 'device_reboot'], 'login too');
    await new Promise((r) => setTimeout(r, 350));
    const after = await c.post('/API/Login/ChannelInfo/Get');
    assert.ok(['expired', 'no_login'].includes(after.json?.error_code), `the old session is gone: ${after.text}`);
    assert.is((await c.login()).status, 200);
  });
}

test('wrong cipher, reused salt and unknown fields are refused; nothing reboots', async (ctx) => {
  const sim = (ctx.sim = await startSimulator({ password: PASSWORD }));
  const c = new RawClient(sim.url);
  await c.login();
  const auth = await salt(c);
  let res = await c.post('/API/Maintenance/DeviceReboot/Set', { seq: auth.seq, cipher: Buffer.alloc(32).toString('base64') });
  assert.equal([res.status, res.json.error_code], [400, 'current_pwd_error']);
  res = await c.post('/API/Maintenance/DeviceReboot/Set', auth);
  assert.equal([res.status, res.json.error_code], [400, 'current_pwd_error'], 'a salt serves one operation');
  const fresh = await salt(c);
  res = await c.post('/API/Maintenance/DeviceReboot/Set', { ...fresh, now: true });
  assert.equal([res.status, res.json.error_code], [400, 'param_error']);
  await new Promise((r) => setTimeout(r, 50));
  assert.is(sim.reboots, 0);
});

test('IPCReboot: Range lists the IP cameras; a camera restarts (offline, then back); an offline one Failed', async (ctx) => {
  const sim = (ctx.sim = await startSimulator({ password: PASSWORD, rebootMs: 200 }));
  const c = new RawClient(sim.url);
  await c.login();
  const range = (await c.post('/API/IPCMaintaint/IPCReboot/Range')).json.data;
  assert.equal(Object.keys(range.channel_info.items), ['IP_CH1', 'IP_CH2']);
  assert.is(range.password.max_len, 16);
  const res = await c.post('/API/IPCMaintaint/IPCReboot/Set', {
    password: PASSWORD,
    channel_info: { IP_CH1: { reboot_switch: true }, IP_CH2: { reboot_switch: true } },
    base_secondary_authentication: await salt(c),
  });
  assert.equal(res.json.data.channel_info, { IP_CH1: { state: 'Success' }, IP_CH2: { state: 'Failed' } }, res.text);
  const status = async () => (await c.post('/API/IPCMaintaint/IPCReboot/Get')).json.data.channel_info.IP_CH1.status;
  assert.is(await status(), 'Offline');
  await new Promise((r) => setTimeout(r, 300));
  assert.is(await status(), 'Online');
  const wrong = await c.post('/API/IPCMaintaint/IPCReboot/Set', {
    password: 'not-it',
    channel_info: { IP_CH1: { reboot_switch: true } },
    base_secondary_authentication: await salt(c),
  });
  assert.equal([wrong.status, wrong.json.error_code], [400, 'current_pwd_error']);
});

test('an IPC has no IPCReboot page', async (ctx) => {
  const sim = (ctx.sim = await startSimulator({ password: PASSWORD, profile: 'ipc' }));
  assert.not.ok(sim.paths.some((p) => p.includes('IPCReboot')));
  assert.ok(sim.paths.includes('/API/Maintenance/DeviceReboot/Set'));
});

test.run();
