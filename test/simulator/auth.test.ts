import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, SimulatorOptions, startSimulator } from '../../simulator';
import { PASSWORD, RawClient, challenges, digestHeader } from './raw-client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GET = '/API/AlarmConfig/VoiceAlarm/Get';

async function withSim(opts: Partial<SimulatorOptions>, fn: (sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ password: PASSWORD, ...opts });
  try {
    await fn(sim);
  } finally {
    await sim.stop();
  }
}

const test = suite('simulator auth');

test('login: challenge, then MD5 Digest gives cookie session_<port> and X-csrftoken', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    const first = await c.post('/API/Web/Login', {}, { anonymous: true });
    assert.is(first.status, 401);
    const cs = challenges(first);
    assert.is(cs.length, 1);
    assert.is(cs[0].scheme, 'Digest');
    assert.is(cs[0].realm, 'RS realm');
    assert.is(cs[0].qop, 'auth');
    assert.is(cs[0].algorithm, 'MD5');
    assert.ok(cs[0].nonce && cs[0].opaque);
    const res = await c.login();
    assert.is(res.status, 200);
    assert.is(res.json.result, 'success');
    assert.match(res.headers['set-cookie']![0], new RegExp(`^session_${sim.port}=[0-9a-f]+; HttpOnly; path=/$`));
    assert.type(res.headers['x-csrftoken'], 'string');
    const get = await c.post(GET);
    assert.is(get.status, 200);
    assert.is(get.json.result, 'success');
  }));

test('login: SHA-256 offered first, MD5 second; both succeed', () =>
  withSim({ digestAlgorithm: 'SHA-256' }, async (sim) => {
    const probe = await new RawClient(sim.url).post('/API/Web/Login', {}, { anonymous: true });
    assert.equal(
      challenges(probe).map((c) => c.algorithm),
      ['SHA-256', 'MD5'],
    );
    const sha = new RawClient(sim.url);
    assert.is((await sha.login((cs) => cs.find((c) => c.algorithm === 'SHA-256')!)).status, 200);
    assert.is((await sha.post(GET)).status, 200);
    const md5 = new RawClient(sim.url);
    assert.is((await md5.login((cs) => cs.find((c) => c.algorithm === 'MD5')!)).status, 200);
    assert.is((await md5.post(GET)).status, 200);
  }));

test('login: SHA-256 refused when only MD5 is offered (new challenge)', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    const res = await c.login((cs) => ({ ...cs[0], algorithm: 'SHA-256' }));
    assert.is(res.status, 401);
    assert.is(challenges(res).length, 1);
  }));

test('login: a first request without a body (curl --digest) gets the challenge, then Digest with the body logs in', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    const empty = await c.post('/API/Web/Login', undefined, { anonymous: true, body: '' });
    assert.is(empty.status, 401);
    assert.is(empty.json.error_code, 'no_login');
    const ch = challenges(empty);
    assert.is(ch.length, 1);
    const res = await c.post(
      '/API/Web/Login',
      {},
      { anonymous: true, headers: { Authorization: digestHeader(ch[0], 'admin', PASSWORD, '/API/Web/Login') } },
    );
    assert.is(res.status, 200);
    assert.is(res.json.result, 'success');
    // With credentials, the body is judged as usual.
    const c2 = new RawClient(sim.url);
    const ch2 = challenges(await c2.post('/API/Web/Login', {}, { anonymous: true }))[0];
    const noBody = await c2.post('/API/Web/Login', undefined, {
      anonymous: true,
      body: '',
      headers: { Authorization: digestHeader(ch2, 'admin', PASSWORD, '/API/Web/Login') },
    });
    assert.equal([noBody.status, noBody.json.error_code], [400, 'param_error']);
  }));

test('login: wrong password -> 401 verify_failed (vendor failure body), no challenge header, no session', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url, 'admin', 'wrong');
    const res = await c.login();
    assert.is(res.status, 401);
    assert.is(res.json.result, 'failed');
    assert.is(res.json.error_code, 'verify_failed');
    assert.type(res.json.reason, 'string');
    assert.equal(res.json.data, { fail_login_count: 1 });
    assert.is(challenges(res).length, 0);
    assert.is(res.headers['set-cookie'], undefined);
  }));

