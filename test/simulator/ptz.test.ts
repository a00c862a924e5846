import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, SimulatorOptions, startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';

/**
 * The simulator's PTZ (PreviewChannel > PTZ > Get / Control / Progress) with a raw client: the vendor's Get shape,
 * a move that runs from Start to Stop and moves the camera by the time it ran, presets called, added and cleared,
 * and every refusal the vendor's tables imply (answered 400, the camera left where it was).
 */

const test = suite('simulator: PTZ');
const GET = '/API/PreviewChannel/PTZ/Get';
const CONTROL = '/API/PreviewChannel/PTZ/Control';

async function withDevice(opts: Partial<SimulatorOptions>, fn: (c: RawClient, sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ password: PASSWORD, ...opts });
  try {
    const c = new RawClient(sim.url);
    assert.is((await c.login()).status, 200);
    await fn(c, sim);
  } finally {
    await sim.stop();
  }
}

async function ok(c: RawClient, path: string, data: unknown): Promise<Record<string, any>> {
  const res = await c.post(path, data);
  assert.is(res.status, 200, `${path}: ${res.text.slice(0, 300)}`);
  return res.json.data;
}

test('Get answers the vendor sample members: 255 preset slots {no, name, add}, dwell list, cruise members', () =>
  withDevice({}, async (c) => {
    const d = await ok(c, GET, { channel: 'IP_CH1' });
    assert.is(d.channel, 'IP_CH1');
    assert.is(d.preset_point.length, 255);
    assert.is(d.preset_point_obj.length, 255);
    assert.equal(d.preset_point_obj[0], { no: 1, name: 'Gate', add: true });
    assert.equal(d.preset_point_obj[254], { no: 255, name: 'point 255', add: false });
    for (const k of ['belt_times_use', 'watch_mode_mode', 'trace_preset_point', 'pattern_scan_number_isset', 'current_cruise_mode'])
      assert.ok(k in d, k);
    assert.is(d.state, 'Stop');
  }));

test('a move runs from Start until Stop; the camera turns by the time it ran and its speed', () =>
  withDevice({}, async (c, sim) => {
    const before = { ...sim.ptz('IP_CH1') };
    await ok(c, CONTROL, { channel: 'IP_CH1', cmd: 'Ptz_Cmd_Right', state: 'Start', speed: 100 });
    assert.is((await ok(c, GET, { channel: 'IP_CH1' })).state, 'Start');
    await new Promise((r) => setTimeout(r, 200));
    await ok(c, CONTROL, { channel: 'IP_CH1', cmd: 'Ptz_Cmd_Right', state: 'Stop', speed: 100 });
    const after = sim.ptz('IP_CH1');
    assert.ok(after.pan > before.pan + 5 && after.pan < before.pan + 30, `pan ${before.pan} -> ${after.pan}`);
    assert.is(after.tilt, before.tilt);
    assert.is(after.moving, undefined);
    await new Promise((r) => setTimeout(r, 50));
    assert.is(sim.ptz('IP_CH1').pan, after.pan, 'stopped');
  }));

test('zoom in runs until ctl_stop; zoom_slider of Get and Progress follow it', () =>
  withDevice({ profile: 'ipc' }, async (c, sim) => {
    await ok(c, CONTROL, { channel: 'CH1', cmd: 'Ptz_Cmd_ZoomAdd', state: 'Start', speed: 10 });
    await new Promise((r) => setTimeout(r, 300));
    await ok(c, CONTROL, { channel: 'CH1', cmd: 'Ptz_Cmd_ZoomAdd', ctl_stop: true });
    const zoom = sim.ptz('CH1').zoom;
    assert.ok(zoom > 1, `zoom ${zoom}`);
    assert.is((await ok(c, GET, { channel: 'CH1' })).zoom_slider, zoom);
    assert.is((await ok(c, '/API/PreviewChannel/PTZ/Control/Progress', { channel: 'CH1' })).zoom_slider, zoom);
  }));

