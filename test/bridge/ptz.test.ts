/**
 * PTZ through the bridge, against a real broker and the simulator: only the channel whose channel list reports a PTZ
 * ability gets a "Preset" select (its stored presets by name) and move/zoom buttons; `set/ptz` and `set/ptz_preset`
 * reach the device as the vendor's Control bodies (a move: Start, then Stop after the duration; a preset:
 * CallPreset); malformed and out-of-range payloads are refused on bridge/event and send nothing; presets stored on
 * the device are picked up (a preset asked for by a name not known yet is read again at once).
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { PTZ_MOVE_NAMES, PTZ_MOVES } from '../../core';
import { json, settle, setup, until, waitEvent, type Fixture } from './fixture';

const test = suite('bridge: PTZ');
const ctx: { fx: Fixture } = {} as never;
const CONTROL = '/API/PreviewChannel/PTZ/Control';

test.before(async () => {
  ctx.fx = await setup({ label: 'ptz', devices: [{ id: 'nvr', poll: 0.3 }] });
});
test.after(() => ctx.fx.stop());

const sim = () => ctx.fx.sims.get('nvr')!;
const controls = (since = 0) =>
  sim()
    .log.slice(since)
    .filter((e) => e.path === CONTROL)
    .map((e): Record<string, any> => ({ ...(e.data as Record<string, unknown>), at: e.time, status: e.status }));
const cmps = async (slug: string, pred: (c: Record<string, Record<string, unknown>>) => boolean = () => true) => {
  const { fx } = ctx;
  const m = await fx.recorder.waitTopic(`${fx.prefix}/device/${fx.base}_nvr_${slug}/config`, (j) => pred((j.cmps ?? {}) as never), 5000);
  return (json(m) as { cmps: Record<string, Record<string, unknown>> }).cmps;
};

test('only the PTZ channel (IP_CH1) gets the Preset select and the move/zoom buttons; its offer on <ch>/ptz', async () => {
  const { fx } = ctx;
  const c = await cmps('ip_ch1', (x) => x.ptz_preset !== undefined);
  assert.deepEqual(c.ptz_preset.options, ['Gate', 'Driveway', 'Garden']);
  assert.equal(c.ptz_preset.p, 'select');
  assert.equal(c.ptz_preset.command_topic, `${fx.base}/nvr/ip_ch1/set/ptz_preset`);
  assert.equal(c.ptz_preset.state_topic, `${fx.base}/nvr/ip_ch1/ptz`);
  assert.deepEqual(
    Object.keys(c).filter((k) => k.startsWith('ptz_') && k !== 'ptz_preset'),
    [...PTZ_MOVE_NAMES.filter((m) => 'button' in PTZ_MOVES[m]).map((m) => `ptz_${m}`), 'ptz_stop'],
  );
  // Zoom is rarely wanted from a dashboard: announced disabled (Reolink does the same); Stop beside the moves.
  assert.deepEqual(
    [c.ptz_zoom_in.enabled_by_default, c.ptz_zoom_out.enabled_by_default, c.ptz_left.enabled_by_default],
    [false, false, undefined],
  );
  assert.deepEqual([c.ptz_stop.name, c.ptz_stop.enabled_by_default], ['PTZ stop', undefined]);
  assert.equal(c.ptz_left.p, 'button');
  assert.equal(c.ptz_left.command_topic, `${fx.base}/nvr/ip_ch1/set/ptz`);
  assert.equal(c.ptz_left.payload_press, '{"move":"left"}');
  const offer = json(await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/ptz`));
  assert.deepEqual(offer.presets, [
    { no: 1, name: 'Gate' },
    { no: 2, name: 'Driveway' },
    { no: 3, name: 'Garden' },
  ]);
  assert.deepEqual(offer.speed, { min: 0, max: 100 });
  assert.equal(offer.preset, null);
  for (const slug of ['ch1', 'ch2']) {
    const other = await cmps(slug);
    assert.ok(!Object.keys(other).some((k) => k.startsWith('ptz')), `${slug} has no PTZ entity`);
  }
  // Only PTZ channels were asked (R2): never a PTZ Get of a channel without the ability.
  const asked = new Set(
    sim()
      .log.filter((e) => e.path === '/API/PreviewChannel/PTZ/Get')
      .map((e) => (e.data as { channel: string }).channel),
  );
  assert.deepEqual([...asked], ['IP_CH1']);
});

test('a move: Control Start with the speed, Stop with the same cmd after the duration; the camera turned', async () => {
  const { fx } = ctx;
  await cmps('ip_ch1', (x) => x.ptz_preset !== undefined);
  const since = sim().log.length;
  const pan = sim().ptz('IP_CH1').pan;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz`, JSON.stringify({ move: 'right', duration: 0.4, speed: 100 }));
  await until(() => controls(since).length === 2, 'Control requests');
  const [start, stop] = controls(since);
  assert.deepEqual(
    [start, stop].map(({ channel, cmd, state, speed, status }) => ({ channel, cmd, state, speed, status })),
    [
      { channel: 'IP_CH1', cmd: 'Ptz_Cmd_Right', state: 'Start', speed: 100, status: 200 },
      { channel: 'IP_CH1', cmd: 'Ptz_Cmd_Right', state: 'Stop', speed: 100, status: 200 },
    ],
  );
  const gap = stop.at - start.at;
  assert.ok(gap >= 350 && gap < 1500, `Stop ${gap} ms after Start`);
  assert.ok(sim().ptz('IP_CH1').pan > pan, 'the camera turned');
  assert.equal(sim().ptz('IP_CH1').moving, undefined);
});

test('a button press (bare move word as HA sends the payload) and a preset by the select: CallPreset; <ch>/ptz says which', async () => {
  const { fx } = ctx;
  let since = sim().log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz`, '{"move":"zoom_in"}');
  await until(() => controls(since).length === 2, 'Control requests');
  assert.deepEqual(
    controls(since).map((b) => [b.cmd, b.state, b.speed]),
    [
      ['Ptz_Cmd_ZoomAdd', 'Start', 50],
      ['Ptz_Cmd_ZoomAdd', 'Stop', 50],
    ],
  );
  since = sim().log.length;
  const rec = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz_preset`, 'Garden');
  const offer = json(await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/ptz`, (j) => j.preset === 'Garden', 5000, rec));
  assert.equal(offer.preset, 'Garden');
  assert.deepEqual(
    controls(since).map(({ channel, cmd, preset_point_no }) => ({ channel, cmd, preset_point_no })),
    [{ channel: 'IP_CH1', cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 3 }],
  );
  assert.equal(sim().ptz('IP_CH1').pan, 250);
  since = sim().log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz`, '{"preset": 1}');
  await until(() => controls(since).length === 1, 'Control requests');
  assert.equal(controls(since)[0].preset_point_no, 1);
});

test('a preset stored on the device: asked for by its name, read again at once and called; the select offers it', async () => {
  const { fx } = ctx;
  sim().setPtzPreset('IP_CH1', 5, 'Porch');
  const since = sim().log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz_preset`, 'Porch');
  await until(() => controls(since).length === 1, 'Control requests');
  assert.equal(controls(since)[0].preset_point_no, 5);
  assert.equal(
    sim()
      .log.slice(since)
      .filter((e) => e.path === '/API/PreviewChannel/PTZ/Get').length,
    1,
    'one read',
  );
  const c = await cmps('ip_ch1', (x) => (x.ptz_preset?.options as string[] | undefined)?.includes('Porch') ?? false);
  assert.deepEqual(c.ptz_preset.options, ['Gate', 'Driveway', 'Garden', 'Porch']);
});

const REFUSED: Array<[string, string, string, RegExp]> = [
  ['not JSON, not a move word', 'ptz', 'spin', /^ptz: a PTZ command must be an object such as/],
  ['an unknown move', 'ptz', '{"move":"spin"}', /ptz: move must be one of up, down, left, right/],
  ['speed above the recorder range', 'ptz', '{"move":"left","speed":101}', /ptz: speed must be at most 100 on this device \(got 101\)/],
  ['a duration of 60 s', 'ptz', '{"move":"left","duration":60}', /ptz: duration must be at most 10 seconds/],
  ['a negative duration', 'ptz', '{"move":"left","duration":-1}', /ptz: duration must be at least 0.1 seconds/],
  ['an unknown member', 'ptz', '{"move":"left","sped":5}', /sped is not part of a PTZ command.*did you mean speed/],
  ['two actions', 'ptz', '{"move":"left","preset":1}', /a PTZ command gives one of preset, move or stop \(got preset and move\)/],
  ['preset 0', 'ptz', '{"preset":0}', /preset must be a preset number 1-255/],
  [
    'a preset that is not stored',
    'ptz',
    '{"preset":200}',
    /preset must be a preset stored on IP_CH1 \(got 200; IP_CH1 stores 1 Gate, 2 Driveway, 3 Garden/,
  ],
  ['a preset name not stored', 'ptz_preset', 'Pool', /ptz_preset: preset must be a preset stored on IP_CH1 \(got "Pool"; /],
];

for (const [what, key, payload, reason] of REFUSED) {
  test(`refused on bridge/event, nothing sent: ${what}`, async () => {
    const { fx } = ctx;
    await cmps('ip_ch1', (x) => x.ptz_preset !== undefined);
    const since = sim().log.length;
    const rec = fx.recorder.count;
    const topic = `${fx.base}/nvr/ip_ch1/set/${key}`;
    await fx.recorder.publish(topic, payload);
    const data = await waitEvent(fx, 'command_refused', (d) => d.topic === topic, rec, 5000);
    assert.match(String(data.reason), reason);
    const err = json(await fx.recorder.waitTopic(`${fx.base}/nvr/command_error`, (j) => j.event_type === 'refused', 5000, rec));
    assert.equal(err.key, key);
    await settle(fx);
    assert.deepEqual(controls(since), [], 'no Control sent');
  });
}

test('PTZ on a channel without it, and on the device topic: refused, nothing sent', async () => {
  const { fx } = ctx;
  const since = sim().log.length;
  const rec = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/ch1/set/ptz`, '{"move":"left"}');
  const d1 = await waitEvent(fx, 'command_refused', (d) => d.topic === `${fx.base}/nvr/ch1/set/ptz`, rec, 5000);
  assert.match(String(d1.reason), /ptz: CH1 of nvr has no PTZ/);
  await fx.recorder.publish(`${fx.base}/nvr/set/ptz`, '{"move":"left"}');
  const d2 = await waitEvent(fx, 'command_refused', (d) => d.topic === `${fx.base}/nvr/set/ptz`, rec, 5000);
  assert.match(String(d2.reason), /ptz is a channel key/);
  await settle(fx);
  assert.deepEqual(controls(since), []);
});

test('stop (the PTZ stop button) ends a running move at once (its Stop), a new move replaces a running one', async () => {
  const { fx } = ctx;
  const stop = (await cmps('ip_ch1', (x) => x.ptz_stop !== undefined)).ptz_stop;
  const since = sim().log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz`, '{"move":"up","duration":8}');
  await until(() => controls(since).length === 1, 'Control requests');
  const t0 = Date.now();
  // What Home Assistant sends when the button is pressed.
  await fx.recorder.publish(String(stop.command_topic), String(stop.payload_press));
  await until(() => controls(since).length === 2, 'Control requests');
  assert.ok(Date.now() - t0 < 2000, 'stopped at once');
  assert.deepEqual(
    controls(since).map((b) => [b.cmd, b.state]),
    [
      ['Ptz_Cmd_Up', 'Start'],
      ['Ptz_Cmd_Up', 'Stop'],
    ],
  );
  await settle(fx);
  assert.equal(controls(since).length, 2, 'the stop sent nothing more');
  assert.equal(sim().ptz('IP_CH1').moving, undefined);
});

test.run();
