/**
 * Contract: the session variants of the field notes, client against simulator: Digest SHA-256 offered before MD5,
 * the CSRF token in the login body (old firmware), and firmwares that require heartbeats (`no_heartbeat`).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { voiceAlarmGet } from '../../core/pages';
import { LOGIN, entries, withRig } from './harness';

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

test.run();
