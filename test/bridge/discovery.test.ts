/** Home Assistant discovery: payload shape, unique ids, bounds from Range, ghosts, birth message. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { NvrClient, descriptorAt } from '../../core';
import { createLogger } from '../../bridge/base/log';
import { MqttLink } from '../../bridge/mqtt/link';
import { clearRetained, Recorder, startTestBroker, uniqueTopics } from '../helpers/mqtt-broker';
import { ABBREVIATIONS as SENT_AS } from '../../bridge/homeassistant/discovery';
import { asHomeAssistantReads, deviceDiscoveryProblems, selectSends } from './homeassistant';
import { json, settle, setup, type Fixture } from './fixture';
import { keysOn } from './table-rows';

type Json = Record<string, any>;

const test = suite<{ fx: Fixture }>('bridge discovery');

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'disc',
    devices: [
      { id: 'nvr', events: false },
      { id: 'cam', sim: { profile: 'ipc' }, events: false },
    ],
  }); // events: events.test.ts
  // Every channel's config is out once its state is (the state follows its device's gathered discovery).
  for (const topic of ['nvr/ch1', 'nvr/ch4', 'nvr/ip_ch1', 'nvr/ip_ch2', 'nvr/wifi_ch1', 'cam/ch1']) {
    await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/${topic}`, () => true, 5000);
  }
  // The cameras' firmware versions are read after the first states (IPCUpgrade/Get), widening the discovery of the
  // channels whose camera reports one: the tests below read that widened discovery.
  await ctx.fx.recorder.waitTopic(topicOf(ctx.fx, 'nvr', 'wifi_ch1'), (j) => 'firmware_update' in (j.cmps as object), 10_000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

/** Latest non-empty config per discovery topic. */
function configs(fx: Fixture): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const m of fx.recorder.on((t) => t.startsWith(`${fx.prefix}/device/`))) {
    if (m.payload) out.set(m.topic, json(m));
    else out.delete(m.topic);
  }
  return out;
}

async function identityOf(fx: Fixture, id: string) {
  const client = new NvrClient({
    url: fx.sims.get(id)!.url,
    username: 'admin',
    password: fx.passwords[id === 'nvr' ? 0 : 1],
    heartbeatMs: 0,
  });
  try {
    return await client.identity();
  } finally {
    await client.close();
  }
}

const node = (fx: Fixture, ...parts: string[]) => [fx.base.toLowerCase(), ...parts].join('_');
const topicOf = (fx: Fixture, ...parts: string[]) => `${fx.prefix}/device/${node(fx, ...parts)}/config`;

test('start-up: every config is published once (the features of a device gathered), each channel state after its config', async ({
  fx,
}) => {
  const all = fx.recorder.messages;
  const configsAt = new Map<string, number[]>();
  all.forEach((m, i) => {
    if (!m.topic.startsWith(`${fx.prefix}/device/`) || !m.payload) return;
    configsAt.set(m.topic, [...(configsAt.get(m.topic) ?? []), i]);
  });
  assert.ok(configsAt.size >= 8, `${configsAt.size} configs`);
  for (const [topic, at] of configsAt) assert.equal(at.length, 1, `${topic} published ${at.length} times`);
  // A camera's one channel is on its own device's config.
  const stateAndConfig = [
    ['nvr/ch1', ['nvr', 'ch1']],
    ['nvr/ip_ch1', ['nvr', 'ip_ch1']],
    ['nvr/wifi_ch1', ['nvr', 'wifi_ch1']],
    ['cam/ch1', ['cam']],
  ] as const;
  for (const [state, config] of stateAndConfig) {
    const stateAt = all.findIndex((m) => m.topic === `${fx.base}/${state}`);
    const configAt = configsAt.get(topicOf(fx, ...config))?.[0];
    assert.ok(configAt !== undefined && configAt < stateAt, `${state}: config at ${configAt}, state at ${stateAt}`);
  }
});

