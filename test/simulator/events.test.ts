import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, SimulatorOptions, startSimulator } from '../../simulator';
import { PASSWORD, RawClient, until } from './raw-client';

const CHECK = '/API/Event/Check';
/** The vendor's subscribe request (Event/Check page, sample 2) and a third-party variant with AI pictures. */
const SUBSCRIBE = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }, { aipushpic: ['all'] }] } };

let sim: Simulator;
let c: RawClient;

async function start(opts: Partial<SimulatorOptions> = {}) {
  sim = await startSimulator({ password: PASSWORD, ...opts });
  c = new RawClient(sim.url);
  await c.login();
}

const test = suite('simulator Event/Check (vendor shapes)');
test.after.each(async () => {
  await sim.stop();
});

type Cursor = { reader_id: number; sequence: number; lap_number: number };
async function subscribe(data: object = SUBSCRIBE): Promise<Cursor & Record<string, any>> {
  const res = await c.post(CHECK, data);
  assert.is(res.status, 200, res.text);
  const d = res.json.data;
  assert.type(d.reader_id, 'number');
  assert.type(d.sequence, 'number');
  assert.type(d.lap_number, 'number');
  return d;
}
/** The vendor's later call: cursor plus the subscription again, lap_number as the sample sends it. */
const next = (cur: Cursor, extra: object = {}) =>
  c.post(CHECK, { ...SUBSCRIBE, reader_id: cur.reader_id, sequence: cur.sequence, lap_number: cur.lap_number, ...extra });

test('subscribe answers at once with the keep-alive; later calls answer at once with alarm_list or heat_alarm', async () => {
  await start();
  const sub = await subscribe();
  assert.is(sub.heat_alarm, 'HeatAlarm', 'nothing active: keep-alive string');
  assert.is(sub.alarm_list, undefined);
  let t = Date.now();
  const idle = await next(sub);
  assert.ok(Date.now() - t < 200, 'not held');
  assert.equal(idle.json.data, { reader_id: sub.reader_id, sequence: sub.sequence, lap_number: sub.lap_number, heat_alarm: 'HeatAlarm' });
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true });
  sim.raiseAlarm({ channel: 'IP_CH1', type: 'line_crossing', active: true });
  sim.raiseAlarm({ channel: 'WIFI_CH1', type: 'pir', active: false });
  t = Date.now();
  const res = await next(sub);
  assert.ok(Date.now() - t < 200);
  const d = res.json.data;
  assert.is(d.heat_alarm, undefined);
  assert.is(d.sequence, sub.sequence + 4);
  assert.is(d.alarm_list.length, 4);
  for (const item of d.alarm_list) assert.match(item.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\+00:00$/);
  const entries = d.alarm_list.map((i: any) => i.channel_alarm[0]);
  assert.equal(entries[0], { channel: 'CH1', motion_alarm: true, record_flag: { m: 'R', r: 'SR' } });
  assert.equal(entries[1], { channel: 'CH1', int_alarm: { alarm_val: true, int_subtype: 'pd' }, record_flag: { s: 'R', r: 'SR' } });
  assert.equal(entries[2], { channel: 'IP_CH1', int_alarm: { alarm_val: true, int_subtype: 'lcd' }, record_flag: { s: 'R', r: 'SR' } });
  assert.equal(entries[3], { channel: 'WIFI_CH1', pir_alarm: false });
  // A new subscriber first gets what is active now.
  const late = await subscribe();
  assert.equal(
    late.alarm_list[0].channel_alarm.map((e: any) => e.channel + (e.motion_alarm ? ':motion' : `:${e.int_alarm.int_subtype}`)),
    ['CH1:motion', 'CH1:pd', 'IP_CH1:lcd'],
  );
  assert.is(sim.log.filter((e) => e.path === CHECK).length, 4, 'one answer per call');
});

