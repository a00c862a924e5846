#!/usr/bin/env node
'use strict';
/**
 * Copies what tsc does not emit next to the compiled nodes:
 *   nodes/*.html -> dist/nodes/ (Node-RED loads <name>.html beside <name>.js)
 *   icons/*      -> dist/nodes/icons/ (Node-RED looks for icons in an `icons` folder beside the node's .js)
 *   nodes/locales/<lang>/* -> dist/nodes/locales/<lang>/ (message catalogues and help, found beside the node's .js)
 * Run after `tsc`; `npm run build` does both.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const ICON_FILE = /\.(svg|png|gif)$/i;

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

const html = copyMatching(path.join(root, 'nodes'), path.join(root, 'dist', 'nodes'), (n) => n.endsWith('.html'));
const icons = copyMatching(path.join(root, 'icons'), path.join(root, 'dist', 'nodes', 'icons'), (n) => ICON_FILE.test(n));
let locales = 0;
const localesDir = path.join(root, 'nodes', 'locales');
if (fs.existsSync(localesDir)) {
  for (const lang of fs.readdirSync(localesDir)) {
    locales += copyMatching(path.join(localesDir, lang), path.join(root, 'dist', 'nodes', 'locales', lang), (n) =>
      /\.(json|html)$/.test(n),
    );
  }
}
console.log(`copy-assets: ${html} editor file(s), ${icons} icon(s), ${locales} locale file(s) -> dist/nodes`);
