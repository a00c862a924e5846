import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { NvrClient } from '../../core/client';
import { ALARM_TYPES, ALARM_TYPE_KEYS, alarmTypesOf, type AlarmTypeInfo } from '../../core/alarm-types';
import { eventsOf, normalizeTime, type DeviceEvent } from '../../core/events';
import type { Handler } from './fake-device';
import { clientRig, rejection } from './harness';
import { until } from '../helpers/until';

/**
 * The event stream against a device answering `/API/Event/Check` in the vendor's shapes (vendor facts d;
 * the vendor page "This API is used to get parameter for Event > event check page"), values our own.
 */

const PASSWORD = 'Ev3nts-pw';
const CHECK = '/API/Event/Check';
const LOGIN = '/API/Web/Login';
const SUBSCRIPTION = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }] } };

/** Event source of the device: subscription, cursor, alarms, keep-alive, refusals; logs every request. */
class EventSource {
  reader = 7;
  sequence = 5000;
  readonly requests: Array<{ at: number; data: Record<string, unknown> }> = [];
  /** Answers (`data`) handed out in order; when empty, the keep-alive. */
  readonly answers: Array<Record<string, unknown>> = [];
  /** Refusals handed out first (`readerID_invalid`...). */
  readonly refusals: string[] = [];
  /** The first subscription answer also carries `lap_number` (the sample answer omits it later). */
  lap = 2;

  constructor(private holdMs = 0) {}

  get subscriptions(): number {
    return this.requests.filter((r) => r.data.reader_id === undefined).length;
  }

  handler: Handler = async (data) => {
    this.requests.push({ at: Date.now(), data });
    if (this.holdMs) await new Promise((r) => setTimeout(r, this.holdMs));
    const refusal = this.refusals.shift();
    if (refusal) return { fail: refusal };
    if (data.reader_id === undefined) this.reader++;
    const cursor = { reader_id: this.reader, sequence: ++this.sequence, ...(data.reader_id === undefined ? { lap_number: this.lap } : {}) };
    const next = this.answers.shift();
    return next ? { ...next, ...cursor } : { ...cursor, heat_alarm: 'HeatAlarm' };
  };
}

const test = suite('events');
const { setup, closeAll } = clientRig(PASSWORD);
test.after.each(closeAll);

async function device(source = new EventSource(), client = {}) {
  const rig = await setup({ handlers: { [CHECK]: source.handler } }, client);
  return { ...rig, source };
}

/** Runs the stream in the background, collecting events, until `stop()`. */
function collect(c: NvrClient, opts: Parameters<NvrClient['events']>[0] = {}) {
  const ctl = new AbortController();
  const events: DeviceEvent[] = [];
  const done = (async () => {
    for await (const e of c.events({ signal: ctl.signal, ...opts })) events.push(e);
  })();
  return {
    events,
    done,
    stop: async () => {
      ctl.abort();
      await done;
    },
  };
}

/** One answer in the vendor's exact shapes: every kind of channel alarm, the disk, status-only members. */
const VENDOR_ANSWER = {
  alarm_list: [
    {
      time: '2024-03-09T21:04:05Z+01:00',
      system_alarm: [{ device_name: 'Garage-NVR', hdd: { hdd_alarm_type: 'Error', hdd_alarm_info: 'Full' } }],
      channel_alarm: [
        { channel: 'CH1', channel_name: 'Drive', motion_alarm: true, record_flag: { m: 'R', r: 'SR' } },
        { channel: 'CH2', pir_alarm: true, io_alarm: false, videoloss: false },
        { channel: 'CH3', int_alarm: { alarm_val: true, int_subtype: 'pd' } },
        {
          channel: 'CH3',
          alarm_state: [
            { alarm_val: true, int_subtype: 'lcd' },
            { alarm_val: false, int_subtype: 'pd_vd' },
          ],
        },
        {
          channel: 'IP_CH4',
          chn_alias: 'Gate',
          Floodlight_AudioAlarm: {
            floodlight_switch: true,
            flood_light_value: 64,
            floodlight_value_range: { min: 1, max: 100 },
            audioAlarm_switch: false,
            audioAlarm_value: 7,
            audioAlarm_value_range: { min: 1, max: 10 },
          },
        },
        { channel: 'CH5', record_flag: { h: 'R' } },
        {
          channel: 'CH6',
          camera_connect_status: {
            connect_status: 'Online',
            ability: ['Pir'],
            protocol: 'Private',
            input_num: 1,
            output_num: 1,
            intelligent_ability: ['PVD'],
          },
        },
      ],
    },
    {
      time: '03/09/202421:04:07',
      channel_alarm: [{ channel: 'CH1', motion_alarm: false }],
    },
  ],
  log_collect: { dir_name: '2024_03_09', file_name: '20240309_210405_ch1.log.tar.gz' },
};

