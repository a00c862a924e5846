#!/usr/bin/env node
'use strict';
/**
 * Checks bridge/'s folders depend one way (bridge/README.md): each file imports only from its own folder or from
 * folders below it in LAYERS, and no files import each other in a circle (type-only imports included). A feature's
 * folder (features/<name>/) is imported by no other feature's folder and by no other file of features/ but the list
 * (features/index.ts), so that it is removed in one place.
 * Usage: node scripts/check-bridge-layers.js   (run from the repository root; `npm run lint` runs it)
 * Prints one line per problem and exits 1 when there is any.
 */
const fs = require('node:fs');
const path = require('node:path');

/** Top to bottom; `.` is bridge/ itself (startBridge and its wiring), `features` the DeviceFeatures (one folder each). */
const LAYERS = ['app', '.', 'api', 'features', 'homeassistant', 'device', 'mqtt', 'base'];

const root = path.resolve(__dirname, '..', 'bridge');
const files = fs.readdirSync(root, { recursive: true }).filter((f) => f.endsWith('.ts'));
const layer = (rel) => (rel.includes(path.sep) ? rel.split(path.sep)[0] : '.');
/** The feature a file belongs to (`features/<name>/...`), else undefined. */
const feature = (rel) => (rel.split(path.sep).length > 2 && layer(rel) === 'features' ? rel.split(path.sep)[1] : undefined);
const FEATURE_LIST = path.join('features', 'index.ts');

/** Relative imports and re-exports of each file, as paths under bridge/ (a folder's import is its index.ts). */
const imports = new Map(
  files.map((rel) => {
    const src = fs.readFileSync(path.join(root, rel), 'utf8');
    const deps = [...src.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)]
      .map((m) => path.relative(root, path.resolve(root, path.dirname(rel), m[1])))
      .map((dep) => [`${dep}.ts`, path.join(dep, 'index.ts')].find((f) => files.includes(f)))
      .filter((dep) => dep !== undefined);
    return [rel, deps];
  }),
);

const problems = [];
for (const [rel, deps] of imports) {
  if (!LAYERS.includes(layer(rel))) problems.push(`bridge/${rel}: folder not in LAYERS`);
  for (const dep of deps) {
    if (LAYERS.indexOf(layer(dep)) < LAYERS.indexOf(layer(rel))) problems.push(`bridge/${rel} imports bridge/${dep}, a layer above it`);
    if (layer(rel) === 'features' && rel !== FEATURE_LIST && feature(dep) && feature(dep) !== feature(rel))
      problems.push(`bridge/${rel} imports bridge/${dep}, another feature's folder (only ${FEATURE_LIST} lists them)`);
  }
}

// Circles: strongly connected components (Tarjan) of more than one file.
let next = 0;
const index = new Map();
const low = new Map();
const stack = [];
function visit(v) {
  index.set(v, next);
  low.set(v, next++);
  stack.push(v);
  for (const w of imports.get(v)) {
    if (!index.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (stack.includes(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) !== index.get(v)) return;
  const circle = stack.splice(stack.indexOf(v));
  if (circle.length > 1) problems.push(`import circle: ${circle.map((f) => `bridge/${f}`).join(' -> ')}`);
}
for (const rel of files) if (!index.has(rel)) visit(rel);

for (const p of problems) console.log(p);
if (problems.length) process.exit(1);
console.log(`bridge/: ${files.length} files, folders one way (${LAYERS.join(' > ')}), no import circles, feature folders apart`);
