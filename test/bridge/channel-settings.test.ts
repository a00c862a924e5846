/**
 * The channel settings users change every week, through the table: day/night (IR-cut) and IR LEDs as selects with
 * the device's own values, motion and PIR detection switches and sensitivities bounded by Range, email on their
 * alarms, recording on/off, privacy mask. Out-of-Range and unsupported values are refused and nothing is sent.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { descriptorAt, NvrClient } from '../../core';
import { json, setsOf, setup, waitEvent, type Fixture } from './fixture';
import { selectSends, selectShows } from './homeassistant';

type Json = Record<string, any>;
const test = suite<{ fx: Fixture }>('bridge channel settings');

test.before(async (ctx) => {
  ctx.fx = await setup({ label: 'chset', devices: [{ id: 'nvr' }] });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/ch3`, (j) => j.day_night !== undefined, 5000);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

const node = (fx: Fixture, ...parts: string[]) => [fx.base.toLowerCase(), ...parts].join('_');
function cmps(fx: Fixture, ch: string): Json {
  const topic = `${fx.prefix}/device/${node(fx, 'nvr', ch)}/config`;
  const m = fx.recorder.on((t) => t === topic).pop();
  return json(m).cmps as Json;
}

async function rangeOf(fx: Fixture, page: string) {
  const client = new NvrClient({ url: fx.sims.get('nvr')!.url, username: 'admin', password: fx.passwords[0], heartbeatMs: 0 });
  try {
    return await client.range(page);
  } finally {
    await client.close();
  }
}

test("entities: the device's own day/night values, sensitivities bounded by Range, IR LEDs only where offered", async ({ fx }) => {
  const image = await rangeOf(fx, 'ChannelConfig/ImageControl');
  const motion = await rangeOf(fx, 'AlarmConfig/Motion');
  const pir = await rangeOf(fx, 'AlarmConfig/PIR');
  const ch3 = cmps(fx, 'ch3');
  assert.equal(ch3.day_night.p, 'select');
  // Home Assistant shows words people say and sends the device's own values.
  assert.deepEqual(ch3.day_night.options, ['Auto', 'Colour', 'Black and white', 'Image', 'Schedule']);
  assert.deepEqual(selectSends(ch3.day_night), descriptorAt(image, ['channel_info', 'CH3', 'ir_cut_mode'])!.items);
  assert.deepEqual(selectSends(ch3.ir_led), descriptorAt(image, ['channel_info', 'CH3', 'ir_led'])!.items);
  assert.equal(ch3.day_night.entity_category, 'config');
  const ms = descriptorAt(motion, ['channel_info', 'CH3', 'sensitivity'])!;
  assert.deepEqual([ch3.motion_sensitivity.p, ch3.motion_sensitivity.min, ch3.motion_sensitivity.max], ['number', ms.min, ms.max]);
  assert.equal(ch3.motion_detection.p, 'switch');
  assert.equal(ch3.motion_email.enabled_by_default, false, 'email switches are announced disabled');
  assert.equal(ch3.recording.command_topic, `${fx.base}/nvr/ch3/set/recording`);
  assert.equal(ch3.privacy_mask.p, 'switch');
  assert.equal(ch3.pir_detection, undefined, 'CH3 has no PIR sensor: no PIR entities (R2)');
  const ch1 = cmps(fx, 'ch1');
  assert.equal(ch1.ir_led, undefined, 'CH1 (white light camera) reports no IR LED setting: no entity (R2)');
  const ps = descriptorAt(pir, ['channel_info', 'CH1', 'sensitivity'])!;
  assert.deepEqual([ch1.pir_sensitivity.min, ch1.pir_sensitivity.max], [ps.min, ps.max]);
  assert.notDeepEqual([ps.min, ps.max], [ms.min, ms.max], 'motion and PIR bounds differ: both come from Range');
});

test('commands: day/night, IR LEDs, sensitivity, detection, email, recording, privacy reach the device and come back confirmed', async ({
  fx,
}) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  const sets = sim.log.length;
  const r = fx.recorder;
  // Home Assistant's "Black and white", through the select's command template: the device's own value.
  const dayNight = cmps(fx, 'ch3').day_night;
  const asked = selectSends(dayNight)[(dayNight.options as string[]).indexOf('Black and white')];
  assert.equal(asked, 'BlackWhiteMode');
  await r.publish(`${fx.base}/nvr/ch3/set/day_night`, asked);
  await r.publish(`${fx.base}/nvr/ch3/set/ir_led`, 'Off');
  await r.publish(`${fx.base}/nvr/ch3/set/motion_sensitivity`, '7');
  await r.publish(`${fx.base}/nvr/ch3/set/motion_detection`, 'ON');
  await r.publish(`${fx.base}/nvr/ch1/set`, JSON.stringify({ pir_detection: true, pir_sensitivity: 2, pir_email: 'ON' }));
  await r.publish(`${fx.base}/nvr/ch3/set/recording`, 'OFF');
  await r.publish(`${fx.base}/nvr/ch3/set/privacy_mask`, 'ON');
  await r.waitTopic(
    `${fx.base}/nvr/ch3`,
    (j) =>
      j.day_night === 'BlackWhiteMode' &&
      j.ir_led === 'Off' &&
      j.motion_sensitivity === 7 &&
      j.motion_detection === true &&
      j.recording === false &&
      j.privacy_mask === true,
    5000,
    since,
  );
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.pir_detection === true && j.pir_sensitivity === 2 && j.pir_email === true, 5000, since);
  const st = sim.state;
  assert.equal(st['ChannelConfig/ImageControl'].channel_info!.CH3.ir_cut_mode, 'BlackWhiteMode');
  // The state keeps the device's value; the select shows it as said.
  assert.equal(selectShows(dayNight, 'day_night', json(r.last(`${fx.base}/nvr/ch3`)).day_night as string), 'Black and white');
  assert.equal(st['AlarmConfig/Motion'].channel_info!.CH3.sensitivity, 7);
  assert.equal(st['AlarmConfig/PIR'].channel_info!.CH1.send_email, true);
  assert.equal(st.RecordConfig.channel_info!.CH3.record_switch, false);
  assert.equal(st['ChannelConfig/VideoCover'].channel_info!.CH3.privacy_zone_enable, true);
  // Each Set addresses its page as the vendor's samples do.
  const image = setsOf(sim, sets).find((e) => e.path.includes('ImageControl'))!.data as Json;
  assert.deepEqual([image.channel_info.CH3.chn_index, image.channel_info.CH3.page], ['CH3', 'chn_imgCtrl']);
  const motion = setsOf(sim, sets).find((e) => e.path.includes('Motion'))!.data as Json;
  assert.equal(motion.page_type, 'AlarmConfig');
  assert.equal(motion.channel_info.CH3.chn_index, 'CH3');
});

test('refused: a value outside Range or not offered, and a key the channel does not have; nothing is sent', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const sets = setsOf(sim).length;
  const cases: Array<[string, string, RegExp]> = [
    ['ch3/set/motion_sensitivity', '99', /\(motion_sensitivity\) must be at most 8 \(got 99\)/],
    ['ch1/set/pir_sensitivity', '0', /\(pir_sensitivity\) must be at least 1 \(got 0\)/],
    ['ch3/set/day_night', 'Disco', /^Day\/night mode \(day_night\) must be one of .*\(got "Disco"\)/],
    ['ch1/set/ir_led', 'On', /\(ir_led\): nvr CH1 does not offer this setting/],
    ['ch3/set/pir_detection', 'ON', /\(pir_detection\): nvr CH3 does not offer this setting/],
  ];
  for (const [t, payload, reason] of cases) {
    const since = fx.recorder.count;
    const topic = `${fx.base}/nvr/${t}`;
    await fx.recorder.publish(topic, payload);
    const data = await waitEvent(fx, 'command_refused', (d) => d.topic === topic, since);
    assert.match(String(data.reason), reason, `${t} ${payload}: ${String(data.reason)}`);
  }
  assert.equal(setsOf(sim).length, sets, 'no Set reached the device');
  assert.equal(json(fx.recorder.last(`${fx.base}/nvr/ch3`)).motion_sensitivity, 7, 'state unchanged');
});

test('white light mode: a select only on the full-colour camera; set nested in FullColorMode as its Get has it', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const image = await rangeOf(fx, 'ChannelConfig/ImageControl');
  const ch4 = cmps(fx, 'ch4');
  assert.equal(ch4.white_light.p, 'select');
  assert.equal(ch4.white_light.name, 'White light mode');
  assert.equal(ch4.white_light.entity_category, 'config');
  assert.deepEqual(
    selectSends(ch4.white_light),
    descriptorAt(image, ['channel_info', 'CH4', 'white_light'])!.items,
    'options: the flat Range',
  );
  assert.deepEqual(ch4.white_light.options, ['Auto', 'Manual', 'Schedule', 'Off']);
  for (const ch of ['ch1', 'ch2', 'ch3']) assert.equal(cmps(fx, ch).white_light, undefined, `${ch} is no full-colour camera`);
  const r = fx.recorder;
  await r.waitTopic(`${fx.base}/nvr/ch4`, (j) => j.white_light === 'Auto', 5000);
  const since = r.count;
  const sets = sim.log.length;
  await r.publish(`${fx.base}/nvr/ch4/set/white_light`, 'OFF');
  await r.waitTopic(`${fx.base}/nvr/ch4`, (j) => j.white_light === 'OFF', 5000, since);
  const sent = setsOf(sim, sets).filter((e) => e.path.includes('ImageControl'));
  assert.equal(sent.length, 1);
  const block = (sent[0].data as Json).channel_info.CH4;
  assert.equal(block.FullColorMode.white_light, 'OFF');
  assert.equal(block.white_light, undefined, 'not written flat beside the group');
  assert.deepEqual(sim.state['ChannelConfig/ImageControl'].channel_info!.CH4.FullColorMode, { white_light: 'OFF', image_sensitivity: 1 });

  const before = setsOf(sim).length;
  const refused = r.count;
  await r.publish(`${fx.base}/nvr/ch4/set/white_light`, 'Disco');
  const data = await waitEvent(fx, 'command_refused', (d) => d.topic === `${fx.base}/nvr/ch4/set/white_light`, refused);
  assert.match(String(data.reason), /\(white_light\) must be one of .*Disco/);
  await r.publish(`${fx.base}/nvr/ch3/set/white_light`, 'Auto');
  const ch3 = await waitEvent(fx, 'command_refused', (d) => d.topic === `${fx.base}/nvr/ch3/set/white_light`, refused);
  assert.match(String(ch3.reason), /^White light mode \(white_light\): nvr CH3 does not offer this setting$/);
  assert.equal(setsOf(sim).length, before, 'nothing sent');
});

test.run();
