/**
 * Alarm outputs (ManualAlarm) as Home Assistant switches: the names the device lists, the recorder's on the recorder,
 * a camera's on its channel; state keys in `<base>/<dev>`; `set/alarm_output_<slug>` switches one output (the Set
 * carries only it), confirmed by the read-back; malformed and impossible commands are refused with nothing sent; an
 * offline device refuses; with events the outputs take a turn among the settings pages (no extra request per poll).
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, pollsSince, setup, until, waitEvent, type Fixture } from './fixture';
import { componentProblems } from './homeassistant';

type Json = Record<string, any>;
const test = suite<{ fx: Fixture }>('bridge alarm outputs');
const MANUAL = '/API/PreviewChannel/ManualAlarm';

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'aout',
    devices: [
      { id: 'nvr', poll: 0.3 },
      { id: 'dead', poll: 0.2 },
    ],
    noWait: true,
  });
  const { fx } = ctx;
  await Promise.all(['nvr', 'dead'].map((id) => fx.recorder.waitTopic(`${fx.base}/${id}/availability`, (j) => j.state === 'online', 8000)));
  await fx.recorder.waitTopic(`${fx.base}/nvr`, (j) => j.alarm_output_local_1 === false, 5000);
  await fx.sims.get('dead')!.stop();
  await fx.recorder.waitTopic(`${fx.base}/dead/availability`, (j) => j.state === 'offline', 8000);
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
const manualSets = (fx: Fixture, since: number) =>
  fx.sims
    .get('nvr')!
    .log.slice(since)
    .filter((e) => e.path === `${MANUAL}/Set`);

test('the outputs the device lists: state keys, switches on the recorder and on the camera, valid for Home Assistant', ({ fx }) => {
  // The simulated NVR lists two outputs of its own and one per online IP camera with an output.
  const state = json(fx.recorder.last(`${fx.base}/nvr`)) as Json;
  const keys = Object.keys(state).filter((k) => k.startsWith('alarm_output_'));
  for (const key of ['alarm_output_local_1', 'alarm_output_local_2', 'alarm_output_ip_ch1_1'])
    assert.equal(typeof state[key], 'boolean', `${key} in the device state (${keys.join()})`);
  const rec = cmps(fx, 'nvr')!;
  const local = rec.alarm_output_local_1;
  assert.deepEqual(local, {
    p: 'switch',
    name: 'Alarm output 1',
    unique_id: `${node(fx, 'nvr')}_alarm_output_local_1`,
    state_topic: `${fx.base}/nvr`,
    value_template:
      '{% if value_json.alarm_output_local_1 is not defined %}None{% elif value_json.alarm_output_local_1 %}ON{% else %}OFF{% endif %}',
    command_topic: `${fx.base}/nvr/set/alarm_output_local_1`,
    icon: 'mdi:electric-switch',
  });
  assert.equal(rec.alarm_output_ip_ch1_1, undefined, "a camera's output is not on the recorder");
  const cam = cmps(fx, 'nvr', 'ip_ch1')!.alarm_output_ip_ch1_1;
  assert.equal(cam.name, 'Camera alarm output 1', 'named as the camera numbers it, on its own device');
  assert.equal(cam.command_topic, `${fx.base}/nvr/set/alarm_output_ip_ch1_1`);
  assert.equal(cam.state_topic, `${fx.base}/nvr`);
  for (const [id, c] of [
    ['alarm_output_local_1', local],
    ['alarm_output_ip_ch1_1', cam],
  ] as const)
    assert.deepEqual(componentProblems(id, c), [], id);
});

test('ON switches the output: the Set carries that output only, the state read back is published; OFF again', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  const before = sim.log.length;
  await fx.recorder.publish(`${fx.base}/nvr/set/alarm_output_local_1`, 'ON');
  await fx.recorder.waitTopic(`${fx.base}/nvr`, (j) => j.alarm_output_local_1 === true, 3000, since);
  assert.deepEqual(
    manualSets(fx, before).map((e) => e.data),
    [{ 'Local->1': true }],
  );
  assert.equal((sim.state as any)['PreviewChannel/ManualAlarm']['Local->1'], true);
  const off = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/set`, JSON.stringify({ alarm_output_ip_ch1_1: true, alarm_output_local_1: 'off' }));
  await fx.recorder.waitTopic(`${fx.base}/nvr`, (j) => j.alarm_output_local_1 === false && j.alarm_output_ip_ch1_1 === true, 3000, off);
  assert.equal((sim.state as any)['PreviewChannel/ManualAlarm']['IP_CH1->1'], true);
  const toggle = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/set/alarm_output_ip_ch1_1`, 'TOGGLE');
  await fx.recorder.waitTopic(`${fx.base}/nvr`, (j) => j.alarm_output_ip_ch1_1 === false, 3000, toggle);
});

test('refused with nothing sent: a malformed payload, an output the device does not list, a channel topic, an offline device', async ({
  fx,
}) => {
  const sim = fx.sims.get('nvr')!;
  const before = sim.log.length;
  const cases: Array<[string, string, RegExp]> = [
    [`${fx.base}/nvr/set/alarm_output_local_1`, 'maybe', /must be ON, OFF, TOGGLE, true or false/],
    [`${fx.base}/nvr/set/alarm_output_local_1`, '{"on": 1}', /must be ON, OFF/],
    [
      `${fx.base}/nvr/set/alarm_output_local_9`,
      'ON',
      /has no alarm output alarm_output_local_9 \(it has alarm_output_ip_ch1_1, alarm_output_local_1, /,
    ],
    [`${fx.base}/nvr/ip_ch1/set/alarm_output_ip_ch1_1`, 'ON', /is a device key/],
    [`${fx.base}/dead/set/alarm_output_local_1`, 'ON', /device dead is offline/],
  ];
  for (const [topic, payload, reason] of cases) {
    const since = fx.recorder.count;
    await fx.recorder.publish(topic, payload);
    const e = await waitEvent(fx, 'command_refused', (d) => d.topic === topic, since);
    assert.match(String(e.reason), reason, `${topic} ${payload}`);
  }
  assert.deepEqual(manualSets(fx, before), [], 'no ManualAlarm Set');
});

test('a camera going offline keeps its switch (unavailable with it), its state key goes, a command is refused', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  sim.setOnline('IP_CH1', false);
  await fx.recorder.waitTopic(
    `${fx.base}/nvr`,
    (j) => j.alarm_output_ip_ch1_1 === undefined && j.alarm_output_local_1 !== undefined,
    3000,
    since,
  );
  const before = sim.log.length;
  const topic = `${fx.base}/nvr/set/alarm_output_ip_ch1_1`;
  await fx.recorder.publish(topic, 'ON');
  const e = await waitEvent(fx, 'command_refused', (d) => d.topic === topic, since);
  assert.match(String(e.reason), /does not list IP_CH1->1 now \(camera IP_CH1 is offline\)/);
  assert.deepEqual(manualSets(fx, before), []);
  const removed = fx.recorder.messages
    .slice(since)
    .filter((m) => m.topic.endsWith('_nvr_ip_ch1/config') && !m.payload.includes('alarm_output_ip_ch1_1'));
  assert.deepEqual(removed, [], 'no discovery without the switch');
  const back = fx.recorder.count;
  sim.setOnline('IP_CH1', true);
  await fx.recorder.waitTopic(`${fx.base}/nvr`, (j) => typeof j.alarm_output_ip_ch1_1 === 'boolean', 3000, back);
});

test('with events, the outputs take a turn among the settings pages: no extra request per poll; a change shows within a few polls', async ({
  fx,
}) => {
  const sim = fx.sims.get('nvr')!;
  const before = sim.log.length;
  await until(() => pollsSince(sim, before) >= 12, '12 polls', 8000);
  const log = sim.log.slice(before);
  const polls = pollsSince(sim, before);
  const gets = log.filter((e) => e.path === `${MANUAL}/Get`).length;
  const settings = log.filter((e) => /(ImageControl|Motion|PIR|RecordConfig|VideoCover)\/Get$/.test(e.path)).length;
  console.log(`  ${gets} ManualAlarm reads and ${settings} settings page reads in ${polls} polls (${log.length} requests)`);
  assert.ok(gets >= 1 && gets <= Math.ceil(polls / 4), `${gets} ManualAlarm reads in ${polls} polls`);
  assert.ok(gets + settings <= polls + 1, 'one settings-or-outputs read per poll');
  // A change on the device (another client, an alarm's linkage) shows within a rotation.
  const since = fx.recorder.count;
  (sim.state as any)['PreviewChannel/ManualAlarm']['Local->2'] = true;
  await fx.recorder.waitTopic(`${fx.base}/nvr`, (j) => j.alarm_output_local_2 === true, 5000, since);
});

test.run();
