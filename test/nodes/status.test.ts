/**
 * What a node shows and tells a Catch node about an error: words from the message catalogue for
 * every error kind, never library wording such as "call login()", never a raw code alone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceError, type ErrorKind } from '../../core/errors';
import { forDone } from '../../nodes/shared/errors';
import { connectionStatus, shortReason, upgradeStatus, useTranslator } from '../../nodes/shared/status';
import { recordLogins, refusedLately, triesLeftText } from '../../nodes/shared/login-failures';

const KINDS: ErrorKind[] = ['session', 'busy', 'unsupported', 'rejected', 'lockout', 'transport', 'invalid_answer', 'invalid_request'];

test('every error kind with a code the catalogue does not know reads as words, naming the code where it helps', () => {
  const seen = new Set<string>();
  for (const kind of KINDS) {
    const text = shortReason(new DeviceError({ kind, error_code: 'some_new_code', reason: 'x' }));
    assert.ok(/^[a-z]/.test(text) && text.includes(' '), `${kind}: "${text}"`);
    assert.not.ok(text === 'some_new_code', kind);
    seen.add(text);
  }
  assert.is(seen.size, KINDS.length, 'each kind says something of its own');
  assert.is(shortReason(new DeviceError({ kind: 'transport', error_code: 'ECONNREFUSED', reason: 'x' })), 'unreachable (ECONNREFUSED)');
});

test('codes a user meets have their own words; statuses come from the catalogue', () => {
  assert.is(shortReason(new DeviceError({ error_code: 'verify_failed', reason: 'x' })), 'wrong username or password');
  assert.is(shortReason(new DeviceError({ error_code: 'login_failed_or_block', reason: 'x' })), 'login blocked: too many failures');
  assert.is(
    shortReason(new DeviceError({ kind: 'invalid_request', error_code: 'unknown_channel', reason: 'x' })),
    'channel not on this page',
  );
  assert.equal(connectionStatus('connected'), { fill: 'green', shape: 'dot', text: 'connected' });
  assert.equal(upgradeStatus('failed', new DeviceError({ kind: 'invalid_request', error_code: 'invalid_firmware', reason: 'x' })), {
    fill: 'red',
    shape: 'ring',
    text: 'failed: firmware file refused',
  });
});

test("a translator (Node-RED's RED._) is used when it knows the key; the English catalogue otherwise", () => {
  useTranslator((key) => (key === 'status.connection.connected' ? 'verbunden' : key));
  try {
    assert.is(connectionStatus('connected').text, 'verbunden');
    assert.is(connectionStatus('connecting').text, 'connecting');
  } finally {
    useTranslator((key) => key);
  }
});

test('library wording never reaches a Catch node: "call login()" becomes what a flow author can do', () => {
  const locked = new DeviceError({
    kind: 'lockout',
    error_code: 'login_failed_or_block',
    reason: 'wrong password; login not retried until 2026-01-01T00:00:00.000Z (call login() to retry now)',
  });
  const err = forDone(locked);
  assert.not.match(err.reason, /login\(\)/);
  assert.match(err.reason, /deploy the device again to retry now/);
  assert.not.match(err.message, /login\(\)/);
  assert.not.match(JSON.stringify((err as any).cause), /login\(\)/);
});

test('refused credentials: remembered until they change or the wait is over; tries left by the device, else counted here', () => {
  const c = { url: 'http://192.0.2.7', username: 'admin', password: 'wrong' };
  const record = recordLogins(c);
  const wrong = (data: { failedLogins?: number } = {}) => new DeviceError({ error_code: 'verify_failed', reason: 'x', ...data });
  const until = Date.now() + 60_000;
  record({ ok: false, error: wrong(), heldUntil: until });
  assert.is(refusedLately(c)?.until, until);
  assert.is(refusedLately({ ...c, password: 'fixed' }), undefined, 'changed credentials are tried at once');
  assert.is(refusedLately(c, until), undefined, 'the wait is over');
  // A device that says nothing of its count: the refusals counted here (1 of 5).
  assert.match(triesLeftText(c, wrong())!, /^4 tries left before the device blocks logins \(counted by this Node-RED/);
  // A device that counts: its word wins.
  assert.match(triesLeftText(c, wrong({ failedLogins: 4 }))!, /^1 try left before the device blocks logins \(as the device counts\)/);
  const blocked = new DeviceError({ error_code: 'login_failed_or_block', reason: 'x', retryAfterMs: 175_000 });
  assert.match(triesLeftText(c, blocked)!, /^the device blocks logins for 175 s more/);
  assert.is(triesLeftText(c, new DeviceError({ error_code: 'black_ip', reason: 'x' })), undefined, 'no tries for a blacklisted address');
  record({ ok: true });
  assert.is(refusedLately(c), undefined, 'a login that works forgets the refusal');
  assert.match(triesLeftText(c, wrong())!, /^5 tries left/);
});

test.run();