test('login: wrong digest uri or unknown nonce is not accepted', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    const first = await c.post('/API/Web/Login', {}, { anonymous: true });
    const ch = challenges(first)[0];
    const badUri = await c.post(
      '/API/Web/Login',
      {},
      { anonymous: true, headers: { Authorization: digestHeader(ch, 'admin', PASSWORD, '/other') } },
    );
    assert.is(badUri.json.error_code, 'verify_failed');
    const badNonce = await c.post(
      '/API/Web/Login',
      {},
      {
        anonymous: true,
        headers: { Authorization: digestHeader({ ...ch, nonce: 'feedface' }, 'admin', PASSWORD, '/API/Web/Login') },
      },
    );
    assert.is(badNonce.status, 401);
    assert.is(challenges(badNonce).length, 1, 'a fresh challenge');
    assert.is(challenges(badNonce)[0].stale, 'true');
  }));

test('lock-out: 4 x verify_failed, the 5th failure login_failed_or_block; then even the right password is blocked until the period ends', () =>
  withSim({ lockoutMs: 400 }, async (sim) => {
    const bad = new RawClient(sim.url, 'admin', 'wrong');
    for (let i = 0; i < 4; i++) assert.is((await bad.login()).json.error_code, 'verify_failed');
    const fifth = await bad.login();
    assert.is(fifth.json.error_code, 'login_failed_or_block');
    assert.is(fifth.json.data.block_remain_time, 1, 'seconds left, rounded up (0.4 s -> 1)');
    const good = new RawClient(sim.url);
    const locked = await good.login();
    assert.is(locked.status, 401);
    assert.is(locked.json.error_code, 'login_failed_or_block');
    assert.type(locked.json.data.block_remain_time, 'number');
    await sleep(450); // a time: the block ends by the clock (logins to poll for its end would themselves be judged)
    assert.is((await good.login()).status, 200);
  }));

test('lock-out: a success resets the failure count', () =>
  withSim({}, async (sim) => {
    const bad = new RawClient(sim.url, 'admin', 'wrong');
    for (let i = 0; i < 4; i++) await bad.login();
    assert.is((await new RawClient(sim.url).login()).status, 200);
    for (let i = 0; i < 4; i++) assert.is((await bad.login()).json.error_code, 'verify_failed');
    assert.is((await new RawClient(sim.url).login()).status, 200);
  }));

test('session: no cookie -> no_login; missing or wrong CSRF -> token_invalid; header name case-insensitive', () =>
  withSim({}, async (sim) => {
    const anon = await new RawClient(sim.url).post(GET);
    assert.is(anon.status, 401);
    assert.is(anon.json.error_code, 'no_login');
    const c = new RawClient(sim.url);
    await c.login();
    const token = c.token!;
    c.token = undefined;
    const missing = await c.post(GET);
    assert.is(missing.json.error_code, 'token_invalid');
    const wrong = await c.post(GET, {}, { headers: { 'X-csrftoken': 'nope' } });
    assert.is(wrong.json.error_code, 'token_invalid');
    for (const name of ['X-CsrfToken', 'x-csrftoken', 'X-CSRFTOKEN']) {
      const ok = await c.post(GET, {}, { headers: { [name]: token } });
      assert.is(ok.status, 200, name);
    }
  }));

test('no CSRF rotation by default: the login token serves the whole session (vendor), through heartbeats and Sets', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    await c.login();
    const t0 = c.token!;
    for (let i = 0; i < 5; i++) {
      const hb = await c.post('/API/Login/Heartbeat', {}, { headers: { 'X-csrftoken': t0 } });
      assert.is(hb.status, 200);
      assert.is(hb.headers['x-csrftoken'], undefined, 'no new token handed out');
      const set = await c.post(
        '/API/AlarmConfig/VoiceAlarm/Set',
        { channel_info: { CH1: { siren_value: 6 } } },
        { headers: { 'X-csrftoken': t0 } },
      );
      assert.is(set.status, 200);
    }
    assert.is((await c.post(GET, {}, { headers: { 'X-csrftoken': t0 } })).status, 200, 'the login token after 5 heartbeats');
  }));

