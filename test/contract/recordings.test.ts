/**
 * Contract: recordings found through core against the simulator. The device's local dates and times arrive as ISO
 * times with its zone's offset (Europe/Berlin), record_type masks as names of the device's table, refused searches as
 * busy errors saying when to retry, and bad input is refused with a reason before anything is sent.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  recordedPicture,
  recordedPictures,
  recordingDays,
  recordingNow,
  recordTags,
  searchRecordings,
  writeRecordTag,
  isoInZone,
  type RecordingContext,
} from '../../core/recordings';
import { closeRig, openRig, rejection, type Rig } from './harness';

const ZONE = 'Europe/Berlin';
const NVR: RecordingContext = { zone: ZONE, table: 'nvr' };
const test = suite<{ rig: Rig }>('contract: recordings');

test.before(async (ctx) => {
  ctx.rig = await openRig({ timeZone: ZONE });
});
test.after(async ({ rig }) => closeRig(rig));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const today = () => isoInZone(Date.now(), ZONE).slice(0, 10);
const wholeDay = () => ({ from: `${today()}T00:00:00`, to: `${today()}T23:59:59` });
const playbackCalls = (rig: Rig) => rig.sim.log.filter((e) => e.path.includes('/Playback/')).length;

test('a motion alarm is found as a motion recording with ISO times in the device zone and its length', async ({ rig }) => {
  const { sim, client } = rig;
  const start = Date.now();
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  await sleep(2100);
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  const found = await searchRecordings(client, { channels: ['CH1'], ...wholeDay(), types: ['motion'] }, NVR);
  assert.equal(found.length, 1);
  const [r] = found;
  assert.equal(r.channel, 'CH1');
  assert.equal(r.types, ['motion']);
  assert.equal(r.record_type, 4);
  assert.match(r.start, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
  assert.equal(r.start.slice(19), isoInZone(start, ZONE).slice(19), 'the zone offset of Berlin at that time');
  assert.ok(Math.abs(Date.parse(r.start) - start) < 1500, `${r.start} is when the alarm started`);
  assert.ok(r.duration >= 1 && r.duration <= 3, `${r.duration} s`);
  assert.ok((r.size ?? 0) > 0 && r.locked === false && r.stream === 'Mainstream');
  // All types: the normal recording around it, in the same file.
  const all = await searchRecordings(client, { channels: 'CH1', ...wholeDay() }, NVR);
  const i = all.findIndex((x) => x.start === r.start && x.types[0] === 'motion');
  assert.equal(all[i + 1].types, ['normal']);
  assert.equal(all[i + 1].record_id, r.record_id);
  const days = await recordingDays(client, { month: today().slice(0, 7), channels: ['CH1'] }, NVR);
  const day = days.find((d) => d.date === today());
  assert.ok(day, `${today()} listed`);
  assert.equal(day.types, ['normal', 'motion']);
});

test('a stored picture: listed as a token, then a JPEG with its channel and ISO time', async ({ rig }) => {
  const { sim, client } = rig;
  sim.raiseAlarm({ channel: 'CH1', type: 'io', active: true });
  sim.raiseAlarm({ channel: 'CH1', type: 'io', active: false });
  const list = await recordedPictures(client, { channels: ['CH1'], ...wholeDay(), newestFirst: true }, NVR);
  assert.equal(list.overload, false);
  assert.ok(list.tokens.length >= 1);
  const pic = await recordedPicture(client, list.tokens[0], NVR);
  assert.equal(pic.channel, 'CH1');
  assert.ok(pic.time && Math.abs(Date.parse(pic.time) - Date.now()) < 5000, `${pic.time}`);
  assert.equal([...pic.jpeg.subarray(0, 2)], [0xff, 0xd8]);
});

test('bookmarks: add, list, rename, remove', async ({ rig }) => {
  const { client } = rig;
  const time = isoInZone(Date.now() - 60_000, ZONE);
  await writeRecordTag(client, 'add', { channel: 'CH2', time, name: 'parcel' }, NVR);
  let tags = await recordTags(client, { channels: ['CH2'], ...wholeDay() }, NVR);
  assert.equal(tags.length, 1);
  assert.equal([tags[0].name, tags[0].time, tags[0].channel], ['parcel', time, 'CH2']);
  await writeRecordTag(client, 'rename', { ...tags[0], name: 'parcel taken' }, NVR);
  tags = await recordTags(client, { channels: ['CH2'], ...wholeDay(), keyword: 'taken' }, NVR);
  assert.equal(
    tags.map((t) => t.name),
    ['parcel taken'],
  );
  await writeRecordTag(client, 'remove', tags[0], NVR);
  assert.equal(await recordTags(client, { channels: ['CH2'], ...wholeDay() }, NVR), []);
  const err = await rejection(writeRecordTag(client, 'add', { channel: 'CH2', time, name: 'x'.repeat(40) }, NVR));
  assert.equal(err.kind, 'invalid_request');
  assert.match(err.reason, /Tag_name: expected <=39/);
});

test('recording now per channel follows the device', async ({ rig }) => {
  const { sim, client } = rig;
  assert.equal((await recordingNow(client)).CH3, true);
  sim.setRecording('CH3', false);
  assert.equal((await recordingNow(client)).CH3, false);
  sim.setRecording('CH3', true);
});

test('search_failed and device_play_locked: busy errors that say so and when to retry', async ({ rig }) => {
  const { sim, client } = rig;
  sim.fault({ kind: 'search_failed', path: 'SearchRecord', times: 1 });
  const a = await rejection(searchRecordings(client, { channels: ['CH1'], ...wholeDay() }, NVR));
  assert.equal([a.kind, a.error_code, a.retryAfterMs], ['busy', 'search_failed', 30_000]);
  assert.match(a.reason, /refused the search.*retry in 30 s/);
  sim.fault({ kind: 'device_play_locked', path: 'SearchMonth', times: 1 });
  const b = await rejection(recordingDays(client, { month: today().slice(0, 7) }, NVR));
  assert.equal([b.kind, b.error_code], ['busy', 'device_play_locked']);
  assert.match(b.reason, /busy playing back/);
});

test('bad input is refused with a reason and nothing is sent', async ({ rig }) => {
  const { client } = rig;
  const before = playbackCalls(rig);
  const d = today();
  const cases: Array<[Promise<unknown>, RegExp]> = [
    [searchRecordings(client, { channels: ['CH1'], from: `${d}T10:00:00`, to: `${d}T09:00:00` }, NVR), /reversed/],
    [searchRecordings(client, { channels: ['CH1'], from: `${d}T10:00:00`, to: `${d}T10:00:00` }, NVR), /reversed or equal/],
    [
      searchRecordings(client, { channels: ['CH1'], from: `${d}T00:00:00Z`, to: Date.parse(`${d}T00:00:00Z`) + 26 * 3600_000 }, NVR),
      /at most a day/,
    ],
    [searchRecordings(client, { channels: ['CAM1'], ...wholeDay() }, NVR), /not a channel id: "CAM1"/],
    [searchRecordings(client, { channels: [], ...wholeDay() }, NVR), /at least one channel/],
    [searchRecordings(client, { channels: ['CH1'], ...wholeDay(), types: ['motion', 'ghosts'] }, NVR), /unknown recording type ghosts/],
    [searchRecordings(client, { channels: ['CH1'], from: 'yesterday', to: `${d}T10:00:00` }, NVR), /from: not a time/],
    [recordingDays(client, { month: '2026-13' }, NVR), /not YYYY-MM/],
    [recordTags(client, { channels: ['CH1'], from: `${d}T10:00:00`, to: `${d}T09:00:00` }, NVR), /reversed/],
    [recordedPictures(client, { channels: ['CH1'], from: `${d}T10:00:00`, to: `${d}T09:00:00` }, NVR), /reversed/],
  ];
  for (const [p, reason] of cases) {
    const err = await rejection(p);
    assert.equal(err.kind, 'invalid_request');
    assert.match(err.reason, reason);
  }
  assert.equal(playbackCalls(rig), before, 'no request reached the device');
});

test('an IPC: the IPC table decodes its masks (motion is 0x2 there)', async () => {
  const rig = await openRig({ profile: 'ipc', timeZone: ZONE });
  try {
    rig.sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
    await sleep(1100);
    rig.sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
    const found = await searchRecordings(rig.client, { channels: ['CH1'], ...wholeDay(), types: ['motion'] }, { zone: ZONE, table: 'ipc' });
    assert.equal(
      found.map((r) => [r.record_type, r.types]),
      [[2, ['motion']]],
    );
  } finally {
    await closeRig(rig);
  }
});

test.run();
