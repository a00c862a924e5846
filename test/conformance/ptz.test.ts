import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PTZ_MOVE_NAMES, ptzInfo, ptzSpeedRange, violationText } from '../../core';
import { clientRig, rejection } from '../client/harness';
import * as V from './vendor';

/**
 * core's PTZ against answers in the vendor's exact shapes (PreviewChannel > PTZ > Get sample; Control answers `{}`):
 * the presets and moves read from them, the Control bodies sent (Start, Stop after the duration, CallPreset), and
 * commands refused before anything is sent.
 */

const test = suite('conformance: PTZ');
const { setup, closeAll } = clientRig('Ptz-pw');
test.after.each(closeAll);

const GET = '/API/PreviewChannel/PTZ/Get';
const CONTROL = '/API/PreviewChannel/PTZ/Control';

function ptzDevice(stored: Record<number, string> = { 1: 'Gate', 4: ' ' }) {
  const controls: Array<Record<string, unknown>> = [];
  return {
    controls,
    handlers: {
      [`${GET}`]: (d: Record<string, unknown>) => ({ ...V.ptzGetSample(stored), channel: d.channel }),
      [`${CONTROL}`]: (d: Record<string, unknown>) => {
        controls.push({ ...d, at: Date.now() });
        return {};
      },
    },
  };
}

test("the vendor's Get sample: stored slots only (an unnamed one as point N); no capability member = every move", () => {
  const info = ptzInfo('CH1', V.ptzGetSample({ 1: 'Gate', 4: '' }), ptzSpeedRange(8));
  assert.equal(info.presets, [
    { no: 1, name: 'Gate' },
    { no: 4, name: 'point 4' },
  ]);
  assert.equal(info.moves, PTZ_MOVE_NAMES);
  assert.equal(info.speed, { min: 0, max: 100 });
  assert.equal(ptzInfo('CH1', V.ptzGetSample(), ptzSpeedRange(1)).presets, [], 'the sample itself stores none');
  assert.equal(ptzSpeedRange(1), { min: 0, max: 10 }, 'a camera');
});

test('capability members, where present, decide the moves (any form: descriptor items, list, object keys)', () => {
  const base = V.ptzGetSample();
  const dirs = ptzInfo(
    'CH1',
    { ...base, ptz_direction_control: { type: 'string', items: ['Ptz_Cmd_Up', 'Ptz_Cmd_Left'] } },
    ptzSpeedRange(8),
  );
  assert.equal(dirs.moves, ['up', 'left'], 'no zoom_minus_add: no zoom');
  const zoom = ptzInfo('CH1', { ...base, zoom_minus_add: { Ptz_Cmd_ZoomMinus: true, Ptz_Cmd_ZoomAdd: true } }, ptzSpeedRange(8));
  assert.equal(zoom.moves, ['zoom_in', 'zoom_out']);
});

test('a move: Start with the speed, Stop with the same cmd after the duration, one each', async () => {
  const d = ptzDevice();
  const { dev, c } = await setup({ handlers: d.handlers });
  const info = await c.ptzInfo('CH1', 8);
  assert.equal(dev.bodies(GET), [{ channel: 'CH1' }]);
  const t0 = Date.now();
  const done = await c.ptz(info, { move: 'left', duration: 0.3, speed: 40 });
  assert.equal(done, { channel: 'CH1', move: 'left', duration: 0.3, speed: 40 });
  assert.equal(dev.bodies(CONTROL), [
    { channel: 'CH1', cmd: 'Ptz_Cmd_Left', state: 'Start', speed: 40 },
    { channel: 'CH1', cmd: 'Ptz_Cmd_Left', state: 'Stop', speed: 40 },
  ]);
  const gap = (d.controls[1].at as number) - (d.controls[0].at as number);
  assert.ok(gap >= 280 && gap < 1000, `Stop ${gap} ms after Start`);
  assert.ok(Date.now() - t0 >= 280);
});

test('defaults: 0.5 s at the middle of the speed range; a preset by number or name sends CallPreset', async () => {
  const d = ptzDevice();
  const { dev, c } = await setup({ handlers: d.handlers });
  const info = await c.ptzInfo('CH1', 1);
  await c.ptz(info, { move: 'zoom_in' });
  assert.equal(dev.bodies(CONTROL)[0], { channel: 'CH1', cmd: 'Ptz_Cmd_ZoomAdd', state: 'Start', speed: 5 });
  const gap = (d.controls[1].at as number) - (d.controls[0].at as number);
  assert.ok(gap >= 450, `${gap} ms`);
  assert.equal(await c.ptz(info, { preset: 'gate' }), { channel: 'CH1', preset: 1, name: 'Gate' });
  await c.ptz(info, { preset: 4 });
  assert.equal(dev.bodies(CONTROL).slice(2), [
    { channel: 'CH1', cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 1 },
    { channel: 'CH1', cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 4 },
  ]);
});

