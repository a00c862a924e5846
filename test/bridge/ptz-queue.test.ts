/**
 * Issue 38, PTZ queues: only the latest PTZ command on a channel matters. A new move replaces one still waiting (200
 * timed moves of 10 s once ran one after another for half an hour), `stop` ends the running move and drops the waiting
 * ones at once, a stopping bridge sends Stop at once and starts nothing more, and a flood of presets calls the first
 * and the last. Requests counted at the simulator.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { settle, setup, until, type Fixture } from './fixture';

const test = suite('bridge: PTZ queues');
const CONTROL = '/API/PreviewChannel/PTZ/Control';

const controls = (fx: Fixture, since = 0) =>
  fx.sims
    .get('nvr')!
    .log.slice(since)
    .filter((e) => e.path === CONTROL)
    .map((e): Record<string, any> => ({ ...(e.data as Record<string, unknown>), at: e.time }));
const shown = (c: Record<string, any>[]) => c.map((b) => `${b.cmd} ${b.state ?? b.preset_point_no ?? ''}`.trim());

test('20 timed moves of 10 s, then stop: none waits behind another, the last runs, stop ends it at once', async () => {
  const fx = await setup({ label: 'ptzq', devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const since = fx.sims.get('nvr')!.log.length;
    const topic = `${fx.base}/nvr/ip_ch1/set/ptz`;
    for (let i = 0; i < 20; i++) {
      const move = i === 19 ? 'up' : i % 2 ? 'right' : 'left';
      await fx.recorder.publish(topic, JSON.stringify({ move, duration: 10 }));
    }
    // Each move is ended by the next, or replaced while it waits; the last (up) runs.
    await until(() => controls(fx, since).some((b) => b.cmd === 'Ptz_Cmd_Up' && b.state === 'Start'), 'the last move started', 10_000);
    await fx.recorder.publish(topic, 'stop');
    await until(() => controls(fx, since).filter((b) => b.state === 'Stop').length >= 2, 'the last move stopped', 10_000);
    // A preset after it, as a barrier: it is called at once, behind nothing.
    await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz_preset`, 'Gate');
    await until(() => controls(fx, since).some((b) => b.cmd === 'Ptz_Cmd_CallPreset'), 'the preset called', 5000);
    const sent = shown(controls(fx, since));
    // Each move was ended by the next (none ran its 10 s, none waited behind another); the stop ended the last; the
    // preset came behind nothing.
    assert.deepEqual(sent.slice(-3), ['Ptz_Cmd_Up Start', 'Ptz_Cmd_Up Stop', 'Ptz_Cmd_CallPreset 1'], sent.join(', '));
    const moves = sent.slice(0, -1);
    assert.ok(moves.length <= 40, sent.join(', '));
    moves.forEach((m, i) => assert.equal(m.split(' ')[1], i % 2 ? 'Stop' : 'Start', sent.join(', ')));
    const all = controls(fx, since);
    // The stop ended the move well before its 10 s.
    assert.ok(all.at(-2)!.at - all.at(-3)!.at < 10_000, 'stopped before its duration');
  } finally {
    await fx.stop();
  }
});

test('50 presets in a row: the first and the last are called, and the select shows the last', async () => {
  const fx = await setup({ label: 'ptzp', devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const since = fx.sims.get('nvr')!.log.length;
    const sim = fx.sims.get('nvr')!;
    const names = ['Gate', 'Driveway', 'Garden'];
    // The first call held by the device while the other 49 arrive.
    sim.fault({ kind: 'latency', ms: 1500, path: 'PTZ/Control', times: 1 });
    await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz_preset`, names[0]);
    await until(() => sim.held > 0, 'the first call on the wire');
    for (let i = 1; i < 50; i++) void fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/ptz_preset`, names[i % 3]);
    const last = names[49 % 3];
    await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/ptz`, (j) => j.preset === last, 10_000);
    const sent = controls(fx, since);
    assert.deepEqual(shown(sent), ['Ptz_Cmd_CallPreset 1', 'Ptz_Cmd_CallPreset 2'], 'the first and the last');
    assert.equal(sent.at(-1)!.preset_point_no, 2, 'the last one asked for (Driveway) is the last called');
  } finally {
    await fx.stop();
  }
});

test('stopping the bridge with a move running and another waiting: Stop at once, the waiting one never starts', async () => {
  const fx = await setup({ label: 'ptzs', devices: [{ id: 'nvr', poll: 30 }] });
  try {
    const sim = fx.sims.get('nvr')!;
    const since = sim.log.length;
    const topic = `${fx.base}/nvr/ip_ch1/set/ptz`;
    // The first Start held by the device, so that the others wait behind it.
    sim.fault({ kind: 'latency', ms: 3000, path: 'PTZ/Control', times: 1 });
    await fx.recorder.publish(topic, JSON.stringify({ move: 'left', duration: 10 }));
    await until(() => sim.held > 0, 'the first Start on the wire');
    await fx.recorder.publish(topic, JSON.stringify({ move: 'up', duration: 10 }));
    await fx.recorder.publish(topic, JSON.stringify({ move: 'right', duration: 10 }));
    await settle(fx); // the bridge has them
    await fx.bridge.stop();
    // (The held Start may be cut off by the logout before the device logs it; its Stop goes out all the same.)
    const sent = shown(controls(fx, since));
    assert.ok(sent.includes('Ptz_Cmd_Left Stop'), sent.join(', '));
    assert.deepEqual(
      sent.filter((b) => !b.startsWith('Ptz_Cmd_Left')),
      [],
      'the waiting moves never started',
    );
  } finally {
    await fx.stop();
  }
});

test.run();