test('device-based discovery: one device per recorder and per channel, origin, availability', async ({ fx }) => {
  const all = configs(fx);
  // IP_CH3 is an empty slot (NotConfigured): no device, no entities.
  const nvrChannels = ['ch1', 'ch2', 'ch3', 'ch4', 'ip_ch1', 'ip_ch2', 'wifi_ch1'];
  const expected = [topicOf(fx, 'nvr'), ...nvrChannels.map((c) => topicOf(fx, 'nvr', c)), topicOf(fx, 'cam')];
  assert.deepEqual([...all.keys()].sort(), expected.sort());
  // Retained: a client subscribing now gets every config.
  const late = await Recorder.start(fx.broker.url, [`${fx.prefix}/#`]);
  for (const topic of expected) await late.waitFor((m) => m.topic === topic && m.retain, 3000, 0, topic);
  await late.stop();
  assert.deepEqual(
    late.messages
      .filter((m) => m.retain && m.payload)
      .map((m) => m.topic)
      .sort(),
    expected.sort(),
  );
  for (const [topic, cfg] of all) {
    assert.equal(cfg.o.name, 'nvr2mqtt', topic);
    assert.match(cfg.o.sw, /^\d+\.\d+\.\d+/);
    assert.ok(cfg.o.url);
    assert.equal(cfg.avty_mode, 'all');
    // A channel device also follows its channel's availability (an Offline channel's entities show unavailable).
    const slug = /_nvr_([a-z_0-9]+)\/config$/.exec(topic)?.[1];
    assert.deepEqual(
      cfg.avty.map((a: Json) => a.t),
      [
        `${fx.base}/bridge/state`,
        `${fx.base}/${topic.includes('_cam') ? 'cam' : 'nvr'}/availability`,
        ...(slug ? [`${fx.base}/nvr/${slug}/availability`] : []),
      ],
    );
    assert.ok(Array.isArray(cfg.dev.ids) && cfg.dev.ids.length === 1);
    for (const [id, c] of Object.entries(cfg.cmps as Json)) {
      assert.ok(c.p, `${topic} ${id}: platform`);
      assert.ok(c.unique_id, `${topic} ${id}: unique_id`);
      // A camera reads its picture's `topic`, an image its `image_topic`, a button only commands.
      assert.ok((c.state_topic ?? c.topic ?? c.image_topic ?? c.command_topic)?.startsWith(`${fx.base}/`), `${topic} ${id}: state_topic`);
    }
  }
  const recorder = all.get(topicOf(fx, 'nvr'))!;
  assert.equal(recorder.dev.mdl, 'N7508');
  assert.match(recorder.dev.sw, /^V8\.2\.4/);
  assert.equal(recorder.dev.cu, fx.sims.get('nvr')!.url);
  // Serial number and MAC from the device's identity (SystemInfo serialNum, dash-form MAC).
  const id = await identityOf(fx, 'nvr');
  assert.ok(id.serial && id.mac);
  assert.equal(recorder.dev.sn, id.serial);
  assert.deepEqual(recorder.dev.cns, [['mac', id.mac.toLowerCase().replaceAll('-', ':')]]);
  const ch1 = all.get(topicOf(fx, 'nvr', 'ch1'))!;
  assert.equal(ch1.dev.via_device, node(fx, 'nvr'));
  // The camera's name on the recorder (ChannelInfo channel_name; the simulator's default Camera<n>).
  assert.equal(ch1.dev.name, 'Camera1');
});

test("every config is one Home Assistant accepts (device discovery schema, each platform's schema)", ({ fx }) => {
  for (const [topic, cfg] of configs(fx)) assert.deepEqual(deviceDiscoveryProblems(cfg), [], topic);
});

