import { inspect } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FakeDevice } from './fake-device';
import { DeviceError, RELOGIN_CODES } from '../../core/errors';
import { isAnotherUserSession, LoginGuard } from '../../core/login-guard';
import { withFakeTime } from '../helpers/fake-time';
import { clientRig, rejection, until } from './harness';

const PASSWORD = 'Corr3ct-Horse!';
const WRONG = 'Wr0ng-Battery?';
const LOGIN = '/API/Web/Login';
const INFO = '/API/SystemInfo/Base/Get';
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

const test = suite('session');

const { setup, closeAll } = clientRig(PASSWORD);
test.after.each(closeAll);

function loginRequests(dev: FakeDevice): number {
  return dev.count(LOGIN);
}

test('lazy Digest login, then cookie and CSRF on every call; states', async () => {
  const { dev, c } = await setup();
  const states: string[] = [];
  c.on('state', (s) => states.push(s));
  assert.is(c.state, 'idle');
  const info = await c.systemInfo();
  assert.is(info.device_type, 'N7516');
  assert.equal(
    dev.log.map((l) => [l.path, l.status]),
    [
      [LOGIN, 401],
      [LOGIN, 200],
      [INFO, 200],
    ],
  );
  assert.ok(dev.log[2].csrf, 'CSRF header sent');
  assert.equal(states, ['connecting', 'connected']);
  await c.close();
  assert.is(c.state, 'closed');
  assert.equal(states, ['connecting', 'connected', 'closed']);
});

test('SHA-256 is chosen when offered beside MD5', async () => {
  const { dev, c } = await setup({ algorithms: ['MD5', 'SHA-256'] });
  await c.login();
  assert.equal(
    dev.log.map((l) => l.status),
    [401, 200],
  );
});

test('wrong password: one login attempt for 20 concurrent calls, then fail fast (lock-out)', async () => {
  const { dev, c, logs } = await setup({}, { password: WRONG });
  const errors = await Promise.all(Array.from({ length: 20 }, () => rejection(c.systemInfo())));
  assert.is(loginRequests(dev), 2, 'challenge + one answer');
  assert.is(dev.count(INFO), 0);
  for (const e of errors) {
    assert.is(e.kind, 'lockout');
    assert.is(e.error_code, 'login_failed_or_block');
  }
  assert.is(c.state, 'error');
  assert.is(c.lastError?.kind, 'lockout');

  // Later calls do not touch the device until the cool-down or an explicit login.
  const again = await rejection(c.get('AlarmConfig/Deterrence'));
  assert.is(again.kind, 'lockout');
  assert.is(again.error_code, 'login_failed_or_block');
  assert.match(again.message, /logging in again after \d{4}-\d{2}-\d{2}T[\d:.]+Z, or at once on a reconnect/);
  assert.not.match(again.message, 'login()', 'user words, not library wording');
  assert.is(dev.log.length, 2);

  // The password appears nowhere: messages, JSON, stacks, logs, the client itself.
  const texts = [
    ...errors.flatMap((e) => [e.message, String(e.stack), JSON.stringify(e), inspect(e, { depth: 10 })]),
    again.message,
    JSON.stringify(again),
    ...logs,
    JSON.stringify(c),
    inspect(c, { depth: 10, showHidden: true }),
  ];
  for (const t of texts) assert.not.ok(t.includes(WRONG), `password leaked in: ${t.slice(0, 200)}`);

  // An explicit login tries again: exactly one more attempt.
  const explicit = await rejection(c.login());
  assert.is(explicit.kind, 'lockout');
  assert.is(loginRequests(dev), 4);
});

test('lock-out cool-down passes, then one more attempt', async () => {
  const { dev, c } = await setup({}, { password: WRONG, lockoutMs: 60 });
  await rejection(c.systemInfo());
  await rejection(c.systemInfo());
  assert.is(loginRequests(dev), 2);
  await wait(80); // a time: the client's 60 ms cool-down is the behaviour under test (only a call can see its end)
  await rejection(c.systemInfo());
  assert.is(loginRequests(dev), 4);
});

