/**
 * Recordings through the bridge, end to end (real broker, the simulator as the device in Europe/Berlin):
 * `bridge/request/recordings` finds days, segments (with their playback URL, no credentials, and a clip handle),
 * stored pictures and bookmarks; tag writes only where request_api allows writing Playback/Tag; bad input is refused
 * with a reason and nothing reaches the device; a refused search is reported with the device's reason; and the
 * "Recording now" binary sensor per channel follows SystemInfo/Record on the slow schedule.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, settle, setup, waitEvent, type Fixture } from './fixture';

type Json = Record<string, any>;
const ZONE = 'Europe/Berlin';
const FAST = 300; // ms between "recording now" reads (storage_interval; config minimum 60 s, set after parsing)
const test = suite<{ fx: Fixture }>('bridge recordings');

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'recordings',
    devices: [
      { id: 'nvr', poll: 0.3, sim: { timeZone: ZONE } },
      { id: 'cam', poll: 0.3, sim: { profile: 'ipc', timeZone: ZONE } },
    ],
    tweak: (config) => {
      for (const d of config.devices) {
        d.time_zone = ZONE;
        d.storage_interval = FAST;
      }
    },
  });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/ch1`, (j) => j.record_state === true, 5000);
});
test.after(async ({ fx }) => fx?.stop());

let seq = 0;
/** A recordings request and its response (matched by transaction). */
async function ask(fx: Fixture, req: Json): Promise<Json> {
  const transaction = `rec-${++seq}`;
  const since = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/bridge/request/recordings`, JSON.stringify({ ...req, transaction }));
  return json(await fx.recorder.waitTopic(`${fx.base}/bridge/response/recordings`, (j) => j.transaction === transaction, 5000, since));
}
const playbackCalls = (fx: Fixture, id = 'nvr') => fx.sims.get(id)!.log.filter((e) => e.path.includes('/Playback/')).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const berlinOffset = (ms: number) =>
  new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' })
    .formatToParts(ms)
    .find((p) => p.type === 'timeZoneName')!
    .value.slice(3) || '+00:00';

test('list: a motion alarm as a motion segment, local times with the zone offset, playback URL without credentials, clip handle', async ({
  fx,
}) => {
  const sim = fx.sims.get('nvr')!;
  const start = Date.now();
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  await sleep(1500);
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  const res = await ask(fx, { device: 'nvr', action: 'list', channel: 'ch1', types: ['motion'] });
  assert.equal(res.status, 'ok', JSON.stringify(res));
  const recs = res.data.recordings as Json[];
  assert.equal(recs.length, 1);
  const r = recs[0];
  assert.deepEqual([r.channel, r.types, r.record_type], ['CH1', ['motion'], 4]);
  assert.equal(r.start.slice(19), berlinOffset(start));
  assert.ok(Math.abs(Date.parse(r.start) - start) < 1500);
  const port = new URL(sim.url).port;
  const local = r.start.slice(0, 19);
  assert.equal(
    r.playback_url,
    `rtsp://127.0.0.1:${port}/rtsp/playback?channel=1&subtype=0&starttime=${local}Z&endtime=${r.end.slice(0, 19)}Z&localtime=true`,
  );
  assert.ok(!r.playback_url.includes('@') && !fx.passwords.some((p) => r.playback_url.includes(p)), 'no credentials');
  assert.deepEqual(r.clip, { device: 'nvr', channel: 'CH1', from: r.start, to: r.end });
  // A whole day: normal recording around it too.
  const day = await ask(fx, { device: 'nvr', action: 'list', channels: ['CH1', 'ch2'], date: r.start.slice(0, 10) });
  assert.ok((day.data.recordings as Json[]).some((x) => x.channel === 'CH2' && x.types[0] === 'normal'));
});

test('days: the month calendar of the device marks today with its types', async ({ fx }) => {
  const res = await ask(fx, { device: 'nvr', action: 'days', channel: 'ch1' });
  assert.equal(res.status, 'ok', JSON.stringify(res));
  const today = new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE }).format(Date.now());
  assert.equal(res.data.month, today.slice(0, 7));
  const day = (res.data.days as Json[]).find((d) => d.date === today);
  assert.ok(day && day.types.includes('normal'), JSON.stringify(res.data.days));
});

