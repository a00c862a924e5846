#!/usr/bin/env node
'use strict';
/*
 * `npm test` and `npm run test:fast`: the uvu test files of dist/test, run in parallel worker processes.
 *
 *   node scripts/test-run.js [--fast] [--jobs N] [words...]
 *
 * --fast     the fast tier only: every test file that starts no MQTT broker, browser, Node-RED runtime, simulator or
 *            bridge, read from its imports (followed through test/ helpers), so a new unit or fake-time test joins
 *            by itself.
 * --jobs N   worker processes at once (default TEST_JOBS, else 3 per core: the end-to-end files mostly wait on
 *            sockets and timers, so the cores stay busy with more of them than cores).
 * words      keep the test files whose path (relative to test/, e.g. `bridge/push.test.js`) contains any of the words.
 *
 * Each end-to-end file runs in a process of its own (its own embedded broker, ports and topics: nothing is shared
 * between files but the machine); the fast tier runs in a few processes of many files each. The longest files start
 * first (durations of the last run in .tmp/test-durations.json; on a fresh clone the end-to-end files, larger
 * first). A file's output is printed whole once it ends, never interleaved with another's; a file that fails is
 * printed with everything it said, and one that outlives FILE_TIMEOUT_MS is killed and fails.
 * The closing line, `tests: N passed, M failed, K skipped`, is what .ci/run counts; the exit code is 1 when any
 * file failed.
 */
const { readFileSync, readdirSync, existsSync, writeFileSync, mkdirSync, statSync } = require('node:fs');
const { join, dirname, resolve, relative } = require('node:path');
const { spawn } = require('node:child_process');
const { availableParallelism } = require('node:os');

const root = resolve(__dirname, '..');
const DIST = join(root, 'dist', 'test');
const DURATIONS = join(root, '.tmp', 'test-durations.json');
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS || 300_000);
/** Fast files per process: enough to pay a process start once for many sub-second files. */
const FAST_BATCH = 12;

/** Modules that bring up something real (the slow tier). */
const SLOW = [
  'test/bridge/fixture',
  'test/helpers/mqtt-broker',
  'test/helpers/nodered-runtime',
  'test/helpers/browser',
  'test/nodes/harness',
  'simulator/index',
  'bridge/bridge',
  'bridge/app/cli',
  'bridge/app/demo',
].map((m) => join(root, m));

function moduleFile(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  for (const f of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(f)) return f;
  return undefined;
}