test("configs as sent: the state topic said once per config, options in Home Assistant's abbreviations", ({ fx }) => {
  const sent = (topic: string) => JSON.parse(fx.recorder.last(topic)!.payload) as Json;
  for (const [parts, stateTopic] of [
    [['nvr'], `${fx.base}/nvr`],
    [['nvr', 'ch1'], `${fx.base}/nvr/ch1`],
    [['nvr', 'ip_ch1'], `${fx.base}/nvr/ip_ch1`],
    [['cam'], `${fx.base}/cam`],
  ] as const) {
    const topic = topicOf(fx, ...parts);
    const raw = sent(topic);
    assert.deepEqual(deviceDiscoveryProblems(raw), [], topic);
    assert.equal(raw.stat_t, stateTopic, topic);
    for (const [id, c] of Object.entries(raw.cmps as Record<string, Json>)) {
      assert.notEqual(c.stat_t, stateTopic, `${topic} ${id} repeats the shared state topic`);
      for (const key of Object.keys(c)) assert.ok(!(key in SENT_AS), `${topic} ${id}: ${key} is sent as ${SENT_AS[key]}`);
    }
  }
  // As Home Assistant reads it, each component has its state topic again.
  const ch1 = asHomeAssistantReads(sent(topicOf(fx, 'nvr', 'ch1'))).cmps as Record<string, Json>;
  assert.equal(ch1.floodlight_on_alarm.state_topic, `${fx.base}/nvr/ch1`);
  assert.equal(ch1.camera.state_topic, undefined, 'a camera takes no state topic');
});

test("at start, each device's discovery goes out before its state (state topics may be unretained)", ({ fx }) => {
  const first = (pred: (t: string) => boolean) => fx.recorder.messages.findIndex((m) => pred(m.topic) && !!m.payload);
  for (const [dev, slugs] of [
    ['nvr', ['ch1', 'ip_ch1', 'wifi_ch1']],
    ['cam', ['ch1']],
  ] as const) {
    const config = first((t) => t === topicOf(fx, dev));
    assert.ok(config >= 0, `${dev}: discovery`);
    for (const topic of [`${fx.base}/${dev}`, ...slugs.map((s) => `${fx.base}/${dev}/${s}`)]) {
      const state = first((t) => t === topic);
      assert.ok(state > config, `${topic}: state at ${state}, discovery at ${config}`);
    }
  }
});

test("a recorder's config goes out before its channels' (they name it in via_device)", ({ fx }) => {
  const first = (topic: string) => fx.recorder.messages.findIndex((m) => m.topic === topic && !!m.payload);
  const recorder = first(topicOf(fx, 'nvr'));
  assert.ok(recorder >= 0);
  for (const slug of ['ch1', 'ch2', 'ip_ch1', 'wifi_ch1']) {
    const channel = first(topicOf(fx, 'nvr', slug));
    assert.ok(channel > recorder, `${slug}: config at ${channel}, recorder at ${recorder}`);
  }
});

test("entity names in has_entity_name style: the setting alone, the device name is Home Assistant's", ({ fx }) => {
  const ch1 = configs(fx).get(topicOf(fx, 'nvr', 'ch1'))!;
  assert.equal(ch1.cmps.floodlight_on_alarm.name, 'Floodlight on alarm');
  assert.equal(ch1.cmps.floodlight_on_alarm.entity_category, 'config');
  assert.equal(ch1.cmps.siren_on_alarm.name, 'Siren on alarm');
  assert.equal(ch1.cmps.siren_on_alarm.command_topic, `${fx.base}/nvr/ch1/set/siren_on_alarm`);
  for (const c of Object.values(ch1.cmps as Json)) assert.ok(!String(c.name).includes('Test nvr'), c.name);
});

test('unique ids are unique', ({ fx }) => {
  const ids: string[] = [];
  for (const cfg of configs(fx).values()) for (const c of Object.values(cfg.cmps as Json)) ids.push(c.unique_id);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.length > 60, `entities: ${ids.length}`);
});

