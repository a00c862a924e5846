import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NvrClient } from '../../core/client';
import { DeviceError } from '../../core/errors';
import {
  SAY_FILE,
  audioFormat,
  playPrompt,
  promptLimits,
  readPromptLimits,
  readSpeakers,
  say,
  stopCameraPrompts,
  uploadPrompt,
} from '../../core/speaker';
import { Simulator, startSimulator } from '../../simulator';
import { clientRig, rejection } from './harness';

/**
 * The speaker in core (core/speaker.ts) against answers in the vendor's shapes (its Get and Range samples, on a fake
 * device) and against the simulator: an upload goes in the packets the Range allows, each packet sent once; what
 * the device refuses before (empty, too large, not audio) sends nothing; a failed upload leaves nothing listed; say
 * speaks through the device's converter and replaces its last spoken file; busy and speakerless refusals are named.
 */

const test = suite('client: speaker (voice prompts)');
const PASSWORD = 'pw-Speaker-1';
const rig = clientRig(PASSWORD);
const open: Array<{ close(): Promise<void> } | { stop(): Promise<void> }> = [];
test.after.each(async () => {
  await rig.closeAll();
  while (open.length) {
    const x = open.pop()!;
    await ('close' in x ? x.close() : x.stop());
  }
});

/** The vendor's VoicePrompts Range sample (53505628727), trimmed to the members core reads. */
const RANGE_SAMPLE = {
  language: { type: 'string', items: ['ENGLISH', 'DEUTSCH', 'FRANÇAIS', '日 本 語'], hide_items: [] },
  convert_mode: { type: 'string', items: ['File', 'NetworkText'] },
  text: { type: 'string', min_len: 1, max_len: 200 },
  package_size: { type: 'int32', min: 1, max: 512000 },
  file_data: { type: 'string', min_len: 1, max_len: 5242880 },
};
/** The vendor's Get sample (53235640317). */
const GET_SAMPLE = { audio_list: ['5_13227.mp3', '6_9528.mp3', '7_AlienBoi.mp3'] };

async function simClient(): Promise<{ sim: Simulator; c: NvrClient; slots: string[] }> {
  const sim = await startSimulator({ password: PASSWORD });
  const c = new NvrClient({ url: sim.url, username: 'admin', password: PASSWORD, heartbeatMs: 0, timeoutMs: 5000 });
  open.push(sim, c);
  return { sim, c, slots: [...sim.profile.channels] };
}

const mp3 = (size: number) => {
  const b = Buffer.alloc(size, 0x55);
  b.write('ID3', 0, 'latin1');
  return b;
};
const uploads = (sim: Simulator) => sim.log.filter((e) => e.path.endsWith('/VoicePrompts/Set') && (e.data as any)?.command === 'Upload');

test("the vendor's Get and Range samples: prompts by serial and name, the packet, file and text limits, the languages", async () => {
  const { c } = await rig.setup({
    handlers: { '/API/AlarmConfig/VoicePrompts/Get': () => GET_SAMPLE, '/API/AlarmConfig/VoicePrompts/Range': () => RANGE_SAMPLE },
  });
  const offer = await readSpeakers(c);
  assert.equal(offer.prompts, [
    { index: 5, name: '13227.mp3' },
    { index: 6, name: '9528.mp3' },
    { index: 7, name: 'AlienBoi.mp3' },
  ]);
  assert.equal(offer.cameras, []);
  assert.equal(await readPromptLimits(c), {
    packetSize: 512000,
    fileMax: 5242880,
    textMax: 200,
    languages: ['ENGLISH', 'DEUTSCH', 'FRANÇAIS', '日 本 語'],
    convertMode: 'NetworkText',
  });
  // A Range that lists only LocalText (the Set table's mode) is spoken through it; a 1.5 MB packet is the cap.
  const other = promptLimits({ convert_mode: { items: ['File', 'LocalText'] }, package_size: { max: 9_000_000 } });
  assert.equal([other.convertMode, other.packetSize], ['LocalText', 1_572_864]);
});

