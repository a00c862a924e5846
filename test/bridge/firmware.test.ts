/**
 * Firmware through the bridge, against a real broker and the simulator: the recorder's HA `update` entity, its state
 * on `<dev>/firmware` (installed from SystemInfo, latest from the device's own online check), `set/firmware` `check`
 * on demand and `install` with progress to the end; refusals (nothing newer, an alarm active, a bad word) on
 * bridge/event with no upgrade request sent.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, settle, setup, waitEvent, type Fixture } from './fixture';

const test = suite('bridge: firmware');
const ctx: { fx: Fixture } = {} as never;
const CHECK = '/API/Maintenance/FtpUpgrade/Check';
const UPGRADE = '/API/Maintenance/FtpUpgrade/Upgrade';

test.before(async () => {
  ctx.fx = await setup({
    label: 'firmware',
    devices: [{ id: 'nvr', poll: 0.3, sim: { upgradeStepMs: 30, rebootMs: 400 } }],
    bridge: { firmwareProgressMs: 20, firmwareCheckGapMs: 0 },
  });
});
test.after(() => ctx.fx.stop());

const sim = () => ctx.fx.sims.get('nvr')!;
const count = (path: string, since = 0) =>
  sim()
    .log.slice(since)
    .filter((e) => e.path === path).length;
const state = (pred: (j: Record<string, any>) => boolean, since = 0) =>
  ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/firmware`, pred, 5000, since).then((m) => json(m) as Record<string, any>);

async function refused(payload: string, reason: RegExp) {
  const { fx } = ctx;
  const rec = fx.recorder.count;
  const since = sim().log.length;
  const topic = `${fx.base}/nvr/set/firmware`;
  await fx.recorder.publish(topic, payload);
  const data = await waitEvent(fx, 'command_refused', (d) => d.topic === topic, rec, 5000);
  assert.match(String(data.reason), reason);
  await settle(fx);
  assert.equal(count(UPGRADE, since), 0, 'no upgrade sent');
}

test('the recorder has an update entity; state: installed = latest until the check finds more; one check at start', async () => {
  const { fx } = ctx;
  const m = await fx.recorder.waitTopic(
    `${fx.prefix}/device/${fx.base}_nvr/config`,
    (j) => !!(j.cmps as Record<string, unknown> | undefined)?.firmware_update,
    5000,
  );
  const c = (json(m) as any).cmps.firmware_update;
  assert.equal(c.p, 'update');
  assert.equal(c.state_topic, `${fx.base}/nvr/firmware`);
  assert.equal(c.command_topic, `${fx.base}/nvr/set/firmware`);
  assert.equal(c.payload_install, 'install');
  const s = await state((j) => !!j.installed_version);
  assert.equal(s.installed_version, sim().firmware.installed);
  assert.equal(s.latest_version, s.installed_version);
  assert.equal(s.in_progress, false);
  assert.equal(count(CHECK), 1);
});

test('install with nothing newer, a bad word: refused, nothing sent', async () => {
  await refused('install', /no newer firmware than .+ was found \(checked at \d{4}-/);
  await refused('flash', /send "install" or "check"/);
});

test('check on demand finds the published version; install refused while an alarm is active', async () => {
  const { fx } = ctx;
  sim().firmware.publish('V9.9.9-20260101');
  const rec = fx.recorder.count;
  const since = sim().log.length;
  await fx.recorder.publish(`${fx.base}/nvr/set/firmware`, 'check');
  const s = await state((j) => j.latest_version === 'V9.9.9-20260101', rec);
  assert.equal(s.installed_version, sim().firmware.installed);
  assert.equal(count(CHECK, since), 1);
  sim().raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  await new Promise((r) => setTimeout(r, 1500));
  await refused('install', /refused while an alarm is active/);
  sim().raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
});

test('install: in_progress with update_percentage rising, then done; the device installed it', async () => {
  const { fx } = ctx;
  await new Promise((r) => setTimeout(r, 1500));
  const rec = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/set/firmware`, 'install');
  const mid = await state((j) => j.in_progress === true && j.update_percentage > 0 && j.update_percentage < 100, rec);
  assert.equal(mid.latest_version, 'V9.9.9-20260101');
  await state((j) => j.in_progress === false, fx.recorder.count - 1);
  assert.deepEqual(sim().firmware.installs, ['V9.9.9-20260101']);
  assert.equal(count(UPGRADE), 1);
});

test("a check that finds newer firmware without its version (the vendor's sample): an update, version unknown", async () => {
  const { fx } = ctx;
  sim().firmware.publish(''); // the next Check answers has_new_firmware: true, new_version: ''
  let s: Record<string, any> | undefined;
  for (let i = 0; i < 5 && !s; i++) {
    const rec = fx.recorder.count;
    await fx.recorder.publish(`${fx.base}/nvr/set/firmware`, 'check');
    s = await state((j) => j.latest_version === 'unknown', rec).catch(() => undefined);
  }
  assert.ok(s, 'latest_version unknown published');
  assert.equal(s.installed_version, sim().firmware.installed);
  assert.notEqual(s.latest_version, s.installed_version, 'Home Assistant shows an update');
  assert.match(String(s.release_summary), /did not say which version/);
});

test('check while the recorder reboots: reported once on command_error and bridge/event, never dropped', async () => {
  const { fx } = ctx;
  await new Promise((r) => setTimeout(r, 500)); // past the alarm's end
  const rec = fx.recorder.count;
  sim().firmware.reboot(2500);
  const topic = `${fx.base}/nvr/set/firmware`;
  await fx.recorder.publish(topic, 'check');
  const err = json(await fx.recorder.waitTopic(`${fx.base}/nvr/command_error`, (j) => j.key === 'firmware', 8000, rec));
  assert.ok(['failed', 'refused'].includes(String(err.event_type)), String(err.event_type));
  assert.ok(String(err.reason).length > 0);
  await fx.recorder.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 10_000, rec);
  await settle(fx);
  const errors = fx.recorder.messages.slice(rec).filter((m) => m.topic === `${fx.base}/nvr/command_error`);
  assert.equal(errors.length, 1, 'once');
  const events = fx.recorder.messages
    .slice(rec)
    .filter(
      (m) => m.topic === `${fx.base}/bridge/event` && /command_(failed|refused)/.test(m.payload) && m.payload.includes('set/firmware'),
    );
  assert.equal(events.length, 1, 'once on bridge/event');
});

test.run();