test('CSRF rotation (opt-in fault): heartbeat and Set answer a fresh token; the previous one stays valid briefly', () =>
  withSim({ rotateCsrf: true }, async (sim) => {
    const c = new RawClient(sim.url);
    await c.login();
    const t0 = c.token!;
    const hb = await c.post('/API/Login/Heartbeat', { keep_alive: true });
    assert.is(hb.status, 200);
    const t1 = hb.headers['x-csrftoken'];
    assert.type(t1, 'string');
    assert.is.not(t1, t0);
    assert.is((await c.post(GET, {}, { headers: { 'X-csrftoken': t0 } })).status, 200, 'old token still valid');
    const set = await c.post('/API/AlarmConfig/VoiceAlarm/Set', { channel_info: { CH1: { siren_value: 6 } } });
    assert.is(set.status, 200);
    assert.type(set.headers['x-csrftoken'], 'string');
    await c.post('/API/Login/Heartbeat', { keep_alive: true });
    await c.post('/API/Login/Heartbeat', { keep_alive: true });
    assert.is((await c.post(GET, {}, { headers: { 'X-csrftoken': t0 } })).json.error_code, 'token_invalid', 'too old now');
  }));

test('old firmware: token in the login body, no X-csrftoken header', () =>
  withSim({ tokenInBody: true }, async (sim) => {
    const c = new RawClient(sim.url);
    const res = await c.login();
    assert.is(res.headers['x-csrftoken'], undefined);
    assert.type(res.json.data.token, 'string');
    assert.is((await c.post(GET)).status, 200);
  }));

test('session expiry: without traffic for sessionTimeoutMs the next call answers 400 expired, then 400 no_login', () =>
  withSim({ sessionTimeoutMs: 150 }, async (sim) => {
    const c = new RawClient(sim.url);
    await c.login();
    await sleep(250); // a time: inactivity is the behaviour under test (any call would renew the session)
    const res = await c.post(GET);
    assert.is(res.status, 400, 'vendor: failures are HTTP 400 with a failure body');
    assert.is(res.json.result, 'failed');
    assert.is(res.json.error_code, 'expired');
    const again = await c.post(GET);
    assert.is(again.status, 400);
    assert.is(again.json.error_code, 'no_login');
  }));

test('heartbeat keeps the session alive past sessionTimeoutMs', () =>
  withSim({ sessionTimeoutMs: 1000 }, async (sim) => {
    const c = new RawClient(sim.url);
    await c.login();
    for (let i = 0; i < 8; i++) {
      // a time: 2 s in all, twice the timeout, kept alive by heartbeats only; each gap a quarter of the timeout,
      // so a loaded machine (parallel test files) does not turn a gap into an expiry
      await sleep(250);
      const hb = await c.post('/API/Login/Heartbeat', { keep_alive: true });
      assert.is(hb.status, 200);
    }
    assert.is((await c.post(GET)).status, 200);
  }));

test('heartbeatTimeoutMs: calls fail with no_heartbeat when heartbeats stop', () =>
  withSim({ heartbeatTimeoutMs: 150 }, async (sim) => {
    const c = new RawClient(sim.url);
    await c.login();
    assert.is((await c.post(GET)).status, 200);
    await sleep(200); // a time: heartbeats missing for longer than heartbeatTimeoutMs is the behaviour under test
    assert.is((await c.post(GET)).json.error_code, 'no_heartbeat');
  }));

test('expireSessions(): every session answers expired once', () =>
  withSim({}, async (sim) => {
    const a = new RawClient(sim.url);
    const b = new RawClient(sim.url);
    await a.login();
    await b.login();
    sim.expireSessions();
    assert.is((await a.post(GET)).json.error_code, 'expired');
    assert.is((await b.post(GET)).json.error_code, 'expired');
    await a.login();
    assert.is((await a.post(GET)).status, 200);
  }));

