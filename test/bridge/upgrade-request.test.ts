/**
 * `bridge/request/upgrade`: the local firmware upgrade from a file the bridge can read, against a real broker and the
 * simulator. Off by default; only files inside `request_api.allow_upgrade_from` (symlinks leading out refused); every
 * step answered on `bridge/response/upgrade`; the secondary authentication built from the configured password (the
 * simulator checks the cipher) and never published. Every refusal: no TransKey, Token or upload request sent.
 */
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import { json, setup, type Fixture } from './fixture';

const test = suite('bridge: request/upgrade');
const ctx: { fx: Fixture; off: Fixture; dir: string; fw: string } = {} as never;
const SENT = ['/API/Maintenance/TransKey/Get', '/API/Maintenance/SystemUpgrade/Token', '/API/Maintenance/SystemUpgrade/Upgrade'];

/** A firmware image of the simulator: its marker and version, padded past the 3 KB head. */
const image = (version: string) => Buffer.concat([Buffer.from(`SIMFW:${version}\n`), Buffer.alloc(8 * 1024, 0x5a)]);

test.before(async () => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'nvr2mqtt-fw-'));
  ctx.fw = join(ctx.dir, 'firmware');
  await mkdir(ctx.fw);
  await mkdir(join(ctx.dir, 'other'));
  await writeFile(join(ctx.fw, 'good.sw'), image('V9.9.9-20260101'));
  await writeFile(join(ctx.fw, 'short.sw'), Buffer.from('SIMFW:V1\n'));
  await writeFile(join(ctx.dir, 'other', 'outside.sw'), image('V8.8.8'));
  await symlink(join(ctx.dir, 'other', 'outside.sw'), join(ctx.fw, 'escape.sw'));
  await mkdir(join(ctx.fw, 'adir.sw'));
  ctx.fx = await setup({
    label: 'upgrade-req',
    devices: [{ id: 'nvr', poll: 0.5, sim: { rebootMs: 300 } }],
    tweak: (c) => {
      c.request_api = { ...c.request_api, allow_upgrade_from: [ctx.fw] };
    },
  });
});
test.after(async () => {
  await ctx.fx.stop();
  await rm(ctx.dir, { recursive: true, force: true });
});

const sim = (fx = ctx.fx) => fx.sims.get('nvr')!;
const sent = (since: number, fx = ctx.fx) =>
  sim(fx)
    .log.slice(since)
    .filter((e) => SENT.includes(e.path)).length;

/** Publish a request; the answers with its transaction until the final one (ok or error). */
async function ask(fx: Fixture, body: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const since = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/bridge/request/upgrade`, JSON.stringify(body));
  await fx.recorder.waitTopic(
    `${fx.base}/bridge/response/upgrade`,
    (j) => j.transaction === body.transaction && j.status !== 'progress',
    10_000,
    since,
  );
  return fx.recorder.messages
    .slice(since)
    .filter((m) => m.topic === `${fx.base}/bridge/response/upgrade`)
    .map((m) => json(m))
    .filter((j) => j.transaction === body.transaction);
}

async function refused(body: Record<string, unknown>, reason: RegExp, fx = ctx.fx) {
  const since = sim(fx).log.length;
  const answers = await ask(fx, body);
  assert.equal(answers.length, 1, 'one answer, no steps');
  assert.equal(answers[0].status, 'error');
  assert.match(String(answers[0].error), reason);
  assert.equal(sent(since, fx), 0, 'nothing sent to the device');
  return answers[0];
}

test('off by default: refused, naming the setting; nothing sent', async () => {
  const off = await setup({ label: 'upgrade-off' });
  try {
    const a = await refused({ device: 'nvr', file: join(ctx.fw, 'good.sw'), transaction: 'off' }, /request_api\.allow_upgrade_from/, off);
    assert.equal(a.error_code, 'refused');
    assert.equal(sim(off).firmware.installs.length, 0);
  } finally {
    await off.stop();
  }
});

test('paths outside the allowed directories, a symlink leading out, no regular file, bad members: refused, nothing sent', async () => {
  const d = ctx.fw;
  await refused({ device: 'nvr', file: join(ctx.dir, 'other', 'outside.sw'), transaction: 1 }, /outside the directories/);
  await refused({ device: 'nvr', file: join(d, 'escape.sw'), transaction: 2 }, /outside the directories/);
  await refused({ device: 'nvr', file: join(d, '..', 'other', 'outside.sw'), transaction: 3 }, /outside the directories/);
  await refused({ device: 'nvr', file: 'firmware/good.sw', transaction: 4 }, /absolute path/);
  await refused({ device: 'nvr', file: join(d, 'missing.sw'), transaction: 5 }, /not found/);
  await refused({ device: 'nvr', file: join(d, 'adir.sw'), transaction: 6 }, /not a regular file/);
  await refused({ device: 'nvr', transaction: 7 }, /absolute path/);
  await refused({ device: 'ghost', file: join(d, 'good.sw'), transaction: 8 }, /unknown device/);
  await refused({ device: 'nvr', file: join(d, 'good.sw'), auth: { seq: 1, cipher: 'x' }, transaction: 9 }, /unknown member/);
  await refused({ file: join(d, 'good.sw'), transaction: 10 }, /"device"/);
});

test('a file outside the device limits: error, nothing sent', async () => {
  const since = sim().log.length;
  const answers = await ask(ctx.fx, { device: 'nvr', file: join(ctx.fw, 'short.sw'), transaction: 'short' });
  const last = answers.at(-1)!;
  assert.equal(last.status, 'error');
  assert.notEqual(last.error_code, 'refused');
  assert.equal(sent(since), 0);
});

test('a good file: steps answered, authentication from the password accepted, installed; no secret published', async () => {
  const { fx } = ctx;
  const since = sim().log.length;
  const rec = fx.recorder.count;
  const answers = await ask(fx, { device: 'nvr', file: join(ctx.fw, 'good.sw'), transaction: 'go' });
  assert.deepEqual(
    answers.map((a) => (a.status === 'progress' ? a.step : a.status)),
    ['checked', 'token', 'uploading', 'ok'],
  );
  const done = answers.at(-1)!.data as Record<string, unknown>;
  assert.equal(done.file_name, 'good.sw');
  assert.equal(done.accepted, true);
  const log = sim().log.slice(since);
  for (const p of SENT) assert.equal(log.filter((e) => e.path === p).length, 1, p);
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(sim().firmware.installs, ['V9.9.9-20260101']);
  const published = fx.recorder.messages
    .slice(rec)
    .map((m) => m.payload)
    .join('\n');
  assert.ok(!published.includes(fx.passwords[0]), 'the password is never published');
  assert.ok(!/cipher/.test(published), 'no cipher published');
  assert.ok(!fx.logs.some((l) => l.includes(fx.passwords[0])), 'nor logged');
});

test.run();