const VENDOR_EVENTS: DeviceEvent[] = [
  { kind: 'disk', ok: false, info: 'Full', time: '2024-03-09T21:04:05+01:00' },
  { kind: 'alarm', channel: 'CH1', type: 'motion', active: true, time: '2024-03-09T21:04:05+01:00' },
  { kind: 'alarm', channel: 'CH2', type: 'pir', active: true, time: '2024-03-09T21:04:05+01:00' },
  { kind: 'alarm', channel: 'CH2', type: 'io', active: false, time: '2024-03-09T21:04:05+01:00' },
  { kind: 'alarm', channel: 'CH2', type: 'video_loss', active: false, time: '2024-03-09T21:04:05+01:00' },
  { kind: 'alarm', channel: 'CH3', type: 'person', active: true, time: '2024-03-09T21:04:05+01:00', subtype: 'pd' },
  { kind: 'alarm', channel: 'CH3', type: 'line_crossing', active: true, time: '2024-03-09T21:04:05+01:00', subtype: 'lcd' },
  { kind: 'alarm', channel: 'CH3', type: 'vehicle', active: false, time: '2024-03-09T21:04:05+01:00', subtype: 'pd_vd' },
  { kind: 'live', channel: 'IP_CH4', floodlight: true, brightness: 64, siren: false, volume: 7 },
  { kind: 'alarm', channel: 'CH1', type: 'motion', active: false, time: '2024-03-09T21:04:07' },
];

test('request bodies: subscription without cursor first, then the cursor; lap_number kept when the answer omits it', async () => {
  const { c, source } = await device();
  const run = collect(c, { intervalMs: 100 });
  await until(() => source.requests.length >= 3);
  await run.stop();
  const [first, second, third] = source.requests.map((r) => r.data);
  assert.equal(first, SUBSCRIPTION);
  assert.equal(second, { ...SUBSCRIPTION, reader_id: 8, sequence: 5001, lap_number: 2 });
  assert.equal(third, { ...SUBSCRIPTION, reader_id: 8, sequence: 5002, lap_number: 2 }, 'the keep-alive answer had no lap_number');
  assert.equal(run.events, [], 'keep-alives give no event');
});

test('an answer in the vendor shapes: alarms, live light/siren, disk, both time forms; status-only members give nothing', async () => {
  const source = new EventSource();
  source.answers.push(VENDOR_ANSWER);
  const { c } = await device(source);
  const run = collect(c, { intervalMs: 100 });
  await until(() => run.events.length >= VENDOR_EVENTS.length && source.requests.length >= 3);
  await run.stop();
  assert.equal(run.events, VENDOR_EVENTS, 'exactly these events, CH5/CH6 status members and keep-alives none');
});

test('types filter: only the chosen alarm types (live and disk pass)', async () => {
  const source = new EventSource();
  source.answers.push(VENDOR_ANSWER);
  const { c } = await device(source);
  const run = collect(c, { intervalMs: 100, types: ['person', 'line_crossing'] });
  await until(() => source.requests.length >= 2);
  await run.stop();
  assert.equal(
    run.events.map((e) => (e.kind === 'alarm' ? e.type : e.kind)),
    ['disk', 'person', 'line_crossing', 'live'],
  );
});

test('paced: a device answering at once gets at most one call per interval', async () => {
  const { c, source } = await device();
  const t0 = Date.now();
  const run = collect(c, { intervalMs: 150 });
  await until(() => source.requests.length >= 6);
  await run.stop();
  const elapsed = Date.now() - t0;
  const n = source.requests.length;
  assert.ok(n <= Math.ceil(elapsed / 150) + 1, `${n} calls in ${elapsed} ms`);
  // Arrival times at the device: one call delivered late (a loaded machine) shortens the gap after it, never the
  // average; an unpaced loop would show gaps near 0.
  for (let i = 1; i < n; i++) {
    const gap = source.requests[i].at - source.requests[i - 1].at;
    assert.ok(gap >= 100, `call ${i} came ${gap} ms after the previous one`);
  }
  const mean = (source.requests[n - 1].at - source.requests[0].at) / (n - 1);
  assert.ok(mean >= 145, `calls ${mean} ms apart on average`);
});

