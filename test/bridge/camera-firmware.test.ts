/**
 * Firmware of the cameras behind an NVR (IPCMaintaint/IPCUpgrade/Get, vendor-facts-more §m.4), against a real broker
 * and the simulator: an `update` entity on each channel whose camera reports a version (installed = latest: the vendor
 * gives no newer-version string for an IPC; no install), state on `<dev>/<ch>/firmware`; re-read with `check`; a
 * camera gone offline keeps its entity; a single camera (no such page) has none and is not asked.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, settle, setup, type Fixture } from './fixture';

const test = suite('bridge: camera firmware through the NVR');
const ctx: { fx: Fixture } = {} as never;
const GET = '/API/IPCMaintaint/IPCUpgrade/Get';

test.before(async () => {
  ctx.fx = await setup({
    label: 'ipcfw',
    devices: [
      { id: 'nvr', poll: 0.5 },
      { id: 'cam', poll: 0.5, sim: { profile: 'ipc' } },
    ],
    bridge: { firmwareCheckGapMs: 0 },
  });
});
test.after(() => ctx.fx.stop());

const sim = (id = 'nvr') => ctx.fx.sims.get(id)!;
type Cmps = Record<string, Record<string, unknown>>;
const cmpsOf = (slug: string) =>
  ctx.fx.recorder
    .waitTopic(`${ctx.fx.prefix}/device/${ctx.fx.base}_nvr_${slug}/config`, () => true, 5000)
    .then((m) => (json(m) as { cmps: Cmps }).cmps);

test('each IP camera reporting a version has an update entity on its channel device; analog channels have none', async () => {
  const { fx } = ctx;
  await fx.recorder.waitTopic(`${fx.prefix}/device/${fx.base}_nvr_ip_ch1/config`, (j) => !!(j.cmps as Cmps).firmware_update, 15_000);
  const c = (await cmpsOf('ip_ch1')).firmware_update;
  assert.equal(c.p, 'update');
  assert.equal(c.device_class, 'firmware');
  assert.equal(c.state_topic, `${fx.base}/nvr/ip_ch1/firmware`);
  assert.equal(c.command_topic, undefined, 'no install through the NVR');
  const s = json(await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/firmware`, () => true, 5000));
  assert.equal(s.installed_version, sim().ipcFirmware.version('IP_CH1'));
  assert.equal(s.latest_version, s.installed_version);
  assert.equal(s.in_progress, false);
  assert.equal((await cmpsOf('ch1')).firmware_update, undefined, 'an analog channel has no camera firmware');
});

test('check re-reads the cameras: a new version is published; a camera gone offline keeps its entity', async () => {
  const { fx } = ctx;
  sim().ipcFirmware.setIpcVersion('IP_CH1', 'V22.1.0_260101');
  let rec = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/set/firmware`, 'check');
  const s = json(await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/firmware`, (j) => j.installed_version === 'V22.1.0_260101', 5000, rec));
  assert.equal(s.latest_version, 'V22.1.0_260101');
  sim().setOnline('IP_CH1', false);
  rec = fx.recorder.count;
  const since = sim().log.length;
  await fx.recorder.publish(`${fx.base}/nvr/set/firmware`, 'check');
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/firmware`, (j) => j.installed_version === 'V22.1.0_260101', 5000, rec);
  assert.ok(
    sim()
      .log.slice(since)
      .some((e) => e.path === GET),
  );
  await settle(fx);
  assert.ok((await cmpsOf('ip_ch1')).firmware_update, 'still there');
  sim().setOnline('IP_CH1', true);
});

test('a single camera has no camera firmware entity and is never asked for IPCUpgrade', async () => {
  await settle(ctx.fx);
  assert.equal(sim('cam').log.filter((e) => e.path === GET).length, 0);
});

test.run();
