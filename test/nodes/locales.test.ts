/**
 * Message catalogues (locales/en-US beside the built nodes, where Node-RED looks for a node file's
 * catalogue and help): every label key an editor file uses exists, and every node type has help.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ALARM_TYPE_KEYS } from '../../nodes/alarm-event';
import { LIVE_PARTS } from '../../nodes/live-parts';

const nodesDir = join(__dirname, '..', '..', 'nodes'); // dist/nodes: what the package ships
const locales = join(nodesDir, 'locales', 'en-US');
const editorFiles = readdirSync(nodesDir).filter((f) => f.endsWith('.html'));

function lookup(catalogue: any, key: string): unknown {
  return key.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), catalogue);
}

test('every data-i18n key of every editor file is in its en-US catalogue', () => {
  let keys = 0;
  for (const file of editorFiles) {
    const html = readFileSync(join(nodesDir, file), 'utf8');
    const used = [...html.matchAll(/data-i18n="([^"]+)"/g)].map((m) => m[1].replace(/^\[[a-z]+\]/, ''));
    if (!used.length) continue;
    const catalogueFile = join(locales, file.replace(/\.html$/, '.json'));
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
    const html = readFileSync(join(nodesDir, file), 'utf8');
    assert.not.match(html, /data-help-name=/, `${file}: inline help would hide the catalogue's`);
    const registered = [...html.matchAll(/registerType\('([\w-]+)'/g)].map((m) => m[1]);
    const listed = [...html.matchAll(/type: '(nvr-[\w-]+)', operation/g)].map((m) => m[1]);
    const help = readFileSync(join(locales, file), 'utf8');
    for (const t of [...registered, ...listed]) {
      assert.match(help, new RegExp(`data-help-name="${t}"`), `${t} help`);
      types.push(t);
    }
  }
  assert.equal(types.sort(), ['nvr-control', 'nvr-device', 'nvr-event', 'nvr-get', 'nvr-range', 'nvr-set', 'nvr-snapshot', 'nvr-upgrade']);
});

test('the nvr-event dialog offers exactly the alarm type keys the runtime filters on', () => {
  const html = readFileSync(join(nodesDir, 'nvr-event.html'), 'utf8');
  const list = /var TYPES = \[([^\]]+)\]/.exec(html)?.[1] ?? '';
  const offered = [...list.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
  assert.equal(offered, [...ALARM_TYPE_KEYS]);
});

test('the nvr-event dialog offers exactly the live parts the runtime reports', () => {
  const html = readFileSync(join(nodesDir, 'nvr-event.html'), 'utf8');
  const list = /var LIVE_PARTS = \[([^\]]+)\]/.exec(html)?.[1] ?? '';
  const offered = [...list.matchAll(/value: '(\w+)'/g)].map((m) => m[1]);
  assert.equal(
    offered,
    LIVE_PARTS.map((p) => p.part),
  );
});

test.run();
