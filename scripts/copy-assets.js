#!/usr/bin/env node
'use strict';
/**
 * Copies what tsc does not emit next to the compiled nodes, one folder per node (nodes/<name>/):
 *   nodes/<name>/<name>.html         -> dist/nodes/<name>/ (Node-RED loads <name>.html beside <name>.js), with the
 *                                       registration of its types from their editor script (scripts/node-registration.js)
 *                                       and its dialog rows expanded (scripts/form-rows.js)
 *   nodes/<name>/locales/<lang>/*    -> dist/nodes/<name>/locales/<lang>/ (catalogue and help, found beside the .js;
 *                                       help parts several types share put in place, see withHelpParts)
 *   icons/<icon>                     -> dist/nodes/<name>/icons/ (Node-RED looks for icons in an `icons` folder
 *                                       beside each node's .js): the icons its types' definitions name
 * Run after both `tsc` passes (the editor scripts compiled into resources/); `npm run build` does all.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { registrationScript } = require('./node-registration');
const { expandRows } = require('./form-rows');

/**
 * A help file whose node types say some things alike writes them once, each in a
 * `<script type="text/html" data-help-part="NAME">`; each type's help has `<!-- help-part NAME key=value -->` where
 * the part goes (its `__key__` filled). The shipped help has every type's text whole and no parts.
 */
const HELP_PART = /\n<script type="text\/html" data-help-part="([\w-]+)">\n([\s\S]*?)<\/script>\n/g;
const HELP_PART_USE = /^ *<!-- help-part ([\w-]+)((?: \w+=\w+)*) -->\n/gm;
function withHelpParts(text, file) {
  const parts = new Map();
  const rest = text.replace(HELP_PART, (_m, name, body) => (parts.set(name, body), ''));
  const used = new Set();
  const out = rest.replace(HELP_PART_USE, (_m, name, args) => {
    if (!parts.has(name)) throw new Error(`${file}: no help part ${name}`);
    used.add(name);
    const subs = Object.fromEntries(
      args.trim()
        ? args
            .trim()
            .split(' ')
            .map((a) => a.split('='))
        : [],
    );
    return parts.get(name).replace(/__(\w+)__/g, (_p, k) => {
      if (subs[k] === undefined) throw new Error(`${file}: help part ${name} wants ${k}=`);
      return subs[k];
    });
  });
  const unused = [...parts.keys()].filter((n) => !used.has(n));
  if (unused.length) throw new Error(`${file}: help parts never used: ${unused.join(', ')}`);
  return out;
}

function copyMatching(fromDir, toDir, test, transform) {
  if (!fs.existsSync(fromDir)) return 0;
  fs.mkdirSync(toDir, { recursive: true });
  let n = 0;
  for (const name of fs.readdirSync(fromDir)) {
    const from = path.join(fromDir, name);
    if (!fs.statSync(from).isFile() || !test(name)) continue;
    if (transform) fs.writeFileSync(path.join(toDir, name), transform(fs.readFileSync(from, 'utf8'), from));
    else fs.copyFileSync(from, path.join(toDir, name));
    n++;
  }
  return n;
}

const nodesDir = path.join(root, 'nodes');
const nodeNames = fs.readdirSync(nodesDir).filter((d) => fs.existsSync(path.join(nodesDir, d, `${d}.html`)));
// What an earlier run copied goes first (the build is incremental): a removed icon, locale or node leaves nothing.
const distNodes = path.join(root, 'dist', 'nodes');
for (const name of fs.existsSync(distNodes) ? fs.readdirSync(distNodes) : []) {
  const dir = path.join(distNodes, name);
  if (!fs.statSync(dir).isDirectory()) continue;
  for (const out of ['icons', 'locales', `${name}.html`]) fs.rmSync(path.join(dir, out), { recursive: true, force: true });
}
let html = 0;
let icons = 0;
let locales = 0;
for (const name of nodeNames) {
  const from = path.join(nodesDir, name);
  const to = path.join(root, 'dist', 'nodes', name);
  const source = fs.readFileSync(path.join(from, `${name}.html`), 'utf8');
  const registration = registrationScript(name, source, path.join(root, 'resources'));
  fs.mkdirSync(to, { recursive: true });
  const template = expandRows(source, name, registration.config);
  fs.writeFileSync(path.join(to, `${name}.html`), `${template}\n${registration.script}`);
  html++;
  const used = new Set(registration.icons);
  icons += copyMatching(path.join(root, 'icons'), path.join(to, 'icons'), (n) => used.has(n));
  const localesDir = path.join(from, 'locales');
  for (const lang of fs.existsSync(localesDir) ? fs.readdirSync(localesDir) : []) {
    locales += copyMatching(
      path.join(localesDir, lang),
      path.join(to, 'locales', lang),
      (n) => /\.(json|html)$/.test(n),
      (text, file) => (file.endsWith('.html') ? withHelpParts(text, file) : text),
    );
  }
}
console.log(`copy-assets: ${html} editor file(s), ${icons} icon(s), ${locales} locale file(s) -> dist/nodes/<node>/`);
