/**
 * The daemon's heap flags: every launcher of the bridge passes LAUNCH_HEAP_FLAGS (node takes them only when it
 * starts), and the bridge tells which heap it runs with (a real node process per case, started as a launcher does).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import { LAUNCH_HEAP_FLAGS } from '../../bridge/app/tuning';

const test = suite('bridge: heap flags');
const repo = join(__dirname, '..', '..', '..');
const tuning = join(__dirname, '..', '..', 'bridge', 'app', 'tuning.js');

/** What tuneHeapForDaemon() decides in a node started with `args` (and NODE_OPTIONS). */
function decision(args: string[], nodeOptions = ''): string {
  const script = `process.stdout.write(String(require(${JSON.stringify(tuning)}).tuneHeapForDaemon()))`;
  return execFileSync(process.execPath, [...args, '-e', script], { env: { ...process.env, NODE_OPTIONS: nodeOptions } }).toString();
}

test('the container images and npm start launch node with the heap flags', () => {
  const entry = (file: string) => readFileSync(join(repo, file), 'utf8').match(/^ENTRYPOINT (\[.*\])$/m)?.[1];
  for (const file of ['Dockerfile', 'addon/Dockerfile']) {
    const argv = JSON.parse(entry(file) ?? 'null') as string[] | null;
    assert.ok(argv, `${file} has an ENTRYPOINT in exec form`);
    assert.deepEqual(argv.slice(0, 1 + LAUNCH_HEAP_FLAGS.length), ['node', ...LAUNCH_HEAP_FLAGS], file);
  }
  const start = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  assert.equal(start, `node ${LAUNCH_HEAP_FLAGS.join(' ')} dist/bridge/app/cli.js`);
});

test('started with the heap flags: nothing is changed at run time', () => {
  assert.equal(decision([...LAUNCH_HEAP_FLAGS]), 'launch');
});

test('started without them (the npm-installed command): the heap is kept tight at run time', () => {
  assert.equal(decision([]), 'runtime');
});

test("heap flags of the user's own (arguments or NODE_OPTIONS) are left alone", () => {
  assert.equal(decision(['--max-old-space-size=512']), 'false');
  assert.equal(decision([], '--max-semi-space-size=16'), 'false');
  assert.equal(decision([LAUNCH_HEAP_FLAGS[0]]), 'false', 'one of the two flags is not the daemon set');
});

test.run();
