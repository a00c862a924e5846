/**
 * The README's table of devices that work (in "Which devices") is the one generated from test/devices/
 * (device-table.ts): a capture added, removed or changed without the table following fails here.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import { DEVICES_DOC, devicesTable, readCaptures, TABLE_START, tableInDoc } from './device-table';

const test = suite('the table of devices that work');

test('the README holds the table generated from test/devices/ (node dist/test/devices/device-table.js rewrites it)', () => {
  assert.equal(tableInDoc(), devicesTable());
});

test('one row a capture, each with its model, firmware, kind, channels and something that works', () => {
  const captures = readCaptures();
  assert.ok(captures.length >= 3, `${captures.length} captures`);
  const rows = devicesTable(captures).split('\n').slice(2);
  assert.equal(rows.length, captures.length);
  for (const row of rows) {
    const cells = row.split(' | ');
    assert.ok(cells.length === 6 && !cells.slice(0, 5).some((c) => c.includes('?') || c.trim() === '|' || c.trim() === ''), row);
  }
});

test('a capture without the pages of a feature is listed without it', () => {
  const [{ file, capture }] = readCaptures();
  const noLive = { ...capture, exchanges: capture.exchanges.filter((x) => !x.path.includes('Floodlight2AudioAlarm')) };
  const row = devicesTable([{ file, capture: noLive }]).split('\n')[2];
  assert.ok(!/floodlight|siren/.test(row), row);
  assert.match(devicesTable([{ file, capture }]).split('\n')[2], /floodlight, siren/);
});

test("the table is in the README's Which devices section, and docs/devices.md points at it", () => {
  const readme = readFileSync(DEVICES_DOC, 'utf8');
  const section = readme.slice(readme.indexOf('### Which devices'), readme.indexOf('\n## ', readme.indexOf('### Which devices')));
  assert.ok(section.includes(TABLE_START), 'the table in Which devices');
  const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'devices.md'), 'utf8');
  assert.match(doc, /\]\(\.\.\/README\.md#which-devices\)/);
});

test.run();