test('recorder: alarm control panel for disarming, config switches, diagnostic sensors', ({ fx }) => {
  const cmps = configs(fx).get(topicOf(fx, 'nvr'))!.cmps;
  const panel = cmps.disarmed;
  assert.equal(panel.p, 'alarm_control_panel');
  assert.equal(panel.command_topic, `${fx.base}/nvr/set/disarmed`);
  assert.equal(panel.state_topic, `${fx.base}/nvr`);
  assert.equal(panel.payload_disarm, 'DISARM');
  assert.equal(panel.payload_arm_away, 'ARM_AWAY');
  assert.equal(panel.code_arm_required, false);
  assert.equal(panel.code_disarm_required, false);
  assert.deepEqual(panel.supported_features, ['arm_away']);
  assert.match(panel.value_template, /disarmed/);
  assert.match(panel.value_template, /armed_away/);
  // The recorder has AlarmConfig/Disarming: its disarm actions (as its Range lists them), not LinkageManage's.
  const actions = keysOn('AlarmConfig/Disarming', 'device');
  assert.deepEqual(
    Object.keys(cmps)
      .filter((k) => k.startsWith('disarm_'))
      .sort(),
    [...actions].sort(),
  );
  for (const k of actions) {
    assert.equal(cmps[k].p, 'switch', k);
    assert.equal(cmps[k].entity_category, 'config', k);
    assert.equal(cmps[k].command_topic, `${fx.base}/nvr/set/${k}`);
  }
  assert.equal(cmps.model.p, 'sensor');
  assert.equal(cmps.model.entity_category, 'diagnostic');
  assert.equal(cmps.firmware.entity_category, 'diagnostic');
});