test('a later command ends a running move at once (its Stop first); stop ends it without a second request', async () => {
  const d = ptzDevice();
  const { dev, c } = await setup({ handlers: d.handlers });
  const info = await c.ptzInfo('CH1', 8);
  const long = c.ptz(info, { move: 'up', duration: 5 });
  await new Promise((r) => setTimeout(r, 100));
  const t0 = Date.now();
  await c.ptz(info, { preset: 1 });
  assert.ok(Date.now() - t0 < 1000, 'the long move did not hold the preset');
  await long;
  assert.equal(
    dev.bodies(CONTROL).map((b) => [b!.cmd, b!.state]),
    [
      ['Ptz_Cmd_Up', 'Start'],
      ['Ptz_Cmd_Up', 'Stop'],
      ['Ptz_Cmd_CallPreset', undefined],
    ],
  );
  const move = c.ptz(info, { move: 'right', duration: 5 });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await c.ptz(info, { stop: true }), { channel: 'CH1', stopped: 'right' });
  await move;
  assert.is(dev.count(CONTROL), 5, 'Start and Stop of the move; the stop sent nothing more');
  // Nothing of ours runs: stop asks the camera to stop whatever it does.
  await c.ptz(info, { stop: true });
  assert.equal(dev.bodies(CONTROL)[5], { channel: 'CH1', cmd: 'Ptz_Cmd_Right', state: 'Stop', ctl_stop: true });
});

test('close() during a move sends its Stop before logging out', async () => {
  const d = ptzDevice();
  const { dev, c } = await setup({ handlers: d.handlers });
  const info = await c.ptzInfo('CH1', 8);
  const move = c.ptz(info, { move: 'down', duration: 5 });
  await new Promise((r) => setTimeout(r, 100));
  await c.close();
  await move;
  assert.equal(
    dev.bodies(CONTROL).map((b) => b!.state),
    ['Start', 'Stop'],
  );
});

const BAD: Array<[string, unknown, RegExp]> = [
  ['not an object', 'left', /must be an object/],
  ['two actions', { preset: 1, move: 'left' }, /^a PTZ command gives one of preset, move or stop \(got preset and move\)/],
  ['no action', { speed: 3 }, /^a PTZ command gives one of preset, move or stop \(got none\)/],
  ['an unknown member', { move: 'left', durration: 1 }, /durration is not part of a PTZ command \(it takes .*did you mean duration/],
  ['an unknown move', { move: 'spin' }, /move must be one of up, down/],
  ['a duration of 0', { move: 'left', duration: 0 }, /duration must be at least 0.1 seconds/],
  ['a duration of 11 s', { move: 'left', duration: 11 }, /duration must be at most 10 seconds/],
  ['a duration as text', { move: 'left', duration: '1' }, /duration must be a number of seconds/],
  ['speed 101 on a recorder', { move: 'left', speed: 101 }, /speed must be at most 100 on this device/],
  ['speed -1', { move: 'left', speed: -1 }, /speed must be at least 0/],
  ['speed 2.5', { move: 'left', speed: 2.5 }, /speed must be a whole number/],
  ['a preset not stored', { preset: 2 }, /preset must be a preset stored on CH1 \(got 2; CH1 stores 1 Gate, 4 point 4\)/],
  ['preset 256', { preset: 256 }, /preset number 1-255/],
  ['a preset name not stored', { preset: 'Pool' }, /preset must be a preset stored on CH1 \(got "Pool"; CH1 stores /],
  ['a preset with a duration', { preset: 1, duration: 1 }, /duration is taken by a move only/],
  ['stop false', { stop: false }, /stop must be true/],
];

for (const [what, cmd, reason] of BAD) {
  test(`refused before sending: ${what}`, async () => {
    const d = ptzDevice();
    const { dev, c } = await setup({ handlers: d.handlers });
    const info = await c.ptzInfo('CH1', 8);
    const err = await rejection(c.ptz(info, cmd));
    assert.is(err.kind, 'invalid_request');
    assert.match(`${err.violations?.map(violationText).join('; ')} ${err.reason}`, reason);
    assert.is(dev.count(CONTROL), 0);
  });
}

test('a move the camera does not list is refused (capabilities from the Get)', async () => {
  const { dev, c } = await setup({
    handlers: {
      [GET]: () => ({ ...V.ptzGetSample(), ptz_direction_control: { type: 'string', items: ['Ptz_Cmd_Left'] } }),
      [CONTROL]: () => ({}),
    },
  });
  const info = await c.ptzInfo('CH1', 8);
  const err = await rejection(c.ptz(info, { move: 'zoom_in' }));
  assert.match(err.violations[0].message, /^must be a move CH1 can make: left \(got "zoom_in"\)/);
  assert.is(dev.count(CONTROL), 0);
});

test.run();