const verdicts = new Map();
/** Whether a source file, or a test/ file it imports (transitively), is one of the slow modules. */
function slow(file) {
  if (SLOW.some((m) => file === `${m}.ts`)) return true;
  if (verdicts.has(file)) return verdicts.get(file);
  verdicts.set(file, false);
  const imports = [...readFileSync(file, 'utf8').matchAll(/(?:from|import|require\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
  const found = imports.some((spec) => {
    if (spec === 'node-red' || spec === 'node-red-node-test-helper') return true;
    const f = moduleFile(file, spec);
    return f !== undefined && (SLOW.some((m) => f === `${m}.ts`) || (f.startsWith(join(root, 'test')) && slow(f)));
  });
  verdicts.set(file, found);
  return found;
}

function parseArgs(argv) {
  const opts = { fast: false, jobs: Number(process.env.TEST_JOBS) || availableParallelism() * 3, words: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--fast') opts.fast = true;
    else if (argv[i] === '--jobs') opts.jobs = Number(argv[++i]);
    else if (argv[i].startsWith('--jobs=')) opts.jobs = Number(argv[i].slice(7));
    else opts.words.push(argv[i]);
  }
  if (!(opts.jobs >= 1)) throw new Error('--jobs wants a number of processes (1 or more)');
  return opts;
}

function readDurations() {
  try {
    return JSON.parse(readFileSync(DURATIONS, 'utf8'));
  } catch {
    return {};
  }
}

/** The work: one job per end-to-end file, the fast files in batches; longest first. */
function plan(opts) {
  if (!existsSync(DIST)) throw new Error('dist/test missing: build first (npm run build)');
  const sources = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => f.split('\\').join('/'))
    .sort();
  const files = sources
    .map((f) => ({ source: join(root, 'test', f), name: f.replace(/\.ts$/, '.js') }))
    .filter((f) => !opts.words.length || opts.words.some((w) => f.name.includes(w)))
    .map((f) => ({ ...f, slow: slow(f.source) }))
    .filter((f) => !opts.fast || !f.slow);
  const missing = files.filter((f) => !existsSync(join(DIST, f.name)));
  if (missing.length) throw new Error(`not built: ${missing.map((f) => f.name).join(', ')} (npm run build)`);
  const known = readDurations();
  // Without a last run's figure: an end-to-end file is guessed at a second per 10 lines, a fast file at 0.3 s.
  const guess = (f) => known[f.name] ?? (f.slow ? statSync(f.source).size / 400 : 0.3);
  const jobs = files.filter((f) => f.slow).map((f) => ({ files: [f.name], cost: guess(f) }));
  const fast = files.filter((f) => !f.slow).sort((a, b) => guess(b) - guess(a));
  const batches = Math.max(Math.min(opts.jobs, Math.ceil(fast.length / FAST_BATCH)), fast.length ? 1 : 0);
  for (let b = 0; b < batches; b++) {
    const mine = fast.filter((_f, i) => i % batches === b);
    jobs.push({ files: mine.map((f) => f.name), cost: mine.reduce((s, f) => s + guess(f), 0) });
  }
  return jobs.sort((a, b) => b.cost - a.cost);
}

const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');
/** uvu's closing lines: "Total: N" (the skipped left out), "Passed: N", "Skipped: N". */
function counts(output) {
  const text = plain(output);
  const n = (label) => Number(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { total: n('Total'), passed: n('Passed'), skipped: n('Skipped') || 0 };
}
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The files of a job whose part of its output shows a failure (uvu heads each file's part with its name). */
function failingFiles(job, output) {
  if (job.files.length === 1) return job.files;
  const lines = plain(output).split('\n');
  const starts = lines.map((l, i) => (job.files.includes(l.trim()) ? i : -1)).filter((i) => i >= 0);
  const failing = starts
    .filter((at, k) => lines.slice(at + 1, starts[k + 1] ?? lines.length).some((l) => /✘|FAIL/.test(l)))
    .map((at) => lines[at].trim());
  return failing.length ? failing : job.files;
}

function runJob(job, color) {
  const pattern = `^(${job.files.map(escape).join('|')})$`;
  const args = [join(root, 'node_modules/uvu/bin.js'), DIST, pattern, ...(color ? [] : ['--no-color'])];
  const started = Date.now();
  return new Promise((done) => {
    // Its own process group, so a file's children (Node-RED, a browser, a bridge) go with it on a timeout.
    const child = spawn(process.execPath, args, { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b) => (output += b));
    child.stderr.on('data', (b) => (output += b));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, FILE_TIMEOUT_MS);
    running.add(child);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      const seconds = (Date.now() - started) / 1000;
      if (timedOut) output += `\ntest-run: killed after ${FILE_TIMEOUT_MS / 1000} s\n`;
      else if (signal) output += `\ntest-run: ended by ${signal}\n`;
      done({ job, code: timedOut || signal ? 1 : code, output, seconds });
    });
  });
}

const running = new Set();
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    for (const c of running)
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    process.exit(130);
  });

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const jobs = plan(opts);
  const fileCount = jobs.reduce((s, j) => s + j.files.length, 0);
  if (!fileCount) {
    console.error(`test-run: no test file matches ${opts.words.join(' ')}`);
    process.exit(1);
  }
  const color = process.stdout.isTTY && !process.env.NO_COLOR;
  const started = Date.now();
  console.log(`test-run: ${fileCount} files in ${jobs.length} processes, ${opts.jobs} at a time${opts.fast ? ' (fast tier)' : ''}`);
  const queue = [...jobs];
  const results = [];
  const durations = readDurations();
  async function worker() {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const r = await runJob(job, color);
      const c = counts(r.output);
      const failed = r.code !== 0 || !(c.total >= 0) || c.passed < c.total;
      results.push({ ...r, ...c, failed });
      // A batch's time is shared out by its files; the next run's plan only needs the order right.
      for (const f of job.files) durations[f] = r.seconds / job.files.length;
      const what = job.files.length === 1 ? job.files[0] : `${job.files.length} fast files (${job.files[0]}, ...)`;
      const tally = Number.isNaN(c.total) ? 'no test summary' : `${c.passed}/${c.total} passed${c.skipped ? `, ${c.skipped} skipped` : ''}`;
      if (failed) process.stdout.write(`\n---- ${what}: FAILED (exit ${r.code}) ----\n${r.output}\n---- end of ${what} ----\n`);
      else if (c.skipped) process.stdout.write(r.output);
      console.log(`${failed ? 'FAIL' : 'ok  '} ${r.seconds.toFixed(1).padStart(6)} s  ${what}: ${tally}`);
    }
  }
  await Promise.all(Array.from({ length: Math.min(opts.jobs, jobs.length) }, worker));
  mkdirSync(dirname(DURATIONS), { recursive: true });
  writeFileSync(DURATIONS, JSON.stringify(durations, null, 1));

  const sum = (k) => results.reduce((s, r) => s + (Number.isNaN(r[k]) ? 0 : r[k]), 0);
  const failedFiles = results.filter((r) => r.failed);
  // A file that failed without a summary (a crash, a timeout) counts as one failed test.
  const failedTests = sum('total') - sum('passed') + failedFiles.filter((r) => Number.isNaN(r.total) || r.passed === r.total).length;
  const wall = ((Date.now() - started) / 1000).toFixed(1);
  const busy = results.reduce((s, r) => s + r.seconds, 0).toFixed(0);
  console.log(`\ntest-run: ${wall} s wall, ${busy} s in files, ${opts.jobs} at a time`);
  if (failedFiles.length) console.log(`failed files: ${failedFiles.flatMap((r) => failingFiles(r.job, r.output)).join(', ')}`);
  console.log(`tests: ${sum('passed')} passed, ${failedTests} failed, ${sum('skipped')} skipped`);
  process.exit(failedFiles.length ? 1 : 0);
}

main().catch((err) => {
  console.error(`test-run: ${err.message}`);
  process.exit(1);
});
