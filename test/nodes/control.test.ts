/**
 * nvr-control against the simulator: a dashboard switch's true/false, "on", an object with
 * brightness, a siren switched off again after its duration, alarm outputs, disarming, and every
 * refusal reaching a Catch node with nothing sent (the simulator's request log counts Sets).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimulator } from '../../simulator';
import { parseCommand, settingOf } from '../../nodes/shared/control-modes';
import {
  credentials,
  DEV,
  exchange,
  flowWith,
  helper,
  load,
  newPassword,
  nextMessage,
  paths,
  statusesOf,
  timerCount,
  waitFor,
  useSimulator,
  type SimulatorContext,
} from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: nvr-control', { password: newPassword() });
const LIVE = 'PreviewChannel/Floodlight2AudioAlarm';
const LIVE_SET = `/API/${LIVE}/Set`;

useSimulator(test);

const live = (ctx: Ctx, ch: string): any => (ctx.sim!.state as any)[LIVE].channel_info[ch];
const sets = (ctx: Ctx) => paths(ctx.sim!).filter((p) => p.endsWith('/Set'));

/** One nvr-control node `c1` -> helper `out`, a Catch node -> helper `caught`. */
async function control(ctx: Ctx, props: Record<string, unknown>, simUrl = ctx.sim!.url, password = ctx.password) {
  await helper.unload(); // a test may deploy a second flow
  await load(
    flowWith(simUrl, [
      { id: 'c1', type: 'nvr-control', name: '', device: DEV, wires: [['out']], ...props },
      { id: 'out', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: ['c1'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ]),
    credentials(password),
  );
}

test("payloads: switch values, objects with the mode's settings, the node's settings filling the gaps", () => {
  assert.equal(parseCommand('floodlight', true, {}), { on: true });
  assert.equal(parseCommand('floodlight', ' Off ', {}), { on: false });
  assert.equal(parseCommand('floodlight', 'on', { brightness: settingOf('40'), duration: settingOf('') }), { on: true, brightness: 40 });
  assert.equal(parseCommand('siren', { on: 'on', volume: 2, duration: 5 }, { volume: 7 }), { on: true, volume: 2, duration: 5 });
  assert.equal(parseCommand('disarm', 'disarm', {}), { on: true });
  assert.equal(parseCommand('disarm', 'ARM', {}), { on: false });
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (e: any) {
      return `${e.error_code}: ${e.reason}`;
    }
    return 'accepted';
  };
  assert.is(
    refusal(() => parseCommand('floodlight', 1, {})),
    'bad_payload: msg.payload must be true, false, "on", "off" (got 1)',
  );
  assert.is(
    refusal(() => parseCommand('disarm', 'on', {})),
    'bad_payload: msg.payload must be true, false, "disarm", "arm" (got "on")',
  );
  assert.is(
    refusal(() => parseCommand('siren', { on: true, brightness: 3 }, {})),
    'bad_payload: msg.payload has "brightness"; in siren mode it takes on, volume, duration',
  );
  assert.is(
    refusal(() => parseCommand('floodlight', true, { brightness: settingOf('bright') })),
    'bad_payload: brightness must be a whole number (got "bright")',
  );
  assert.is(
    refusal(() => parseCommand('siren', { on: true, duration: -1 }, {})),
    'bad_payload: duration must be a whole number of seconds (got -1)',
  );
  assert.is(
    refusal(() => parseCommand('siren', { on: true, duration: 86_401 }, {})),
    'bad_payload: duration must be at most 86400 seconds (a day; got 86401)',
  );
});

test("a dashboard switch's true / false switches the floodlight; the answer is the live state read back", async (ctx) => {
  await control(ctx, { mode: 'floodlight', channel: 'CH1' });
  const on = await exchange('c1', { payload: true, topic: 'garden' });
  assert.ok(on.out, JSON.stringify(on.caught?.error));
  assert.is(live(ctx, 'CH1').floodlight_switch, true);
  assert.is(on.out.payload.channel, 'CH1');
  assert.is(on.out.payload.floodlight, true);
  assert.equal(on.out.payload.brightnessRange, { min: 1, max: 100 });
  assert.is(on.out.topic, 'garden', 'the message goes on');
  assert.is(on.out.control, 'floodlight');
  const off = await exchange('c1', { payload: false });
  assert.is(off.out?.payload.floodlight, false);
  assert.is(live(ctx, 'CH1').floodlight_switch, false);
  assert.equal(sets(ctx), [LIVE_SET, LIVE_SET], 'one Set per switch');
});

test('"on" / "off", and an object with brightness (the node\'s brightness fills in for true)', async (ctx) => {
  await control(ctx, { mode: 'floodlight', channel: 'IP_CH1', brightness: '30' });
  assert.ok((await exchange('c1', { payload: 'on' })).out);
  assert.is(live(ctx, 'IP_CH1').floodlight_switch, true);
  assert.is(live(ctx, 'IP_CH1').floodlight_value, 30, "the node's brightness");
  const r = await exchange('c1', { payload: { on: true, brightness: 80 } });
  assert.is(r.out?.payload.brightness, 80);
  assert.is(live(ctx, 'IP_CH1').floodlight_value, 80);
  assert.ok((await exchange('c1', { payload: 'OFF' })).out);
  assert.is(live(ctx, 'IP_CH1').floodlight_switch, false);
  assert.is(live(ctx, 'IP_CH1').floodlight_value, 80, 'switching off leaves the brightness');
});

test('siren with a duration: on now, off again after it (two Sets), announced by a message of its own', async (ctx) => {
  await control(ctx, { mode: 'siren', channel: 'CH2', volume: '3' });
  const r = await exchange('c1', { payload: { on: true, duration: 1 } });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.payload.siren, true);
  assert.is(live(ctx, 'CH2').audioAlarm_switch, true);
  assert.is(live(ctx, 'CH2').audioAlarm_value, 3);
  const t0 = Date.now();
  const later = await nextMessage('out', 3000);
  assert.ok(Date.now() - t0 >= 900, `switched off after ${Date.now() - t0} ms`);
  assert.is(later.cause, 'duration');
  assert.is(later.payload.siren, false);
  assert.is(live(ctx, 'CH2').audioAlarm_switch, false);
  assert.equal(sets(ctx), [LIVE_SET, LIVE_SET]);
});