test('logout ends the session', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    await c.login();
    assert.is((await c.post('/API/Web/Logout')).json.result, 'success');
    const res = await c.post(GET);
    assert.is(res.status, 400);
    assert.is(res.json.error_code, 'logout');
  }));

test('custom username', () =>
  withSim({ username: 'operator' }, async (sim) => {
    assert.is((await new RawClient(sim.url, 'admin').login()).json.error_code, 'verify_failed');
    assert.is((await new RawClient(sim.url, 'operator').login()).status, 200);
  }));

test('an evicted session (session table full) answers 400 forced_offline once', () =>
  withSim({}, async (sim) => {
    const first = new RawClient(sim.url);
    await first.login();
    for (let i = 0; i < 32; i++) assert.is((await new RawClient(sim.url).login()).status, 200);
    const res = await first.post(GET);
    assert.is(res.status, 400);
    assert.is(res.json.error_code, 'forced_offline');
  }));

test('third-party clients: Digest without opaque, body without version, unknown login members, cache-buster query', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    const first = await c.post('/API/Web/Login', {}, { anonymous: true });
    const ch = challenges(first)[0];
    const noOpaque = digestHeader(ch, 'admin', PASSWORD, '/API/Web/Login').replace(/, opaque="[^"]*"/, '');
    assert.not.match(noOpaque, /opaque/);
    const res = await c.post(
      '/API/Web/Login',
      {},
      {
        anonymous: true,
        headers: { Authorization: noOpaque },
        body: JSON.stringify({ data: { remote_terminal_info: 'WEB,chrome', support_new_schedule: true } }),
      },
    );
    assert.is(res.status, 200, res.text);
    c.cookie = res.headers['set-cookie']![0].split(';')[0];
    const hb = await c.post('/API/Login/Heartbeat?2020-10-17%2014:21:33', {}, { body: JSON.stringify({ data: { keep_alive: true } }) });
    assert.is(hb.status, 200, hb.text);
    const badVersion = await c.post(GET, {}, { body: JSON.stringify({ version: '2.0', data: {} }) });
    assert.is(badVersion.json.error_code, 'param_error');
    const wrongOpaque = await c.post(
      '/API/Web/Login',
      {},
      {
        anonymous: true,
        headers: {
          Authorization: digestHeader(
            { ...challenges(await c.post('/API/Web/Login', {}, { anonymous: true }))[0], opaque: 'bad' },
            'admin',
            PASSWORD,
            '/API/Web/Login',
          ),
        },
      },
    );
    assert.is(wrongOpaque.status, 401);
    assert.is(challenges(wrongOpaque).length, 1, 'a wrong opaque is not accepted: fresh challenge');
  }));

test('curl --digest logs in (a real third-party Digest client)', () =>
  withSim({}, async (sim) => {
    // Asynchronous: the simulator answers from this very process.
    const { stdout: out } = await promisify(execFile)(
      'curl',
      [
        '-s',
        '--max-time',
        '10',
        '--digest',
        '-u',
        `admin:${PASSWORD}`,
        '-X',
        'POST',
        '-H',
        'Content-Type: application/json',
        '-d',
        '{"data":{}}',
        '-D',
        '-',
        `${sim.url}/API/Web/Login`,
      ],
      { encoding: 'utf8' },
    );
    assert.match(out, /HTTP\/1\.1 200/);
    assert.match(out, /Set-Cookie: session_\d+=[0-9a-f]+/i);
    assert.match(out, /X-csrftoken: [0-9a-f]+/i);
    assert.ok(sim.log.some((e) => e.path === '/API/Web/Login' && e.status === 200));
  }));

test('startSimulator refuses to start without a password', async () => {
  try {
    await startSimulator({ password: '' });
    assert.unreachable();
  } catch (err) {
    assert.match((err as Error).message, /password/);
  }
});

test.run();
