/**
 * The speaker through the bridge, against a real broker and the simulator: the recorder and each camera the
 * VoicePrompts page says can play get a notify "Speaker", a select "Prompt" and a button "Play prompt" (a camera
 * without a speaker, or offline, none); `set/say` reaches the device as its converter's upload and a Play on that
 * speaker; `set/prompt` + `set/play_prompt` play the chosen prompt; `bridge/request/prompt` uploads a file from an
 * allowed directory and the select offers it; commands for a channel without a speaker, an unknown prompt or
 * language are refused on bridge/event and send nothing.
 */
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import { json, setup, until, waitEvent, type Fixture } from './fixture';

const test = suite('bridge: speaker');
const ctx: { fx: Fixture; dir: string } = {} as never;
const SET = '/API/AlarmConfig/VoicePrompts/Set';

test.before(async () => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'prompts-'));
  ctx.fx = await setup({
    label: 'speaker',
    devices: [{ id: 'nvr', poll: 0.3 }],
    tweak: (c) => {
      c.request_api.allow_prompts_from = [ctx.dir];
    },
  });
});
test.after(async () => {
  await ctx.fx.stop();
  await rm(ctx.dir, { recursive: true, force: true });
});

const sim = () => ctx.fx.sims.get('nvr')!;
const sets = (since: number) =>
  sim()
    .log.slice(since)
    .filter((e) => e.path === SET);
const cmps = async (node: string, pred: (c: Record<string, Record<string, unknown>>) => boolean = () => true) => {
  const { fx } = ctx;
  const m = await fx.recorder.waitTopic(`${fx.prefix}/device/${fx.base}_${node}/config`, (j) => pred((j.cmps ?? {}) as never), 5000);
  return (json(m) as { cmps: Record<string, Record<string, unknown>> }).cmps;
};

test('the recorder and the cameras able to play get Speaker, Prompt and Play prompt; the others none', async () => {
  const { fx } = ctx;
  const rec = await cmps('nvr', (x) => x.speaker !== undefined);
  assert.deepEqual([rec.speaker.p, rec.speaker.name, rec.speaker.command_topic], ['notify', 'Speaker', `${fx.base}/nvr/set/say`]);
  assert.deepEqual([rec.prompt.p, rec.prompt.name, rec.prompt.options], ['select', 'Prompt', ['doorbell.mp3', 'warning.mp3']]);
  assert.deepEqual(
    [rec.play_prompt.p, rec.play_prompt.name, rec.play_prompt.command_topic],
    ['button', 'Play prompt', `${fx.base}/nvr/set/play_prompt`],
  );
  for (const slug of ['ch1', 'ip_ch1']) {
    const c = await cmps(`nvr_${slug}`, (x) => x.speaker !== undefined);
    assert.equal(c.speaker.command_topic, `${fx.base}/nvr/${slug}/set/say`);
  }
  // CH2 has no audio, IP_CH2 is offline: no speaker entities.
  for (const slug of ['ch2', 'ip_ch2']) {
    const c = await cmps(`nvr_${slug}`);
    assert.ok(!('speaker' in c) && !('prompt' in c) && !('play_prompt' in c), `${slug}: ${Object.keys(c).join(', ')}`);
  }
  const offer = json(await fx.recorder.waitTopic(`${fx.base}/nvr/prompts`));
  assert.deepEqual(offer.speakers, ['local', 'CH1', 'CH3', 'CH4', 'IP_CH1']);
});

