/**
 * The daemon's heap flags: every launcher of the bridge passes LAUNCH_HEAP_FLAGS (node takes them only when it
 * starts), and the bridge tells which heap it runs with (a real node process per case, started as a launcher does).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import { LARGE_SITE_DEVICES, LAUNCH_HEAP_FLAGS } from '../../bridge/app/tuning';

const test = suite('bridge: heap flags');
const repo = join(__dirname, '..', '..', '..');
const tuning = join(__dirname, '..', '..', 'bridge', 'app', 'tuning.js');

/** What tuneHeapForDaemon() decides in a node started with `args` (and NODE_OPTIONS). */
function decision(args: string[], nodeOptions = ''): string {
  const script = `process.stdout.write(String(require(${JSON.stringify(tuning)}).tuneHeapForDaemon()))`;
  return execFileSync(process.execPath, [...args, '-e', script], { env: { ...process.env, NODE_OPTIONS: nodeOptions } }).toString();
}

test('the container images and npm start launch node with the heap flags; the systemd example runs the installed command', () => {
  const entry = (file: string) => readFileSync(join(repo, file), 'utf8').match(/^ENTRYPOINT (\[.*\])$/m)?.[1];
  for (const file of ['Dockerfile', 'addon/Dockerfile']) {
    const argv = JSON.parse(entry(file) ?? 'null') as string[] | null;
    assert.ok(argv, `${file} has an ENTRYPOINT in exec form`);
    assert.deepEqual(argv.slice(0, 1 + LAUNCH_HEAP_FLAGS.length), ['node', ...LAUNCH_HEAP_FLAGS], file);
  }
  const start = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  assert.equal(start, `node ${LAUNCH_HEAP_FLAGS.join(' ')} dist/bridge/app/cli.js`);
  // The installed command starts node with the flags itself (launch.test.ts).
  const unit = readFileSync(join(repo, 'examples', 'nvr2mqtt.service'), 'utf8');
  assert.match(unit, /^ExecStart=\/usr\/bin\/env nvr2mqtt /m, 'the systemd example');
});

test('started with the heap flags: nothing is changed at run time', () => {
  assert.equal(decision([...LAUNCH_HEAP_FLAGS]), 'launch');
});

test('started without them (node cli.js by hand): the heap is kept tight at run time', () => {
  assert.equal(decision([]), 'runtime');
});

test("heap flags of the user's own (arguments or NODE_OPTIONS) are left alone", () => {
  assert.equal(decision(['--max-old-space-size=512']), 'false');
  assert.equal(decision([], '--max-semi-space-size=16'), 'false');
  assert.equal(decision([LAUNCH_HEAP_FLAGS[0]]), 'false', 'one of the flags is not the daemon set');
  assert.equal(decision(['--min-semi-space-size=2']), 'false');
});

/**
 * The young generation a node started with `args` reaches for `devices` recorders: sizeYoungGeneration's answer, then
 * the largest new space (both semi-spaces, MB) seen while allocating objects of which many live on, as in flight.
 */
function youngGeneration(args: string[], devices: number): { answer: string; newSpaceMb: number } {
  const script = `
    const { sizeYoungGeneration } = require(${JSON.stringify(tuning)});
    const { getHeapSpaceStatistics } = require('node:v8');
    const answer = String(sizeYoungGeneration(${devices}));
    const live = [];
    let max = 0;
    for (let i = 0; i < 3e6; i++) {
      live.push({ i, s: 'x' + i });
      if (live.length > 20000) live.splice(0, 10000);
      if (i % 10000 === 0) max = Math.max(max, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
    }
    process.stdout.write(JSON.stringify({ answer, newSpaceMb: max / 1048576 }));`;
  return JSON.parse(execFileSync(process.execPath, [...args, '-e', script], { env: { ...process.env, NODE_OPTIONS: '' } }).toString()) as {
    answer: string;
    newSpaceMb: number;
  };
}

test('started with the heap flags: semi-spaces kept as started below a large site, growing to 16 MB from there', () => {
  const small = youngGeneration([...LAUNCH_HEAP_FLAGS], LARGE_SITE_DEVICES - 1);
  assert.equal(small.answer, 'false');
  // No more than the 4 MB semi-spaces the bridge was started with before (1 MB each on Node 20 and 22).
  assert.ok(small.newSpaceMb <= 8, `${small.newSpaceMb} MB of new space`);
  assert.deepEqual(youngGeneration([...LAUNCH_HEAP_FLAGS], LARGE_SITE_DEVICES), { answer: 'true', newSpaceMb: 32 });
});

test('started otherwise: the young generation is left to V8 (or to the flags given)', () => {
  assert.deepEqual(youngGeneration(['--max-semi-space-size=2'], 10), { answer: 'undefined', newSpaceMb: 4 });
});

test.run();
