/**
 * Device events end to end (real broker, real simulator, the bridge): alarms to MQTT at once without a poll,
 * edges on `<ch>/event`, the clear timer, entities only for what a channel can raise, the `event` entity, live
 * light from the device's own alarm reaction, disk problems, and what it all costs the device at idle.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { ALARM_TYPES } from '../../core';
import { runDemo } from '../../bridge/app/demo';
import { Recorder } from '../helpers/mqtt-broker';
import { json, pollsSince, settle, setup, until, type Fixture } from './fixture';
import { deviceDiscoveryProblems } from './homeassistant';

const test = suite<{ fx: Fixture }>('bridge events');

test.before(async (ctx) => {
  // Polls far apart: whatever arrives within seconds came from the event stream.
  ctx.fx = await setup({
    label: 'events',
    devices: [
      { id: 'nvr', poll: 600, alarmClearAfter: 1.5 },
      { id: 'off', poll: 600, events: false },
    ],
  });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/ch1`, (j) => j.person === false, 5000);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

const configOf = (fx: Fixture, slug: string) =>
  json(fx.recorder.last(`${fx.prefix}/device/${fx.base}_nvr_${slug}/config`)) as { cmps: Record<string, Record<string, unknown>> };

test('person on CH1: person true and an edge at once, without a poll; its end: false', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const at = sim.log.length;
  let since = r.count;
  const t0 = Date.now();
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true });
  const state = await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.person === true, 3000, since);
  const edge = await r.waitTopic(`${fx.base}/nvr/ch1/event`, (j) => j.type === 'person', 3000, since);
  assert.ok(state.at - t0 <= 1500, `person: true after ${state.at - t0} ms`);
  assert.equal(pollsSince(sim, at), 0, 'no poll in between');
  const e = json(edge);
  assert.equal(e.active, true);
  assert.match(String(e.time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/, 'the device time, ISO 8601');
  assert.deepEqual(Object.keys(e).sort(), ['active', 'time', 'type']);
  assert.equal(edge.retain, false, 'edges are not retained');
  assert.ok(r.messages.indexOf(state) < r.messages.indexOf(edge), 'state first, then the edge');
  assert.equal(json(state).motion, false, 'the other alarms stay off');

  since = r.count;
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: false });
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.person === false, 3000, since);
  const end = json(await r.waitTopic(`${fx.base}/nvr/ch1/event`, (j) => j.type === 'person', 3000, since));
  assert.equal(end.active, false);
  assert.equal(end.timed_out, undefined);
  assert.equal(pollsSince(sim, at), 0);
});

test('an alarm whose end never comes is cleared after alarm_clear_after', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const since = r.count;
  const raised = Date.now();
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  const on = await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.motion === true, 3000, since);
  const off = await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.motion === false, 4000, since);
  // From the raise (the bridge cannot have seen it earlier): the arrival of `on` here may lag behind the bridge's own
  // time by what this process does meanwhile (the simulator drawing the alarm's picture).
  assert.ok(off.at - raised >= 1500, `cleared ${off.at - raised} ms after the alarm was raised (alarm_clear_after 1.5 s)`);
  assert.ok(off.at - on.at >= 1000, `cleared ${off.at - on.at} ms after it was seen on`);
  const edge = json(await r.waitTopic(`${fx.base}/nvr/ch2/event`, (j) => j.active === false, 1000, since));
  assert.deepEqual(edge, { type: 'motion', active: false, timed_out: true });
  // The device's late end changes nothing more.
  const after = r.count;
  const stream = fx.bridge.devices.get('nvr')!.events!;
  const received = stream.received;
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
  await until(() => stream.received > received, 'the late end received', 3000);
  await settle(fx);
  assert.deepEqual(
    r.messages
      .slice(after)
      .filter((m) => m.topic.startsWith(`${fx.base}/nvr/ch2`))
      .map((m) => m.payload),
    [],
  );
});

test('entities only for the alarms a channel can raise; one event entity per channel; none for an empty slot', ({ fx }) => {
  const ch1 = configOf(fx, 'ch1').cmps;
  const ch2 = configOf(fx, 'ch2').cmps;
  for (const key of ['motion', 'pir', 'person', 'motor_vehicle', 'line_crossing', 'intrusion', 'face', 'video_loss', 'io']) {
    assert.equal(ch1[key]?.p, 'binary_sensor', `CH1 ${key}`);
  }
  // Person and vehicle have sensors of their own: no third one saying "person or vehicle" (its key stays in the state).
  assert.equal(ch1.vehicle, undefined);
  assert.equal(json(fx.recorder.last(`${fx.base}/nvr/ch1`)).vehicle, false);
  assert.equal(ch1.motor_vehicle.name, 'Vehicle');
  assert.equal(ch1.person.device_class, 'occupancy');
  assert.equal(ch1.motion.device_class, 'motion');
  assert.equal(ch1.line_crossing.name, 'Line crossing');
  assert.equal(ch1.person.name, 'Person');
  assert.equal(ch1.person.state_topic, `${fx.base}/nvr/ch1`);
  assert.equal(ch2.motion.p, 'binary_sensor');
  for (const key of ['person', 'pir', 'line_crossing', 'face']) assert.equal(ch2[key], undefined, `CH2 cannot raise ${key}`);
  const ev = ch1.event;
  assert.equal(ev.p, 'event');
  assert.equal(ev.state_topic, `${fx.base}/nvr/ch1/event`);
  // Every alarm the channel can report, known before the first of them: its alarm keys (the state's), and the types
  // the firmware reports without a capability naming them.
  const stateKeys = Object.keys(json(fx.recorder.last(`${fx.base}/nvr/ch1`))).filter((k) => k in ALARM_TYPES);
  const seenOnly = Object.entries(ALARM_TYPES)
    .filter(([, t]) => t.able.by === 'seen')
    .map(([k]) => k);
  assert.deepEqual([...(ev.event_types as string[])].sort(), [...stateKeys, ...seenOnly].sort(), 'event_types: every alarm it can report');
  assert.deepEqual(deviceDiscoveryProblems(configOf(fx, 'ch1')), []);
  // IP_CH3 is an empty slot: no alarm sensors, no event entity.
  const ch7 = fx.recorder.lastJson<{ cmps: Record<string, { p: string }> }>(`${fx.prefix}/device/${fx.base}_nvr_ip_ch3/config`);
  for (const k of Object.keys(ch7?.cmps ?? {})) assert.ok(!(k in ALARM_TYPES) && k !== 'event', `IP_CH3 has ${k}`);
  assert.equal(fx.recorder.last(`${fx.base}/nvr/ip_ch3`), undefined, 'an empty slot has no state topic');
  // A device with events off: no alarm entities, no alarm keys.
  const off = json(fx.recorder.last(`${fx.prefix}/device/${fx.base}_off_ch1/config`)) as { cmps: Record<string, unknown> };
  assert.equal(off.cmps.motion, undefined);
  assert.equal(off.cmps.event, undefined);
  assert.equal(json(fx.recorder.last(`${fx.base}/off/ch1`)).motion, undefined);
  assert.equal(json(fx.recorder.last(`${fx.base}/off`)).disk_problem, undefined);
});

test('the event entity renders a start to an event and ignores an end (the template Home Assistant runs)', ({ fx }) => {
  const tpl = String(configOf(fx, 'ch1').cmps.event.value_template);
  assert.match(tpl, /value_json\.active/);
  assert.match(tpl, /'event_type': value_json\.type/);
  assert.match(tpl, /to_json/);
});

test("the device's own alarm reaction switches the floodlight on: floodlight true at once", async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const at = sim.log.length;
  const since = r.count;
  sim.state['AlarmConfig/Deterrence'].channel_info!.CH4.flood_light_switch = true;
  sim.raiseAlarm({ channel: 'CH4', type: 'motion', active: true });
  await r.waitTopic(`${fx.base}/nvr/ch4`, (j) => j.floodlight === true && j.motion === true, 3000, since);
  sim.raiseAlarm({ channel: 'CH4', type: 'motion', active: false });
  await r.waitTopic(`${fx.base}/nvr/ch4`, (j) => j.floodlight === false && j.motion === false, 3000, since);
  // The siren switched by the device itself (sim.setLive: a Floodlight_AudioAlarm entry).
  sim.setLive('CH2', { audioAlarm_switch: true });
  await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.siren === true, 3000, since);
  assert.equal(pollsSince(sim, at), 0, 'no poll in between');
});

test('a disk alarm: disk_problem true; the disk Ok again: false; the entity is a diagnostic problem sensor', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const since = r.count;
  assert.equal(json(r.last(`${fx.base}/nvr`)).disk_problem, false);
  sim.raiseDiskAlarm({ ok: false, info: 'NoDisk' });
  await r.waitTopic(`${fx.base}/nvr`, (j) => j.disk_problem === true, 3000, since);
  sim.raiseDiskAlarm({ ok: true });
  await r.waitTopic(`${fx.base}/nvr`, (j) => j.disk_problem === false, 3000, since);
  const rec = json(r.last(`${fx.prefix}/device/${fx.base}_nvr/config`)) as { cmps: Record<string, Record<string, unknown>> };
  assert.equal(rec.cmps.disk_problem.p, 'binary_sensor');
  assert.equal(rec.cmps.disk_problem.device_class, 'problem');
  assert.equal(rec.cmps.disk_problem.entity_category, 'diagnostic');
  assert.deepEqual(deviceDiscoveryProblems(rec), []);
});

/** Discovery configs of the recorder `nvr` published since recorder index `since`, as Home Assistant reads them. */
const configsSince = (fx: Fixture, since: number) =>
  fx.recorder.messages
    .slice(since)
    .filter((m) => m.topic.startsWith(`${fx.prefix}/device/${fx.base}_nvr`) && m.payload)
    .map((m) => ({
      at: m.at,
      index: fx.recorder.messages.indexOf(m),
      topic: m.topic,
      doc: json(m) as { cmps: Record<string, Record<string, unknown>> },
    }));

