/** State topics: values from Get, absent = unsupported, offline channels, change-only publishing. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, pollsSince, settle, setup, until, type Fixture } from './fixture';
import { keysOn } from './table-rows';

const test = suite<{ fx: Fixture }>('bridge state');

test.before(async (ctx) => {
  ctx.fx = await setup({ label: 'state', devices: [{ id: 'nvr', poll: 0.2, events: false }] }); // events: events.test.ts
  for (const slug of ['ch1', 'ch3', 'ch4', 'ip_ch1', 'ip_ch2', 'wifi_ch1'])
    await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/${slug}`, () => true, 5000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

test('state topics carry what the device reports, and only that', ({ fx }) => {
  const r = fx.recorder;
  const dev = json(r.last(`${fx.base}/nvr`));
  // The recorder disarms through AlarmConfig/Disarming: its actions, not LinkageManage's linkages. (Its disks, read on
  // their own schedule, are storage.test.ts's.)
  const storage = (k: string) => k.startsWith('disk_') || k === 'overwrite';
  assert.deepEqual(
    Object.keys(dev)
      .filter((k) => !storage(k))
      .sort(),
    [
      // ManualAlarm: the recorder's two outputs and IP_CH1's (online, with an output)
      'alarm_output_ip_ch1_1',
      'alarm_output_local_1',
      'alarm_output_local_2',
      ...keysOn('AlarmConfig/Disarming', 'device'),
      'disarmed',
      'firmware',
      'model',
    ].sort(),
  );
  assert.equal(dev.model, 'N7508');
  const ch1 = json(r.last(`${fx.base}/nvr/ch1`));
  assert.deepEqual(ch1, {
    online: true,
    floodlight: false,
    floodlight_brightness: 50,
    siren: false,
    red_blue_light: false,
    floodlight_on_alarm: false,
    floodlight_duration: 60,
    floodlight_mode: 'Warninglight',
    floodlight_strobe: 'Middle',
    siren_on_alarm: false,
    siren_duration: 10,
    siren_volume: 5,
    siren_tone: 'Alarm1',
    disarmed: true, // listed in the Disarming page's disarming_channel
    audio_in_volume: 50,
    audio_out_volume: 50,
    // Image control, detection, recording, privacy (CH1 has a floodlight: no IR LED setting).
    day_night: 'AutoMode',
    motion_detection: false,
    motion_sensitivity: 4,
    motion_email: false,
    pir_detection: false,
    pir_sensitivity: 3,
    pir_email: false,
    recording: true,
    privacy_mask: false,
    // Recording now (SystemInfo/Record, features/recordings/).
    record_state: true,
  });
  const ch3 = json(r.last(`${fx.base}/nvr/ch3`));
  assert.equal(ch3.floodlight_on_alarm, undefined, 'CH3 has no floodlight ({reason: "Not configured"})');
  assert.equal(ch3.siren_on_alarm, false);
  const ch4 = json(r.last(`${fx.base}/nvr/ch4`));
  assert.equal(ch4.siren_on_alarm, undefined, 'CH4 has no siren');
  assert.equal(ch4.floodlight_on_alarm, false);
  assert.deepEqual(json(r.last(`${fx.base}/nvr/ip_ch2`)), { online: false });
  assert.deepEqual(json(r.last(`${fx.base}/nvr/availability`)), { state: 'online' });
  const info = json(r.last(`${fx.base}/bridge/info`)) as { version: string; devices: Array<Record<string, unknown>> };
  assert.match(info.version, /^\d+\.\d+\.\d+/);
  assert.equal(info.devices[0].id, 'nvr');
  assert.equal(info.devices[0].model, 'N7508');
  assert.equal(info.devices[0].online, true);
  // IP_CH3 is an empty slot (NotConfigured): no channel.
  assert.equal((info.devices[0].channels as unknown[]).length, 7);
  assert.deepEqual(json(r.last(`${fx.base}/bridge/state`)), { state: 'online' });
});

test('a poll that finds nothing new publishes nothing', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  // What start-up still sends (stream addresses, read after the first poll on a loaded machine) is not a poll's.
  const start = sim.log.length;
  await until(() => pollsSince(sim, start) >= 2, '2 polls');
  await settle(fx);
  const since = fx.recorder.count;
  const gets = sim.log.length;
  await until(() => pollsSince(sim, gets) >= 5, '5 polls');
  await settle(fx);
  assert.deepEqual(
    fx.recorder.messages
      .slice(since)
      .filter((m) => !m.payload.includes('settle-'))
      .map((m) => m.topic),
    [],
  );
});

test('a change on the device publishes exactly that topic, once', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  sim.state['AlarmConfig/Deterrence'].channel_info!.CH2.flood_light_switch = true;
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.floodlight_on_alarm === true, 3000, since);
  const at = sim.log.length;
  await until(() => pollsSince(sim, at) >= 3, '3 more polls');
  await settle(fx);
  assert.deepEqual(
    fx.recorder.messages
      .slice(since)
      .filter((m) => !m.payload.includes('settle-'))
      .map((m) => m.topic),
    [`${fx.base}/nvr/ch2`],
  );
});

test('a channel going offline publishes online:false and nothing else; back online: values again', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  let since = fx.recorder.count;
  sim.setOnline('IP_CH1', false);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1`, (j) => j.online === false && Object.keys(j).length === 1, 3000, since);
  // Its entities show unavailable in Home Assistant: the channel device follows this topic.
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/availability`, (j) => j.state === 'offline', 3000, since);
  const at = sim.log.length;
  await until(() => pollsSince(sim, at) >= 2, '2 more polls');
  await settle(fx);
  // Entities stay (no flapping in Home Assistant): no discovery change for IP_CH1.
  assert.equal(fx.recorder.messages.slice(since).filter((m) => m.topic.includes('ip_ch1/config')).length, 0);
  since = fx.recorder.count;
  sim.setOnline('IP_CH1', true);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1`, (j) => j.online === true && j.floodlight_on_alarm === false, 3000, since);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/availability`, (j) => j.state === 'online', 3000, since);
  // IP_CH2 comes online for the first time: Range now lists its fields, so its entities appear.
  since = fx.recorder.count;
  sim.setOnline('IP_CH2', true);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch2`, (j) => j.online === true && j.siren_on_alarm === false, 3000, since);
  const cfg = await fx.recorder.waitFor(
    (m) => m.topic.endsWith('_nvr_ip_ch2/config') && m.payload.includes('"siren_on_alarm"'),
    3000,
    since,
  );
  assert.ok(JSON.parse(cfg.payload).cmps.floodlight_on_alarm);
});

test('the retain setting applies to state topics', async ({ fx }) => {
  // default retain: true; checked by a late subscriber
  const { Recorder } = await import('../helpers/mqtt-broker');
  const late = await Recorder.start(fx.broker.url, [`${fx.base}/nvr/ch1`, `${fx.base}/nvr`]);
  await late.waitFor((m) => m.topic === `${fx.base}/nvr/ch1` && m.retain, 2000);
  await late.stop();
});

test.run();