test('pictures: the list of references, then one picture as base64 JPEG', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  sim.raiseAlarm({ channel: 'CH1', type: 'io', active: true });
  sim.raiseAlarm({ channel: 'CH1', type: 'io', active: false });
  const list = await ask(fx, { device: 'nvr', action: 'pictures', channel: 'CH1' });
  assert.equal(list.status, 'ok', JSON.stringify(list));
  const refs = list.data.pictures as string[];
  assert.ok(refs.length >= 1 && refs.every((r) => typeof r === 'string' && r !== '***'));
  const one = await ask(fx, { device: 'nvr', action: 'pictures', picture: refs.at(-1) });
  assert.equal(one.data.channel, 'CH1');
  assert.deepEqual([...Buffer.from(one.data.image, 'base64').subarray(0, 2)], [0xff, 0xd8]);
});

test('tag writes are refused unless request_api allows Playback/Tag; reading tags is open', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const sets = () => sim.log.filter((e) => e.path === '/API/Playback/Tag/Set').length;
  const since = fx.recorder.count;
  const res = await ask(fx, { device: 'nvr', action: 'tag_add', channel: 'ch1', time: new Date().toISOString(), name: 'door' });
  assert.equal(res.status, 'error');
  assert.equal(res.error_code, 'refused');
  assert.match(res.error, /Playback\/Tag.*request_api\.allow_pages/);
  await waitEvent(fx, 'command_refused', (d) => /Playback\/Tag/.test(String(d.reason)), since, 3000);
  assert.equal(sets(), 0, 'nothing sent');
  const tags = await ask(fx, { device: 'nvr', action: 'tags', channel: 'ch1' });
  assert.deepEqual(tags.data.tags, []);
});

test('bad input is refused with its reason and nothing reaches the device', async ({ fx }) => {
  const before = playbackCalls(fx);
  const today = new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE }).format(Date.now());
  const cases: Array<[Json, RegExp]> = [
    [{ action: 'list', channel: 'ch1', from: `${today}T10:00:00`, to: `${today}T09:00:00` }, /reversed/],
    [{ action: 'list', channel: 'ch1', from: `${today}T00:00:00`, to: Date.parse(`${today}T00:00:00Z`) + 30 * 3600_000 }, /at most a day/],
    [{ action: 'list', channel: 'ch99' }, /unknown channel "ch99" on device nvr/],
    [{ action: 'list', channel: 'ch1', types: ['ghosts'] }, /unknown recording type ghosts/],
    [{ action: 'list' }, /"channel" \(or "channels"\) is required/],
    [{ action: 'list', channel: 'ch1', date: '06.12.2026' }, /"date" must be YYYY-MM-DD/],
    [{ action: 'watch' }, /"action" must be one of days, list, pictures, tags, tag_add, tag_remove/],
    [{ action: 'days', month: '2026-13' }, /not YYYY-MM/],
  ];
  for (const [req, reason] of cases) {
    const res = await ask(fx, { device: 'nvr', ...req });
    assert.equal(res.status, 'error', JSON.stringify(req));
    assert.equal(res.error_code, 'refused', JSON.stringify(res));
    assert.match(res.error, reason);
  }
  assert.equal(playbackCalls(fx), before, 'no Playback request reached the device');
  const unknownDevice = await ask(fx, { device: 'nope', action: 'list', channel: 'ch1' });
  assert.match(unknownDevice.error, /unknown device "nope"/);
});

test('a clip with clips not configured: refused, saying which setting', async ({ fx }) => {
  const since = fx.recorder.count;
  await fx.recorder.publish(
    `${fx.base}/bridge/request/clip`,
    JSON.stringify({
      device: 'nvr',
      channel: 'ch1',
      from: new Date(Date.now() - 9000).toISOString(),
      to: new Date().toISOString(),
      transaction: 'c0',
    }),
  );
  const res = json(await fx.recorder.waitTopic(`${fx.base}/bridge/response/clip`, (j) => j.transaction === 'c0', 5000, since));
  assert.deepEqual([res.status, res.error_code], ['error', 'refused']);
  assert.match(String(res.error), /clips\.folder/);
  assert.equal(fx.sims.get('nvr')!.playbacks.length, 0);
});