test('the first alarm of a type the channel never reported: the event entity lists it already, its sensor comes before its state', async ({
  fx,
}) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const topic = `${fx.prefix}/device/${fx.base}_nvr_ch1/config`;
  assert.ok((configOf(fx, 'ch1').cmps.event.event_types as string[]).includes('avd'), 'announced before any');
  assert.equal(configOf(fx, 'ch1').cmps.avd, undefined, 'no sensor before the device reported one');
  const since = r.count;
  sim.raiseAlarm({ channel: 'CH1', type: 'avd', active: true });
  const edge = await r.waitTopic(`${fx.base}/nvr/ch1/event`, (j) => j.type === 'avd', 5000, since);
  const state = r.messages.slice(since).find((m) => m.topic === `${fx.base}/nvr/ch1` && json(m).avd === true)!;
  assert.ok(state, 'the state says so');
  // As Home Assistant receives them: the config with the sensor, then (after it had the time to set it up) the state.
  const config = configsSince(fx, since).find((c) => c.topic === topic && c.doc.cmps.avd);
  assert.ok(config, 'the sensor announced');
  assert.equal(config.doc.cmps.avd.p, 'binary_sensor');
  assert.equal(config.doc.cmps.avd.name, 'Video anomaly');
  assert.ok((config.doc.cmps.event.event_types as string[]).includes('avd'));
  const stateAt = r.messages.indexOf(state);
  assert.ok(config.index < stateAt && stateAt < r.messages.indexOf(edge), 'config, state, edge');
  assert.ok(state.at - config.at >= 800, `the state ${state.at - config.at} ms after the sensor's config`);
  sim.raiseAlarm({ channel: 'CH1', type: 'avd', active: false });
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.avd === false, 5000, since);
});

