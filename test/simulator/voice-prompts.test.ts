import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, SimulatorOptions, startSimulator } from '../../simulator';
import { PASSWORD, RawClient, RawResponse } from './raw-client';

/**
 * The simulator's voice prompts (vendor-facts-next 3.1, 3.2) with a raw client: the vendor's Get shape, an upload
 * in packets kept only when every packet came in order with the size it states, text to speech as a stand-in file,
 * play now on the recorder's speaker or a camera's (the play log), and every refusal the pages' tables imply
 * (answered 400, nothing stored or played).
 */

const test = suite('simulator: voice prompts');
const GET = '/API/AlarmConfig/VoicePrompts/Get';
const SET = '/API/AlarmConfig/VoicePrompts/Set';
const IPC = '/API/Extended/IPCVoicePrompts/Set';

async function withDevice(opts: Partial<SimulatorOptions>, fn: (c: RawClient, sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ password: PASSWORD, ...opts });
  try {
    const c = new RawClient(sim.url);
    assert.is((await c.login()).status, 200);
    await fn(c, sim);
  } finally {
    await sim.stop();
  }
}

async function ok(c: RawClient, path: string, data: unknown): Promise<Record<string, any>> {
  const res = await c.post(path, data);
  assert.is(res.status, 200, `${path}: ${res.text.slice(0, 300)}`);
  return res.json.data;
}

function refused(res: RawResponse, code: string, reason: RegExp): void {
  assert.is(res.status, 400, res.text);
  assert.is(res.json.error_code, code, res.text);
  assert.match(res.json.reason, reason);
}

const packet = (name: string, bytes: Buffer, at: number, count: number, extra: Record<string, unknown> = {}) => ({
  control_type: 'Normal',
  command: 'Upload',
  convert_mode: 'File',
  file_name: name,
  file_count: count,
  packet_index: at,
  package_size: bytes.length,
  file_data: bytes.toString('base64'),
  ...extra,
});

test('Get answers audio_list as <serial>_<name> and info: language, the cameras able to play, the download url', () =>
  withDevice({}, async (c, sim) => {
    const d = await ok(c, GET, { control_type: 'Normal', download_mode: 'mp3' });
    assert.equal(d.audio_list, ['45_doorbell.mp3', '46_warning.mp3']);
    assert.is(d.info.language, 'ENGLISH');
    // Online channels with audio: CH2 and WIFI_CH1 have none, IP_CH2 is offline, IP_CH3 an empty slot.
    assert.equal(d.info.ipc_channel_info, ['CH1', 'CH3', 'CH4', 'IP_CH1']);
    assert.match(d.info.url, new RegExp(`^http://127\\.0\\.0\\.1:${sim.port}/VoicePromptsTransform/api/`));
    const info = await ok(c, '/API/Login/DeviceInfo/Get', {});
    assert.equal([info.support_voice_prompts, info.support_speaker], [true, true]);
  }));

test('an upload in three packets is listed once, after its last packet, holding exactly the bytes sent', () =>
  withDevice({}, async (c, sim) => {
    const file = Buffer.from(Array.from({ length: 1200 }, (_, i) => i % 251));
    const parts = [file.subarray(0, 500), file.subarray(500, 1000), file.subarray(1000)];
    for (const [i, part] of parts.entries()) {
      const d = await ok(c, SET, packet('bell.wav', part, i, 3));
      assert.is(d.audio_list.length, i < 2 ? 2 : 3, `after packet ${i}`);
      if (i < 2) assert.equal(sim.prompts.upload, { name: 'bell.wav', received: i + 1, count: 3 });
    }
    assert.is(sim.prompts.upload, undefined);
    assert.is(sim.prompts.packets, 3);
    const stored = sim.prompts.files.at(-1)!;
    assert.equal([stored.index, stored.name], [47, 'bell.wav']);
    assert.ok(stored.data.equals(file));
    assert.equal((await ok(c, GET, {})).audio_list.at(-1), '47_bell.wav');
  }));

test('a packet out of order, of another size than it says, or beyond 512000 bytes is refused and the upload dropped', () =>
  withDevice({}, async (c, sim) => {
    const part = Buffer.alloc(100, 7);
    await ok(c, SET, packet('a.mp3', part, 0, 3));
    refused(await c.post(SET, packet('a.mp3', part, 2, 3)), 'param_error', /packet_index: 2 out of order \(expected 1\)/);
    assert.is(sim.prompts.upload, undefined, 'the partial upload is dropped');
    refused(await c.post(SET, packet('a.mp3', part, 1, 3)), 'param_error', /without an upload begun at packet 0/);
    refused(
      await c.post(SET, { ...packet('a.mp3', part, 0, 1), package_size: 99 }),
      'param_error',
      /package_size: 99 but file_data holds 100 bytes/,
    );
    refused(await c.post(SET, packet('a.mp3', Buffer.alloc(512_001), 0, 1)), 'param_error', /package_size: required, an integer 1-512000/);
    refused(await c.post(SET, { ...packet('a.mp3', part, 0, 1), file_data: 'not base64!' }), 'param_error', /file_data/);
    assert.equal(
      sim.prompts.files.map((f) => f.name),
      ['doorbell.mp3', 'warning.mp3'],
    );
  }));

test('a file beyond 5 MB is refused at the packet that crosses the limit, and nothing of it is kept', () =>
  withDevice({}, async (c, sim) => {
    const part = Buffer.alloc(512_000, 1);
    // 10 packets are 5 120 000 bytes; the 11th crosses 5 242 880.
    for (let i = 0; i < 10; i++) await ok(c, SET, packet('big.mp3', part, i, 11));
    refused(await c.post(SET, packet('big.mp3', part, 10, 11)), 'param_error', /exceeds 5242880 bytes/);
    assert.is(sim.prompts.upload, undefined);
    assert.is(sim.prompts.files.length, 2);
  }));

