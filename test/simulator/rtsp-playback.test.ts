/**
 * The simulator's RTSP playback (vendor page "Playback rtsp url") on its web port: Debian's ffmpeg records the
 * playback of a range to an MP4 without re-encoding, and ffprobe finds an H.264 stream lasting the range (within 1 s);
 * the recorder's local times (`localtime=true`) are the device zone's; a wrong password is refused (401) and nothing
 * is played; HTTP keeps working on the same port.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import { startSimulator, type Simulator } from '../../simulator';
import { missingTool, testIf } from '../helpers/missing';
import { PASSWORD, RawClient } from './raw-client';

const run = promisify(execFile);
const ZONE = 'Europe/Berlin';
const test = suite<{ sim: Simulator; dir: string }>('simulator RTSP playback');
const noFfmpeg = missingTool('ffmpeg', ['-version']) ?? missingTool('ffprobe', ['-version']);

test.before(async (ctx) => {
  ctx.sim = await startSimulator({ password: PASSWORD, timeZone: ZONE });
  ctx.dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-rtsp-'));
});
test.after(async ({ sim, dir }) => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The wall clock of Berlin at `ms` in the playback form. */
const local = (ms: number) => new Date(ms).toLocaleString('sv-SE', { timeZone: ZONE }).replace(' ', 'T') + 'Z';

async function record(url: string, out: string): Promise<{ ok: boolean; stderr: string }> {
  try {
    const r = await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-rtsp_transport', 'tcp', '-i', url, '-c', 'copy', '-y', out], {
      timeout: 20_000,
    });
    return { ok: true, stderr: r.stderr };
  } catch (err) {
    return { ok: false, stderr: String((err as { stderr?: string }).stderr ?? err) };
  }
}

testIf(
  test,
  noFfmpeg,
  'a 5 s range of CH1 recorded with ffmpeg: H.264, 5 s within 1 s, the local times of the device',
  async ({ sim, dir }) => {
    const to = Date.now() - 60_000;
    const from = to - 5000;
    const url = `rtsp://admin:${PASSWORD}@127.0.0.1:${sim.port}/rtsp/playback?channel=1&subtype=0&starttime=${local(from)}&endtime=${local(to)}&localtime=true`;
    const out = join(dir, 'ch1.mp4');
    const r = await record(url, out);
    assert.ok(r.ok, r.stderr);
    const probe = JSON.parse(
      (await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type,codec_name,width', '-of', 'json', out]))
        .stdout,
    ) as { format: { duration: string }; streams: Array<{ codec_type: string; codec_name: string; width: number }> };
    assert.deepEqual(
      probe.streams.map((s) => [s.codec_type, s.codec_name]),
      [['video', 'h264']],
    );
    assert.ok(Math.abs(Number(probe.format.duration) - 5) <= 1, `duration ${probe.format.duration}`);
    // The device read the local times in its zone: the range asked for, to the second.
    assert.deepEqual(sim.playbacks.at(-1), { channel: 1, from: Math.floor(from / 1000) * 1000, to: Math.floor(to / 1000) * 1000 });
  },
);

testIf(test, noFfmpeg, 'a wrong password: refused, nothing played, no file; HTTP still answers on the same port', async ({ sim, dir }) => {
  const before = sim.playbacks.length;
  const now = Date.now();
  const url = `rtsp://admin:wrong@127.0.0.1:${sim.port}/cam/playback?channel=1&starttime=${local(now - 4000)}&endtime=${local(now)}`;
  const out = join(dir, 'refused.mp4');
  const r = await record(url, out);
  assert.equal(r.ok, false);
  assert.match(r.stderr, /401/);
  assert.equal(sim.playbacks.length, before);
  assert.equal(existsSync(out), false);
  const c = new RawClient(sim.url);
  assert.equal((await c.login()).status, 200);
});

test.run();