test('presets: call moves to a stored one, add stores the position with its name, clear forgets it', () =>
  withDevice({}, async (c, sim) => {
    await ok(c, CONTROL, { channel: 'IP_CH1', cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 3 });
    assert.equal([sim.ptz('IP_CH1').pan, sim.ptz('IP_CH1').zoom], [250, 40]);
    await ok(c, CONTROL, { channel: 'IP_CH1', cmd: 'Ptz_Cmd_AddPreset', preset_point_no: 7, preset_point_name: 'Shed' });
    await ok(c, CONTROL, { channel: 'IP_CH1', cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 1 });
    await ok(c, CONTROL, { channel: 'IP_CH1', cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 7 });
    assert.is(sim.ptz('IP_CH1').pan, 250);
    assert.equal((await ok(c, GET, { channel: 'IP_CH1' })).preset_point_obj[6], { no: 7, name: 'Shed', add: true });
    await ok(c, CONTROL, { channel: 'IP_CH1', cmd: 'Ptz_Cmd_ClearPreset', preset_point_no: 7 });
    assert.equal((await ok(c, GET, { channel: 'IP_CH1' })).preset_point_obj[6], { no: 7, name: 'point 7', add: false });
    // An empty slot called: accepted (the vendor does not say otherwise), the camera stays.
    await ok(c, CONTROL, { channel: 'IP_CH1', cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 9 });
    assert.is(sim.ptz('IP_CH1').pan, 250);
    sim.setPtzPreset('IP_CH1', 9, 'Porch');
    assert.equal((await ok(c, GET, { channel: 'IP_CH1' })).preset_point_obj[8], { no: 9, name: 'Porch', add: true });
  }));

const REFUSED: Array<[string, Record<string, unknown>, RegExp, Partial<SimulatorOptions>?]> = [
  ['a cmd not in table 3', { cmd: 'Ptz_Cmd_Spin', state: 'Start' }, /cmd: must be one of/],
  ['no cmd', { state: 'Start' }, /cmd: must be one of/],
  ['a state other than Start/Stop', { cmd: 'Ptz_Cmd_Left', state: 'Go' }, /state: must be "Start" or "Stop"/],
  ['NVR speed above 100', { cmd: 'Ptz_Cmd_Left', state: 'Start', speed: 101 }, /speed: must be an integer 0-100/],
  ['a speed that is not an integer', { cmd: 'Ptz_Cmd_Left', state: 'Start', speed: 1.5 }, /speed: must be an integer/],
  ['preset 0', { cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 0 }, /preset_point_no: must be an integer 1-255/],
  ['preset 256', { cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 256 }, /preset_point_no: must be an integer 1-255/],
  ['a preset cmd without its number', { cmd: 'Ptz_Cmd_CallPreset' }, /preset_point_no: required/],
  ['a name of 32 characters', { cmd: 'Ptz_Cmd_AddPreset', preset_point_no: 4, preset_point_name: 'x'.repeat(32) }, /1-31 characters/],
  ['a step that is not 1, 5 or 20', { cmd: 'Ptz_Btn_Refresh', zoom_step: 3 }, /zoom_step: must be one of 1, 5, 20/],
  ['a member no table lists', { cmd: 'Ptz_Cmd_Left', state: 'Start', duration: 2 }, /duration: not a PTZ member/],
];

for (const [what, body, reason] of REFUSED) {
  test(`Control refuses ${what}; the camera stays`, () =>
    withDevice({}, async (c, sim) => {
      const before = { ...sim.ptz('IP_CH1') };
      const res = await c.post(CONTROL, { channel: 'IP_CH1', ...body });
      assert.equal([res.status, res.json.error_code], [400, 'param_error'], res.text);
      assert.match(res.json.reason, reason);
      assert.equal({ ...sim.ptz('IP_CH1') }, before);
    }));
}

test('IPC speed is 0-10: 11 refused, 10 accepted', () =>
  withDevice({ profile: 'ipc' }, async (c) => {
    const res = await c.post(CONTROL, { channel: 'CH1', cmd: 'Ptz_Cmd_Up', state: 'Start', speed: 11 });
    assert.match(res.json.reason, /speed: must be an integer 0-10/);
    await ok(c, CONTROL, { channel: 'CH1', cmd: 'Ptz_Cmd_Up', state: 'Start', speed: 10 });
    await ok(c, CONTROL, { channel: 'CH1', cmd: 'Ptz_Cmd_Up', state: 'Stop', speed: 10 });
  }));

test('a channel without PTZ, an offline camera, an unknown channel: refused on every PTZ path', () =>
  withDevice({}, async (c) => {
    for (const path of [GET, CONTROL, '/API/PreviewChannel/PTZ/Control/Progress']) {
      const cmd = { cmd: 'Ptz_Cmd_Left', state: 'Start' };
      let res = await c.post(path, { channel: 'CH1', ...cmd });
      assert.equal([res.status, res.json.error_code], [400, 'no_support'], `${path} CH1`);
      res = await c.post(path, { channel: 'IP_CH2', ...cmd });
      assert.equal([res.json.error_code, res.json.reason], ['no_support', 'IP_CH2 is offline'], `${path} IP_CH2`);
      res = await c.post(path, { channel: 'CH9', ...cmd });
      assert.is(res.json.error_code, 'param_error', `${path} CH9`);
      res = await c.post(path, {});
      assert.is(res.json.error_code, 'param_error', `${path} no channel`);
    }
  }));

test.run();
