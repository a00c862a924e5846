/**
 * A command confirmed while a poll is under way: the poll's commit, made from the facts copied at its start (and
 * reads made before the write), must not put the old value back. The poll is held by delaying its read of a page
 * read on every poll (AlarmConfig/Deterrence); the command writes a settings page (Motion) meanwhile.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, settle, setup, until, type Fixture } from './fixture';

const test = suite<{ fx: Fixture }>('bridge poll and write race');

test.before(async (ctx) => {
  ctx.fx = await setup({ label: 'race', devices: [{ id: 'nvr', events: false }] });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/ch3`, (j) => typeof j.motion_sensitivity === 'number', 5000);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

test('a write confirmed during a poll is not undone by that poll', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const topic = `${fx.base}/nvr/ch3`;
  const old = json(r.last(topic)).motion_sensitivity as number;
  const wanted = old === 7 ? 6 : 7;
  // Hold the next poll in its Deterrence read for 1.5 s (the fixture's request deadline is 2 s).
  const logged = sim.log.length;
  sim.fault({ path: 'AlarmConfig/Deterrence/Get', kind: 'latency', ms: 1500, times: 1 });
  await until(() => sim.held > 0, 'a poll held in its Deterrence read');
  const since = r.count;
  await r.publish(`${topic}/set/motion_sensitivity`, String(wanted));
  await r.waitTopic(topic, (j) => j.motion_sensitivity === wanted, 5000, since);
  const confirmed = r.count;
  assert.ok(sim.held > 0, 'the poll is still held when the command is confirmed');
  // The held poll answers and commits; then a few more polls.
  await until(() => sim.held === 0, 'the held poll answered', 5000);
  await until(() => sim.log.slice(logged).filter((e) => e.path.includes('AlarmConfig/Deterrence/Get')).length >= 2, 'a later poll', 5000);
  await settle(fx);
  const after = r.messages
    .slice(confirmed)
    .filter((m) => m.topic === topic)
    .map((m) => json(m).motion_sensitivity);
  assert.ok(!after.includes(old), `no state after the confirmation carries the old value (states: ${after.join(', ')})`);
  const motion = fx.bridge.devices.get('nvr')!.device.facts.gets.get('AlarmConfig/Motion') as any;
  assert.equal(motion.channel_info.CH3.sensitivity, wanted);
  assert.equal(sim.state['AlarmConfig/Motion'].channel_info!.CH3.sensitivity, wanted);
});

test.run();