test("a refused search is answered with the device's reason and when to retry", async ({ fx }) => {
  fx.sims.get('nvr')!.fault({ kind: 'search_failed', path: 'SearchRecord', times: 1 });
  const res = await ask(fx, { device: 'nvr', action: 'list', channel: 'ch1' });
  assert.equal(res.status, 'error');
  assert.equal(res.error_code, 'search_failed');
  assert.match(res.error, /refused the search.*retry in 30 s/);
});

test('an IPC: its own record_type table and the UTC playback form (no localtime)', async ({ fx }) => {
  const sim = fx.sims.get('cam')!;
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  await sleep(1100);
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  const res = await ask(fx, { device: 'cam', action: 'list', channel: 'ch1', types: ['motion'] });
  const [r] = res.data.recordings as Json[];
  assert.deepEqual([r.record_type, r.types], [2, ['motion']]);
  const utc = new Date(Date.parse(r.start)).toISOString().slice(0, 19);
  assert.match(
    r.playback_url,
    new RegExp(`^rtsp://127\\.0\\.0\\.1:\\d+/rtsp/playback\\?channel=1&subtype=0&starttime=${utc}Z&endtime=[^&]+Z$`),
  );
});

test('the "Recording now" binary sensor per channel follows SystemInfo/Record on the slow schedule', async ({ fx }) => {
  const node = [fx.base.toLowerCase(), 'nvr', 'ch2'].join('_');
  const config = json(fx.recorder.on((t) => t === `${fx.prefix}/device/${node}/config`).pop());
  const c = (config.cmps as Json).record_state;
  assert.deepEqual([c.p, c.name, c.state_topic], ['binary_sensor', 'Recording now', `${fx.base}/nvr/ch2`]);
  assert.match(c.value_template, /value_json\.record_state/);
  const since = fx.recorder.count;
  fx.sims.get('nvr')!.setRecording('CH2', false);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.record_state === false, 5000, since);
  fx.sims.get('nvr')!.setRecording('CH2', true);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.record_state === true, 5000, since);
  // Read on its own schedule, not with every poll.
  const sim = fx.sims.get('nvr')!;
  const reads = sim.log.filter((e) => e.path === '/API/SystemInfo/Record/Get').length;
  const polls = sim.log.filter((e) => e.path === '/API/Login/ChannelInfo/Get').length;
  assert.ok(reads > 0 && reads < polls * 2, `${reads} reads, ${polls} polls`);
});

test('with Playback/Tag allowed: tag_add, tags, tag_remove', async ({ fx }) => {
  await settle(fx);
  await fx.bridge.stop();
  const config = { ...fx.config, request_api: { ...fx.config.request_api, allow_pages: ['Playback/Tag'] } };
  await fx.restartBridge(config);
  await fx.recorder.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 8000, fx.recorder.count);
  const time = new Date(Date.now() - 30_000).toISOString().slice(0, 19) + 'Z';
  const add = await ask(fx, { device: 'nvr', action: 'tag_add', channel: 'ch3', time, name: 'parcel' });
  assert.equal(add.status, 'ok', JSON.stringify(add));
  const tags = (await ask(fx, { device: 'nvr', action: 'tags', channel: 'ch3' })).data.tags as Json[];
  assert.deepEqual(
    tags.map((t) => [t.channel, t.name, Date.parse(t.time)]),
    [['CH3', 'parcel', Date.parse(time)]],
  );
  const rm = await ask(fx, { device: 'nvr', action: 'tag_remove', channel: 'ch3', id: tags[0].id, time: tags[0].time });
  assert.equal(rm.status, 'ok', JSON.stringify(rm));
  assert.deepEqual((await ask(fx, { device: 'nvr', action: 'tags', channel: 'ch3' })).data.tags, []);
});

test.run();
