/**
 * Refusals Home Assistant users can see: each recorder has a "Command error" `event` entity on
 * `<base>/<dev>/command_error`; a refused, failed or unconfirmed command lands there with its key, channel and a
 * reason (quoted: never a password), and the state it concerns is published again at once, so that the entity
 * snaps back to what the device holds (real broker, real simulator; discovery as Home Assistant reads it).
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { COMMAND_ERROR_TYPES } from '../../bridge/homeassistant/command-error';
import { json, settle, setup, type Fixture } from './fixture';
import { deviceDiscoveryProblems } from './homeassistant';

const test = suite<{ fx: Fixture }>('bridge command error');

test.before(async (ctx) => {
  ctx.fx = await setup({ label: 'cmderr', devices: [{ id: 'nvr', poll: 600 }] });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/wifi_ch1`, () => true, 5000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

test("the recorder's Command error entity: an event entity Home Assistant accepts, with exactly the three event types", ({ fx }) => {
  const config = json(fx.recorder.last(`${fx.prefix}/device/${fx.base}_nvr/config`));
  assert.deepEqual(deviceDiscoveryProblems(config), []);
  const c = (config.cmps as Record<string, Record<string, unknown>>).command_error;
  assert.equal(c.p, 'event');
  assert.equal(c.name, 'Command error');
  assert.equal(c.state_topic, `${fx.base}/nvr/command_error`);
  assert.deepEqual(c.event_types, ['refused', 'failed', 'not_confirmed']);
  assert.deepEqual(c.event_types, [...COMMAND_ERROR_TYPES]);
});

/** Sends a command and returns its command_error payload and whether `stateTopic` was published again after it. */
async function refusedOn(fx: Fixture, topic: string, payload: string, stateTopic: string) {
  const r = fx.recorder;
  const since = r.count;
  await r.publish(`${fx.base}/${topic}`, payload);
  const m = await r.waitTopic(`${fx.base}/nvr/command_error`, () => true, 3000, since);
  assert.equal(m.retain, false, 'not retained');
  const state = await r.waitTopic(stateTopic, () => true, 3000, since);
  return { error: json(m), state: json(state) };
}

test('an out-of-range number: refused with key, channel and reason; the channel state published again', async ({ fx }) => {
  const before = fx.recorder.lastJson(`${fx.base}/nvr/ch1`)!;
  const { error, state } = await refusedOn(fx, 'nvr/ch1/set/siren_duration', '100000', `${fx.base}/nvr/ch1`);
  assert.equal(error.event_type, 'refused');
  assert.equal(error.key, 'siren_duration');
  assert.equal(error.channel, 'CH1');
  assert.match(String(error.reason), /siren_duration/);
  assert.deepEqual(Object.keys(error).sort(), ['channel', 'event_type', 'key', 'reason']);
  assert.equal(state.siren_duration, before.siren_duration, 'what the device holds');
});

test('an arm mode the panel does not offer: refused on the recorder, its state published again', async ({ fx }) => {
  const { error, state } = await refusedOn(fx, 'nvr/set/disarmed', 'ARM_HOME', `${fx.base}/nvr`);
  assert.deepEqual([error.event_type, error.key, error.channel], ['refused', 'disarmed', null]);
  assert.match(String(error.reason), /DISARM/);
  assert.equal(typeof state.disarmed, 'boolean');
});

test('a volume for a siren with a fixed volume: refused', async ({ fx }) => {
  const { error } = await refusedOn(fx, 'nvr/wifi_ch1/set/siren', '{"state":"ON","volume_level":0.5}', `${fx.base}/nvr/wifi_ch1`);
  assert.deepEqual([error.event_type, error.key, error.channel], ['refused', 'siren', 'WIFI_CH1']);
  assert.match(String(error.reason), /not adjustable/);
});

test('a value containing the device password (as a word of its own, the quoting rule) is never repeated in the reason', async ({ fx }) => {
  const secret = fx.passwords[0];
  const { error } = await refusedOn(fx, 'nvr/ch1/set/siren_tone', `x ${secret}`, `${fx.base}/nvr/ch1`);
  assert.equal(error.event_type, 'refused');
  assert.ok(!JSON.stringify(error).includes(secret), JSON.stringify(error));
});

test('a command the device fails: event type failed', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  sim.fault({ path: '/API/AlarmConfig/VoiceAlarm/Set', kind: 'not_found', times: 1 });
  const on = fx.recorder.lastJson(`${fx.base}/nvr/ch2`)!.siren_on_alarm;
  const { error } = await refusedOn(fx, 'nvr/ch2/set/siren_on_alarm', on ? 'OFF' : 'ON', `${fx.base}/nvr/ch2`);
  assert.deepEqual([error.event_type, error.key, error.channel], ['failed', 'siren_on_alarm', 'CH2']);
  assert.ok(String(error.reason).length > 0);
});

test.run();
