/**
 * The simulator's pictures are real ones: JPEGs Debian's ffmpeg decodes to the size the device's Snapshot Range offers
 * (or an alarm picture's), showing the test pattern (colour bars over a grey ramp) and a caption (the camera's name,
 * the time, an alarm's type), not a uniform picture. The encoder itself (simulator/jpeg.ts) against ffmpeg: a picture
 * of every colour decodes to what was coded, within JPEG's loss.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import { startSimulator, type Simulator } from '../../simulator';
import { JpegEncoder } from '../../simulator/jpeg';
import { missingTool, testIf } from '../helpers/missing';
import { PASSWORD, RawClient } from './raw-client';

const test = suite<{ sim: Simulator; c: RawClient }>('simulator pictures: real JPEGs');
const noFfmpeg = missingTool('ffmpeg', ['-version']);

test.before(async (ctx) => {
  ctx.sim = await startSimulator({ password: PASSWORD, alarmPictures: 'both' });
  ctx.c = new RawClient(ctx.sim.url);
  await ctx.c.login();
});
test.after(async ({ sim }) => sim.stop());

interface Decoded {
  width: number;
  height: number;
  rgb: Buffer;
}

/** ffmpeg's reading of a JPEG: its size (ffprobe) and its pixels (rgb24). */
function decode(jpeg: Buffer): Decoded {
  const probe = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height,codec_name', '-of', 'json', '-i', 'pipe:0'], {
      input: jpeg,
    }).toString(),
  ) as { streams: Array<{ width: number; height: number; codec_name: string }> };
  const [s] = probe.streams;
  assert.equal(s.codec_name, 'mjpeg');
  const rgb = execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    input: jpeg,
    maxBuffer: 64 << 20,
  });
  assert.equal(rgb.length, s.width * s.height * 3, 'every pixel decoded');
  return { width: s.width, height: s.height, rgb };
}

const pixel = (d: Decoded, x: number, y: number) => [...d.rgb.subarray((y * d.width + x) * 3, (y * d.width + x) * 3 + 3)];
const near = (got: number[], want: number[], within = 24) => got.every((v, i) => Math.abs(v - want[i]) <= within);

/** The pattern and caption as a viewer sees them: bars, the ramp, white text on black, many colours. */
function assertTestPattern(d: Decoded, what: string): void {
  const distinct = new Set<number>();
  for (let i = 0; i < d.rgb.length; i += 3 * 97) distinct.add((d.rgb[i] << 16) | (d.rgb[i + 1] << 8) | d.rgb[i + 2]);
  assert.ok(distinct.size > 50, `${what}: ${distinct.size} colours sampled, not a uniform picture`);
  assert.ok(near(pixel(d, d.width - 4, Math.floor(d.height / 2)), [0, 0, 191]), `${what}: the blue bar on the right`);
  assert.ok(near(pixel(d, Math.floor(d.width / 2), d.height - 4), [128, 128, 128], 12), `${what}: the grey ramp's middle`);
  assert.ok(near(pixel(d, 2, d.height - 4), [0, 0, 0]) && near(pixel(d, d.width - 2, d.height - 4), [255, 255, 255]), `${what}: the ramp`);
  // The caption: white strokes on a black box, top left.
  let white = 0;
  let black = 0;
  for (let y = 0; y < Math.floor(d.height / 5); y++)
    for (let x = 0; x < Math.floor(d.width / 3); x++) {
      const [r, g, b] = pixel(d, x, y);
      if (r > 200 && g > 200 && b > 200) white++;
      if (r < 40 && g < 40 && b < 40) black++;
    }
  assert.ok(white > 100 && black > 100, `${what}: a caption (${white} white, ${black} black pixels)`);
}

