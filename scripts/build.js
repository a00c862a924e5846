#!/usr/bin/env node
'use strict';
/*
 * `npm run build` (and before `npm start`, `npm test`, `npm run bench`): builds dist/ and resources/ only when a
 * source changed since the last build, and then only what changed.
 *
 *   node scripts/build.js            build if needed (incremental tsc), else say dist/ is up to date
 *   node scripts/build.js --clean    remove dist/ and resources/ first and build everything
 *
 * Up to date means: the digest of every input (the sources tsc and copy-assets read, the configs, these scripts)
 * equals the one written at the end of the last build that succeeded, and every source has its output. The
 * digest is removed when a build starts and written only when it succeeded, so a build that was interrupted or
 * failed (a type error) is done again next time; nothing is deleted beforehand, so an interrupted build never
 * leaves a half-deleted dist/ behind. Outputs whose source is gone (a renamed or deleted file) are removed, so that
 * nothing stale is packed.
 */
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, statSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { spawn } = require('node:child_process');

const root = resolve(__dirname, '..');
const DIST = join(root, 'dist');
const RESOURCES = join(root, 'resources');
const STAMP = join(DIST, '.build-digest');
/** The folders tsc compiles (tsconfig.json's include) and the editor's (tsconfig.editor.json). */
const SOURCE_DIRS = ['core', 'simulator', 'bridge', 'nodes', 'test', 'bench'];
const INPUT_DIRS = [...SOURCE_DIRS, 'icons'];
const INPUT_FILES = [
  'package.json',
  'tsconfig.json',
  'tsconfig.editor.json',
  'scripts/build.js',
  'scripts/copy-assets.js',
  'scripts/node-registration.js',
  'scripts/form-rows.js',
];
const isEditor = (rel) => /^nodes\/.*\/?editor[^/]*\.ts$/.test(rel);
const isSource = (rel) => rel.endsWith('.ts') && !rel.endsWith('.d.ts');

function filesUnder(dir) {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .map((f) => `${dir}/${f.split('\\').join('/')}`)
    .filter((f) => statSync(join(root, f)).isFile())
    .sort();
}

/** One digest of every input's path and content (a few MB: tens of milliseconds). */
function inputDigest(inputs) {
  const hash = createHash('sha256');
  for (const f of inputs)
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(root, f)))
      .update('\0');
  return hash.digest('hex');
}

/** Where tsc writes a source's JavaScript. */
function outputOf(rel) {
  return isEditor(rel) ? join(RESOURCES, rel.slice('nodes/'.length).replace(/\.ts$/, '.js')) : join(DIST, rel.replace(/\.ts$/, '.js'));
}

function run(args) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
    child.on('close', (code, signal) =>
      code === 0 ? done() : fail(new Error(`${args.slice(0, 3).join(' ')}: ${signal ?? `exit ${code}`}`)),
    );
  });
}

/** Outputs of sources that no longer exist: .js and .d.ts under dist/ (copy-assets' own files aside) and resources/. */
function removeOrphans(sources) {
  const expected = new Set();
  for (const rel of sources.filter(isSource)) {
    const js = outputOf(rel);
    expected.add(js);
    expected.add(js.replace(/\.js$/, '.d.ts'));
  }
  let removed = 0;
  for (const dir of [DIST, RESOURCES]) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      const abs = join(dir, f);
      if (!/\.(js|d\.ts)$/.test(f) || expected.has(abs) || !statSync(abs).isFile()) continue;
      rmSync(abs);
      removed++;
    }
  }
  return removed;
}

async function main() {
  const clean = process.argv.includes('--clean');
  const started = Date.now();
  const inputs = [...INPUT_DIRS.flatMap(filesUnder), ...INPUT_FILES.filter((f) => existsSync(join(root, f)))];
  const sources = inputs.filter((f) => SOURCE_DIRS.some((d) => f.startsWith(`${d}/`)) && isSource(f));
  const digest = inputDigest(inputs);
  const missing = sources.filter((rel) => !existsSync(outputOf(rel)));
  if (!clean && !missing.length && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === digest) {
    console.log(`build: dist/ is up to date (${inputs.length} inputs checked in ${Date.now() - started} ms)`);
    return;
  }
  if (clean) for (const out of [DIST, RESOURCES]) rmSync(out, { recursive: true, force: true });
  rmSync(STAMP, { force: true });
  // An output removed by hand is not one tsc's build info knows is gone: build those projects whole.
  if (missing.some((rel) => !isEditor(rel))) rmSync(join(DIST, '.tsbuildinfo'), { force: true });
  if (missing.some(isEditor)) rmSync(join(DIST, '.tsbuildinfo-editor'), { force: true });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  // The two projects are independent: compiled side by side.
  await Promise.all([
    run([tsc, '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', join(DIST, '.tsbuildinfo')]),
    run([tsc, '-p', 'tsconfig.editor.json', '--incremental', '--tsBuildInfoFile', join(DIST, '.tsbuildinfo-editor')]),
  ]);
  const removed = removeOrphans(sources);
  await run([join(root, 'scripts', 'copy-assets.js')]);
  writeFileSync(STAMP, digest);
  const what = missing.length === sources.length ? 'built' : 'built what changed';
  console.log(`build: ${what} in ${((Date.now() - started) / 1000).toFixed(1)} s${removed ? `, ${removed} stale output(s) removed` : ''}`);
}

main().catch((err) => {
  console.error(`build failed: ${err.message}`);
  process.exit(1);
});
