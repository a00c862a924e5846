/**
 * Restart buttons: the recorder (secondary authentication from a TransKey salt), and a camera behind the NVR
 * (IPCReboot). The session drops with the restart and the bridge comes back by itself with ONE login, no storm;
 * retained, repeated and impossible presses are refused and send nothing.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { assertNoSecrets, json, setup, until, waitEvent, type Fixture } from './fixture';

type Json = Record<string, any>;
const test = suite<{ fx: Fixture }>('bridge restart');
const REBOOT_MS = 5000;
/** The camera on IP_CH1 has an admin password of its own (IPCReboot checks it); the config gives it. */
const CAMERA_PW = 'Cam-0wn-pw';

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'restart',
    devices: [
      {
        id: 'nvr',
        sim: { rebootMs: REBOOT_MS, cameraPasswords: { IP_CH1: CAMERA_PW } },
        poll: 0.3,
        cameras: { ip_ch1: { password: CAMERA_PW } },
      },
    ],
  });
  await until(() => cmps(ctx.fx, 'nvr', 'ip_ch1')?.restart !== undefined, 'the camera restart button', 5000);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

const node = (fx: Fixture, ...parts: string[]) => [fx.base.toLowerCase(), ...parts].join('_');
function cmps(fx: Fixture, ...parts: string[]): Json | undefined {
  const topic = `${fx.prefix}/device/${node(fx, ...parts)}/config`;
  const m = fx.recorder.on((t) => t === topic).pop();
  return m?.payload ? (json(m).cmps as Json) : undefined;
}

test('buttons: the recorder, and each camera its NVR can restart; disabled by default', ({ fx }) => {
  const rec = cmps(fx, 'nvr')!.restart;
  assert.deepEqual(rec, {
    p: 'button',
    name: 'Restart',
    unique_id: `${node(fx, 'nvr')}_restart`,
    command_topic: `${fx.base}/nvr/restart`,
    payload_press: 'PRESS',
    device_class: 'restart',
    entity_category: 'config',
    enabled_by_default: false,
  });
  assert.equal(cmps(fx, 'nvr', 'ip_ch1')!.restart.command_topic, `${fx.base}/nvr/ip_ch1/restart`);
  assert.equal(cmps(fx, 'nvr', 'ch1')!.restart, undefined, 'an analog camera is not restarted by the NVR (IPCReboot lists it not)');
});

// A retained press is refused too, but only MQTT 5 shows the flag on live delivery (aedes, 3.1.1, cannot tell).
test('refused without a device request: a channel the NVR cannot restart, an unknown device', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const before = sim.log.length;
  const cases: Array<[string, boolean, RegExp]> = [
    [`${fx.base}/nvr/ch1/restart`, false, /cannot restart CH1/],
    [`${fx.base}/nope/restart`, false, /no such device/],
  ];
  for (const [topic, retain, reason] of cases) {
    const since = fx.recorder.count;
    await fx.recorder.publish(topic, 'PRESS', { retain });
    const e = await waitEvent(fx, 'command_refused', (d) => d.topic === topic, since);
    assert.match(String(e.reason), reason);
  }
  const sent = sim.log.slice(before).filter((e) => /TransKey|Reboot/.test(e.path));
  assert.deepEqual(sent, [], 'nothing reached the device');
  assert.equal(sim.reboots, 0);
});

test("a camera restarts through the NVR: the camera's own password (config cameras) and secondary authentication, offline and back", async ({
  fx,
}) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  const before = sim.log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/restart`, 'PRESS');
  await waitEvent(fx, 'device_restarting', (d) => d.channel === 'IP_CH1', since, 5000);
  const set = sim.log.slice(before).find((e) => e.path === '/API/IPCMaintaint/IPCReboot/Set')!;
  assert.equal(set.status, 200);
  const data = set.data as Json;
  assert.deepEqual(Object.keys(data).sort(), ['base_secondary_authentication', 'channel_info', 'password']);
  assert.deepEqual(data.channel_info, { IP_CH1: { reboot_switch: true } });
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1`, (j) => j.online === false, 5000, since);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1`, (j) => j.online === true, 8000, since);
  assertNoSecrets(fx, [CAMERA_PW]);
});

test('the recorder restarts: sessions drop, the bridge comes back with one login; a second press is refused', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  const before = sim.log.length;
  const t0 = Date.now();
  await fx.recorder.publish(`${fx.base}/nvr/restart`, 'PRESS');
  await waitEvent(fx, 'device_restarting', (d) => d.device === 'nvr' && d.channel === undefined, since, 5000);
  await until(() => sim.reboots === 1, 'the reboot', 3000);
  const reboot = sim.log.slice(before).find((e) => e.path === '/API/Maintenance/DeviceReboot/Set')!;
  assert.deepEqual(Object.keys(reboot.data as Json).sort(), ['cipher', 'seq'], "the page's own (flat) shape");
  // A second press while it restarts: refused, nothing sent.
  const again = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/restart`, 'PRESS');
  assert.match(
    String((await waitEvent(fx, 'command_refused', (d) => d.topic === `${fx.base}/nvr/restart`, again)).reason),
    /already restarting/,
  );
  // Back: a poll after the restart succeeds (its state is read again).
  const log = () => sim.log.slice(before);
  const loginAt = () => log().find((e) => e.path === '/API/Web/Login' && e.status === 200)?.time;
  await until(() => loginAt() !== undefined, 'a login after the restart', 15_000);
  await until(
    () => log().some((e) => e.path === '/API/Login/ChannelInfo/Get' && e.status === 200 && e.time >= loginAt()!),
    'a poll after the login',
    5000,
  );
  const back = Date.now() - t0;
  const logins = log().filter((e) => e.path === '/API/Web/Login' && e.status === 200).length;
  const loginRequests = log().filter((e) => e.path === '/API/Web/Login').length;
  const refusedDuringReboot = log().filter((e) => e.error_code === 'device_reboot').length;
  console.log(
    `  restart -> polled again: ${back} ms (device away ${REBOOT_MS} ms); logins ${logins}, login requests ${loginRequests}, requests answered device_reboot ${refusedDuringReboot}`,
  );
  assert.equal(logins, 1, 'one login after the restart');
  assert.ok(loginRequests <= 6, `no login storm: ${loginRequests} login requests (challenge + answer, plus refusals while it restarts)`);
  assert.equal(sim.reboots, 1);
  await fx.recorder.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 5000, since);
  assert.equal(json(fx.recorder.last(`${fx.base}/nvr/availability`)).state, 'online');
});

test.run();
