#!/usr/bin/env node
'use strict';
/**
 * Copies what tsc does not emit next to the compiled nodes, one folder per node (nodes/<name>/):
 *   nodes/<name>/<name>.html         -> dist/nodes/<name>/ (Node-RED loads <name>.html beside <name>.js)
 *   nodes/<name>/locales/<lang>/*    -> dist/nodes/<name>/locales/<lang>/ (catalogue and help, found beside the .js)
 *   icons/<icon>                     -> dist/nodes/<name>/icons/ (Node-RED looks for icons in an `icons` folder
 *                                       beside each node's .js): the icons its editor file names (`icon: '...'`)
 * Run after `tsc`; `npm run build` does both.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
/** An icon an editor file names in a node type's definition. */
const ICON = /\bicon: '([^']+)'/g;

function copyMatching(fromDir, toDir, test) {
  if (!fs.existsSync(fromDir)) return 0;
  fs.mkdirSync(toDir, { recursive: true });
  let n = 0;
  for (const name of fs.readdirSync(fromDir)) {
    const from = path.join(fromDir, name);
    if (!fs.statSync(from).isFile() || !test(name)) continue;
    fs.copyFileSync(from, path.join(toDir, name));
    n++;
  }
  return n;
}

const nodesDir = path.join(root, 'nodes');
const nodeNames = fs.readdirSync(nodesDir).filter((d) => fs.existsSync(path.join(nodesDir, d, `${d}.html`)));
let html = 0;
let icons = 0;
let locales = 0;
for (const name of nodeNames) {
  const from = path.join(nodesDir, name);
  const to = path.join(root, 'dist', 'nodes', name);
  html += copyMatching(from, to, (n) => n === `${name}.html`);
  const used = new Set([...fs.readFileSync(path.join(from, `${name}.html`), 'utf8').matchAll(ICON)].map((m) => m[1]));
  icons += copyMatching(path.join(root, 'icons'), path.join(to, 'icons'), (n) => used.has(n));
  const localesDir = path.join(from, 'locales');
  for (const lang of fs.existsSync(localesDir) ? fs.readdirSync(localesDir) : []) {
    locales += copyMatching(path.join(localesDir, lang), path.join(to, 'locales', lang), (n) => /\.(json|html)$/.test(n));
  }
}
console.log(`copy-assets: ${html} editor file(s), ${icons} icon(s), ${locales} locale file(s) -> dist/nodes/<node>/`);
