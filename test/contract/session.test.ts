/**
 * Contract: the session variants of the field notes, client against simulator: Digest SHA-256 offered before MD5,
 * the CSRF token in the login body (old firmware), and firmwares that require heartbeats (`no_heartbeat`).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { voiceAlarmGet } from '../../core/pages';
import { NvrClient } from '../../core/client';
import { LOGIN, PASSWORD, entries, rejection, withRig } from './harness';

const VA_GET = '/API/AlarmConfig/VoiceAlarm/Get';
const HEARTBEAT = '/API/Login/Heartbeat';
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

const test = suite('contract: session variants');

test('SHA-256 offered first: one login (challenge + answer), then calls pass', () =>
  withRig({ digestAlgorithm: 'SHA-256' }, {}, async ({ sim, client }) => {
    for (let i = 0; i < 3; i++) await client.invoke(voiceAlarmGet);
    assert.equal(
      entries(sim, LOGIN).map((e) => e.status),
      [401, 200],
    );
    assert.equal(
      entries(sim, VA_GET).map((e) => e.status),
      [200, 200, 200],
    );
  }));

test('old firmware, CSRF token in the login body: calls pass on one login, Sets included', () =>
  withRig({ tokenInBody: true, firmware: '8.2.3' }, {}, async ({ sim, client }) => {
    await client.invoke(voiceAlarmGet);
    await client.set('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_time: 30 } } });
    await client.invoke(voiceAlarmGet);
    assert.equal(
      entries(sim, LOGIN).map((e) => e.status),
      [401, 200],
    );
    assert.equal(
      sim.log.filter((e) => e.status !== 200 && e.path !== LOGIN),
      [],
    );
  }));

test('a firmware that requires heartbeats: the client heartbeat keeps the session; without it, one re-login', async () => {
  await withRig({ heartbeatTimeoutMs: 300 }, { heartbeatMs: 50 }, async ({ sim, client }) => {
    await client.invoke(voiceAlarmGet);
    await wait(700);
    await client.invoke(voiceAlarmGet);
    assert.ok(entries(sim, HEARTBEAT).length >= 2, `heartbeats: ${entries(sim, HEARTBEAT).length}`);
    assert.equal(entries(sim, LOGIN).length, 2, 'no re-login');
    assert.equal(
      entries(sim, VA_GET).map((e) => e.status),
      [200, 200],
    );
  });
  await withRig({ heartbeatTimeoutMs: 300 }, { heartbeatMs: 0 }, async ({ sim, client }) => {
    await client.invoke(voiceAlarmGet);
    await wait(400);
    await client.invoke(voiceAlarmGet);
    assert.equal(
      entries(sim, VA_GET).map((e) => e.error_code),
      [undefined, 'no_heartbeat', undefined],
    );
    assert.equal(
      entries(sim, LOGIN).map((e) => e.status),
      [401, 200, 401, 200],
      'one transparent re-login',
    );
  });
});

test('a device blocking logins says for how long: the client holds logins that long (not 5 minutes), then the right password logs in', async () => {
  // The device blocks after 2 failures for 2 s (vendor: after 5, `data.block_remain_time` seconds).
  await withRig({ maxLoginFailures: 2, lockoutMs: 2_000 }, { password: 'not-the-password' }, async ({ sim, client }) => {
    const wrong = await rejection(client.login());
    assert.is(wrong.error_code, 'verify_failed');
    const blocked = await rejection(client.login());
    assert.is(blocked.error_code, 'login_failed_or_block');
    assert.is(blocked.retryAfterMs, 2_000, 'the device said 2 s');
    const heldFor = (client.loginHeldUntil ?? 0) - Date.now();
    assert.ok(heldFor > 1_000 && heldFor <= 3_000, `held ${heldFor} ms, as the device said (+1 s), not the 300 s default`);
    // The password fixed (a new client, as a redeploy makes): refused while the device still blocks, then in.
    const fixed = new NvrClient({ url: sim.url, username: 'admin', password: PASSWORD, heartbeatMs: 0 });
    try {
      const still = await rejection(fixed.login());
      assert.is(still.error_code, 'login_failed_or_block');
      const until = fixed.loginHeldUntil!;
      assert.ok(until - Date.now() <= 3_000, 'held only as long as the device blocks');
      await wait(Math.max(0, until - Date.now()) + 50); // the device's block is real time in the simulator
      await fixed.invoke(voiceAlarmGet);
      assert.is(entries(sim, LOGIN).at(-1)!.status, 200);
    } finally {
      await fixed.close();
    }
  });
});

test.run();