test('bounds and options come from Range; no entity for unsupported fields', async ({ fx }) => {
  const all = configs(fx);
  const sim = fx.sims.get('nvr')!;
  const client = new NvrClient({ url: sim.url, username: 'admin', password: fx.passwords[0], heartbeatMs: 0 });
  try {
    const va = await client.range('AlarmConfig/VoiceAlarm');
    const det = await client.range('AlarmConfig/Deterrence');
    const ch1 = all.get(topicOf(fx, 'nvr', 'ch1'))!.cmps;
    const d = descriptorAt(va, ['channel_info', 'CH1', 'siren_value'])!;
    assert.equal(ch1.siren_volume.min, d.min);
    assert.equal(ch1.siren_volume.max, d.max);
    const t = descriptorAt(va, ['channel_info', 'CH1', 'siren_time'])!;
    assert.deepEqual([ch1.siren_duration.min, ch1.siren_duration.max], [t.min, t.max]);
    const bt = descriptorAt(det, ['channel_info', 'CH1', 'bright_time'])!;
    assert.deepEqual([ch1.floodlight_duration.min, ch1.floodlight_duration.max], [bt.min, bt.max]);
    // Shown as words people say, sending the device's own values.
    assert.deepEqual(selectSends(ch1.floodlight_mode), descriptorAt(det, ['channel_info', 'CH1', 'flood_light_mode'])!.items);
    assert.deepEqual(ch1.floodlight_mode.options, ['Warning light', 'Strobe']);
    assert.deepEqual(selectSends(ch1.siren_tone), descriptorAt(va, ['channel_info', 'CH1', 'siren_type'])!.items);
    // Per-channel option lists differ: proof they are not constants.
    const ch2 = all.get(topicOf(fx, 'nvr', 'ch2'))!.cmps;
    assert.deepEqual(selectSends(ch2.siren_tone), descriptorAt(va, ['channel_info', 'CH2', 'siren_type'])!.items);
    assert.notDeepEqual(ch2.siren_tone.options, ch1.siren_tone.options);
  } finally {
    await client.close();
  }
  const keys = (c: string) => Object.keys(all.get(topicOf(fx, 'nvr', c))!.cmps).sort();
  // Alarm reaction and audio: every row of the page (the table's).
  const FLOOD = keysOn('AlarmConfig/Deterrence');
  const SIREN = keysOn('AlarmConfig/VoiceAlarm');
  const AUDIO = keysOn('DeviceConfig/Audio');
  // Live entities (light, siren, red/blue light) only where the channel's live page has the part.
  const CAMERA = ['camera', 'last_alarm', 'snapshot'];
  // Channel settings: day/night (IR LEDs where the camera has no white light), motion (PIR where it has the sensor),
  // recording, privacy mask; a Wi-Fi battery camera has no image control or privacy mask page.
  const MOTION = keysOn('AlarmConfig/Motion');
  const PIR = keysOn('AlarmConfig/PIR');
  const IMAGE = ['day_night', 'privacy_mask'];
  // "Recording now" (features/recordings/): every online channel the device lists in SystemInfo/Record.
  const CARE = [...MOTION, ...keysOn('RecordConfig'), 'record_state'];
  // The cameras the VoicePrompts page says can play (online, with audio): Speaker, Prompt, Play prompt.
  const SPEAKER = ['speaker', 'prompt', 'play_prompt'];
  // Face recognition (CH1's intelligent_ability lists FD; no channel here reads plates): its entities on CH1 only.
  const FACES = ['recognition', 'last_face', 'last_face_picture'];
  assert.deepEqual(
    keys('ch1'),
    [
      'online',
      'floodlight',
      'siren',
      'red_blue_light',
      ...FLOOD,
      ...SIREN,
      'disarmed',
      ...AUDIO,
      ...CAMERA,
      ...IMAGE,
      ...CARE,
      ...PIR,
      ...SPEAKER,
      ...FACES,
    ].sort(),
  );
  assert.deepEqual(
    keys('ch3'),
    ['online', 'siren', ...SIREN, 'disarmed', ...AUDIO, ...CAMERA, ...IMAGE, 'ir_led', ...CARE, ...SPEAKER].sort(),
    'CH3: siren only, no floodlight (IR LEDs)',
  );
  assert.deepEqual(
    keys('ch4'),
    ['online', 'floodlight', ...FLOOD, 'disarmed', ...AUDIO, ...CAMERA, ...IMAGE, 'white_light', ...CARE, ...SPEAKER].sort(),
    'CH4: no siren; a full-colour camera (white light mode)',
  );
  assert.deepEqual(
    keys('ch2'),
    ['online', 'floodlight', 'siren', ...FLOOD, ...SIREN, 'disarmed', ...CAMERA, ...IMAGE, ...CARE].sort(),
    'CH2: no audio, no red/blue light',
  );
  assert.deepEqual(
    keys('wifi_ch1'),
    ['online', 'siren', ...SIREN, 'disarmed', ...CAMERA, ...CARE, ...PIR, 'firmware_update'].sort(),
    'WIFI_CH1: no floodlight, no audio, no image control',
  );
  assert.deepEqual(
    keys('ip_ch2'),
    ['online', 'restart'],
    'IP_CH2 is offline: Range lists nothing for it (but the NVR lists the IPC it would restart)',
  );
  const sw = all.get(topicOf(fx, 'nvr', 'ch1'))!.cmps.floodlight_on_alarm;
  assert.equal(sw.command_topic, `${fx.base}/nvr/ch1/set/floodlight_on_alarm`);
  // ON / OFF are Home Assistant's defaults for a switch: not repeated in every component.
  assert.ok(!('payload_on' in sw) && !('payload_off' in sw), JSON.stringify(sw));
  assert.equal(all.get(topicOf(fx, 'nvr', 'ch1'))!.cmps.online.p, 'binary_sensor');
});