test('a later command cancels the pending switch-off; closing the flow clears the timer', async (ctx) => {
  await control(ctx, { mode: 'siren', channel: 'CH2', duration: '1' });
  assert.ok((await exchange('c1', { payload: true })).out);
  assert.ok((await exchange('c1', { payload: { on: true, duration: 0 } })).out, 'on again, without a duration');
  await new Promise((r) => setTimeout(r, 1300)); // past the first duration: nothing may happen
  assert.is(live(ctx, 'CH2').audioAlarm_switch, true, 'still on');
  assert.is(sets(ctx).length, 1, 'the second "on" changed nothing, so nothing was sent; no switch-off');
  // A fresh duration, then the flow is stopped: the timer goes with it.
  assert.ok((await exchange('c1', { payload: false })).out);
  assert.ok((await exchange('c1', { payload: true })).out);
  const before = timerCount();
  await helper.unload();
  assert.ok(timerCount() < before, 'the switch-off timer was cleared');
  ctx.sim!.clearLog();
  await new Promise((r) => setTimeout(r, 1300));
  assert.equal(sets(ctx), [], 'no switch-off after close');
});

test('a channel without the hardware is refused before anything is sent, in words', async (ctx) => {
  await control(ctx, { mode: 'floodlight', channel: 'CH3' });
  const r = await exchange('c1', { payload: true });
  assert.is(r.caught?.error.code, 'no_hardware', JSON.stringify(r));
  assert.is(r.caught!.error.stack, 'Not sent: CH3 has no floodlight (it has: siren)');
  assert.equal(sets(ctx), []);
  assert.not.ok(
    paths(ctx.sim!).some((p) => p.includes(LIVE)),
    'not even the live page was read',
  );
  const empty = await exchange('c1', { payload: true, channel: 'IP_CH3' });
  assert.is(empty.caught?.error.code, 'unknown_channel');
  const offline = await exchange('c1', { payload: true, channel: 'IP_CH2' });
  assert.is(offline.caught?.error.code, 'channel_offline');
  assert.is(offline.caught!.error.message, 'Not sent: IP_CH2 is offline: its camera lists no parts now');
  await waitFor(() => statusesOf('c1').at(-1)?.text === 'channel offline', 'the node says it in a few words');
  assert.equal(sets(ctx), []);
  // The camera comes back: a refusal is checked again against a fresh channel list (at most one read a second).
  ctx.sim!.setOnline('IP_CH2', true);
  try {
    let answer: any;
    for (const until = Date.now() + 4000; !answer?.out && Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      answer = await exchange('c1', { payload: true, channel: 'IP_CH2' });
    }
    assert.ok(answer?.out, JSON.stringify(answer?.caught?.error));
    assert.is(live(ctx, 'IP_CH2').floodlight_switch, true);
    const channelReads = paths(ctx.sim!).filter((p) => p === '/API/Login/ChannelInfo/Get').length;
    assert.ok(channelReads <= 4, `${channelReads} channel list reads`);
  } finally {
    ctx.sim!.setOnline('IP_CH2', false);
  }
});