test('text to speech stores a stand-in file named as asked (or after the text); language and length are checked', () =>
  withDevice({}, async (c, sim) => {
    const tts = { control_type: 'Normal', command: 'Upload', convert_mode: 'NetworkText', language: 'DEUTSCH' };
    const d = await ok(c, SET, { ...tts, text: 'Bitte gehen Sie weiter', file_name: 'warnung' });
    assert.equal(d.audio_list.at(-1), '47_warnung');
    assert.equal(sim.prompts.files.at(-1)!.source, { kind: 'text', text: 'Bitte gehen Sie weiter', language: 'DEUTSCH' });
    assert.equal((await ok(c, SET, { ...tts, convert_mode: 'LocalText', text: 'Hallo Welt' })).audio_list.at(-1), '48_Hallo_Welt');
    refused(await c.post(SET, { ...tts, language: 'KLINGON', text: 'x' }), 'param_error', /language/);
    refused(await c.post(SET, { ...tts, text: 'x'.repeat(201) }), 'param_error', /text: required, 1-200 characters/);
    assert.is(sim.prompts.files.length, 4);
  }));

test("Play sounds a file on the recorder's speaker (255) and cameras (0-based); a camera without one is refused", () =>
  withDevice({}, async (c, sim) => {
    await ok(c, SET, { control_type: 'Normal', command: 'Play', index: 46, ipc_channel_info: [255, 0, 4] });
    assert.equal(
      sim.prompts.playLog.map(({ page, action, index, name, targets }) => ({ page, action, index, name, targets })),
      [{ page: 'VoicePrompts', action: 'play', index: 46, name: 'warning.mp3', targets: ['local', 'CH1', 'IP_CH1'] }],
    );
    // CH2 (1) has no audio, IP_CH2 (5) is offline, 7 an empty slot: refused, nothing played.
    for (const n of [1, 5, 6])
      refused(
        await c.post(SET, { command: 'Play', index: 46, ipc_channel_info: [255, n] }),
        'no_support',
        /not among the channels able to play/,
      );
    refused(await c.post(SET, { command: 'Play', index: 99 }), 'param_error', /index: no file 99/);
    refused(await c.post(SET, { command: 'Play', index: 46, ipc_channel_info: 'local' }), 'param_error', /ipc_channel_info/);
    assert.is(sim.prompts.playLog.length, 1);
  }));

test('Remove takes a file out of the list by its serial number; unknown commands and members are refused', () =>
  withDevice({}, async (c, sim) => {
    assert.equal((await ok(c, SET, { control_type: 'Normal', command: 'Remove', index: 45 })).audio_list, ['46_warning.mp3']);
    refused(await c.post(SET, { command: 'Remove', index: 45 }), 'param_error', /index: no file 45/);
    refused(await c.post(SET, { command: 'Stop' }), 'param_error', /command: must be one of Upload, Remove, Transform, Exit, Play/);
    refused(await c.post(SET, { command: 'Exit', volume: 5 }), 'param_error', /volume: unsupported field/);
    refused(await c.post(SET, { command: 'Exit', control_type: 'AiPlate' }), 'param_error', /license_plate: required/);
    assert.is(sim.prompts.files.length, 1);
  }));

test("cameras behind an NVR: their list, their audio index, play and stop by IP channel (the sample's CH names too)", () =>
  withDevice({}, async (c, sim) => {
    assert.equal((await ok(c, IPC, { command: 'GetAudioFilesList' })).audio_list, ['5_13227.mp3', '6_9528.mp3', '7_AlienBoi.mp3']);
    await ok(c, IPC, { command: 'ConfigureAudioIndex', channel_info: { IP_CH1: { audio_index: 7 } } });
    assert.equal((await ok(c, IPC, { command: 'GetAudioIndex' })).channel_info, {
      IP_CH1: { status: 'Online', audio_index: 7 },
      IP_CH2: { status: 'Offline', audio_index: 5 },
    });
    await ok(c, IPC, { command: 'PlayAudio', channel: ['IP_CH1'] });
    await ok(c, IPC, { command: 'StopPlaying', channel: ['CH1'] });
    assert.equal(
      sim.prompts.playLog.map(({ action, name, targets }) => ({ action, name, targets })),
      [
        { action: 'play', name: 'AlienBoi.mp3', targets: ['IP_CH1'] },
        { action: 'stop', name: undefined, targets: ['IP_CH1'] },
      ],
    );
    refused(await c.post(IPC, { command: 'PlayAudio', channel: ['IP_CH2'] }), 'no_support', /IP_CH2: offline/);
    refused(await c.post(IPC, { command: 'PlayAudio', channel: ['WIFI_CH1'] }), 'param_error', /not an IP channel/);
    assert.is(sim.prompts.playLog.length, 2);
  }));

test('a camera (IPC) plays on its own speaker only and has no page for cameras behind it', () =>
  withDevice({ profile: 'ipc' }, async (c, sim) => {
    const d = await ok(c, GET, {});
    assert.equal(d.info.ipc_channel_info, []);
    await ok(c, SET, { command: 'Play', index: 45, ipc_channel_info: [255] });
    assert.equal(sim.prompts.playLog[0].targets, ['local']);
    assert.is((await c.post(IPC, { command: 'GetAudioFilesList' })).status, 404);
  }));

test.run();
