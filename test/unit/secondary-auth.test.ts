/** Secondary authentication from the password, against TransKey answers in the vendor's shapes (vendor-facts b). */
import { pbkdf2Sync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceError } from '../../core/errors';
import type { Invoker } from '../../core/operation';
import { saltBytes, secondaryAuthentication } from '../../core/secondary-auth';

const test = suite('secondary authentication');

/** An Invoker answering TransKey/Get with `answer` (validated by the operation's schema like a real answer). */
function fake(answer: unknown, calls: unknown[] = []): Invoker {
  return {
    invoke: async (op: { response: unknown }, data: unknown) => {
      calls.push(data);
      const v = await import('valibot');
      return v.parse(op.response as never, answer);
    },
  };
}

// The sample's spelling `Key_lists`, keys with the leading 0 before the base64.
const SAMPLE = {
  Key_lists: [
    { type: 'base_x_public', key: '0Kq2n7i9Gz3m0Y1g5Q4x0X0X0X0X0X0X0X0X0X0X0X0=', seq: 3 },
    { type: 'base_salt', key: '0q83vEjBHK4VQHBY8iGi0kw==', iter: 10000, seq: 7 },
  ],
};

test('the sample answer: cipher = base64 PBKDF2-SHA256(password, salt, iter, 32), seq of the salt; base_salt only asked', async () => {
  const calls: unknown[] = [];
  const auth = await secondaryAuthentication(fake(SAMPLE, calls), 'admin123');
  const want = pbkdf2Sync('admin123', Buffer.from('q83vEjBHK4VQHBY8iGi0kw==', 'base64'), 10000, 32, 'sha256').toString('base64');
  assert.equal(auth, { seq: 7, cipher: want });
  assert.is(auth.cipher.length, 44);
  assert.equal(calls, [{ type: ['base_salt'] }]);
});

test('the table spelling key_lists is read too; a key that is no base64 is taken as text', async () => {
  const auth = await secondaryAuthentication(fake({ key_lists: [{ type: 'base_salt', key: 'a1b2-c3', iter: 1, seq: 0 }] }), 'p');
  assert.is(auth.cipher, pbkdf2Sync('p', Buffer.from('a1b2-c3'), 1, 32, 'sha256').toString('base64'));
  assert.equal(saltBytes('0abc'), Buffer.from('0abc'));
  assert.equal(saltBytes('0AAEC'), Buffer.from([0, 1, 2]));
});

test('no base_salt in the answer, or one without iter: a clear error', async () => {
  for (const answer of [{ Key_lists: [SAMPLE.Key_lists[0]] }, { Key_lists: [{ type: 'base_salt', key: '0AA==', seq: 1 }] }, {}]) {
    try {
      await secondaryAuthentication(fake(answer), 'p');
      assert.unreachable('should fail');
    } catch (err) {
      assert.instance(err, DeviceError);
      assert.is((err as DeviceError).error_code, 'no_salt');
    }
  }
});

test('an answer out of the page limits (iter above 1000000) is refused by the schema', async () => {
  try {
    await secondaryAuthentication(fake({ Key_lists: [{ type: 'base_salt', key: '0AA==', iter: 2_000_000, seq: 1 }] }), 'p');
    assert.unreachable('should fail');
  } catch (err) {
    assert.not.instance(err, assert.Assertion);
  }
});

test.run();