test('a restart forgets nothing: the same entities announced again, none removed (the avd sensor learned before stays)', async ({ fx }) => {
  const r = fx.recorder;
  // What Home Assistant holds now: the retained configs.
  const before = new Map<string, string[]>();
  for (const c of configsSince(fx, 0))
    before.set(
      c.topic,
      Object.keys(c.doc.cmps)
        .filter((k) => Object.keys(c.doc.cmps[k]).length > 1)
        .sort(),
    );
  assert.ok(before.get(`${fx.prefix}/device/${fx.base}_nvr_ch1/config`)!.includes('avd'));
  await fx.bridge.stop();
  const since = r.count;
  await fx.restartBridge();
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.online === true, 10_000, since);
  await settle(fx);
  const after = configsSince(fx, since);
  assert.ok(after.length >= before.size, 'every config announced again');
  for (const c of after) {
    const removed = Object.entries(c.doc.cmps).filter(([, cmp]) => Object.keys(cmp).length === 1);
    assert.deepEqual(removed, [], `${c.topic}: nothing removed`);
  }
  const cleared = r.messages.slice(since).filter((m) => m.topic.startsWith(`${fx.prefix}/device/`) && !m.payload);
  assert.deepEqual(
    cleared.map((m) => m.topic),
    [],
    'no config cleared',
  );
  const now = new Map<string, string[]>();
  for (const c of after) now.set(c.topic, Object.keys(c.doc.cmps).sort());
  assert.deepEqual(now, before, 'the same entities, device by device');
  // Its state key is back as well (false until the next one).
  assert.equal(json(r.last(`${fx.base}/nvr/ch1`)).avd, false);
});

