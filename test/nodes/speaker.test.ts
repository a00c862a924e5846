/**
 * nvr-speaker against the simulator: a string is said by the device's converter on the speaker asked for, a Buffer
 * uploaded in packets and played, msg.prompt a stored prompt played; a speaker the device does not list, bad input
 * and the device's refusals reach a Catch node with their code, and nothing is sent for what the node refuses.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import nvrSpeaker from '../../nodes/nvr-speaker/nvr-speaker';
import {
  credentials,
  DEV,
  exchange,
  flowWith,
  helper,
  newPassword,
  NODES,
  statusesOf,
  useSimulator,
  type SimulatorContext,
} from './harness';
import type { Simulator } from '../../simulator';

const test = suite<SimulatorContext>('nodes: nvr-speaker', { password: newPassword() });
useSimulator(test);

async function loadSpeaker(sim: Simulator, password: string, props: Record<string, unknown> = {}) {
  const flow = flowWith(sim.url, [
    { id: 'sp1', type: 'nvr-speaker', name: '', device: DEV, channel: '', language: '', wires: [['out']], ...props },
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: ['sp1'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ]);
  await helper.load([...NODES, nvrSpeaker], flow, credentials(password));
}

const promptSets = (sim: Simulator, since: number) => sim.log.slice(since).filter((e) => e.path === '/API/AlarmConfig/VoicePrompts/Set');

test('a string is said on the camera of msg.channel in msg.language; the status says what was played', async ({ sim, password }) => {
  await loadSpeaker(sim!, password, { language: 'de' });
  const r = await exchange('sp1', { payload: 'You are being recorded', channel: 'ip_ch1', language: 'en', topic: 'gate' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.equal(r.out.payload.name, 'nvr2mqtt-say');
  assert.is(r.out.channel, 'IP_CH1');
  assert.is(r.out.topic, 'gate', 'the rest of the message is kept');
  const play = sim!.prompts.playLog.at(-1)!;
  assert.equal([play.name, play.targets], ['nvr2mqtt-say', ['IP_CH1']]);
  assert.equal(sim!.prompts.files.find((f) => f.index === play.index)!.source, {
    kind: 'text',
    text: 'You are being recorded',
    language: 'ENGLISH',
  });
  assert.ok(statusesOf('sp1').some((s) => s.text === 'speaking'));
  assert.equal(statusesOf('sp1').at(-1), { fill: 'green', shape: 'dot', text: 'played nvr2mqtt-say' });
});

test("a Buffer is uploaded in the device's packets and played on the recorder; msg.prompt plays a stored one", async ({
  sim,
  password,
}) => {
  await loadSpeaker(sim!, password);
  const file = Buffer.alloc(600_000, 0x11);
  file.write('ID3', 0, 'latin1');
  const since = sim!.log.length;
  const r = await exchange('sp1', { payload: file, filename: 'gate.mp3' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.equal([r.out.payload.name, r.out.channel], ['gate.mp3', 'local']);
  assert.equal(
    promptSets(sim!, since).map((e) => (e.data as any).command),
    ['Upload', 'Upload', 'Play'],
  );
  assert.ok(sim!.prompts.files.find((f) => f.name === 'gate.mp3')!.data.equals(file));
  assert.ok(statusesOf('sp1').some((s) => s.text === 'uploading 2/2'));
  const again = await exchange('sp1', { prompt: 'doorbell.mp3', channel: 'CH1' });
  assert.equal([again.out?.payload.name, sim!.prompts.playLog.at(-1)!.targets], ['doorbell.mp3', ['CH1']]);
});

test('no speaker there, bad input, too large, not audio: a Catch node gets the code, nothing is sent', async ({ sim, password }) => {
  await loadSpeaker(sim!, password);
  const since = sim!.log.length;
  const big = Buffer.alloc(5_242_881, 1);
  big.write('ID3', 0, 'latin1');
  for (const [msg, code] of [
    [{ payload: 'hello', channel: 'CH2' }, 'no_speaker'],
    [{ payload: 'hello', channel: 'camera 1' }, 'bad_channel'],
    [{ payload: 42 }, 'no_sound'],
    [{ prompt: 'nope.mp3' }, 'unknown_prompt'],
    [{ payload: 'hello', language: 'klingon' }, 'bad_language'],
    [{ payload: Buffer.from('%PDF-1.7'), filename: 'doc.pdf' }, 'wrong_format'],
    [{ payload: big, filename: 'big.mp3' }, 'too_large'],
  ] as const) {
    const r = await exchange('sp1', { ...msg });
    assert.is(r.out, undefined);
    assert.is(r.caught?.error?.code, code, JSON.stringify(r.caught?.error));
  }
  assert.is(promptSets(sim!, since).length, 0);
});

test('the device busy: the Catch node gets busy, and a failed upload leaves nothing on the device', async ({ sim, password }) => {
  await loadSpeaker(sim!, password);
  sim!.fault({ kind: 'device_busy', path: 'VoicePrompts/Set', times: 1 });
  const file = Buffer.alloc(1000, 2);
  file.write('ID3', 0, 'latin1');
  const r = await exchange('sp1', { payload: file, filename: 'busy.mp3' });
  assert.is(r.out, undefined);
  assert.is(r.caught?.error?.code, 'busy', JSON.stringify(r.caught?.error));
  assert.ok(!sim!.prompts.files.some((f) => f.name === 'busy.mp3'));
});

test.run();
