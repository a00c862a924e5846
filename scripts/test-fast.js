#!/usr/bin/env node
'use strict';
/*
 * The fast tier (`npm run test:fast`): every test file that starts no MQTT broker, browser, Node-RED runtime,
 * simulator or bridge, read from its imports (followed through test/ helpers), so a new unit or fake-time test
 * joins by itself. Runs the built files (dist/test) with uvu; extra arguments narrow the list by a pattern:
 * `npm run test:fast -- quote`.
 */
const { readFileSync, readdirSync, existsSync } = require('node:fs');
const { join, dirname, resolve, relative } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = resolve(__dirname, '..');
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

const tests = readdirSync(join(root, 'test'), { recursive: true })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join(root, 'test', f))
  .filter((f) => !slow(f))
  .map((f) => relative(join(root, 'test'), f).replace(/\.ts$/, '.js'))
  .filter((f) => process.argv.slice(2).every((p) => f.includes(p)))
  .sort();
if (!tests.length) {
  console.error('test:fast: no test file matches');
  process.exit(1);
}
const pattern = `^(${tests.map((f) => f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`;
const run = spawnSync(process.execPath, [join(root, 'node_modules/uvu/bin.js'), join(root, 'dist/test'), pattern], { stdio: 'inherit' });
process.exit(run.status ?? 1);
