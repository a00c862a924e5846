/** Quoting a user's text (core/quote.ts): clipped, withheld whole when it holds a configured secret, secrets redacted. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { noSecrets, quoter, REDACTED, WITHHELD } from '../../core/quote';

const test = suite('quote');
const q = quoter(() => ['s3cret-pw', 'abc', undefined]);

test('text is clipped; text holding a secret is withheld whole, whatever its length', () => {
  assert.equal(q.quote('x'.repeat(70)), `${'x'.repeat(64)}...`);
  assert.equal(q.quote('my s3cret-pw here', 256), WITHHELD);
  assert.equal(q.describe('s3cret-pw'), JSON.stringify(WITHHELD));
  assert.equal(q.describe({ a: 1 }), 'an object');
  assert.equal(q.describe(undefined), 'nothing');
});

test('a secret counts as a token of its own; secrets shorter than 4 characters are not looked for', () => {
  assert.equal(q.quote('tx-s3cret-pwX'), 'tx-s3cret-pwX');
  assert.equal(q.quote('abc'), 'abc');
  assert.equal(q.hasSecret('(s3cret-pw)'), true);
});

test('lines and JSON values built elsewhere are redacted, keys included', () => {
  assert.equal(q.redact('got "s3cret-pw" twice: s3cret-pw'), `got "${REDACTED}" twice: ${REDACTED}`);
  assert.deepEqual(q.redactDeep({ 's3cret-pw': ['s3cret-pw', 1], ok: 'fine' }), { [REDACTED]: [REDACTED, 1], ok: 'fine' });
  assert.equal(noSecrets.quote('s3cret-pw'), 's3cret-pw');
});

test.run();
