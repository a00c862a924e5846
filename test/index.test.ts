/**
 * test/README.md's feature index against the tree: every test file is listed under at least one feature, and every
 * test file the index names exists. Read from the sources, so a new, renamed or moved test file fails here until the
 * index says where it belongs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('test index');
const DIR = path.join(__dirname, '..', '..', 'test');

const files = readdirSync(DIR, { recursive: true, encoding: 'utf8' })
  .map((f) => f.split(path.sep).join('/'))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
const readme = readFileSync(path.join(DIR, 'README.md'), 'utf8');
const index = readme.slice(readme.indexOf('## Index by feature'));
const named = new Set([...index.matchAll(/`([\w./-]+\.test\.ts)`/g)].map((m) => m[1]));

test('the index has a feature table', () => {
  assert.ok(readme.includes('## Index by feature'), 'test/README.md has no "## Index by feature" section');
  assert.ok(files.includes('index.test.ts'), `test files not found under ${DIR}`);
});

test('every test file is in the index', () => {
  assert.equal(
    files.filter((f) => !named.has(f)),
    [],
    'test files missing from test/README.md (add each to the feature it tests)',
  );
});

test('every file the index names exists', () => {
  assert.equal([...named].filter((f) => !files.includes(f)).sort(), [], 'test/README.md names test files that do not exist');
});

test.run();