test.run();

const idle = suite('bridge events: cost and demo');

idle('at idle, polls and event checks together cost the device at most 1.5 requests a second (defaults)', async () => {
  // Default poll interval and event interval: measured between two poll starts, so the window holds one poll.
  const fx = await setup({ label: 'idle', devices: [{ id: 'nvr', poll: null }], bridge: { deviceTimeoutMs: 10_000 } });
  try {
    const sim = fx.sims.get('nvr')!;
    const pollStarts = () => sim.log.filter((e) => e.path.endsWith('/ChannelInfo/Get')).map((e) => e.time);
    const first = pollStarts().length;
    await until(() => pollStarts().length >= first + 2, 'two more polls', 40_000);
    const [t0, t1] = pollStarts().slice(first, first + 2);
    const window = sim.log.filter((e) => e.time >= t0 && e.time < t1);
    const perSecond = (window.length * 1000) / (t1 - t0);
    const checks = window.filter((e) => e.path === '/API/Event/Check').length;
    assert.ok(t1 - t0 >= 14_000, `polls ${t1 - t0} ms apart (default 15 s with events on)`);
    assert.ok(checks >= ((t1 - t0) / 1000) * 0.9, `${checks} event checks in ${t1 - t0} ms: the stream runs`);
    assert.ok(perSecond <= 1.5, `${perSecond.toFixed(2)} requests/s (${window.length} in ${t1 - t0} ms)`);
    // Live changes arrive as events: the live pages are read at load, not on every poll.
    assert.deepEqual(
      window.filter((e) => e.path.includes('Floodlight2AudioAlarm')).map((e) => e.path),
      [],
    );
  } finally {
    await fx.stop();
  }
});

idle('the demo raises alarms now and then: alarm sensors flip on and off, edges go out', async () => {
  const demo = await runDemo({ port: 0, alarmEveryMs: 400, changeEveryMs: 0, out: () => undefined, logLevel: 'warn' });
  const rec = await Recorder.start(demo.brokerUrl, ['nvr2mqtt/demo_nvr/+', 'nvr2mqtt/demo_nvr/+/event']);
  try {
    const isAlarmKey = (k: string) => k in ALARM_TYPES;
    const on = await rec.waitFor(
      (m) =>
        /^nvr2mqtt\/demo_nvr\/[a-z_0-9]+$/.test(m.topic) &&
        m.payload.startsWith('{') &&
        Object.entries(JSON.parse(m.payload) as Record<string, unknown>).some(([k, v]) => isAlarmKey(k) && v === true),
      8000,
      0,
      'an alarm key true',
    );
    const topic = on.topic;
    const key = Object.entries(JSON.parse(on.payload) as Record<string, unknown>).find(([k, v]) => isAlarmKey(k) && v === true)![0];
    await rec.waitTopic(topic, (j) => j[key] === false, 8000, rec.messages.indexOf(on));
    await rec.waitTopic(`${topic}/event`, (j) => j.type === key && j.active === true, 8000);
  } finally {
    await rec.stop();
    await demo.stop();
  }
});

idle.run();