test('cameras able to play named by 0-based number are read as channel ids', async () => {
  const { c } = await rig.setup({
    handlers: { '/API/AlarmConfig/VoicePrompts/Get': () => ({ ...GET_SAMPLE, info: { language: 'ENGLISH', ipc_channel_info: [0, 4] } }) },
  });
  assert.equal((await readSpeakers(c, ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1'])).cameras, ['CH1', 'IP_CH1']);
});

test('a 1.2 MB MP3 goes up in three packets of at most 512000 bytes, each once, and is listed by its name', async () => {
  const { sim, c, slots } = await simClient();
  const file = mp3(1_200_000);
  const seen: number[] = [];
  const prompt = await uploadPrompt(c, { file, name: 'bell.mp3', onPacket: (n) => seen.push(n) });
  assert.equal(prompt, { index: 47, name: 'bell.mp3' });
  assert.equal(seen, [1, 2, 3]);
  assert.equal(
    uploads(sim).map((e) => [(e.data as any).packet_index, (e.data as any).package_size]),
    [
      [0, 512000],
      [1, 512000],
      [2, 176000],
    ],
  );
  assert.ok(sim.prompts.files.at(-1)!.data.equals(file), 'the device holds exactly the file');
  await playPrompt(c, prompt.index, ['local', 'IP_CH1'], slots);
  assert.equal(sim.prompts.playLog.at(-1)!.targets, ['local', 'IP_CH1']);
});

test('from a path a raw PCM file is read packet by packet and stored as WAV with its header', async () => {
  const { sim, c } = await simClient();
  const dir = await mkdtemp(path.join(tmpdir(), 'speaker-'));
  try {
    const pcm = Buffer.alloc(600_000, 3);
    await writeFile(path.join(dir, 'tone.pcm'), pcm);
    const prompt = await uploadPrompt(c, { file: path.join(dir, 'tone.pcm') });
    assert.is(prompt.name, 'tone.wav');
    const stored = sim.prompts.files.at(-1)!.data;
    assert.equal([stored.length, audioFormat(stored)], [600_044, 'wav']);
    assert.is(stored.readUInt32LE(24), 8000, 'sample rate in the header');
    assert.ok(stored.subarray(44).equals(pcm));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('empty, too large or not audio: refused before anything is sent, with the reason', async () => {
  const { sim, c } = await simClient();
  const cases: Array<[Buffer, string, string, RegExp]> = [
    [Buffer.alloc(0), 'a.mp3', 'wrong_format', /not MP3, WAV or raw PCM/],
    [Buffer.alloc(0), 'a.pcm', 'empty', /is empty/],
    [mp3(5_242_881), 'big.mp3', 'too_large', /5242881 bytes; the device takes at most 5242880 bytes/],
    [Buffer.from('%PDF-1.7 not audio at all'), 'doc.pdf', 'wrong_format', /"doc.pdf" is not MP3, WAV or raw PCM/],
  ];
  for (const [file, name, code, reason] of cases) {
    const err = await rejection(uploadPrompt(c, { file, name }));
    assert.equal([err.error_code, err.kind === 'invalid_request'], [code, true], err.message);
    assert.match(err.reason, reason);
  }
  assert.is(uploads(sim).length, 0);
  assert.is(sim.prompts.files.length, 2);
});

test('an upload the device refuses half way leaves nothing on the device and says which packet failed', async () => {
  const { sim, c } = await simClient();
  // The third packet is answered busy: the device drops the upload.
  let n = 0;
  const orig = sim.prompts.files.length;
  const err = await rejection(
    uploadPrompt(c, {
      file: mp3(1_100_000),
      name: 'half.mp3',
      onPacket: (sent) => {
        n = sent;
        if (sent === 2) sim.fault({ kind: 'device_busy', path: /VoicePrompts\/Set/, times: 1 });
      },
    }),
  );
  assert.is(n, 2);
  assert.equal([err.error_code, err.kind], ['busy', 'busy']);
  assert.match(err.reason, /the device is busy \(device_busy\): try again later \(packet 3 of 3\)/);
  assert.is(sim.prompts.files.length, orig, 'nothing of it listed');
  assert.ok(!sim.prompts.files.some((f) => f.name === 'half.mp3'));
});

test('an upload whose last packet is listed but whose answer fails is removed again', async () => {
  const { sim } = await simClient();
  // The device stores the file, then the answer never arrives in time (late_answer beyond the deadline).
  const c2 = new NvrClient({ url: sim.url, username: 'admin', password: PASSWORD, heartbeatMs: 0, timeoutMs: 800 });
  open.push(c2);
  await readPromptLimits(c2);
  sim.fault({ kind: 'late_answer', ms: 2000, path: /VoicePrompts\/Set/, times: 1 });
  const err = await rejection(uploadPrompt(c2, { file: mp3(1000), name: 'late.mp3' }));
  assert.ok(err instanceof DeviceError);
  assert.ok(!sim.prompts.files.some((f) => f.name === 'late.mp3'), 'the stored file was removed');
  const removes = sim.log.filter((e) => (e.data as any)?.command === 'Remove');
  assert.is(removes.length, 1);
});

test('say speaks through the converter in the language asked (ISO code or the device name), replacing the last spoken file', async () => {
  const { sim, c, slots } = await simClient();
  await say(c, { text: 'You are being recorded', language: 'en', targets: ['local'], slots });
  const limits = await readPromptLimits(c);
  const since = sim.log.length;
  await say(c, { text: 'Bitte gehen Sie weiter', language: 'deutsch', targets: ['CH1', 'IP_CH1'], slots, limits });
  // Two calls before the sound (the limits known, the language given: nothing read first), the earlier spoken file removed after it.
  assert.equal(
    sim.log.slice(since).map((e) => `${e.path.split('/').at(-1)} ${(e.data as any)?.command ?? ''}`.trim()),
    ['Set Upload', 'Set Play', 'Set Remove'],
  );
  const spoken = sim.prompts.files.filter((f) => f.name === SAY_FILE);
  assert.is(spoken.length, 1, 'one spoken file kept');
  assert.equal(spoken[0].source, { kind: 'text', text: 'Bitte gehen Sie weiter', language: 'DEUTSCH' });
  assert.equal(
    sim.prompts.playLog.map((p) => [p.name, p.targets]),
    [
      [SAY_FILE, ['local']],
      [SAY_FILE, ['CH1', 'IP_CH1']],
    ],
  );
  const bad = await rejection(say(c, { text: 'x', language: 'klingon', targets: ['local'], slots }));
  assert.equal([bad.error_code, bad.kind], ['bad_language', 'invalid_request']);
  const long = await rejection(say(c, { text: 'x'.repeat(201), targets: ['local'], slots }));
  assert.match(long.reason, /text: 1-200 characters \(got 201\)/);
  assert.is(sim.prompts.playLog.length, 2);
});

test('a camera without a speaker is refused as no_speaker; cameras behind the NVR can be stopped', async () => {
  const { sim, c, slots } = await simClient();
  const err = await rejection(playPrompt(c, 46, ['CH2'], slots));
  assert.equal([err.error_code, err.kind], ['no_speaker', 'invalid_request']);
  assert.match(err.reason, /cannot play there/);
  const unknown = await rejection(playPrompt(c, 46, ['IP_CH9'], slots));
  assert.equal(unknown.error_code, 'no_speaker');
  await stopCameraPrompts(c, ['IP_CH1']);
  assert.equal(
    sim.prompts.playLog.map((p) => [p.action, p.targets]),
    [['stop', ['IP_CH1']]],
  );
});

test.run();