test('set/say {"text","language"} on a camera: the converter speaks it, played on that camera only', async () => {
  const { fx } = ctx;
  await cmps('nvr_ip_ch1', (x) => x.speaker !== undefined);
  const plays = sim().prompts.playLog.length;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/set/say`, JSON.stringify({ text: 'Bitte gehen Sie weiter', language: 'de' }));
  await until(() => sim().prompts.playLog.length === plays + 1, 'the play');
  const play = sim().prompts.playLog.at(-1)!;
  assert.deepEqual([play.name, play.targets], ['nvr2mqtt-say', ['IP_CH1']]);
  const file = sim().prompts.files.find((f) => f.index === play.index)!;
  assert.deepEqual(file.source, { kind: 'text', text: 'Bitte gehen Sie weiter', language: 'DEUTSCH' });
  // The bare text (as Home Assistant's notify template sends it wrapped, or a user types it) on the recorder.
  await fx.recorder.publish(`${fx.base}/nvr/set/say`, JSON.stringify({ text: 'You are being recorded' }));
  await until(() => sim().prompts.playLog.length === plays + 2, 'the second play');
  assert.deepEqual(sim().prompts.playLog.at(-1)!.targets, ['local']);
  assert.equal(sim().prompts.files.filter((f) => f.name === 'nvr2mqtt-say').length, 1, 'one spoken file kept');
});

test('the select chooses a prompt (<ch>/prompt says which) and the button plays it there', async () => {
  const { fx } = ctx;
  const rec = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/ch1/set/prompt`, 'warning.mp3');
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch1/prompt`, (j) => j.prompt === 'warning.mp3', 5000, rec);
  const plays = sim().prompts.playLog.length;
  await fx.recorder.publish(`${fx.base}/nvr/ch1/set/play_prompt`, '');
  await until(() => sim().prompts.playLog.length === plays + 1, 'the play');
  assert.deepEqual([sim().prompts.playLog.at(-1)!.name, sim().prompts.playLog.at(-1)!.targets], ['warning.mp3', ['CH1']]);
  await fx.recorder.publish(`${fx.base}/nvr/set/play_prompt`, 'doorbell.mp3');
  await until(() => sim().prompts.playLog.length === plays + 2, 'the second play');
  assert.deepEqual(sim().prompts.playLog.at(-1)!.targets, ['local']);
});

const REFUSED: Array<[string, string, string, RegExp]> = [
  ['a camera without a speaker', 'ch2/set/say', 'hello', /say: CH2 of nvr has no speaker/],
  ['an offline camera', 'ip_ch2/set/play_prompt', 'doorbell.mp3', /channel IP_CH2 of nvr is offline/],
  ['an unknown prompt', 'set/play_prompt', 'nope.mp3', /no prompt "nope.mp3" on nvr \(doorbell.mp3, warning.mp3/],
  ['a language the device lacks', 'set/say', '{"text":"hi","language":"klingon"}', /language "klingon": the device speaks/],
  ['an empty text', 'set/say', '{"text":"  "}', /say: text must be 1-200 characters/],
];
for (const [what, sub, payload, reason] of REFUSED) {
  test(`refused on bridge/event, nothing sent: ${what}`, async () => {
    const { fx } = ctx;
    const since = sim().log.length;
    const rec = fx.recorder.count;
    const topic = `${fx.base}/nvr/${sub}`;
    await fx.recorder.publish(topic, payload);
    const data = await waitEvent(fx, 'command_refused', (d) => d.topic === topic, rec, 5000);
    assert.match(String(data.reason), reason);
    assert.equal(sets(since).length, 0);
  });
}

test('bridge/request/prompt uploads a file from an allowed directory; the select offers it; a file elsewhere is refused', async () => {
  const { fx } = ctx;
  const file = path.join(ctx.dir, 'gate.mp3');
  const bytes = Buffer.alloc(700_000, 0x33);
  bytes.write('ID3', 0, 'latin1');
  await writeFile(file, bytes);
  let rec = fx.recorder.count;
  const since = sim().log.length;
  await fx.recorder.publish(`${fx.base}/bridge/request/prompt`, JSON.stringify({ device: 'nvr', file, transaction: 't1' }));
  const ok = json(await fx.recorder.waitTopic(`${fx.base}/bridge/response/prompt`, (j) => j.transaction === 't1', 10_000, rec));
  assert.equal(ok.status, 'ok', JSON.stringify(ok));
  assert.equal((ok.data as { name: string }).name, 'gate.mp3');
  assert.equal(sets(since).length, 2, 'two packets of at most 512000 bytes');
  assert.ok(sim().prompts.files.at(-1)!.data.equals(bytes));
  const c = await cmps('nvr', (x) => (x.prompt?.options as string[] | undefined)?.includes('gate.mp3') ?? false);
  assert.ok((c.prompt.options as string[]).includes('gate.mp3'));
  rec = fx.recorder.count;
  await fx.recorder.publish(
    `${fx.base}/bridge/request/prompt`,
    JSON.stringify({ device: 'nvr', file: '/etc/hostname', transaction: 't2' }),
  );
  const no = json(await fx.recorder.waitTopic(`${fx.base}/bridge/response/prompt`, (j) => j.transaction === 't2', 5000, rec));
  assert.equal(no.status, 'error');
  assert.match(String(no.error), /outside the directories allowed in request_api.allow_prompts_from/);
});

test.run();