testIf(test, noFfmpeg, 'Snapshot/Get: a picture of each size the Snapshot Range offers, the largest by default', async ({ c, sim }) => {
  const range = await c.post('/API/Snapshot/Range', {});
  const offered = (range.json.data.channel_info.items as Array<{ channel: string; snapshot_resolution: { items: string[] } }>).find(
    (i) => i.channel === 'CH1',
  )!.snapshot_resolution.items;
  assert.ok(offered.length >= 2, JSON.stringify(offered));
  for (const res of [undefined, ...offered]) {
    const r = await c.post('/API/Snapshot/Get', { channel: 'CH1', ...(res ? { snapshot_resolution: res } : {}) });
    assert.equal(r.status, 200, r.text);
    const jpeg = Buffer.from(r.json.data.img_data as string, 'base64');
    assert.ok(jpeg.equals(sim.lastSnapshot('CH1')!), 'lastSnapshot is what was answered');
    const d = decode(jpeg);
    const [w, h] = (res ?? offered[0]).split('x').map(Number);
    assert.deepEqual([d.width, d.height], [w, h], res ?? 'default');
    assertTestPattern(d, `${w}x${h}`);
  }
});

testIf(test, noFfmpeg, 'the caption follows the clock: two pictures a second apart differ, in the caption only', async ({ c, sim }) => {
  const take = async () => {
    await c.post('/API/Snapshot/Get', { channel: 'CH2', snapshot_resolution: '320x240' });
    return decode(sim.lastSnapshot('CH2')!);
  };
  const a = await take();
  await new Promise((r) => setTimeout(r, 1100));
  const b = await take();
  let differing = 0;
  let lowest = 0;
  for (let i = 0; i < a.rgb.length; i++)
    if (a.rgb[i] !== b.rgb[i]) {
      differing++;
      lowest = Math.max(lowest, Math.floor(i / 3 / a.width));
    }
  assert.ok(differing > 0, 'the time changed the picture');
  assert.ok(lowest < a.height / 3, `only the caption changed (down to row ${lowest})`);
});

testIf(test, noFfmpeg, "alarm pictures: the scene at 640x480 with the alarm's type, the AI object cut out smaller", async ({ c, sim }) => {
  const sub = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }, { aipushpic: ['all'] }] } };
  let cur = (await c.post('/API/Event/Check', sub)).json.data as Record<string, any>;
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true });
  cur = (await c.post('/API/Event/Check', { ...sub, reader_id: cur.reader_id, sequence: cur.sequence, lap_number: null })).json.data;
  const snap = Buffer.from(cur.alarm_snap_data[0].img_data as string, 'base64');
  assert.match(snap.toString('latin1'), /alarm \d+ CH1 pd/, 'its comment names the alarm');
  const scene = decode(snap);
  assert.deepEqual([scene.width, scene.height], [640, 480]);
  assertTestPattern(scene, 'alarm picture');
  const obj = cur.ai_snap_picture.SnapedObjInfo as Record<string, string>;
  const object = decode(Buffer.from(obj.ObjectImage, 'base64'));
  assert.deepEqual([object.width, object.height], [192, 192]);
  assert.deepEqual([decode(Buffer.from(obj.Background, 'base64')).width, decode(Buffer.from(obj.Background, 'base64')).height], [640, 480]);
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: false });
});

testIf(test, noFfmpeg, 'the encoder: every colour and odd sizes decode to what was coded, within JPEG loss', () => {
  for (const [w, h] of [
    [64, 48],
    [37, 21],
  ]) {
    const rgb = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++)
        rgb.set([(x * 255) / (w - 1), (y * 255) / (h - 1), ((x + y) * 97) % 256 > 128 ? 230 : 20], (y * w + x) * 3);
    const e = new JpegEncoder(w, h, 90);
    const segments: Uint8Array[] = [];
    for (let row = 0; row < e.mcuRows; row++) {
      const coefficients = e.quantize(rgb, row, 0, e.mcuCols, new Int16Array(e.mcuCols * 192));
      for (let s = 0; s < e.segmentsPerRow; s++) segments.push(e.codeSegment(coefficients, s));
    }
    const d = decode(e.file(segments, 'test'));
    assert.deepEqual([d.width, d.height], [w, h]);
    let se = 0;
    for (let i = 0; i < rgb.length; i++) se += (d.rgb[i] - rgb[i]) ** 2;
    const psnr = 10 * Math.log10((255 * 255) / (se / rgb.length));
    assert.ok(psnr > 28, `${w}x${h}: PSNR ${psnr.toFixed(1)} dB`);
  }
});

test.run();