test('user_locked_login from the device is a lock-out too', async () => {
  const { dev, c } = await setup({ lockAfter: 0 });
  const e = await rejection(c.login());
  assert.is(e.error_code, 'user_locked_login');
  assert.is(e.kind, 'lockout');
  await rejection(c.systemInfo());
  assert.is(loginRequests(dev), 2);
});

for (const sessionErrorStatus of [401, 200]) {
  test(`expired session (HTTP ${sessionErrorStatus}): one transparent re-login shared by 10 concurrent calls`, async () => {
    const { dev, c } = await setup({ sessionErrorStatus });
    await c.login();
    dev.expireAll();
    // Raw calls: identical typed reads would share one device call (coalescing).
    const results = await Promise.all(Array.from({ length: 10 }, () => c.call(INFO) as Promise<{ device_type?: string }>));
    assert.is(results.length, 10);
    for (const r of results) assert.is(r.device_type, 'N7516');
    assert.is(dev.count(LOGIN, 200), 2, 'initial login + one re-login');
    assert.is(dev.count(LOGIN, 401), 2, 'one challenge each');
    assert.is(dev.ok(INFO), 10);
    assert.ok(dev.count(INFO) <= 20, 'each call retried at most once');
    assert.is(c.state, 'connected');
  });
}

test('no_login on a forgotten session: re-login once, then the call succeeds', async () => {
  const { dev, c } = await setup();
  await c.login();
  dev.sessions.clear();
  assert.is((await c.systemInfo()).device_type, 'N7516');
  assert.is(dev.count(LOGIN, 200), 2);
});

const HEARTBEAT = '/API/Login/Heartbeat';

test('every session code of the vendor list: one re-login, the call repeated once and answered', async () => {
  for (const code of RELOGIN_CODES) {
    let refuse = true;
    const { dev, c } = await setup({
      handlers: { '/API/Test/Page/Get': () => (refuse ? ((refuse = false), { fail: code }) : { ok: code }) },
    });
    await c.login();
    assert.equal(await c.get('Test/Page'), { ok: code }, code);
    assert.is(dev.count(LOGIN, 200), 2, `${code}: one re-login`);
    assert.is(dev.count('/API/Test/Page/Get'), 2, `${code}: the call repeated once`);
    await closeAll();
  }
});

test('device_reboot: the call fails with it, not repeated; logins wait 2 s (no storm while it restarts), then one logs in afresh', async () => {
  let reboot = true;
  const { dev, c } = await setup({
    handlers: { '/API/Test/Page/Get': () => (reboot ? ((reboot = false), { fail: 'device_reboot' }) : {}) },
  });
  await c.login();
  const e = await rejection(c.get('Test/Page'));
  assert.is(e.error_code, 'device_reboot');
  assert.is(dev.count(LOGIN, 200), 1, 'no login while the device reboots');
  assert.is(dev.count('/API/Test/Page/Get'), 1);
  // Calls meanwhile fail at once with the reboot, nothing sent.
  for (let i = 0; i < 5; i++) assert.is((await rejection(c.get('Test/Page'))).error_code, 'device_reboot');
  assert.is(dev.count(LOGIN), 2, 'no further login (challenge + answer of the first)');
  assert.is(dev.count('/API/Test/Page/Get'), 1);
  await wait(2_100);
  await c.get('Test/Page');
  assert.is(dev.count(LOGIN, 200), 2, 'one login once the hold is over');
  assert.is(dev.count('/API/Test/Page/Get'), 2);
});