test('AlarmType keys map to the vendor members; a channel raises only what its hardware allows', async () => {
  await start({ aiAlarmForm: 'both' });
  const sub = await subscribe({});
  const cases: Array<[string, string, object]> = [
    ['CH1', 'vehicle', { int_alarm: { alarm_val: true, int_subtype: 'pd_vd' }, alarm_state: [{ alarm_val: true, int_subtype: 'pd_vd' }] }],
    ['CH1', 'intrusion', { int_alarm: { alarm_val: true, int_subtype: 'pid' }, alarm_state: [{ alarm_val: true, int_subtype: 'pid' }] }],
    ['CH1', 'face', { int_alarm: { alarm_val: true, int_subtype: 'fd' }, alarm_state: [{ alarm_val: true, int_subtype: 'fd' }] }],
    ['CH1', 'io', { io_alarm: true }],
    ['CH2', 'video_loss', { videoloss: true }],
  ];
  for (const [channel, type] of cases) sim.raiseAlarm({ channel, type: type as any, active: true });
  const d = (await next(sub)).json.data;
  cases.forEach(([channel, , members], i) => {
    const { record_flag: _, ...entry } = d.alarm_list[i].channel_alarm[0];
    assert.equal(entry, { channel, ...members });
  });
  assert.throws(() => sim.raiseAlarm({ channel: 'CH2', type: 'pir', active: true }), /CH2 cannot raise pir: it needs the Pir ability/);
  assert.throws(() => sim.raiseAlarm({ channel: 'CH2', type: 'person', active: true }), /intelligent_ability PVD/);
  assert.throws(() => sim.raiseAlarm({ channel: 'CH4', type: 'io', active: true }), /alarm_in_num/);
  assert.throws(() => sim.raiseAlarm({ channel: 'IP_CH2', type: 'motion', active: true }), /IP_CH2 is Offline/);
  assert.throws(() => sim.raiseAlarm({ channel: 'IP_CH3', type: 'motion', active: true }), /IP_CH3 is NotConfigured/);
  assert.throws(() => sim.raiseAlarm({ channel: 'CH42', type: 'motion', active: true }), /no channel CH42/);
  assert.throws(() => sim.raiseAlarm({ channel: 'CH1', type: 'bogus' as any, active: true }), /unknown alarm type/);
  assert.throws(
    () => sim.raiseAlarm({ channel: 'CH1', type: 'intrusion', subtype: 'pd', active: true }),
    /subtype must be one of pid, intrusion/,
  );
  const after = (await next(d)).json.data;
  assert.is(after.heat_alarm, 'HeatAlarm', 'refused alarms reach no reader');
});

test('disk alarms arrive as system_alarm; live changes as Floodlight_AudioAlarm; camera status as status-only members', async () => {
  await start();
  const sub = await subscribe();
  sim.raiseDiskAlarm({ ok: false, info: 'NoDisk' });
  sim.setLive('CH1', { floodlight_switch: true, floodlight_value: 80 });
  sim.setOnline('IP_CH1', false);
  const d = (await next(sub)).json.data;
  assert.equal(d.alarm_list[0].system_alarm, [{ device_name: 'NVR', hdd: { hdd_alarm_type: 'Error', hdd_alarm_info: 'NoDisk' } }]);
  assert.equal(d.alarm_list[1].channel_alarm, [
    {
      channel: 'CH1',
      Floodlight_AudioAlarm: {
        floodlight_switch: true,
        flood_light_value: 80,
        floodlight_value_range: { type: 'int32', min: 1, max: 100 },
        audioAlarm_switch: false,
        audioAlarm_value: 5,
        audioAlarm_value_range: { type: 'int32', min: 1, max: 10 },
      },
    },
  ]);
  assert.is(d.alarm_list[2].channel_alarm[0].camera_connect_status.connect_status, 'Offline');
  assert.throws(() => sim.raiseDiskAlarm({ ok: false, info: 'Melted' }), /info must be one of/);
});

test('subscribe filters: event ["motion"] only; subscribe_record_sign false drops record_flag', async () => {
  await start();
  const sub = await subscribe({
    plus_eventchk: 'eventAiPushPic',
    ext_data: { subscribe_type: [{ event: ['motion'] }] },
    subscribe_record_sign: false,
  });
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true });
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  sim.raiseAlarm({ channel: 'CH1', type: 'io', active: true });
  const d = (await next(sub)).json.data;
  assert.equal(
    d.alarm_list.map((i: any) => i.channel_alarm[0]),
    [{ channel: 'CH1', motion_alarm: true }],
  );
  assert.is(d.sequence, sub.sequence + 3, 'the cursor passes the filtered entries');
});

test('cursor errors: readerID_invalid, position_invalid, param_error; lap_number null accepted; old firmware time form', async () => {
  await start({ firmware: '8.2.3' });
  const sub = await subscribe();
  const bad = await next(sub, { reader_id: 999 });
  assert.equal([bad.status, bad.json.result, bad.json.error_code], [400, 'failed', 'readerID_invalid']);
  assert.is((await next(sub, { sequence: sub.sequence + 5 })).json.error_code, 'position_invalid');
  assert.is((await c.post(CHECK, { reader_id: sub.reader_id })).json.error_code, 'param_error', 'sequence required with a reader_id');
  assert.is((await c.post(CHECK, { plus_eventchk: 'other' })).json.error_code, 'param_error');
  assert.is(
    (await c.post(CHECK, { ...SUBSCRIBE, ext_data: { subscribe_type: [{ event: ['pir'] }] } })).json.error_code,
    'param_error',
    'no pir value (vendor)',
  );
  sim.raiseAlarm('CH1', 'motion_alarm', true); // the older positional form
  const res = await next(sub, { lap_number: null });
  assert.is(res.status, 200, res.text);
  assert.equal(res.json.data.alarm_list[0].channel_alarm[0].motion_alarm, true);
  assert.match(res.json.data.alarm_list[0].time, /^\d\d\/\d\d\/\d{4}\d\d:\d\d:\d\d$/);
});