test("live light, siren and red/blue light: Home Assistant's default payloads, bounds from the live page", async ({ fx }) => {
  const all = configs(fx);
  const ch1 = all.get(topicOf(fx, 'nvr', 'ch1'))!.cmps;
  const sim = fx.sims.get('nvr')!;
  const client = new NvrClient({ url: sim.url, username: 'admin', password: fx.passwords[0], heartbeatMs: 0 });
  let live;
  try {
    live = await client.live('CH1');
  } finally {
    await client.close();
  }
  const light = ch1.floodlight;
  assert.equal(light.p, 'light');
  assert.equal(light.name, 'Floodlight');
  assert.equal(light.command_topic, `${fx.base}/nvr/ch1/set/floodlight`);
  assert.equal(light.brightness_command_topic, `${fx.base}/nvr/ch1/set/floodlight_brightness`);
  // HA sends brightness 1..brightness_scale: the scale is the device's own maximum, so no rescaling is needed.
  assert.equal(light.brightness_scale, live.brightnessRange!.max);
  assert.equal(light.command_template, undefined);
  const siren = ch1.siren;
  assert.equal(siren.p, 'siren');
  assert.equal(siren.name, 'Siren');
  assert.equal(siren.command_topic, `${fx.base}/nvr/ch1/set/siren`);
  assert.equal(siren.command_template, undefined, 'HA sends its default JSON {"state":"ON",...}');
  assert.equal(siren.support_duration, true);
  assert.equal(siren.support_volume_set, true);
  assert.equal(ch1.red_blue_light.p, 'switch');
  assert.equal(ch1.red_blue_light.name, 'Red/blue light');
  // The battery camera's siren has a fixed volume: no volume offered.
  assert.equal(all.get(topicOf(fx, 'nvr', 'wifi_ch1'))!.cmps.siren.support_volume_set, false);
  // CH4 has a floodlight and no siren; its light still dims.
  const ch4 = all.get(topicOf(fx, 'nvr', 'ch4'))!.cmps;
  assert.ok(ch4.floodlight.brightness_command_topic);
  assert.equal(ch4.siren, undefined);
  // The connectivity sensor is not tied to the channel's own availability: it is what reports it.
  assert.deepEqual(
    ch1.online.avty.map((a: Json) => a.t),
    [`${fx.base}/bridge/state`, `${fx.base}/nvr/availability`],
  );
});

test('an Offline channel keeps its device, shown unavailable; an empty slot publishes nothing', async ({ fx }) => {
  const r = fx.recorder;
  assert.deepEqual(r.lastJson(`${fx.base}/nvr/ip_ch2/availability`), { state: 'offline' });
  assert.deepEqual(r.lastJson(`${fx.base}/nvr/ch1/availability`), { state: 'online' });
  assert.ok(configs(fx).get(topicOf(fx, 'nvr', 'ip_ch2')));
  // This bridge's topics only: a shared broker may hold other clients' retained `.../ip_ch3` topics.
  const ours = (topic: string) => topic.startsWith(`${fx.base}/`) || topic.startsWith(`${fx.prefix}/`);
  assert.ok(!r.messages.some((m) => ours(m.topic) && m.topic.includes('ip_ch3')), 'nothing at all for IP_CH3');
});

test('a single-channel camera is one Home Assistant device', ({ fx }) => {
  const all = configs(fx);
  const cam = all.get(topicOf(fx, 'cam'))!;
  assert.ok(![...all.keys()].some((t) => t.includes(`${node(fx, 'cam')}_`)), 'no channel device for the IPC');
  assert.equal(cam.cmps.disarmed.p, 'alarm_control_panel');
  assert.equal(cam.cmps.ch1_floodlight_on_alarm.p, 'switch');
  assert.equal(cam.cmps.ch1_floodlight_on_alarm.state_topic, `${fx.base}/cam/ch1`);
  assert.equal(cam.cmps.ch1_siren_on_alarm.command_topic, `${fx.base}/cam/ch1/set/siren_on_alarm`);
});