for (const code of ['verify_failed', 'netip_limited', 'current_pwd_error_ntime', 'login_failed_or_block', 'black_ip']) {
  test(`login refused with ${code}: a lock-out, logins held (one attempt for many calls over time)`, async () => {
    const { dev, c } = await setup({ refuseLogin: () => code });
    const first = await rejection(c.systemInfo());
    assert.is(first.error_code, code);
    assert.is(first.kind, 'lockout');
    for (let i = 0; i < 10; i++) {
      const e = await rejection(c.systemInfo());
      assert.is(e.kind, 'lockout');
      await wait(10);
    }
    assert.is(dev.count(LOGIN), 2, 'challenge + one answer, nothing more');
    assert.is(dev.count(INFO), 0);
  });
}

test('have_login (too many logins): logins held for a backoff, never looped', async () => {
  let refuse = true;
  const { dev, c } = await setup({ refuseLogin: () => (refuse ? 'have_login' : undefined) });
  const first = await rejection(c.systemInfo());
  assert.is(first.error_code, 'have_login');
  const t0 = Date.now();
  while (Date.now() - t0 < 300) {
    const e = await rejection(c.systemInfo());
    assert.match(e.reason, 'logging in again after');
    await wait(10);
  }
  assert.is(dev.count(LOGIN), 2, 'one login attempt in 300 ms of calls');
  refuse = false;
  await c.login(); // an explicit login tries at once
  assert.is((await c.systemInfo()).device_type, 'N7516');
});

test('a device that forgets every session at once: re-logins spaced (1 s, 2 s...), no storm', async () => {
  const { dev, c } = await setup({ handlers: { '/API/Test/Page/Get': () => ({ fail: 'no_login' }) } });
  await c.login();
  const t0 = Date.now();
  let calls = 0;
  while (Date.now() - t0 < 1_500) {
    const e = await rejection(c.get('Test/Page'));
    assert.is(e.error_code, 'no_login');
    calls++;
    await wait(20);
  }
  assert.ok(calls > 30);
  // The first login, one at once, one after the 1 s gap.
  assert.is(dev.count(LOGIN, 200), 3, `${dev.count(LOGIN, 200)} logins for ${calls} calls`);
});

