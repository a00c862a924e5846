/**
 * The simulator's recordings in the vendor's shapes (vendor-facts-next §1): the vendor's own request samples are
 * accepted, the recording log follows the alarms raised (each alarm edge ends a segment and starts one of the alarm's
 * record_type bit, NVR or IPC table), the month calendar, stored pictures in both phases, bookmarks, "recording now",
 * and the search / playback refusals. Times are the device's local time in its zone (Europe/Berlin here).
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { startSimulator, type Simulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';

const ZONE = 'Europe/Berlin';
const test = suite<{ sim: Simulator; c: RawClient }>('simulator recordings');

test.before(async (ctx) => {
  // A 16-channel DVR: the vendor's samples name CH1-CH16.
  ctx.sim = await startSimulator({ password: PASSWORD, channels: 16, analog: 16, timeZone: ZONE, alarmPictures: 'none' });
  ctx.c = new RawClient(ctx.sim.url);
  await ctx.c.login();
});
test.after(async ({ sim }) => sim.stop());

/** Berlin's wall clock as the device writes it. */
function local(ms: number): { date: string; time: string } {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: ZONE,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(ms)
      .map((x) => [x.type, x.value]),
  );
  return { date: `${p.month}/${p.day}/${p.year}`, time: `${p.hour}:${p.minute}:${p.second}` };
}
const ALL_CH = Array.from({ length: 16 }, (_, i) => `CH${i + 1}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const day = (ms: number) => ({ start_date: local(ms).date, start_time: '00:00:00', end_date: local(ms).date, end_time: '23:59:59' });

test('the vendor samples of SearchMonth, SearchRecord, Picture, Tag and SystemInfo/Record are accepted', async ({ c }) => {
  const month = await c.post('/API/Playback/SearchMonth/Get', {
    channel: [],
    stream_type: 'Substream',
    start_date: '05/31/2023',
    search_type: 'Record',
  });
  assert.equal(month.json.result, 'success');
  assert.equal(month.json.data.is_has_rec.length, 31);
  assert.deepEqual(month.json.data.is_has_rec, new Array(31).fill(0), 'nothing recorded in 2023');
  const search = await c.post('/API/Playback/SearchRecord/Search', {
    channel: ['CH1'],
    start_date: '06/28/2023',
    start_time: '00:00:00',
    end_date: '06/28/2023',
    end_time: '23:59:59',
    record_type: 4294967295,
    smart_region: [],
    enable_smart_search: 0,
    record_type_ex: [4294967295],
    stream_mode: 'Substream',
  });
  assert.deepEqual(search.json, { result: 'success', data: { record: [[]] } });
  const pics = await c.post('/API/Playback/Picture/Get', {
    record_type_ex: [4294967295],
    ...{ start_date: '06/29/2023', start_time: '00:00:00', end_date: '06/29/2023', end_time: '23:59:59' },
    record_type: 524287,
    channel: ALL_CH,
    pic_sort: 0,
  });
  assert.equal(pics.json.result, 'success');
  assert.equal(pics.json.data.all_pic_num, 0);
  const one = await c.post('/API/Playback/Picture/Get', { pic_info: 'AQAAOQAAAABcAgAAAQAAAAAAAAAAAAAAAAQCAB0GFwAA0K4AKGECAEEAAAAAAAAA' });
  assert.equal(one.json.error_code, 'param_error', 'a token this device never gave');
  const tags = await c.post('/API/Playback/Tag/Get', {
    ...{ start_date: '06/29/2023', start_time: '00:00:00', end_date: '06/29/2023', end_time: '23:59:59' },
    channel: ALL_CH,
    Keyword: '',
  });
  assert.deepEqual(tags.json.data, { 'Pre-play': '30s', 'Post-play': '30s', all_tag_num: 0, all_tag_info: [] });
  const add = await c.post('/API/Playback/Tag/Set', {
    Tag_name: 'Tag1',
    Tag_date: '06/29/2023',
    Tag_time: '13:19:40',
    label_id: 0,
    record_id: 0,
    operate: 0,
    channel: ['CH1'],
  });
  assert.deepEqual(add.json, { result: 'success', data: {} });
  const rec = await c.post('/API/SystemInfo/Record/Get', {});
  assert.equal(rec.json.data.channel_info.CH8.record_state, 'On');
  assert.equal(rec.json.data.channel_info.CH8.record_switch, 'Enable');
  assert.equal(rec.json.data.channel_max, 16);
});

test('an alarm ends the running segment and records one of its type (NVR table: motion 0x4) in the same file', async ({ sim, c }) => {
  const before = Date.now();
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  await sleep(1100);
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
  const after = Date.now();
  const all = await c.post('/API/Playback/SearchRecord/Search', {
    channel: ['CH2'],
    ...day(after),
    record_type: 4294967295,
    stream_mode: 'Mainstream',
  });
  const segs = all.json.data.record[0] as Array<Record<string, any>>;
  const motion = segs.filter((s) => s.record_type === 4);
  assert.equal(motion.length, 1, JSON.stringify(segs.slice(-3)));
  const m = motion[0];
  assert.equal(m.channel, 'CH2');
  assert.equal(m.start_date, local(before).date);
  assert.ok(m.start_time >= local(before - 1000).time && m.start_time <= local(after).time, `${m.start_time} within the alarm`);
  const i = segs.indexOf(m);
  assert.equal(segs[i - 1].record_type, 1, 'normal before');
  assert.equal(segs[i - 1].end_time, m.start_time, 'no gap');
  assert.equal(segs[i + 1].record_type, 1, 'normal after');
  assert.equal(segs[i + 1].record_id, m.record_id, 'same file');
  assert.equal(segs[i + 1].disk_event_id, m.disk_event_id + 1);
  assert.equal(m.new_record_type, 'IMN');
  assert.equal(m.lock, false);
  assert.ok(m.size > 0 && segs[i + 1].stream_mode === 'Mainstream');
  // Only motion when only motion is asked for; another channel has none.
  const only = await c.post('/API/Playback/SearchRecord/Search', { channel: ['CH2', 'CH3'], ...day(after), record_type: 4 });
  assert.equal(only.json.data.record.length, 2, 'one array per channel');
  assert.deepEqual(
    only.json.data.record[0].map((s: any) => s.record_type),
    [4],
  );
  assert.deepEqual(only.json.data.record[1], []);
  // The month calendar marks today with motion.
  const month = await c.post('/API/Playback/SearchMonth/Get', {
    channel: ['CH2'],
    stream_type: 'Mainstream',
    start_date: local(after).date,
    search_type: 'Record',
  });
  const d = Number(local(after).date.slice(3, 5));
  assert.equal(month.json.data.is_has_rec[d - 1], 1);
  assert.equal(month.json.data.record_type[d - 1] & 5, 5, 'normal and motion that day');
});

test('the picture of an alarm start: listed as a token, then fetched as a JPEG with the local time', async ({ sim, c }) => {
  const at = Date.now();
  sim.raiseAlarm({ channel: 'CH5', type: 'io', active: true });
  sim.raiseAlarm({ channel: 'CH5', type: 'io', active: false });
  const list = await c.post('/API/Playback/Picture/Get', { channel: ['CH5'], ...day(at), record_type: 8, pic_sort: 1, msg_type: 'x1' });
  assert.equal(list.json.data.msg_type, 'x1', 'echoed');
  assert.equal(list.json.data.overload, false);
  assert.equal(list.json.data.all_pic_num, 1);
  const motionOnly = await c.post('/API/Playback/Picture/Get', { channel: ['CH5'], ...day(at), record_type: '4', pic_sort: '0' });
  assert.equal(motionOnly.json.data.all_pic_num, 0, 'an IO picture is not a motion picture');
  const pic = await c.post('/API/Playback/Picture/Get', { pic_info: list.json.data.all_pic_info[0].pic_info });
  assert.equal(pic.json.data.picture.channel, 'CH5');
  const t = local(at);
  assert.match(pic.json.data.picture.time, /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/);
  assert.equal(pic.json.data.picture.time.slice(0, 10), `${t.date.slice(6)}/${t.date.slice(0, 5)}`);
  const jpeg = Buffer.from(pic.json.data.picture.image, 'base64');
  assert.deepEqual([...jpeg.subarray(0, 2)], [0xff, 0xd8]);
});

test('bookmarks: added, found by keyword, renamed, removed', async ({ c }) => {
  const now = local(Date.now());
  const range = { start_date: now.date, start_time: '00:00:00', end_date: now.date, end_time: '23:59:59' };
  const set = (d: Record<string, unknown>) => c.post('/API/Playback/Tag/Set', { label_id: 0, record_id: 0, channel: ['CH5'], ...d });
  assert.equal((await set({ operate: 0, Tag_name: 'door', Tag_date: now.date, Tag_time: now.time })).json.result, 'success');
  assert.equal((await set({ operate: 0, Tag_name: 'car', Tag_date: now.date, Tag_time: now.time })).json.result, 'success');
  const get = async (Keyword = '') => (await c.post('/API/Playback/Tag/Get', { ...range, channel: ['CH5'], Keyword })).json.data;
  const found = await get('do');
  assert.equal(found.all_tag_num, 1);
  const tag = found.all_tag_info[0].tag_info;
  assert.equal(tag.Tag_name, 'door');
  assert.equal(tag.chNum, 4);
  assert.ok(tag.record_id >= 500, 'the file recording at that time');
  assert.equal((await set({ operate: 2, label_id: tag.label_id, Tag_name: 'front door' })).json.result, 'success');
  assert.deepEqual(((await get()).all_tag_info as any[]).map((t) => t.tag_info.Tag_name).sort(), ['car', 'front door']);
  assert.equal((await set({ operate: 1, label_id: tag.label_id })).json.result, 'success');
  assert.deepEqual(
    ((await get()).all_tag_info as any[]).map((t) => t.tag_info.Tag_name),
    ['car'],
  );
  const bad = await set({ operate: 0, Tag_name: 'x'.repeat(40), Tag_date: now.date, Tag_time: now.time });
  assert.equal(bad.json.error_code, 'param_error');
  assert.equal((await get()).all_tag_num, 1, 'nothing added');
});

test('recording now: On while the channel records, Off when switched off, and the segment ends there', async ({ sim, c }) => {
  sim.setRecording('CH6', false);
  const rec = await c.post('/API/SystemInfo/Record/Get', {});
  assert.deepEqual(rec.json.data.channel_info.CH6, { record_state: 'Off', record_switch: 'Disable' });
  assert.equal(rec.json.data.channel_info.CH8.record_state, 'On');
  assert.equal(rec.json.data.channel_info.CH8.stream_type, 'DualStream');
  await sleep(20);
  const segs = (await c.post('/API/Playback/SearchRecord/Search', { channel: ['CH6'], ...day(Date.now()), record_type: 1 })).json.data
    .record[0];
  const last = segs.at(-1);
  assert.ok(last.end_time <= local(Date.now() - 10).time || last.end_date !== local(Date.now()).date, 'the last segment ended');
  sim.setRecording('CH6', true);
  const again = await c.post('/API/SystemInfo/Record/Get', {});
  assert.equal(again.json.data.channel_info.CH6.record_state, 'On');
});

test('bad requests get param_error with the reason: unknown channel, bad date form, end before start', async ({ c }) => {
  const base = { channel: ['CH1'], ...day(Date.now()), record_type: 4294967295 };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ ...base, channel: ['CH99'] }, /unknown channel "CH99"/],
    [{ ...base, start_date: '2023-06-28' }, /start_date: must be MM\/DD\/YYYY/],
    [{ ...base, start_time: '23:00:00', end_time: '01:00:00' }, /end before start/],
    [{ ...base, record_type: 'all' }, /record_type/],
  ];
  for (const [data, reason] of cases) {
    const r = await c.post('/API/Playback/SearchRecord/Search', data);
    assert.equal(r.status, 400);
    assert.equal(r.json.error_code, 'param_error');
    assert.match(r.json.reason, reason);
  }
});

test('search_failed (with remain_locked_time) and device_play_locked as the common error list gives them', async ({ sim, c }) => {
  sim.fault({ kind: 'search_failed', path: 'SearchRecord', times: 1 });
  const r = await c.post('/API/Playback/SearchRecord/Search', { channel: ['CH1'], ...day(Date.now()), record_type: 1 });
  assert.equal(r.json.result, 'failed');
  assert.equal(r.json.error_code, 'search_failed');
  assert.equal(typeof r.json.data.remain_locked_time, 'number');
  sim.fault({ kind: 'device_play_locked', path: 'Playback', times: 1 });
  const p = await c.post('/API/Playback/SearchMonth/Get', { channel: [], start_date: local(Date.now()).date, search_type: 'Record' });
  assert.equal(p.json.error_code, 'device_play_locked');
  const ok = await c.post('/API/Playback/SearchMonth/Get', { channel: [], start_date: local(Date.now()).date, search_type: 'Record' });
  assert.equal(ok.json.result, 'success', 'once each');
});

test('an IPC records with the IPC table: motion is 0x2', async () => {
  const sim = await startSimulator({ password: PASSWORD, profile: 'ipc' });
  try {
    const c = new RawClient(sim.url);
    await c.login();
    sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
    await sleep(20);
    sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
    const now = Date.now();
    const utc = new Date(now).toISOString();
    const date = `${utc.slice(5, 7)}/${utc.slice(8, 10)}/${utc.slice(0, 4)}`;
    const r = await c.post('/API/Playback/SearchRecord/Search', {
      channel: ['CH1'],
      ...{ start_date: date, start_time: '00:00:00', end_date: date, end_time: '23:59:59' },
      record_type: 2,
      stream_mode: 'Mainstream',
    });
    assert.deepEqual(
      r.json.data.record[0].map((s: any) => s.record_type),
      [2],
    );
  } finally {
    await sim.stop();
  }
});

test.run();
