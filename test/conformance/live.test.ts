import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientRig, rejection } from '../client/harness';
import type { Handler } from '../client/fake-device';
import * as V from './vendor';

/** PreviewChannel/Floodlight2AudioAlarm and ManualAlarm against the vendor's shapes; a device that applies Sets. */

const test = suite('conformance: live control');
const { setup, closeAll } = clientRig('L1ve-pw');
test.after.each(closeAll);

const LIVE = '/API/PreviewChannel/Floodlight2AudioAlarm';
const MANUAL = '/API/PreviewChannel/ManualAlarm';

/** A device holding the live page per channel; Set applies the fields it receives (minus operation_type). */
function liveDevice(): { handlers: Record<string, Handler>; state: Record<string, Record<string, unknown>> } {
  const state: Record<string, Record<string, unknown>> = { CH1: structuredClone(V.liveFull), CH2: structuredClone(V.liveSirenOnly) };
  const manual: Record<string, boolean> = { ...V.manualAlarm };
  return {
    state,
    handlers: {
      [`${LIVE}/Get`]: (d) => (typeof d.channel === 'string' && state[d.channel] ? state[d.channel] : { fail: 'param_error' }),
      [`${LIVE}/Set`]: (d) => {
        const { operation_type: _op, ...rest } = d;
        Object.assign(state[d.channel as string], rest);
        return {};
      },
      [`${MANUAL}/Get`]: () => manual,
      [`${MANUAL}/Set`]: (d) => {
        Object.assign(manual, d);
        return {};
      },
    },
  };
}

test('live: Get request and typed state (floodlight and siren channel; siren-only vendor sample)', async () => {
  const { handlers } = liveDevice();
  const { dev, c } = await setup({ handlers });
  assert.equal(await c.live('CH1'), {
    channel: 'CH1',
    floodlight: false,
    brightness: 50,
    brightnessRange: { min: 10, max: 90 },
    mode: 0,
    strobe: 1,
    siren: false,
    volume: 5,
    volumeRange: { min: 1, max: 10 },
    volumeAdjustable: true,
  });
  assert.equal(await c.live('CH2'), {
    channel: 'CH2',
    siren: false,
    volume: 5,
    volumeRange: { min: 1, max: 10 },
    volumeAdjustable: true,
    redBlueLight: false,
  });
  assert.equal(dev.bodies(`${LIVE}/Get`), [
    { channel: 'CH1', command_flag: false },
    { channel: 'CH2', command_flag: false },
  ]);
});

test('setLive: siren on sends the Get object with the change and operation_type AudioAlarm, then reads back', async () => {
  const { handlers, state } = liveDevice();
  const { dev, c } = await setup({ handlers });
  const after = await c.setLive('CH1', { siren: true });
  assert.is(after.siren, true);
  assert.is(state.CH1.audioAlarm_switch, true);
  assert.equal(dev.bodies(`${LIVE}/Set`), [{ ...V.liveFull, audioAlarm_switch: true, operation_type: 'AudioAlarm' }]);
  assert.is(dev.count(`${LIVE}/Get`), 2, 'one read before, one read back');
});

test('setLive: operation_type per part (Floodlight, RedBlueLight) and All when several parts change', async () => {
  const { handlers } = liveDevice();
  const { dev, c } = await setup({ handlers });
  await c.setLive('CH1', { floodlight: true, brightness: 70, mode: 1, strobe: 2 });
  await c.setLive('CH2', { redBlueLight: true });
  const all = await c.setLive('CH1', { floodlight: false, siren: true, volume: 8 });
  assert.equal(all, { ...all, floodlight: false, siren: true, volume: 8 });
  const sets = dev.bodies(`${LIVE}/Set`);
  assert.equal(
    sets.map((b) => b?.operation_type),
    ['Floodlight', 'RedBlueLight', 'All'],
  );
  assert.equal(sets[0], {
    ...V.liveFull,
    floodlight_switch: true,
    floodlight_value: 70,
    floodlight_mode: 1,
    floodlight_strobe_frequency: 2,
    operation_type: 'Floodlight',
  });
  assert.equal(sets[1], { ...V.liveSirenOnly, redBlueLight_switch: true, operation_type: 'RedBlueLight' });
});

test("setLive: values outside the page's own _range, a fixed volume, a missing part: clear errors, nothing sent", async () => {
  const { handlers, state } = liveDevice();
  const { dev, c } = await setup({ handlers });
  const high = await rejection(c.setLive('CH1', { brightness: 95 }));
  assert.is(high.error_code, 'out_of_range');
  assert.is(
    high.message,
    'PreviewChannel/Floodlight2AudioAlarm/Set: out_of_range (1 value refused): brightness must be at most 90 on this channel (got 95)',
  );
  const low = await rejection(c.setLive('CH1', { volume: 0, mode: 2 as 0 }));
  assert.equal(
    low.violations?.map((x) => [x.path, x.problem]),
    [
      ['volume', 'min'],
      ['mode', 'enum'],
    ],
  );
  const noLight = await rejection(c.setLive('CH2', { floodlight: true, siren: true }));
  assert.equal(
    noLight.violations?.map((x) => [x.path, x.problem]),
    [['floodlight', 'unsupported']],
  );
  assert.match(noLight.message, /floodlight is not available on this channel/);
  const typo = await rejection(c.setLive('CH1', { volumn: 3 } as never));
  assert.match(typo.message, /did you mean volume\?/);
  const notBool = await rejection(c.setLive('CH1', { siren: 'on' as never }));
  assert.match(notBool.message, /siren must be a boolean/);
  state.CH1.audioAlarm_value_adjustable = false;
  const fixed = await rejection(c.setLive('CH1', { volume: 6 }));
  assert.equal(
    fixed.violations?.map((x) => x.problem),
    ['read_only'],
  );
  const badChannel = await rejection(c.setLive('Ch1', { siren: true }));
  assert.match(badChannel.message, /not a channel id/);
  assert.is(dev.count(`${LIVE}/Set`), 0, 'nothing was sent');
  assert.is(state.CH1.audioAlarm_value, 5);
});

test('setLive: a change to what already holds sends nothing', async () => {
  const { handlers } = liveDevice();
  const { dev, c } = await setup({ handlers });
  const s = await c.setLive('CH1', { siren: false, brightness: 50 });
  assert.is(s.siren, false);
  assert.is(dev.count(`${LIVE}/Set`), 0);
});

test('manual alarm: outputs read; Set carries only the outputs that change; unknown outputs refused', async () => {
  const { handlers } = liveDevice();
  const { dev, c } = await setup({ handlers });
  assert.equal(await c.manualAlarm(), V.manualAlarm);
  const after = await c.setManualAlarm({ 'Local->1': true, 'IP_CH12->1': true });
  assert.equal(after, { 'Local->1': true, 'IP_CH1->1': false, 'IP_CH12->1': true });
  assert.equal(dev.bodies(`${MANUAL}/Set`), [{ 'Local->1': true }]);
  const err = await rejection(c.setManualAlarm({ 'Local->2': true, 'IP_CH1->1': 1 as never }));
  assert.equal(
    err.violations?.map((x) => [x.path, x.problem]),
    [
      ['Local->2', 'unsupported'],
      ['IP_CH1->1', 'type'],
    ],
  );
  assert.match(err.message, /Local->2 is not an alarm output of the device \(it has /);
  assert.is(dev.count(`${MANUAL}/Set`), 1, 'the refused change sent nothing');
});

test.run();
