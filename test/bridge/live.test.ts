/**
 * The live light, siren and red/blue light and the alarm panel, end to end (real broker, real simulator), with the
 * payloads Home Assistant sends by default: ON/OFF and a brightness number (light, default schema), the JSON light
 * schema, the siren's JSON (duration, volume_level), DISARM/ARM_AWAY through AlarmConfig/Disarming and through the
 * LinkageManage fall-back. Device requests are counted at the simulator.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import type { Simulator } from '../../simulator';
import { setsOf, settle, setup, waitEvent, type Fixture } from './fixture';

const test = suite<{ fx: Fixture }>('bridge live');

const LIVE = 'PreviewChannel/Floodlight2AudioAlarm';

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'live',
    // Events off: every poll reads the live page (with events on, live changes arrive as events: events.test.ts).
    devices: [
      { id: 'nvr', poll: 0.3, events: false },
      { id: 'old', poll: 0.3, events: false, sim: { disarming: false } },
    ],
  });
  for (const id of ['nvr', 'old']) await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/${id}/wifi_ch1`, () => true, 5000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

const live = (sim: Simulator, ch: string) => sim.state[LIVE].channel_info![ch] as Record<string, unknown>;
const liveSets = (sim: Simulator, since: number) => setsOf(sim, since).filter((e) => e.path.includes('Floodlight2AudioAlarm'));

test('light: ON/OFF, brightness on its own topic, the JSON schema in one Set', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  let since = r.count;
  let log = sim.log.length;
  await r.publish(`${fx.base}/nvr/ch1/set/floodlight`, 'ON');
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.floodlight === true, 3000, since);
  assert.equal(live(sim, 'CH1').floodlight_switch, true);
  const on = liveSets(sim, log);
  assert.equal(on.length, 1);
  assert.equal((on[0].data as Record<string, unknown>).operation_type, 'Floodlight');

  since = r.count;
  await r.publish(`${fx.base}/nvr/ch1/set/floodlight_brightness`, '80');
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.floodlight_brightness === 80, 3000, since);
  assert.equal(live(sim, 'CH1').floodlight_value, 80);

  since = r.count;
  await r.publish(`${fx.base}/nvr/ch1/set/floodlight`, 'OFF');
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.floodlight === false, 3000, since);

  // JSON schema: state and brightness in one message, one Set.
  since = r.count;
  log = sim.log.length;
  await r.publish(`${fx.base}/nvr/ch4/set/floodlight`, JSON.stringify({ state: 'ON', brightness: 30 }));
  await r.waitTopic(`${fx.base}/nvr/ch4`, (j) => j.floodlight === true && j.floodlight_brightness === 30, 3000, since);
  assert.equal(liveSets(sim, log).length, 1);
  assert.deepEqual([live(sim, 'CH4').floodlight_switch, live(sim, 'CH4').floodlight_value], [true, 30]);
  since = r.count;
  await r.publish(`${fx.base}/nvr/ch4/set/floodlight`, JSON.stringify({ state: 'OFF' }));
  await r.waitTopic(`${fx.base}/nvr/ch4`, (j) => j.floodlight === false, 3000, since);
});

test("siren: Home Assistant's JSON with duration switches it off again after that time; volume_level onto the device range", async ({
  fx,
}) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const since = r.count;
  const log = sim.log.length;
  const t0 = Date.now();
  await r.publish(`${fx.base}/nvr/ch2/set/siren`, JSON.stringify({ state: 'ON', duration: 1, volume_level: 0.3 }));
  await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.siren === true, 3000, since);
  // 0.3 of a 1..10 range: 3.
  assert.equal(live(sim, 'CH2').audioAlarm_value, 3);
  await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.siren === false, 4000, since);
  assert.ok(Date.now() - t0 >= 1000, 'not before the duration');
  assert.equal(live(sim, 'CH2').audioAlarm_switch, false);
  // Counted at the device: one Set on, one Set off.
  const sets = liveSets(sim, log).map((e) => (e.data as Record<string, unknown>).audioAlarm_switch);
  assert.deepEqual(sets, [true, false]);

  // Without a duration it stays on until switched off ({"state":"OFF"}, HA's turn_off).
  const s2 = r.count;
  await r.publish(`${fx.base}/nvr/ch3/set/siren`, JSON.stringify({ state: 'ON' }));
  await r.waitTopic(`${fx.base}/nvr/ch3`, (j) => j.siren === true, 3000, s2);
  await r.publish(`${fx.base}/nvr/ch3/set/siren`, JSON.stringify({ state: 'OFF' }));
  await r.waitTopic(`${fx.base}/nvr/ch3`, (j) => j.siren === false, 3000, s2);
});

test('a siren command within the duration cancels the pending switch-off', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const since = r.count;
  const log = sim.log.length;
  // A duration long enough that a loaded machine still delivers the second command well within it.
  await r.publish(`${fx.base}/nvr/ip_ch1/set/siren`, JSON.stringify({ state: 'ON', duration: 3 }));
  await r.waitTopic(`${fx.base}/nvr/ip_ch1`, (j) => j.siren === true, 3000, since);
  await r.publish(`${fx.base}/nvr/ip_ch1/set/siren`, JSON.stringify({ state: 'ON' }));
  // Past the first duration: still on, and the device saw no Set switching it off.
  await new Promise((res) => setTimeout(res, 3500));
  await settle(fx);
  assert.equal(live(sim, 'IP_CH1').audioAlarm_switch, true);
  assert.deepEqual(
    liveSets(sim, log).map((e) => (e.data as Record<string, unknown>).audioAlarm_switch),
    [true],
  );
  const s2 = r.count;
  await r.publish(`${fx.base}/nvr/ip_ch1/set/siren`, 'OFF');
  await r.waitTopic(`${fx.base}/nvr/ip_ch1`, (j) => j.siren === false, 3000, s2);
});

test('red/blue light on and off', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const since = r.count;
  await r.publish(`${fx.base}/nvr/ch1/set/red_blue_light`, 'ON');
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.red_blue_light === true, 3000, since);
  assert.equal(live(sim, 'CH1').redBlueLight_switch, true);
  await r.publish(`${fx.base}/nvr/ch1/set/red_blue_light`, 'OFF');
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.red_blue_light === false, 3000, since);
});

test('a light switched on at the device shows on at the next poll', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  live(sim, 'CH2').floodlight_switch = true;
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.floodlight === true, 3000, since);
  live(sim, 'CH2').floodlight_switch = false;
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.floodlight === false, 3000, since);
});

test('live state reported by the device between polls (Device.applyLive, fed by Floodlight_AudioAlarm events) shows at once', async ({
  fx,
}) => {
  const device = fx.bridge.devices.get('nvr')!.device;
  const since = fx.recorder.count;
  device.applyLive('CH4', { floodlight: true, brightness: 64 });
  const m = await fx.recorder.waitTopic(`${fx.base}/nvr/ch4`, (j) => j.floodlight === true && j.floodlight_brightness === 64, 1000, since);
  assert.ok(m);
  // The next poll reads the live page again: the device's word wins.
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch4`, (j) => j.floodlight === false, 3000, since);
});

test('alarm panel: DISARM / ARM_AWAY through AlarmConfig/Disarming', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const since = r.count;
  const log = sim.log.length;
  await r.publish(`${fx.base}/nvr/set/disarmed`, 'DISARM');
  await r.waitTopic(`${fx.base}/nvr`, (j) => j.disarmed === true, 3000, since);
  assert.equal(sim.state['AlarmConfig/Disarming'].disarming, true);
  await r.publish(`${fx.base}/nvr/set/disarmed`, 'ARM_AWAY');
  await r.waitTopic(`${fx.base}/nvr`, (j) => j.disarmed === false, 3000, since);
  assert.equal(sim.state['AlarmConfig/Disarming'].disarming, false);
  assert.deepEqual(
    setsOf(sim, log).map((e) => e.path),
    ['/API/AlarmConfig/Disarming/Set', '/API/AlarmConfig/Disarming/Set'],
  );
});

test('alarm panel on a device without Disarming: LinkageManage enable, and its linkage switches', async ({ fx }) => {
  const sim = fx.sims.get('old')!;
  const r = fx.recorder;
  const dev = r.lastJson(`${fx.base}/old`)!;
  assert.ok('disarm_siren' in dev && 'disarm_ptz' in dev, JSON.stringify(dev));
  assert.ok(!('disarm_buzzer' in dev));
  const since = r.count;
  const log = sim.log.length;
  await r.publish(`${fx.base}/old/set/disarmed`, 'DISARM');
  await r.waitTopic(`${fx.base}/old`, (j) => j.disarmed === true, 3000, since);
  assert.equal(sim.state['LinkageConfig/LinkageManage'].enable, true);
  await r.publish(`${fx.base}/old/set/disarmed`, 'ARM_AWAY');
  await r.waitTopic(`${fx.base}/old`, (j) => j.disarmed === false, 3000, since);
  assert.equal(sim.state['LinkageConfig/LinkageManage'].enable, false);
  await r.publish(`${fx.base}/old/set/disarm_ptz`, 'ON');
  await r.waitTopic(`${fx.base}/old`, (j) => j.disarm_ptz === true, 3000, since);
  assert.ok(setsOf(sim, log).every((e) => e.path === '/API/LinkageConfig/LinkageManage/Set'));
  assert.ok(!sim.log.slice(log).some((e) => e.path.includes('Disarming/Set')));
});

// Each bad live command: a clear reason on bridge/event, nothing sent to the live page.
const REFUSALS: Array<[string, string, string, RegExp]> = [
  ['no floodlight on CH3 (siren only)', 'nvr/ch3/set/floodlight', 'ON', /^Floodlight \(floodlight\): nvr CH3 does not offer this setting$/],
  ['no red/blue light on CH2', 'nvr/ch2/set/red_blue_light', 'ON', /\(red_blue_light\): nvr CH2 does not offer this setting/],
  ['brightness above the range', 'nvr/ch1/set/floodlight_brightness', '101', /between 1 and 100/],
  ['brightness in the JSON schema out of range', 'nvr/ch1/set/floodlight', '{"state":"ON","brightness":0}', /between 1 and 100/],
  ['light: not a word', 'nvr/ch1/set/floodlight', 'BRIGHT', /expected ON\/OFF/],
  ['siren: unknown member', 'nvr/ch1/set/siren', '{"state":"ON","tone":"fire"}', /unknown member "tone"/],
  ['siren: volume_level above 1', 'nvr/ch1/set/siren', '{"state":"ON","volume_level":1.5}', /volume_level: must be a number from 0 to 1/],
  ['siren: fixed volume (battery camera)', 'nvr/wifi_ch1/set/siren', '{"state":"ON","volume_level":0.5}', /not adjustable/],
  ['siren: negative duration', 'nvr/ch1/set/siren', '{"state":"ON","duration":-5}', /duration: must be a number of seconds/],
  ['panel: not a panel word', 'nvr/set/disarmed', 'ARM_HOME', /DISARM/],
];

test('bad live commands: clear reason, nothing sent', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  for (const [what, topic, payload, reason] of REFUSALS) {
    const since = fx.recorder.count;
    const log = sim.log.length;
    await fx.recorder.publish(`${fx.base}/${topic}`, payload);
    const e = await waitEvent(fx, 'command_refused', (d) => d.topic === `${fx.base}/${topic}`, since);
    assert.match(String(e.reason), reason, what);
    await settle(fx);
    assert.deepEqual(setsOf(sim, log), [], `${what}: nothing sent`);
  }
});

test.run();
