#!/usr/bin/env node
'use strict';
/**
 * Checks an unpacked `npm pack` tarball (its `package/` folder) against what runs:
 *   - every module reached from an entry (main, bin, the Node-RED nodes, the container entry) is in it,
 *     with each relative require() it makes, and each package it requires is a dependency or built in;
 *   - every editor script a node's .html loads (resources/<package>/<file>) is in it;
 *   - every .js in it is reached from an entry or an editor file (nothing is shipped that never runs).
 * Usage: node scripts/check-package-files.js <unpacked package folder>
 * Prints one line per problem and exits 1 when there is any; prints what it checked otherwise.
 */
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');

const dir = path.resolve(process.argv[2] ?? '');
const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
const builtin = new Set(builtinModules);

// The container images run dist/bridge/app/container.js (Dockerfile, addon/Dockerfile).
const entries = [
  pkg.main,
  ...Object.values(typeof pkg.bin === 'string' ? { nvr2mqtt: pkg.bin } : (pkg.bin ?? {})),
  ...Object.values(pkg['node-red']?.nodes ?? {}),
  'dist/bridge/app/container.js',
];

const problems = [];
const reached = new Set();
// tsc's CommonJS output: require("x"), including what `await import("x")` compiles to.
const REQUIRE = /\brequire\(\s*["']([^"']+)["']\s*\)/g;

function resolveLocal(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const file of [base, `${base}.js`, `${base}.json`, path.join(base, 'index.js')]) {
    if (fs.existsSync(file) && fs.statSync(file).isFile()) return file;
  }
  return undefined;
}

function visit(file) {
  if (reached.has(file)) return;
  reached.add(file);
  if (!file.endsWith('.js')) return;
  for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(REQUIRE)) {
    const rel = path.relative(dir, file);
    if (spec.startsWith('.')) {
      const target = resolveLocal(file, spec);
      if (target) visit(target);
      else problems.push(`${rel}: requires ${spec}, which is not in the package`);
      continue;
    }
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (!builtin.has(spec.replace(/^node:/, '')) && !builtin.has(name) && !declared.has(name)) {
      problems.push(`${rel}: requires ${spec}, which is not a dependency`);
    }
  }
}

for (const entry of entries) {
  const file = path.join(dir, entry);
  if (fs.existsSync(file)) visit(file);
  else problems.push(`entry ${entry} is not in the package`);
}

// The editor's scripts: a node's .html (beside its .js) loads them from the package's resources/ folder, which
// Node-RED serves at resources/<package name>/<file>. A missing one stops the editor loading the node file.
const EDITOR_SCRIPT = /<script src="resources\/([^"]+)"/g;
for (const entry of Object.values(pkg['node-red']?.nodes ?? {})) {
  const html = path.join(dir, entry.replace(/\.js$/, '.html'));
  if (!fs.existsSync(html)) continue;
  for (const [, src] of fs.readFileSync(html, 'utf8').matchAll(EDITOR_SCRIPT)) {
    const [name, ...rest] = src.split('/');
    const file = path.join(dir, 'resources', ...rest);
    if (name !== pkg.name) problems.push(`${path.relative(dir, html)}: loads ${src}, not from this package's resources`);
    else if (fs.existsSync(file)) reached.add(file);
    else problems.push(`${path.relative(dir, html)}: loads resources/${src}, which is not in the package`);
  }
}

function walk(d) {
  return fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
}
// A module of types only compiles to tsc's marker alone; its .d.ts is what it ships for.
const TYPES_ONLY = /^"use strict";\s*Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);\s*$/;
const shipped = walk(dir).filter((f) => f.endsWith('.js'));
for (const file of shipped) {
  if (!reached.has(file) && !TYPES_ONLY.test(fs.readFileSync(file, 'utf8')))
    problems.push(`${path.relative(dir, file)} is shipped but never runs`);
}

for (const p of problems) console.log(p);
if (problems.length === 0) console.log(`${reached.size} modules reached from ${entries.length} entries, ${shipped.length} shipped`);
process.exit(problems.length ? 1 : 0);