test('Home Assistant birth message: discovery again, then state after a short delay', async ({ fx }) => {
  const since = fx.recorder.count;
  await fx.recorder.publish(`${fx.prefix}/status`, 'online');
  const disc = await fx.recorder.waitFor((m) => m.topic === topicOf(fx, 'nvr', 'ch1'), 3000, since);
  const state = await fx.recorder.waitFor((m) => m.topic === `${fx.base}/nvr/ch1`, 3000, since);
  assert.ok(state.at >= disc.at);
  const after = fx.recorder.messages.slice(since);
  const lastDiscovery = Math.max(...after.filter((m) => m.topic.startsWith(`${fx.prefix}/`)).map((m) => fx.recorder.messages.indexOf(m)));
  const firstState = Math.min(...after.filter((m) => m.topic.startsWith(`${fx.base}/nvr/`)).map((m) => fx.recorder.messages.indexOf(m)));
  assert.ok(lastDiscovery < firstState, 'every config before any state');
  assert.equal(after.filter((m) => m.topic.startsWith(`${fx.prefix}/device/`)).length, 9);
  // offline status does nothing
  const s2 = fx.recorder.count;
  await fx.recorder.publish(`${fx.prefix}/status`, 'offline');
  await settle(fx);
  assert.equal(fx.recorder.messages.slice(s2).filter((m) => m.topic.startsWith(`${fx.prefix}/device/`)).length, 0);
});

test('no ghosts: removed devices, channels and entities are cleared after a restart', async ({ fx }) => {
  await fx.bridge.stop();
  // Restart with the camera gone and the recorder reduced to CH1: channel devices disappear, CH1 merges
  // into the recorder device.
  let since = fx.recorder.count;
  await fx.restartBridge(fx.makeConfig([{ id: 'nvr', channels: ['CH1'] }]));
  const camConfig = await fx.recorder.waitFor((m) => m.topic === topicOf(fx, 'cam') && m.payload === '', 5000, since, 'cam config cleared');
  // The removed camera's retained state and availability go after its discovery, once Home Assistant dropped its
  // entities (each cleared topic read by a live entity would be a template error there).
  const camState = await fx.recorder.waitFor((m) => m.topic === `${fx.base}/cam` && m.payload === '', 5000, since, 'cam state cleared');
  const camAvailability = await fx.recorder.waitFor(
    (m) => m.topic === `${fx.base}/cam/availability` && m.payload === '',
    5000,
    since,
    'cam availability cleared',
  );
  for (const cleared of [camState, camAvailability]) {
    assert.ok(fx.recorder.messages.indexOf(cleared) > fx.recorder.messages.indexOf(camConfig), `${cleared.topic} after the config`);
    assert.ok(cleared.at - camConfig.at >= 800, `${cleared.topic} ${cleared.at - camConfig.at} ms after the config`);
  }
  for (const c of ['ch2', 'ch3', 'ch4', 'ip_ch1', 'ip_ch2', 'wifi_ch1', 'ch1']) {
    await fx.recorder.waitFor((m) => m.topic === topicOf(fx, 'nvr', c) && m.payload === '', 5000, since, `${c} cleared`);
  }
  const rec = await fx.recorder.waitFor(
    (m) => m.topic === topicOf(fx, 'nvr') && m.payload.includes('ch1_floodlight_on_alarm'),
    5000,
    since,
  );
  assert.ok((json(rec).cmps as Json).ch1_siren_on_alarm);
  await settle(fx);
  assert.deepEqual([...configs(fx).keys()], [topicOf(fx, 'nvr')]);

  // Back to all channels: CH1's entities leave the recorder device, sent once as {"p": ...} (removal).
  await fx.bridge.stop();
  since = fx.recorder.count;
  await fx.restartBridge(fx.makeConfig([{ id: 'nvr' }]));
  const back = await fx.recorder.waitFor((m) => m.topic === topicOf(fx, 'nvr') && !!m.payload, 5000, since);
  const cmps = json(back).cmps as Json;
  assert.deepEqual(cmps.ch1_floodlight_on_alarm, { p: 'switch' });
  assert.deepEqual(cmps.ch1_siren_volume, { p: 'number' });
  await fx.recorder.waitFor((m) => m.topic === topicOf(fx, 'nvr', 'ch1') && !!m.payload, 5000, since);
});