test('paced from the start of the previous call: a device holding each call 250 ms is called every 250 ms, not 250 + interval', async () => {
  const { c, source } = await device(new EventSource(250));
  const run = collect(c, { intervalMs: 100 });
  await until(() => source.requests.length >= 4);
  await run.stop();
  for (let i = 1; i < source.requests.length; i++) {
    const gap = source.requests[i].at - source.requests[i - 1].at;
    assert.ok(gap >= 230 && gap < 330, `gap ${gap} ms`);
  }
});

test('errors back off (doubling) and never loop tightly; the stream recovers with the cursor it had', async () => {
  const { dev, c, source } = await device();
  const run = collect(c, { intervalMs: 100, backoffMs: 100 });
  await until(() => source.requests.length >= 2);
  dev.faults.set(CHECK, 'http500');
  const t0 = Date.now();
  await until(() => dev.count(CHECK, 500) >= 4, 'four Event/Check calls', 4_000);
  const elapsed = Date.now() - t0;
  const failures = dev.log.filter((l) => l.path === CHECK && l.status === 500);
  dev.faults.delete(CHECK);
  const before = source.requests.length;
  await until(() => source.requests.length >= before + 1);
  await run.stop();
  assert.is(failures.length, 4);
  assert.equal(source.requests.at(-1)!.data.reader_id, 8, 'same reader after a transport error');
  assert.is(source.subscriptions, 1);
  assert.is(run.events.length, 0);
  // 100, 200, 400 ms between failures: 4 failures take at least 700 ms (a tight loop would take ~0).
  assert.ok(elapsed >= 650, `4 failures in ${elapsed} ms`);
});

test('readerID_invalid and position_invalid: subscribe again at the next interval, events keep coming', async () => {
  const source = new EventSource();
  const { c } = await device(source);
  const run = collect(c, { intervalMs: 100 });
  await until(() => source.requests.length >= 2);
  source.refusals.push('readerID_invalid');
  await until(() => source.subscriptions === 2);
  source.refusals.push('position_invalid');
  await until(() => source.subscriptions === 3);
  source.answers.push({ alarm_list: [{ time: '01/02/202403:04:05', channel_alarm: [{ channel: 'WIFI_CH2', io_alarm: true }] }] });
  await until(() => run.events.length === 1);
  await run.stop();
  assert.equal(run.events, [{ kind: 'alarm', channel: 'WIFI_CH2', type: 'io', active: true, time: '2024-01-02T03:04:05' }]);
  const refused = source.requests.findIndex((r, i) => i > 0 && r.data.reader_id === undefined);
  assert.ok(source.requests[refused].at - source.requests[refused - 1].at >= 80, 'the new subscription waits for the interval');
});

test('after a re-login the stream drops its cursor and subscribes again', async () => {
  const { dev, c, source } = await device();
  const run = collect(c, { intervalMs: 100 });
  await until(() => source.requests.length >= 2);
  assert.is(dev.count(LOGIN, 200), 1);
  dev.expireAll(); // the device forgets the session: the next call answers `expired`
  await until(() => dev.count(LOGIN, 200) === 2);
  await until(() => source.subscriptions === 2);
  const afterLogin = source.requests.length;
  await until(() => source.requests.length >= afterLogin + 1);
  await run.stop();
  // Subscribed (reader 8), polled, the poll refused `expired` is repeated once after the re-login, then a new subscription (reader 9).
  assert.equal(source.requests.map((r) => r.data.reader_id).slice(-3), [8, undefined, 9]);
  assert.equal(source.requests.at(-1)!.data, {
    ...SUBSCRIPTION,
    reader_id: 9,
    sequence: source.requests.at(-1)!.data.sequence,
    lap_number: 2,
  });
  assert.is(dev.count(LOGIN, 200), 2, 'one re-login');
  assert.is(dev.count(CHECK, 401), 1, 'one refused call');
});

test('lock-out ends the stream with the error, after one login attempt', async () => {
  const { dev, c } = await device(new EventSource(), { password: 'not-it' });
  const err = await rejection(collect(c).done);
  assert.is(err.kind, 'lockout');
  assert.is(dev.count(LOGIN), 2, 'challenge + one answer');
  assert.is(dev.count(CHECK), 0);
});

test('a device without Event/Check ends the stream with unsupported after one call', async () => {
  const { dev, c } = await setup();
  const err = await rejection(collect(c).done);
  assert.is(err.kind, 'unsupported');
  assert.is(dev.count(CHECK), 1);
});

