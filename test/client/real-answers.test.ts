/**
 * What posted answers of real devices show and the vendor's reference does not: an error answer without `result`,
 * at HTTP 200 and at 404; a session cookie marked `Secure` over plain HTTP; pages an older firmware does not have.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientRig, rejection } from './harness';

const PASSWORD = 'Real-D3vice!';
const LOGIN = '/API/Web/Login';
const INFO = '/API/SystemInfo/Base/Get';
const DETERRENCE = '/API/AlarmConfig/Deterrence/Range';

const test = suite('client: what real devices answer');

const { setup, closeAll } = clientRig(PASSWORD);
test.after.each(closeAll);

// As an NVR answered for a page its firmware lacks: no `result`, only the version and the code.
const BARE_NOT_FOUND = { version: '1.0', error_code: 'not_found' };

for (const status of [200, 404]) {
  test(`an error answer without result at HTTP ${status}: the page is unsupported, named, and the session stays good`, async () => {
    const { dev, c } = await setup({ handlers: { [DETERRENCE]: () => ({ raw: BARE_NOT_FOUND, status }) } });
    await c.systemInfo();
    const err = await rejection(c.range('AlarmConfig/Deterrence'));
    assert.equal([err.kind, err.error_code, err.status], ['unsupported', 'not_found', status]);
    assert.equal([err.page, err.operation], ['AlarmConfig/Deterrence', 'Range']);
    // Not a session error: no new login, and the next call goes through at once.
    await c.systemInfo();
    assert.equal(
      dev.log.map((l) => l.path),
      [LOGIN, LOGIN, INFO, DETERRENCE, INFO],
    );
  });
}

test('a session cookie marked Secure over plain HTTP is still sent back (the device wants it on every call)', async () => {
  const { dev, c } = await setup({ cookieAttributes: 'Secure; HttpOnly; path=/' });
  await c.systemInfo();
  await c.systemInfo();
  assert.equal(
    dev.log.map((l) => [l.path, l.status]),
    [
      [LOGIN, 401],
      [LOGIN, 200],
      [INFO, 200],
      [INFO, 200],
    ],
    'one login; both calls accepted with the cookie',
  );
});

test('an older firmware without a page (HTTP 404, the vendor failure body): unsupported, not retried, not a login', async () => {
  // The fake device answers any page it does not serve with 404 `not_found`, as the vendor lists.
  const { dev, c } = await setup();
  const err = await rejection(c.get('AlarmConfig/Deterrence'));
  assert.equal([err.kind, err.error_code, err.status], ['unsupported', 'not_found', 404]);
  assert.is(dev.count('/API/AlarmConfig/Deterrence/Get'), 1, 'asked once');
  assert.is(dev.count(LOGIN, 200), 1);
});

test.run();