test('discovery switched off: the configs of earlier runs are removed, none published', async ({ fx }) => {
  await fx.bridge.stop();
  const since = fx.recorder.count;
  const config = fx.makeConfig([{ id: 'nvr' }, { id: 'cam' }]);
  await fx.restartBridge({ ...config, homeassistant: { ...config.homeassistant, enabled: false } });
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch1`, () => true, 5000, since);
  await settle(fx);
  assert.deepEqual([...configs(fx).keys()], []);
  assert.ok(!fx.recorder.messages.slice(since).some((m) => m.topic.startsWith(`${fx.prefix}/`) && m.payload), 'no config published');
});

test.run();

const many = suite('bridge discovery: what earlier runs left retained');

many('every retained config is read before the bridge decides what is a ghost, however many: 3,000 of 2 KB', async () => {
  // A fixed window to listen for them (the bridge had one) ends before a busy broker has sent them all, and every
  // config it missed stayed behind as a ghost.
  const broker = await startTestBroker();
  const { base, prefix } = uniqueTopics('retained');
  const rec = await Recorder.start(broker.url, [`${prefix}/#`]);
  const link = new MqttLink({ url: broker.url, log: createLogger({ level: 'error' }), protocolVersion: broker.external ? 5 : 4 });
  try {
    const payload = JSON.stringify({ o: { name: 'nvr2mqtt' }, pad: 'x'.repeat(2000) });
    const topics = Array.from({ length: 3000 }, (_, i) => `${prefix}/device/old_${i}/config`);
    await Promise.all(topics.map((t) => rec.publish(t, payload, { retain: true })));
    await link.waitConnected();
    const read = new Set<string>();
    await link.readRetained([`${prefix}/device/+/config`], `${base}/bridge/ping`, (topic) => read.add(topic));
    assert.equal(read.size, topics.length);
  } finally {
    await link.end();
    await clearRetained(broker.url, [prefix]);
    await rec.stop();
    await broker.stop();
  }
});

many.run();

const slow = suite('bridge discovery: slow first reads');

slow("a recorder's discovery goes out once at start-up when its cameras' firmware read is slow", async () => {
  // The cameras' versions (IPCUpgrade/Get) add each camera's update entity: read 3 s after the rest (twice the quiet
  // time a device's changes are gathered for), they made every config of the recorder go out a second time.
  const fx = await setup({
    label: 'slowfw',
    devices: [{ id: 'nvr', events: false }],
    bridge: { deviceTimeoutMs: 8000 },
    beforeBridge: (sims) => sims.get('nvr')!.fault({ path: /IPCUpgrade\/Get$/, kind: 'latency', ms: 3000, times: 1 }),
  });
  try {
    const widened = await fx.recorder.waitTopic(topicOf(fx, 'nvr', 'wifi_ch1'), (j) => 'firmware_update' in (j.cmps as object), 15_000);
    await settle(fx);
    const counts = new Map<string, number>();
    for (const m of fx.recorder.on((t) => t.startsWith(`${fx.prefix}/device/`)))
      if (m.payload) counts.set(m.topic, (counts.get(m.topic) ?? 0) + 1);
    assert.ok(counts.size >= 8, `${counts.size} configs`);
    for (const [topic, n] of counts) assert.equal(n, 1, `${topic} published ${n} times`);
    // The read was slow (the configs waited for it), not skipped.
    const firstRequest = fx.sims.get('nvr')!.log[0].time;
    assert.ok(widened.at - firstRequest >= 2900, `configs ${widened.at - firstRequest} ms after the first request`);
  } finally {
    await fx.stop();
  }
});

slow.run();