test('eventHold: a call with nothing to report is held, woken by an alarm, else answered with the keep-alive', async () => {
  await start({ eventHold: true, eventHoldMs: 300 });
  const sub = await subscribe();
  let t = Date.now();
  const pending = next(sub);
  await until(() => sim.held === 1, 'the call held by the simulator');
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  const woken = await pending;
  assert.ok(Date.now() - t < 250, 'woken before the hold ended');
  assert.is(woken.json.data.alarm_list.length, 1);
  t = Date.now();
  const held = await next(woken.json.data);
  assert.ok(Date.now() - t >= 280, 'held about eventHoldMs');
  assert.is(held.json.data.heat_alarm, 'HeatAlarm');
});

test('stop() answers held requests and closes', async () => {
  await start({ eventHoldMs: 60_000 });
  const sub = await subscribe();
  const pending = next(sub);
  await until(() => sim.held === 1, 'the call held by the simulator');
  const t = Date.now();
  await sim.stop();
  const res = await pending;
  assert.ok(Date.now() - t < 1000);
  assert.is(res.json.data.heat_alarm, 'HeatAlarm');
});

test('alarmEveryMs raises random allowed alarms, each ended later', async () => {
  // Held calls: each poll returns as soon as the next alarm starts or ends (no pause between polls needed).
  await start({ alarmEveryMs: 40, eventHoldMs: 1000 });
  let cur: any = await subscribe();
  const seen: any[] = [];
  const end = Date.now() + 3000;
  while (Date.now() < end && (seen.length < 6 || seen.filter((e) => hasActive(e, false)).length < 2)) {
    const d = (await next(cur)).json.data;
    cur = d;
    for (const i of d.alarm_list ?? []) seen.push(...i.channel_alarm);
  }
  assert.ok(seen.filter((e) => hasActive(e, true)).length >= 2, 'starts');
  assert.ok(seen.filter((e) => hasActive(e, false)).length >= 1, 'ends');
  for (const e of seen) assert.not.ok(['IP_CH2', 'IP_CH3'].includes(e.channel), 'never an offline or empty channel');
});

function hasActive(e: any, v: boolean): boolean {
  return [e.motion_alarm, e.pir_alarm, e.io_alarm, e.int_alarm?.alarm_val].includes(v);
}

test('alarm reaction: with Deterrence/VoiceAlarm switched on, an alarm turns the live light and siren on until it ends; not when disarmed', async () => {
  await start();
  await c.post('/API/AlarmConfig/Deterrence/Set', {
    page_type: 'ChannelConfig',
    channel_info: { CH1: { flood_light_switch: true, chn_index: 'CH1', page: 'chn_floodlight' } },
  });
  await c.post('/API/AlarmConfig/VoiceAlarm/Set', { channel_info: { CH1: { siren_switch: true } } });
  const live = sim.state['PreviewChannel/Floodlight2AudioAlarm'].channel_info!.CH1;
  const sub = await subscribe();
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true });
  assert.equal([live.floodlight_switch, live.audioAlarm_switch], [true, true]);
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: false });
  assert.equal([live.floodlight_switch, live.audioAlarm_switch], [false, false]);
  const d = (await next(sub)).json.data;
  assert.equal(
    d.alarm_list.map((i: any) => i.channel_alarm[0].Floodlight_AudioAlarm?.floodlight_switch),
    [undefined, true, undefined, false],
  );
  const dis = await c.post('/API/AlarmConfig/Disarming/Set', { disarming: true, disarming_channel: ['CH1'] });
  assert.is(dis.status, 200, dis.text);
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  assert.equal([live.floodlight_switch, live.audioAlarm_switch], [false, false], 'disarmed: no reaction');
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  assert.is(sim.state['PreviewChannel/Floodlight2AudioAlarm'].channel_info!.CH2.floodlight_switch, false, 'CH2 deterrence off');
});

test('the call needs a session', async () => {
  await start();
  const res = await new RawClient(sim.url).post(CHECK, SUBSCRIBE);
  assert.equal([res.status, res.json.error_code], [401, 'no_login']);
});

test.run();