test('intervalMs below 100 ms is refused before anything is sent', async () => {
  const { dev, c } = await device();
  const err = await rejection(collect(c, { intervalMs: 0 }).done);
  assert.is(err.error_code, 'bad_option');
  assert.match(err.reason, 'intervalMs');
  assert.is(dev.log.length, 0);
});

test('close ends the stream at once, also while a call is held', async () => {
  const { c, source } = await device(new EventSource(5_000));
  const run = collect(c);
  await until(() => source.requests.length === 1);
  const t0 = Date.now();
  await c.close();
  await run.done;
  assert.ok(Date.now() - t0 < 1_500, `took ${Date.now() - t0} ms`);
});

test('abort while waiting for the next interval ends the stream at once', async () => {
  const { c, source } = await device();
  const run = collect(c, { intervalMs: 10_000 });
  await until(() => source.requests.length === 1);
  const t0 = Date.now();
  await run.stop();
  assert.ok(Date.now() - t0 < 200);
  assert.is(source.requests.length, 1);
});

test('eventsOf: motion_report form, a bad member drops alone, unknown int_subtype and keep-alive give nothing', () => {
  assert.equal(eventsOf({ reader_id: 1, sequence: 2, heat_alarm: 'HeatAlarm' }), []);
  assert.equal(
    eventsOf({ alarm_list: [{ channel_alarm: [{ channel: 'CH1', motion_report: { alarm_state: true, alarm_type: 'smd' } }] }] }),
    [{ kind: 'alarm', channel: 'CH1', type: 'motion', active: true, subtype: 'smd' }],
  );
  assert.equal(
    eventsOf({
      alarm_list: [
        {
          channel_alarm: [
            { channel: 'CH1', motion_alarm: 'maybe', pir_alarm: true },
            { channel: 'CH2', int_alarm: { alarm_val: true, int_subtype: 'new_ai_kind' } },
            { motion_alarm: true },
            'junk',
          ],
        },
        'junk',
      ],
    }),
    [{ kind: 'alarm', channel: 'CH1', type: 'pir', active: true }],
  );
  assert.equal(eventsOf({ alarm_list: [{ system_alarm: [{ device_name: 'x', hdd: { hdd_alarm_type: 'Ok' } }] }] }), [
    { kind: 'disk', ok: true },
  ]);
  assert.equal(eventsOf(null), []);
});

test('normalizeTime: both vendor forms to ISO 8601, anything else kept', () => {
  assert.is(normalizeTime('08/25/202308:38:58'), '2023-08-25T08:38:58');
  assert.is(normalizeTime('8/5/2023 8:38:58'), '2023-08-05T08:38:58');
  assert.is(normalizeTime('2023-08-25T08:38:58Z+08:00'), '2023-08-25T08:38:58+08:00');
  assert.is(normalizeTime('2023-08-25T08:38:58Z'), '2023-08-25T08:38:58Z');
  assert.is(normalizeTime('yesterday'), 'yesterday');
});

test('ALARM_TYPES: every int_subtype of the vendor list maps to one type; a channel raises what its abilities allow', () => {
  const vendorSubtypes = [
    'video_tamper',
    'sod',
    'lcd',
    'pid',
    'pd',
    'fd',
    'sound',
    'avd',
    'pd_vd',
    'cc',
    'cd',
    'qd',
    'lpd',
    'rsd',
    'ad',
    'intrusion',
    'region_entrance',
    'region_exiting',
    'fireDetect',
    'measure',
  ];
  const mapped = ALARM_TYPE_KEYS.flatMap((k) => (ALARM_TYPES[k] as AlarmTypeInfo).subtypes ?? []);
  assert.equal([...mapped].sort(), [...vendorSubtypes].sort());
  assert.equal(alarmTypesOf({ online: false, configured: false, abilities: ['Pir'] }), []);
  assert.equal(
    alarmTypesOf({ online: false, configured: true, abilities: ['Pir'] }),
    ['video_loss'],
    'an offline camera still reports video loss',
  );
  assert.equal(alarmTypesOf({ online: true }), ['motion', 'video_loss', 'tamper']);
  assert.equal(alarmTypesOf({ online: true, abilities: ['Pir'], ai: ['PVD', 'LCD'], alarmIn: 1 }), [
    'motion',
    'pir',
    'io',
    'video_loss',
    'person',
    'vehicle',
    'motor_vehicle',
    'line_crossing',
    'tamper',
  ]);
  assert.equal(alarmTypesOf({ online: true }, 4), ['motion', 'io', 'video_loss', 'tamper'], 'recorder inputs count for io');
});

test.run();
