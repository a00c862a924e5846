/**
 * nvr-control's PTZ mode against the simulator: a preset by name or number (CallPreset), a move with its duration
 * (Start, then Stop after it), stop, and refusals (a channel without PTZ, a preset not stored, a speed above the
 * device's range, a malformed payload) reaching a Catch node with no Control sent.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCommand } from '../../nodes/shared/control-modes';
import { credentials, DEV, exchange, flowWith, helper, load, newPassword, useSimulator, type SimulatorContext } from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: nvr-control PTZ mode', { password: newPassword() });
const CONTROL = '/API/PreviewChannel/PTZ/Control';

useSimulator(test);

const controls = (ctx: Ctx, since = 0) =>
  ctx
    .sim!.log.slice(since)
    .filter((e) => e.path === CONTROL)
    .map((e) => ({ ...(e.data as Record<string, unknown>), at: e.time }) as Record<string, any>);

async function ptzNode(ctx: Ctx, channel = 'IP_CH1') {
  await helper.unload();
  await load(
    flowWith(ctx.sim!.url, [
      { id: 'c1', type: 'nvr-control', name: '', device: DEV, mode: 'ptz', channel, wires: [['out']] },
      { id: 'out', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: ['c1'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ]),
    credentials(ctx.password),
  );
}

test('payloads: an object as it is, words for moves and stop, a number or a name for a preset', () => {
  assert.equal(parseCommand('ptz', { move: 'left', duration: 1 }, {}).ptz, { move: 'left', duration: 1 });
  assert.equal(parseCommand('ptz', ' Zoom_In ', {}).ptz, { move: 'zoom_in' });
  assert.equal(parseCommand('ptz', 'stop', {}).ptz, { stop: true });
  assert.equal(parseCommand('ptz', 3, {}).ptz, { preset: 3 });
  assert.equal(parseCommand('ptz', 'Gate', {}).ptz, { preset: 'Gate' });
});

test("the node's Command (picked in the dialog) runs on a message that names none: an inject's timestamp, true, empty", () => {
  const own = { ptz: '3' };
  for (const payload of [1764122400000, true, '', undefined]) assert.equal(parseCommand('ptz', payload, own).ptz, { preset: '3' });
  assert.equal(parseCommand('ptz', 1764122400000, { ptz: 'left' }).ptz, { move: 'left' });
  assert.equal(parseCommand('ptz', Date.now(), { ptz: 'stop' }).ptz, { stop: true });
  // A message naming a command of its own runs that one.
  assert.equal(parseCommand('ptz', 'right', own).ptz, { move: 'right' });
  assert.equal(parseCommand('ptz', 2, own).ptz, { preset: 2 });
  assert.equal(parseCommand('ptz', { stop: true }, own).ptz, { stop: true });
  // Without a Command, a timestamp is read as what it says (a preset number out of range: refused by core).
  assert.equal(parseCommand('ptz', 1764122400000, {}).ptz, { preset: 1764122400000 });
});

test("a default inject runs the node's Command: preset 3 (Garden) called", async (ctx) => {
  await helper.unload();
  await load(
    flowWith(ctx.sim!.url, [
      { id: 'c1', type: 'nvr-control', name: '', device: DEV, mode: 'ptz', channel: 'IP_CH1', ptz: '3', wires: [['out']] },
      { id: 'out', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: ['c1'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ]),
    credentials(ctx.password),
  );
  const r = await exchange('c1', { payload: Date.now() });
  assert.equal(r.out?.payload, { channel: 'IP_CH1', preset: 3, name: 'Garden' }, JSON.stringify(r.caught?.error));
});

test('a preset by name: CallPreset with its number; the answer names it; the camera moved', async (ctx) => {
  await ptzNode(ctx);
  const since = ctx.sim!.log.length;
  const r = await exchange('c1', { payload: 'Garden' });
  assert.equal(r.out?.payload, { channel: 'IP_CH1', preset: 3, name: 'Garden' });
  assert.is(r.out?.control, 'ptz');
  assert.is(r.out?.channel, 'IP_CH1');
  assert.equal(
    controls(ctx, since).map(({ cmd, preset_point_no }) => ({ cmd, preset_point_no })),
    [{ cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 3 }],
  );
  assert.is(ctx.sim!.ptz('IP_CH1').pan, 250);
});

test('a move with a duration: Start, Stop after it, then the answer; stop while moving sends only its Stop', async (ctx) => {
  await ptzNode(ctx);
  let since = ctx.sim!.log.length;
  const r = await exchange('c1', { payload: { move: 'left', duration: 0.3, speed: 80 } });
  assert.equal(r.out?.payload, { channel: 'IP_CH1', move: 'left', duration: 0.3, speed: 80 });
  const [start, stop] = controls(ctx, since);
  assert.equal([start.cmd, start.state, start.speed, stop.cmd, stop.state], ['Ptz_Cmd_Left', 'Start', 80, 'Ptz_Cmd_Left', 'Stop']);
  assert.ok(stop.at - start.at >= 250, `${stop.at - start.at} ms`);
  since = ctx.sim!.log.length;
  const moving = exchange('c1', { payload: { move: 'up', duration: 8 } });
  const t0 = Date.now();
  await new Promise((res) => setTimeout(res, 200));
  const stopped = await exchange('c1', { payload: 'stop' });
  assert.ok(Date.now() - t0 < 3000);
  assert.ok(stopped.out || (await moving).out, 'answers');
  assert.equal(
    controls(ctx, since).map((b) => [b.cmd, b.state]),
    [
      ['Ptz_Cmd_Up', 'Start'],
      ['Ptz_Cmd_Up', 'Stop'],
    ],
  );
  assert.is(ctx.sim!.ptz('IP_CH1').moving, undefined);
});

test('refused before anything is sent: a channel without PTZ, a preset not stored, speed 101, a bad payload', async (ctx) => {
  await ptzNode(ctx, 'CH1');
  const since = ctx.sim!.log.length;
  const noPtz = await exchange('c1', { payload: 'left' });
  assert.is(noPtz.caught?.error.code, 'no_hardware');
  assert.match(noPtz.caught!.error.message, /CH1 has no PTZ/);
  await ptzNode(ctx);
  for (const [payload, reason] of [
    [7, /^Not sent: preset must be a preset stored on IP_CH1 \(got 7; IP_CH1 stores 1 Gate, 2 Driveway, 3 Garden\)/],
    [{ move: 'left', speed: 101 }, /speed must be at most 100 on this device/],
    [{ move: 'left', duration: 30 }, /duration must be at most 10 seconds/],
    [{ turn: 'left' }, /turn is not part of a PTZ command/],
    [true, /a PTZ command must be an object/],
  ] as const) {
    const r = await exchange('c1', { payload });
    assert.ok(r.caught, `refused: ${JSON.stringify(payload)}`);
    assert.match(r.caught.error.message, reason);
  }
  assert.equal(controls(ctx, since), [], 'no Control sent');
});

test.run();