test('one_IE (another login from this address took the session) twice in a row: re-logins stop, nothing sent while held', async () => {
  // A person's browser on the bridge's address keeps taking the session back: every call answers one_IE.
  const { dev, c } = await setup({ handlers: { '/API/Test/Page/Get': () => ({ fail: 'one_IE' }) } });
  await c.login();
  assert.is((await rejection(c.get('Test/Page'))).error_code, 'one_IE', 'first: one re-login, the call repeated once');
  assert.is(dev.count(LOGIN, 200), 2);
  const held = await rejection(c.get('Test/Page'));
  assert.is(held.error_code, 'one_IE');
  assert.match(held.reason, /^another user's session: .*not logging in again for 10 min/);
  assert.ok(isAnotherUserSession(held));
  assert.ok(c.loginHeldUntil! - Date.now() > 9 * 60_000, 'held on the slow schedule');
  const sent = dev.count('/API/Test/Page/Get');
  for (let i = 0; i < 20; i++) assert.ok(isAnotherUserSession(await rejection(c.get('Test/Page'))));
  assert.is(dev.count(LOGIN, 200), 2, 'no login while held: the person is not thrown out again');
  assert.is(dev.count('/API/Test/Page/Get'), sent, 'no call sent while held');
  assert.is(c.state, 'error');
});

test('one_IE holds: 10 min, then 20, 40, capped at 1 h while it goes on; a session that lasts resets them; other codes never hold', () =>
  withFakeTime((clock) => {
    const guard = new LoginGuard({ lockoutMs: 300_000, busyLoginMs: 5_000 });
    const oneIE = new DeviceError({ kind: 'session', error_code: 'one_IE', reason: 'one user per browser' });
    const holds: number[] = [];
    guard.loggedIn();
    assert.is(guard.relogin(oneIE), undefined, 'the first: log in again');
    for (let i = 0; i < 5; i++) {
      guard.loggedIn();
      const err = guard.relogin(oneIE)!;
      assert.ok(isAnotherUserSession(err));
      assert.ok(isAnotherUserSession(guard.relogin(oneIE)), 'still held: the same hold, not a longer one');
      holds.push(guard.heldUntil! - Date.now());
      clock.tick(guard.heldUntil! - Date.now());
    }
    assert.equal(holds, [600_000, 1_200_000, 2_400_000, 3_600_000, 3_600_000]);
    // A session that lasts: the next one_IE logs in again at once, the one after holds 10 min again.
    guard.loggedIn();
    clock.tick(61_000);
    guard.answered();
    assert.is(guard.relogin(oneIE), undefined);
    clock.tick(2_000);
    guard.loggedIn();
    guard.relogin(oneIE);
    assert.is(guard.heldUntil! - Date.now(), 600_000);
    const expired = new DeviceError({ kind: 'session', error_code: 'expired', reason: 'expired' });
    const fresh = new LoginGuard({ lockoutMs: 300_000, busyLoginMs: 5_000 });
    for (let i = 0; i < 5; i++) {
      clock.tick(70_000);
      assert.is(fresh.relogin(expired), undefined, 'expired sessions only space re-logins');
    }
    assert.is(fresh.heldUntil, undefined);
  }));

test('heartbeat: {"keep_alive": true}; a failing heartbeat triggers one re-login, then backoff', async () => {
  const { dev, c } = await setup({}, { heartbeatMs: 40 });
  await c.login();
  await until(() => dev.count(HEARTBEAT, 200) >= 1, 'a heartbeat');
  assert.equal(dev.log.find((l) => l.path === HEARTBEAT)!.data, { keep_alive: true });
  dev.faults.set(HEARTBEAT, 'http500');
  await until(() => dev.count(LOGIN, 200) === 2, 'the re-login');
  const t0 = Date.now();
  await wait(600);
  // The heartbeat keeps failing every 40 ms; the next re-login waits for the 1 s gap.
  assert.ok(dev.count(HEARTBEAT, 500) >= 5);
  assert.is(dev.count(LOGIN, 200), 2, `logins after ${Date.now() - t0} ms`);
  dev.faults.delete(HEARTBEAT);
  await until(() => dev.count(HEARTBEAT, 200) >= 2, 'heartbeats answered again');
});

test('an unknown error code (HTTP 400) on a session that worked: one re-login, the call not repeated', async () => {
  let odd = 0;
  const { dev, c } = await setup({ handlers: { '/API/Test/Page/Get': () => (odd-- > 0 ? { fail: 'weird_state_42' } : {}) } });
  await c.get('Test/Page'); // the session works
  odd = 1;
  const e = await rejection(c.get('Test/Page'));
  assert.is(e.error_code, 'weird_state_42');
  assert.is(dev.count(LOGIN, 200), 2, 'one re-login');
  assert.is(dev.count('/API/Test/Page/Get'), 2, 'the refused call was not sent again');
  await c.get('Test/Page');
  assert.is(dev.count(LOGIN, 200), 2);
  // A known refusal (param_error) is the caller's problem: no re-login.
  const known = await setup({ handlers: { '/API/Test/Page/Get': () => ({ fail: 'param_error' }) } });
  await known.c.login();
  await rejection(known.c.get('Test/Page'));
  await rejection(known.c.get('Test/Page'));
  assert.is(known.dev.count(LOGIN, 200), 1);
});

test('the session cookie is read by its prefix: session_<port> from the device is sent back', async () => {
  const { dev, c } = await setup();
  await c.systemInfo(); // the device answers only with its `session_<port>` cookie (and not for `lang`)
  assert.equal(
    dev.log.map((l) => [l.path, l.status]),
    [
      [LOGIN, 401],
      [LOGIN, 200],
      [INFO, 200],
    ],
  );
});

test('CSRF token refreshed from every response that carries one', async () => {
  const { dev, c } = await setup({ rotateCsrf: true });
  for (let i = 0; i < 5; i++) await c.systemInfo();
  assert.is(dev.count(INFO, 200), 5);
  assert.is(dev.count(LOGIN, 200), 1, 'no re-login needed');
  const tokens = dev.log.filter((l) => l.path === INFO).map((l) => l.csrf);
  assert.is(new Set(tokens).size, 5, 'a new token each time');
});

test('old firmware: token from the body', async () => {
  const { dev, c } = await setup({ tokenInBody: true });
  await c.systemInfo();
  await c.systemInfo();
  assert.is(dev.count(INFO, 200), 2);
  assert.is(dev.count(LOGIN, 200), 1);
});

test('heartbeat at the configured interval while logged in; none after close', async () => {
  const { dev, c } = await setup({}, { heartbeatMs: 50 });
  await c.login();
  await wait(280); // a time: the heartbeat rate is counted over a window
  const beats = dev.count('/API/Login/Heartbeat', 200);
  assert.ok(beats >= 2 && beats <= 6, `heartbeats: ${beats}`);
  await c.close();
  const after = dev.log.length;
  await wait(120); // a time: nothing may reach the device within more than two heartbeat periods after close
  assert.is(dev.log.length, after);
});

test('heartbeat off with 0; no heartbeat before login', async () => {
  const { dev, c } = await setup({}, { heartbeatMs: 0 });
  await wait(60); // a time: nothing may reach the device before the first call
  assert.is(dev.log.length, 0);
  await c.login();
  await wait(60); // a time: no heartbeat may follow the login
  assert.is(dev.count('/API/Login/Heartbeat'), 0);
});

test('explicit login when logged in proves the session with a heartbeat', async () => {
  const { dev, c } = await setup();
  await c.login();
  await c.login();
  assert.is(dev.count(LOGIN, 200), 1);
  assert.is(dev.count('/API/Login/Heartbeat', 200), 1);
});

test('close logs out, later calls fail with closed, close is idempotent', async () => {
  const { dev, c } = await setup();
  await c.systemInfo();
  await c.close();
  assert.is(dev.count('/API/Web/Logout', 200), 1);
  assert.is(dev.sessions.size, 0);
  const e = await rejection(c.systemInfo());
  assert.is(e.error_code, 'closed');
  assert.is(e.kind, 'transport');
  await c.close();
  assert.is(dev.count('/API/Web/Logout'), 1);
});

test('close without login sends nothing', async () => {
  const { dev, c } = await setup();
  await c.close();
  assert.is(dev.log.length, 0);
});

test('close aborts a call in flight quickly', async () => {
  const { dev, c } = await setup({}, { timeoutMs: 5_000 });
  await c.login();
  dev.faults.set(INFO, 'hang');
  const pending = rejection(c.systemInfo());
  await until(() => dev.count(INFO) === 1, 'the call on the wire');
  const t0 = Date.now();
  await c.close();
  const e = await pending;
  assert.is(e.error_code, 'closed');
  assert.ok(Date.now() - t0 < 2_000);
});

test('close: calls still waiting for a connection are never sent; they fail with closed and logout goes out at once', async () => {
  const { dev, c } = await setup({}, { timeoutMs: 5_000, maxConnections: 1 });
  await c.login();
  dev.faults.set(INFO, 'hang');
  const pending = Array.from({ length: 3 }, () => rejection(c.systemInfo()));
  await until(() => dev.count(INFO) >= 1, 'the first call on the wire');
  assert.is(dev.count(INFO), 1, 'one on the wire, two waiting for the connection');
  const t0 = Date.now();
  await c.close();
  const errors = await Promise.all(pending);
  assert.equal(
    errors.map((e) => e.error_code),
    ['closed', 'closed', 'closed'],
  );
  assert.ok(Date.now() - t0 < 2_000, `close took ${Date.now() - t0} ms`);
  assert.is(dev.count(INFO), 1, 'the waiting calls never reached the device');
  assert.is(dev.count('/API/Web/Logout', 200), 1);
});

test.run();
