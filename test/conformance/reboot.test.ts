import { pbkdf2Sync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientRig, rejection } from '../client/harness';

/** Restart with secondary authentication: core against vendor-shaped TransKey answers, exact request bodies. */

const test = suite('conformance: restart');
const PW = 'Reb00t-pw';
const { setup, closeAll } = clientRig(PW);
test.after.each(closeAll);

type Data = Record<string, any>;
/** TransKey answer as the vendor's sample writes it (`Key_lists`, keys with a leading 0); each call a new salt. */
function transKey() {
  let seq = 40;
  return (d: unknown) => {
    assert.equal(d, { type: ['base_salt'] });
    seq++;
    return { Key_lists: [{ type: 'base_salt', key: `0salt${seq}+/w==`, iter: 1000, seq }] };
  };
}
const cipher = (salt: string) => pbkdf2Sync(PW, salt, 1000, 32, 'sha256').toString('base64');

test("restart: the page's flat shape {cipher, seq} with a fresh salt; the client then drops its session", async () => {
  const { dev, c } = await setup({
    handlers: { '/API/Maintenance/TransKey/Get': transKey(), '/API/Maintenance/DeviceReboot/Set': () => ({}) },
  });
  await c.login();
  await c.restart();
  assert.equal(dev.bodies('/API/Maintenance/DeviceReboot/Set'), [{ cipher: cipher('0salt41+/w=='), seq: 41 }]);
  assert.is(cipher('0salt41+/w==').length, 44);
  assert.ok(c.loginHeldUntil! > Date.now(), 'logins wait while the device restarts');
});

test('restart: a device refusing the flat shape (param_error) gets the wrapped one, with a new salt', async () => {
  const { dev, c } = await setup({
    handlers: {
      '/API/Maintenance/TransKey/Get': transKey(),
      '/API/Maintenance/DeviceReboot/Set': (d) => ((d as Data).base_secondary_authentication ? {} : { fail: 'param_error' }),
    },
  });
  await c.restart();
  assert.equal(dev.bodies('/API/Maintenance/DeviceReboot/Set'), [
    { cipher: cipher('0salt41+/w=='), seq: 41 },
    { base_secondary_authentication: { seq: 42, cipher: cipher('0salt42+/w==') } },
  ]);
});

test('camera restart: only a channel IPCReboot lists; the admin password and the wrapped authentication; Failed is an error', async () => {
  const range = {
    channel_max: 16,
    password: { type: 'string', min_len: 0, max_len: 16 },
    channel_info: {
      type: 'object',
      items: {
        CH14: { type: 'object', items: { status: { type: 'string', items: ['Offline', 'Online'] }, reboot_switch: { type: 'bool' } } },
        CH16: { type: 'object', items: { status: { type: 'string', items: ['Offline', 'Online'] }, reboot_switch: { type: 'bool' } } },
      },
    },
  };
  const { dev, c } = await setup({
    handlers: {
      '/API/Maintenance/TransKey/Get': transKey(),
      '/API/IPCMaintaint/IPCReboot/Range': () => range,
      '/API/IPCMaintaint/IPCReboot/Set': (d) => {
        const ch = Object.keys((d as Data).channel_info)[0];
        return { channel_info: { [ch]: { state: ch === 'CH16' ? 'Failed' : 'Success' } } };
      },
    },
  });
  assert.is(await c.restartCamera('CH14'), 'Success');
  assert.equal(dev.bodies('/API/IPCMaintaint/IPCReboot/Set'), [
    {
      password: PW,
      channel_info: { CH14: { reboot_switch: true } },
      base_secondary_authentication: { seq: 41, cipher: cipher('0salt41+/w==') },
    },
  ]);
  assert.is((await rejection(c.restartCamera('CH16'))).error_code, 'failed');
  const err = await rejection(c.restartCamera('CH1'));
  assert.match(err.reason, /CH1 is not a camera this recorder can restart/);
  assert.is(dev.bodies('/API/IPCMaintaint/IPCReboot/Set').length, 2, 'nothing sent for CH1');
});

test("camera restart with the camera's own password: the page's password is the camera's, the authentication the recorder's", async () => {
  const range = {
    channel_max: 16,
    password: { type: 'string', min_len: 0, max_len: 16 },
    channel_info: { type: 'object', items: { CH14: { type: 'object', items: { reboot_switch: { type: 'bool' } } } } },
  };
  const { dev, c } = await setup(
    {
      handlers: {
        '/API/Maintenance/TransKey/Get': transKey(),
        '/API/IPCMaintaint/IPCReboot/Range': () => range,
        '/API/IPCMaintaint/IPCReboot/Set': () => ({ channel_info: { CH14: { state: 'Success' } } }),
      },
    },
    { cameraPasswords: { CH14: '1111qqqq' } },
  );
  assert.is(await c.restartCamera('CH14'), 'Success');
  assert.equal(dev.bodies('/API/IPCMaintaint/IPCReboot/Set'), [
    {
      password: '1111qqqq',
      channel_info: { CH14: { reboot_switch: true } },
      base_secondary_authentication: { seq: 41, cipher: cipher('0salt41+/w==') },
    },
  ]);
  assert.not.match(JSON.stringify(c), /1111qqqq/, 'the camera password is not shown');
});

test.run();