test('out-of-range brightness, a fixed siren volume and unreadable payloads are refused with nothing sent', async (ctx) => {
  await control(ctx, { mode: 'floodlight', channel: 'CH1' });
  const high = await exchange('c1', { payload: { on: true, brightness: 150 } });
  assert.is(high.caught?.error.code, 'out_of_range', JSON.stringify(high));
  assert.match(
    high.caught!.error.stack,
    /^Not sent: brightness must be at most 100 on this channel \(got 150\) \(PreviewChannel\/Floodlight2AudioAlarm Set\)$/,
  );
  for (const payload of [42, 'maybe', { on: 'yes' }, { on: true, volume: 3 }, { brightness: 20 }, { on: true, brightness: 2.5 }]) {
    const r = await exchange('c1', { payload });
    assert.is(r.caught?.error.code, 'bad_payload', JSON.stringify(payload));
  }
  const battery = await exchange('c1', { payload: { on: true }, channel: 'WIFI_CH1' });
  assert.is(battery.caught?.error.code, 'no_hardware', 'WIFI_CH1 has a siren, no floodlight');
  assert.equal(sets(ctx), []);
  assert.is(live(ctx, 'CH1').floodlight_switch, false);
});

test('alarm output and red/blue light', async (ctx) => {
  await control(ctx, { mode: 'alarmOutput', output: 'Local->2' });
  const r = await exchange('c1', { payload: 'on' });
  assert.equal(r.out?.payload, { output: 'Local->2', on: true });
  assert.is((ctx.sim!.state as any)['PreviewChannel/ManualAlarm']['Local->2'], true);
  const unknown = await exchange('c1', { payload: true, output: 'Local->9' });
  assert.is(unknown.caught?.error.code, 'out_of_range');
  assert.match(unknown.caught!.error.message, /Local->9/);
  await control(ctx, { mode: 'redBlueLight', channel: 'CH1' });
  assert.is((await exchange('c1', { payload: true })).out?.payload.redBlueLight, true);
  assert.is(live(ctx, 'CH1').redBlueLight_switch, true);
});

test('disarm / arm through AlarmConfig/Disarming, or LinkageManage where the device lacks that page', async (ctx) => {
  await control(ctx, { mode: 'disarm' });
  const d = await exchange('c1', { payload: 'disarm' });
  assert.equal(d.out?.payload, { disarmed: true, page: 'AlarmConfig/Disarming' });
  assert.is((ctx.sim!.state as any)['AlarmConfig/Disarming'].disarming, true);
  assert.equal((await exchange('c1', { payload: false })).out?.payload, { disarmed: false, page: 'AlarmConfig/Disarming' });
  assert.is((await exchange('c1', { payload: 'on' })).caught?.error.code, 'bad_payload', 'disarm speaks "disarm" / "arm"');
  const old = await startSimulator({ password: ctx.password, quiet: true, disarming: false });
  try {
    await control(ctx, { mode: 'disarm' }, old.url);
    const r = await exchange('c1', { payload: true });
    assert.equal(r.out?.payload, { disarmed: true, page: 'LinkageConfig/LinkageManage' }, JSON.stringify(r.caught?.error));
    assert.ok(old.log.some((e) => e.path === '/API/LinkageConfig/LinkageManage/Set'));
  } finally {
    await helper.unload();
    await old.stop();
  }
});

test("the dialog's channel list: only channels whose hardware has the part; outputs for alarm output mode", async (ctx) => {
  await load(flowWith(ctx.sim!.url, []), credentials(ctx.password));
  const ask = async (mode: string) => {
    const res = await helper
      .request()
      .post('/nvr-device/hardware')
      .send({ id: DEV, url: ctx.sim!.url, mode })
      .set('content-type', 'application/json');
    assert.is(res.status, 200, res.text);
    return res.body;
  };
  const ids = (body: any) => body.channels.map((c: any) => c.id);
  assert.equal(ids(await ask('floodlight')), ['CH1', 'CH2', 'CH4', 'IP_CH1']);
  assert.equal(ids(await ask('siren')), ['CH1', 'CH2', 'CH3', 'IP_CH1', 'WIFI_CH1']);
  assert.equal(ids(await ask('redBlueLight')), ['CH1']);
  assert.equal((await ask('alarmOutput')).outputs, ['Local->1', 'Local->2', 'IP_CH1->1']);
  const bad = await helper
    .request()
    .post('/nvr-device/hardware')
    .send({ id: DEV, url: ctx.sim!.url, mode: 'laser' })
    .set('content-type', 'application/json');
  assert.is(bad.status, 400);
});

test('channel numbering: with digital channels named after their slot (IP_CH5), the node and the editor route work the same', async (ctx) => {
  const slot = await startSimulator({ password: ctx.password, channelNumbering: 'slot', quiet: true });
  try {
    await control(ctx, { mode: 'floodlight', channel: 'IP_CH5' }, slot.url);
    const r = await exchange('c1', { payload: 'on' });
    assert.ok(r.out, JSON.stringify(r.caught?.error));
    assert.is((slot.state as any)[LIVE].channel_info.IP_CH5.floodlight_switch, true);
    const res = await helper
      .request()
      .post('/nvr-device/hardware')
      .send({ id: DEV, url: slot.url, mode: 'floodlight' })
      .set('content-type', 'application/json');
    assert.is(res.status, 200, res.text);
    assert.equal(
      res.body.channels.map((c: any) => c.id),
      ['CH1', 'CH2', 'CH4', 'IP_CH5'],
    );
  } finally {
    await helper.unload();
    await slot.stop();
  }
});

test.run();
