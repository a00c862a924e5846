/**
 * Clips end to end: `bridge/request/clip` records the simulator's RTSP playback with the real ffmpeg to an MP4 under
 * clips.folder (ffprobe: H.264, the range's length within 1 s), in the device's local date and time; bad input is
 * refused with a reason and nothing starts; a playback the device refuses (busy playing back elsewhere) is reported
 * with its reason on the response and bridge/event, and leaves no file.
 */
import * as assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import { missingTool, testIf } from '../helpers/missing';
import { json, setup, until, waitEvent, type Fixture } from './fixture';

type Json = Record<string, any>;
const run = promisify(execFile);
const ZONE = 'Europe/Berlin';
const test = suite<{ fx: Fixture; dir: string }>('bridge clips');
const noFfmpeg = missingTool('ffmpeg', ['-version']) ?? missingTool('ffprobe', ['-version']);

test.before(async (ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-clips-'));
  ctx.fx = await setup({
    label: 'clips',
    devices: [{ id: 'nvr', poll: 0.5, sim: { timeZone: ZONE, singlePlayback: true } }],
    tweak: (config) => {
      config.devices[0].time_zone = ZONE;
      config.clips = { folder: ctx.dir };
    },
  });
});
test.after(async ({ fx, dir }) => {
  await fx?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
async function ask(fx: Fixture, req: Json): Promise<Json> {
  const transaction = `clip-${++seq}`;
  const since = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/bridge/request/clip`, JSON.stringify({ ...req, transaction }));
  return json(await fx.recorder.waitTopic(`${fx.base}/bridge/response/clip`, (j) => j.transaction === transaction, 30_000, since));
}
const files = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.mp4') || f.endsWith('.part'));

testIf(test, noFfmpeg, 'a 5 s clip of CH1: an MP4 under the folder, H.264, 5 s within 1 s', async ({ fx, dir }) => {
  const to = Date.now() - 120_000;
  const from = to - 5000;
  const res = await ask(fx, { device: 'nvr', channel: 'ch1', from: new Date(from).toISOString(), to: new Date(to).toISOString() });
  assert.equal(res.status, 'ok', JSON.stringify(res));
  const clip = res.data;
  const local = new Date(from).toLocaleString('sv-SE', { timeZone: ZONE });
  assert.equal(clip.path, join(dir, 'nvr', 'ch1', local.slice(0, 10), `${local.slice(11).replace(/:/g, '')}_clip.mp4`));
  assert.ok(clip.size > 1000, `${clip.size} bytes`);
  assert.ok(Math.abs(clip.duration - 5) <= 1, `duration ${clip.duration}`);
  const probe = JSON.parse(
    (await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name', '-of', 'json', clip.path])).stdout,
  );
  assert.deepEqual(probe.streams, [{ codec_name: 'h264', codec_type: 'video' }]);
  assert.ok(!JSON.stringify(res).includes(fx.passwords[0]), 'no password in the answer');
});

test('bad input is refused with its reason and no playback starts', async ({ fx, dir }) => {
  const sim = fx.sims.get('nvr')!;
  const before = sim.playbacks.length;
  const t = Date.now() - 120_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const cases: Array<[Json, RegExp]> = [
    [{ channel: 'ch1', from: iso(t), to: iso(t - 5000) }, /reversed/],
    [{ channel: 'ch1', from: iso(t - 2 * 3600_000), to: iso(t) }, /at most an hour/],
    [{ channel: 'ch1', from: iso(t - 25 * 3600_000), to: iso(t) }, /at most an hour/],
    [{ channel: 'ch42', from: iso(t - 5000), to: iso(t) }, /unknown channel "ch42" on device nvr/],
    [{ channel: 'ch1', from: 'yesterday', to: iso(t) }, /ISO 8601/],
    [{ channel: '../../etc', from: iso(t - 5000), to: iso(t) }, /unknown channel/],
  ];
  for (const [req, reason] of cases) {
    const res = await ask(fx, { device: 'nvr', ...req });
    assert.deepEqual([res.status, res.error_code], ['error', 'refused'], JSON.stringify(res));
    assert.match(res.error, reason);
  }
  assert.equal(sim.playbacks.length, before, 'nothing played');
  assert.ok(files(dir).every((f) => !f.endsWith('.part')));
});

testIf(test, noFfmpeg, 'the device busy playing back elsewhere: its refusal reported, no file left', async ({ fx, dir }) => {
  const sim = fx.sims.get('nvr')!;
  const before = sim.playbacks.length;
  const to = Date.now() - 60_000;
  const local = (ms: number) => new Date(ms).toLocaleString('sv-SE', { timeZone: ZONE }).replace(' ', 'T') + 'Z';
  // Someone else plays back a long range (the recorder's own screen, another client).
  const other = spawn(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-rtsp_transport',
      'tcp',
      '-i',
      `rtsp://admin:${fx.passwords[0]}@127.0.0.1:${sim.port}/rtsp/playback?channel=2&subtype=0&starttime=${local(to - 600_000)}&endtime=${local(to)}&localtime=true`,
      '-f',
      'null',
      '-',
    ],
    { stdio: 'ignore' },
  );
  try {
    await until(() => sim.playbacks.length > before, 'the other playback runs', 10_000);
    const filesBefore = files(dir);
    const since = fx.recorder.count;
    const res = await ask(fx, { device: 'nvr', channel: 'ch1', from: new Date(to - 4000).toISOString(), to: new Date(to).toISOString() });
    assert.equal(res.status, 'error', JSON.stringify(res));
    assert.equal(res.error_code, 'device_play_locked');
    assert.match(res.error, /refused the playback \(RTSP 503/);
    const ev = await waitEvent(fx, 'clip_failed', (d) => d.channel === 'CH1', since, 5000);
    assert.match(String(ev.reason), /RTSP 503/);
    assert.deepEqual(files(dir), filesBefore, 'no file, no partial file');
  } finally {
    other.kill('SIGKILL');
  }
});

test.run();
