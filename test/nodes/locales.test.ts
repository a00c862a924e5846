/**
 * Message catalogues (locales/en-US beside the built nodes, where Node-RED looks for a node file's
 * catalogue and help): every label key an editor file uses exists, and every node type has help.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ALARM_TYPE_KEYS } from '../../nodes/shared/alarm-event';
import { LIVE_PARTS } from '../../nodes/shared/live-parts';
import { NODE_TYPES } from './node-types';

const nodesDir = join(__dirname, '..', '..', 'nodes'); // dist/nodes: what the package ships
/** Each node's folder: its editor file `<name>.html`, and its catalogue and help in `locales/en-US/<name>.*`. */
const nodeNames = readdirSync(nodesDir).filter((d) => existsSync(join(nodesDir, d, `${d}.html`)));
const editorFiles = nodeNames.map((d) => `${d}.html`);
const editorPath = (file: string) => join(nodesDir, file.replace(/\.html$/, ''), file);
const localePath = (file: string) => join(nodesDir, file.replace(/\.\w+$/, ''), 'locales', 'en-US', file);

function lookup(catalogue: any, key: string): unknown {
  return key.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), catalogue);
}

test('every data-i18n key of every editor file is in its en-US catalogue', () => {
  let keys = 0;
  for (const file of editorFiles) {
    const html = readFileSync(editorPath(file), 'utf8');
    const used = [...html.matchAll(/data-i18n="([^"]+)"/g)].map((m) => m[1].replace(/^\[[a-z]+\]/, ''));
    if (!used.length) continue;
    const catalogueFile = localePath(file.replace(/\.html$/, '.json'));
    assert.ok(existsSync(catalogueFile), `${catalogueFile} missing`);
    const catalogue = JSON.parse(readFileSync(catalogueFile, 'utf8'));
    for (const key of used) assert.type(lookup(catalogue, key), 'string', `${file}: ${key}`);
    keys += used.length;
  }
  assert.ok(keys >= 25, `${keys} keys`);
});

test('every registered node type has help in locales/en-US/<file>.html, and none is left inline', () => {
  const types: string[] = [];
  for (const file of editorFiles) {
    const html = readFileSync(editorPath(file), 'utf8');
    assert.not.match(html, /data-help-name=/, `${file}: inline help would hide the catalogue's`);
    const registered = [...html.matchAll(/registerType\('([\w-]+)'/g)].map((m) => m[1]);
    const listed = [...html.matchAll(/type: '(nvr-[\w-]+)', operation/g)].map((m) => m[1]);
    const help = readFileSync(localePath(file), 'utf8');
    for (const t of [...registered, ...listed]) {
      assert.match(help, new RegExp(`data-help-name="${t}"`), `${t} help`);
      types.push(t);
    }
  }
  assert.equal(types.sort(), NODE_TYPES);
});

test("the nvr-event dialog restates neither the alarm types nor the live parts: it offers the runtime's (GET nvr-device/rules)", () => {
  // The list the dialog shows is checked in a real browser (runtime-form.test); the route's lists in admin.test.
  const editor = readFileSync(join(nodesDir, '..', '..', 'resources', 'nvr-event', 'editor.js'), 'utf8');
  const html = readFileSync(editorPath('nvr-event.html'), 'utf8');
  for (const key of [...ALARM_TYPE_KEYS, ...LIVE_PARTS.map((p) => p.part)]) {
    assert.not.match(html, `'${key}'`, `nvr-event.html restates ${key}`);
    assert.not.match(editor, `'${key}'`, `nvr-event/editor.ts restates ${key}`);
  }
  assert.match(editor, 'rules.alarmTypes');
  assert.match(editor, 'rules.liveParts');
});

test('every live part the runtime reports has its label in the nvr-event catalogue', () => {
  const catalogue = JSON.parse(readFileSync(localePath('nvr-event.json'), 'utf8'));
  for (const { part } of LIVE_PARTS) assert.type(lookup(catalogue, `nvr-event.live.${part}`), 'string', part);
});

test.run();
