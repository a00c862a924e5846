/**
 * Contract: each bad input gives a clear error (a kind a caller can act on, a reason a person understands, the
 * page and operation) and nothing wrong reaches the device, proven on the simulator's request log.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeviceError } from '../../core/errors';
import { deterrenceSet, upgradeToken, voiceAlarmGet, voiceAlarmSet } from '../../core/pages';
import type { FaultKind } from '../../simulator';
import type { NvrClient } from '../../core/client';
import { LOGIN, PASSWORD, entries, obj, paths, rejection, until, withRig, type Obj } from './harness';

const VA = '/API/AlarmConfig/VoiceAlarm';
const MIB = 1 << 20;
const AUTH = { seq: 1, cipher: 'user-supplied-cipher' };
const RELOGIN_CODES = ['expired', 'no_login'];

/** The message, reason and JSON form of an error, for "the password never shows" checks. */
function everyText(err: DeviceError): string {
  return `${err.message}\n${err.reason}\n${JSON.stringify(err)}\n${inspect(err, { depth: 5 })}`;
}

const test = suite('contract: bad input');

// --- credentials and sessions --------------------------------------------------------------------------------------

test('wrong password: one login attempt for 20 concurrent calls, lockout error without the password', () => {
  const wrong = 'Wr0ng-secret-4242';
  return withRig({}, { password: wrong }, async ({ sim, client }) => {
    const errors = await Promise.all(Array.from({ length: 20 }, () => rejection(client.invoke(voiceAlarmGet))));
    for (const err of errors) {
      // Vendor: a wrong password below the 5th failure is `verify_failed` (bad credentials: stop, don't loop).
      assert.equal([err.kind, err.error_code], ['lockout', 'verify_failed']);
      assert.ok(err.reason.length > 0);
      assert.not.match(everyText(err), wrong);
      assert.not.match(everyText(err), PASSWORD);
    }
    // Exactly one attempt: the challenge and one answer to it. No storm, no Get.
    assert.equal(paths(sim), [LOGIN, LOGIN]);
    assert.equal(
      sim.log.map((e) => [e.status, e.error_code]),
      [
        [401, 'no_login'],
        [401, 'verify_failed'],
      ],
    );
    // Later calls fail fast from the held lock-out, still without touching the device.
    const again = await rejection(client.invoke(voiceAlarmGet));
    assert.is(again.kind, 'lockout');
    // In user words: when the next login goes out, and that a reconnect tries at once (no library wording).
    assert.match(again.reason, /logging in again after \d{4}-\d{2}-\d{2}T[\d:.]+Z, or at once on a reconnect/);
    assert.not.match(again.reason, /login\(\)/);
    assert.is(sim.log.length, 2);
    assert.is(client.state, 'error');
    assert.is(client.lastError?.kind, 'lockout');
    assert.not.match(inspect(client, { depth: 5 }), wrong);
    assert.not.match(JSON.stringify(client), wrong);
  });
});

test('wrong password, explicit logins: verify_failed four times, then the device blocks (login_failed_or_block)', () => {
  const wrong = 'Wr0ng-secret-5151';
  return withRig({ lockoutMs: 60_000 }, { password: wrong }, async ({ sim, client }) => {
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const err = await rejection(client.login()); // each explicit login() lifts the client's hold: one attempt each
      assert.is(err.kind, 'lockout');
      assert.not.match(everyText(err), wrong);
      codes.push(err.error_code);
    }
    // Vendor: verify_failed below 5 failures; the 5th and every login while blocked: login_failed_or_block.
    assert.equal(codes, [
      'verify_failed',
      'verify_failed',
      'verify_failed',
      'verify_failed',
      'login_failed_or_block',
      'login_failed_or_block',
    ]);
    const answers = entries(sim, LOGIN).filter((e) => e.error_code !== 'no_login');
    assert.is(answers.length, 6, 'one answered attempt per explicit login, no retries');
    assert.ok(answers.every((e) => e.status === 401));
    // While blocked, calls fail from the client's hold without a login.
    const before = sim.log.length;
    assert.is((await rejection(client.invoke(voiceAlarmGet))).error_code, 'login_failed_or_block');
    assert.is(sim.log.length, before, 'nothing sent while the login is held');
  });
});

for (const how of ['expireSessions()', 'expire_session fault'] as const) {
  test(`expired session (${how}): 10 concurrent calls share one transparent re-login and all succeed`, () =>
    withRig({}, {}, async ({ sim, client }) => {
      await client.invoke(voiceAlarmGet);
      sim.clearLog();
      if (how === 'expireSessions()') sim.expireSessions();
      else sim.fault({ path: `${VA}/Get`, kind: 'expire_session', times: 1 });
      // Raw calls: identical typed reads would share one device call (coalescing).
      const results = await Promise.all(
        Array.from({ length: 10 }, () => client.call(`${VA}/Get`) as Promise<{ channel_info: Record<string, unknown> }>),
      );
      for (const r of results) assert.is(obj(r.channel_info.CH1, 'CH1').siren_time, 10);
      const logins = entries(sim, LOGIN);
      assert.equal(
        logins.map((e) => e.status),
        [401, 200],
        'one re-login: challenge + answer',
      );
      const gets = entries(sim, `${VA}/Get`);
      const failed = gets.filter((e) => e.error_code !== undefined);
      assert.is(gets.length - failed.length, 10, 'every call succeeded once');
      assert.ok(failed.length >= 1 && failed.length <= 10, `each call retried at most once (${failed.length} failures)`);
      for (const e of failed) assert.ok(RELOGIN_CODES.includes(e.error_code!), `failed with a session code, got ${e.error_code}`);
      assert.is(failed[0].error_code, 'expired');
      assert.is(client.state, 'connected');
    }));
}

test('expired session, one call: the call is repeated once after one re-login', () =>
  withRig({}, {}, async ({ sim, client }) => {
    await client.invoke(voiceAlarmGet);
    sim.clearLog();
    sim.expireSessions();
    await client.invoke(voiceAlarmGet);
    assert.equal(
      sim.log.map((e) => [e.path, e.status, e.error_code]),
      [
        [`${VA}/Get`, 400, 'expired'], // vendor: failures are HTTP 400
        [LOGIN, 401, 'no_login'],
        [LOGIN, 200, undefined],
        [`${VA}/Get`, 200, undefined],
      ],
    );
  }));

// --- events and the session over time ----------------------------------------------------------------------------

const CHECK = '/API/Event/Check';
const HEARTBEAT = '/API/Login/Heartbeat';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the client's event stream in the background until `stop()`. */
function streaming(client: NvrClient, intervalMs?: number) {
  const ctl = new AbortController();
  const done = (async () => {
    for await (const e of client.events({ signal: ctl.signal, intervalMs })) void e;
  })();
  return {
    done,
    stop: async () => {
      ctl.abort();
      await done;
    },
  };
}

test('an Event/Check answering at once: at most one call per second per device, not a tight loop', () =>
  withRig({ eventHoldMs: 0 }, {}, async ({ sim, client }) => {
    const run = streaming(client);
    await until(() => entries(sim, CHECK).length >= 1, 'the first Event/Check', 4_000);
    const t0 = Date.now();
    await sleep(2_100); // a time: a call rate is counted over a window (the default 1 s interval is under test)
    await run.stop();
    const calls = entries(sim, CHECK).filter((e) => e.time >= t0);
    assert.ok(calls.length >= 2 && calls.length <= 3, `${calls.length} calls in 2.1 s`);
    assert.ok(entries(sim, CHECK).every((e) => e.status === 200));
  }));

test('readerID_invalid (the device dropped the reader): one new subscription, the stream goes on, no error', () =>
  withRig({ eventHoldMs: 0 }, {}, async ({ sim, client }) => {
    const run = streaming(client, 200);
    await until(() => entries(sim, CHECK).length >= 2, 'subscribed and polling', 4_000);
    // 40 more subscriptions take every reader slot of the device: the stream's reader, idle the longest, is dropped.
    const subscribe = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }] } };
    await Promise.all(Array.from({ length: 40 }, () => client.call(CHECK, subscribe)));
    await until(() => entries(sim, CHECK).some((e) => e.error_code === 'readerID_invalid'), 'readerID_invalid', 4_000);
    const refused = sim.log.findIndex((e) => e.path === CHECK && e.error_code === 'readerID_invalid');
    await until(
      () => sim.log.slice(refused + 1).filter((e) => e.path === CHECK && e.status === 200).length >= 2,
      'two answered calls after it',
      4_000,
    );
    await run.stop();
    const after = sim.log.slice(refused + 1).filter((e) => e.path === CHECK);
    assert.is(obj(after[0].data, 'data').reader_id, undefined, 'subscribed again');
    assert.ok(obj(after[1].data, 'data').reader_id !== undefined, 'then polled with the new cursor');
    assert.is(entries(sim, CHECK).filter((e) => e.error_code === 'readerID_invalid').length, 1);
    assert.ok(after[0].time - sim.log[refused].time >= 150, 'the new subscription waited for the interval');
  }));

test('evicted session while streaming: one re-login, the stream subscribes again', () =>
  withRig({ eventHoldMs: 0 }, {}, async ({ sim, client }) => {
    const run = streaming(client, 200);
    await until(() => entries(sim, CHECK).length >= 2, 'subscribed and polling', 4_000);
    sim.expireSessions();
    await until(() => entries(sim, LOGIN).filter((e) => e.status === 200).length === 2, 'the re-login', 4_000);
    const relogin = sim.log.length;
    // Polls go on with the new subscription's cursor: a second re-login or subscription would show among these.
    await until(() => sim.log.slice(relogin).filter((e) => e.path === CHECK).length >= 5, 'five calls after the re-login', 4_000);
    await run.stop();
    assert.equal(
      entries(sim, LOGIN).map((e) => e.status),
      [401, 200, 401, 200],
      'one re-login',
    );
    const subscriptions = entries(sim, CHECK).filter((e) => obj(e.data, 'data').reader_id === undefined);
    assert.is(subscriptions.length, 2, 'subscribed again after the re-login, once');
  }));

test('heartbeat failing: one re-login, then backoff (logins counted over time)', () =>
  withRig({}, { heartbeatMs: 50 }, async ({ sim, client }) => {
    await client.invoke(voiceAlarmGet);
    await until(() => entries(sim, HEARTBEAT).length >= 1, 'a heartbeat', 4_000);
    assert.equal(entries(sim, HEARTBEAT)[0].data, { keep_alive: true });
    sim.fault({ path: HEARTBEAT, kind: 'http500' });
    // A time: the claim is a count over a window shorter than the 1 s re-login gap; the >= 5 failed heartbeats
    // below prove the client went on working through it.
    await sleep(700);
    assert.ok(entries(sim, HEARTBEAT).filter((e) => e.status === 500).length >= 5);
    assert.equal(
      entries(sim, LOGIN).map((e) => e.status),
      [401, 200, 401, 200],
      'one re-login in 700 ms of failing heartbeats',
    );
  }));

test('wrong password while streaming and calling for a second: one login attempt, the stream ends with the lock-out', () => {
  const wrong = 'Wr0ng-again-77';
  return withRig({ eventHoldMs: 0 }, { password: wrong }, async ({ sim, client }) => {
    const streamErr = rejection(streaming(client).done);
    const t0 = Date.now();
    while (Date.now() - t0 < 1_000) {
      assert.is((await rejection(client.invoke(voiceAlarmGet))).kind, 'lockout');
      await sleep(20); // pacing: calls spread over the second, as a flow's messages would be
    }
    assert.is((await streamErr).kind, 'lockout');
    assert.equal(paths(sim), [LOGIN, LOGIN], 'challenge + one answer in a second of calls');
  });
});

// --- Range violations ----------------------------------------------------------------------------------------------

test('out-of-Range Set: refused locally, every violation listed with its path, no Set reaches the device', () =>
  withRig({}, {}, async ({ sim, client }) => {
    // Three bad fields in two channels (CH2 offers only Alarm1/Alarm2).
    const data = { channel_info: { CH1: { siren_time: 200, siren_value: 0 }, CH2: { siren_type: 'User-defined1', siren_switch: true } } };
    const err = await rejection(client.invoke(voiceAlarmSet, data));
    assert.equal([err.kind, err.error_code, err.page, err.operation], ['invalid_request', 'out_of_range', 'AlarmConfig/VoiceAlarm', 'Set']);
    assert.equal(
      err.violations.map((x) => [x.path, x.problem]),
      [
        ['channel_info.CH1.siren_time', 'max'],
        ['channel_info.CH1.siren_value', 'min'],
        ['channel_info.CH2.siren_type', 'enum'],
      ],
    );
    for (const x of err.violations) assert.ok(err.message.includes(x.path), `message names ${x.path}: ${err.message}`);
    assert.match(err.violations[0].message, /180/);
    assert.match(err.reason, /^3 values outside the device.s Range$/, 'the kind (invalid_request) says nothing was sent');
    assert.equal(
      paths(sim).filter((p) => p.endsWith('/Set')),
      [],
      'no Set request at all',
    );
    assert.equal(entries(sim, `${VA}/Range`).length, 1, 'only the Range was read');
    const ch1 = obj((await client.invoke(voiceAlarmGet)).channel_info!.CH1, 'CH1');
    assert.equal([ch1.siren_time, ch1.siren_value], [10, 5], 'device state untouched');
  }));

test('out-of-Range Set: every kind of violation (read-only, bounds, enum, unknown channel, unsupported field)', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const data = {
      page_type: 'ChannelConfig',
      channel_info: {
        CH1: { chn_index: 'CH1', bright_time: 3, strobe_frequency: 'Fast', glow: 1 },
        CH3: { chn_index: 'CH3', flood_light_switch: true }, // no floodlight on CH3
        IP_CH2: { chn_index: 'IP_CH2', status: 'Online' }, // offline: its Range shows only the read-only status
      },
    };
    const err = await rejection(client.invoke(deterrenceSet, data));
    assert.equal(
      err.violations.map((x) => [x.path, x.problem]),
      [
        ['channel_info.CH1.bright_time', 'min'],
        ['channel_info.CH1.strobe_frequency', 'enum'],
        ['channel_info.CH1.glow', 'unsupported'],
        ['channel_info.CH3', 'channel'],
        ['channel_info.IP_CH2.status', 'read_only'],
      ],
    );
    assert.is(entries(sim, '/API/AlarmConfig/Deterrence/Set').length, 0);
  }));

test('skipRangeCheck: the out-of-Range Set reaches the device and is refused there (param_error, kind rejected)', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const data = { channel_info: { CH1: { siren_time: 200 } } };
    const err = await rejection(client.invoke(voiceAlarmSet, data, { skipRangeCheck: true }));
    assert.equal(
      [err.kind, err.error_code, err.status, err.page, err.operation],
      ['rejected', 'param_error', 400, 'AlarmConfig/VoiceAlarm', 'Set'],
    );
    assert.match(err.reason, /channel_info\.CH1\.siren_time/);
    const sets = entries(sim, `${VA}/Set`);
    assert.equal(
      sets.map((e) => [e.status, e.error_code, e.data]),
      [[400, 'param_error', data]],
    );
    assert.equal(entries(sim, `${VA}/Range`).length, 0, 'no Range read when the check is skipped');
    assert.is(obj((await client.invoke(voiceAlarmGet)).channel_info!.CH1, 'CH1').siren_time, 10);
  }));

test('a Set request that is not even the page shape is refused before anything is sent', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const err = await rejection(client.invoke(voiceAlarmSet, { channel_info: { ch1: { siren_time: 10 } } } as never));
    assert.equal([err.kind, err.page, err.operation], ['invalid_request', 'AlarmConfig/VoiceAlarm', 'Set']);
    assert.match(err.reason, /ch1/);
    assert.is(sim.log.length, 0, 'not even a login');
  }));

// --- bad answers ---------------------------------------------------------------------------------------------------

const FAULTS: Array<{ kind: FaultKind; expect: { kind: string; error_code: string; status?: number }; reason: RegExp }> = [
  { kind: 'html', expect: { kind: 'invalid_answer', error_code: 'invalid_answer', status: 200 }, reason: /HTML, not JSON/ },
  { kind: 'http500', expect: { kind: 'transport', error_code: 'http_error', status: 500 }, reason: /HTTP 500/ },
  {
    kind: 'truncated',
    expect: { kind: 'invalid_answer', error_code: 'invalid_answer', status: 200 },
    reason: /truncated or malformed JSON/,
  },
  { kind: 'reset', expect: { kind: 'transport', error_code: 'network_error' }, reason: /connection (reset|closed)/ },
  { kind: 'device_busy', expect: { kind: 'busy', error_code: 'device_busy', status: 400 }, reason: /busy/i },
  { kind: 'not_found', expect: { kind: 'unsupported', error_code: 'not_found', status: 404 }, reason: /not found/i },
];

for (const f of FAULTS) {
  test(`${f.kind} answer: kind ${f.expect.kind}, understandable reason, page and operation named, no retry storm`, () =>
    withRig({}, {}, async ({ sim, client }) => {
      await client.invoke(voiceAlarmGet);
      sim.clearLog();
      sim.fault({ path: `${VA}/Get`, kind: f.kind, times: 1 });
      const err = await rejection(client.invoke(voiceAlarmGet));
      assert.equal({ kind: err.kind, error_code: err.error_code, ...(f.expect.status ? { status: err.status } : {}) }, f.expect);
      assert.match(err.reason, f.reason);
      assert.equal([err.page, err.operation], ['AlarmConfig/VoiceAlarm', 'Get'], `page and operation in ${JSON.stringify(err)}`);
      assert.match(err.message, /AlarmConfig\/VoiceAlarm\/Get/);
      assert.not.match(everyText(err), PASSWORD);
      // One request, no retry, no re-login; the session is still good for the next call.
      assert.equal(paths(sim), [`${VA}/Get`]);
      assert.is(sim.log[0].fault, f.kind);
      await client.invoke(voiceAlarmGet);
      assert.equal(paths(sim), [`${VA}/Get`, `${VA}/Get`]);
    }));
}

test('no answer in time: transport timeout naming page and operation; the late answer does not break the session', () =>
  withRig({}, { timeoutMs: 200 }, async ({ sim, client }) => {
    await client.invoke(voiceAlarmGet);
    sim.fault({ path: `${VA}/Get`, kind: 'latency', ms: 600, times: 1 });
    const err = await rejection(client.invoke(voiceAlarmGet));
    assert.equal([err.kind, err.error_code, err.page, err.operation], ['transport', 'timeout', 'AlarmConfig/VoiceAlarm', 'Get']);
    assert.match(err.reason, /no answer within 200 ms/);
    await client.invoke(voiceAlarmGet);
    assert.is(entries(sim, LOGIN).length, 2, 'no re-login');
  }));

test('an answer of the wrong shape: invalid_answer naming the page and the path', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const ci = (sim.state['AlarmConfig/VoiceAlarm'] as Obj).channel_info as Record<string, Obj>;
    ci.CH1.siren_time = 'ten seconds';
    const err = await rejection(client.invoke(voiceAlarmGet));
    assert.equal(
      [err.kind, err.error_code, err.page, err.operation],
      ['invalid_answer', 'invalid_answer', 'AlarmConfig/VoiceAlarm', 'Get'],
    );
    assert.match(err.reason, /data\.channel_info\.CH1\.siren_time: expected number/);
    assert.match(err.message, /AlarmConfig\/VoiceAlarm\/Get/);
    // A broken marker (reason not a string) is named down to the member.
    ci.CH1.siren_time = 10;
    ci.CH2 = { reason: 5 };
    const err2 = await rejection(client.invoke(voiceAlarmGet));
    assert.equal([err2.kind, err2.page, err2.operation], ['invalid_answer', 'AlarmConfig/VoiceAlarm', 'Get']);
    assert.match(err2.reason, /data\.channel_info\.CH2\.reason: expected string/);
  }));

// --- firmware files ------------------------------------------------------------------------------------------------

async function withFirmwareDir(fn: (file: (name: string, size: number) => string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-fw-'));
  try {
    await fn((name, size) => {
      const p = join(dir, name);
      writeFileSync(p, '');
      truncateSync(p, size); // sparse: no disk space used
      return p;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('oversized firmware (100 MiB + 1): refused before any request; exactly 100 MiB is accepted', () =>
  withFirmwareDir((file) =>
    withRig({}, {}, async ({ sim, client }) => {
      const big = file('too-big.sw', 100 * MIB + 1);
      const err = await rejection(client.upgradeToken({ file: big, auth: AUTH }));
      assert.equal(
        [err.kind, err.error_code, err.page, err.operation],
        ['invalid_request', 'invalid_firmware', 'Maintenance/SystemUpgrade', 'Token'],
      );
      assert.match(err.reason, /104857601 bytes/);
      assert.match(err.reason, /100 MiB/);
      assert.is(sim.log.length, 0, 'nothing sent, not even a login');

      const ok = await client.upgradeToken({ file: file('exact.sw', 100 * MIB), auth: AUTH });
      assert.is(ok.upgrade_timeout, 600);
      const sent = entries(sim, '/API/Maintenance/SystemUpgrade/Token');
      assert.equal(
        sent.map((e) => [e.status, obj(e.data, 'data').file_size, obj(e.data, 'data').file_name]),
        [[200, 100 * MIB, 'exact.sw']],
      );
      assert.is((obj(sent[0].data, 'data').upgrade_head as number[]).length, 3072);

      // 200 MiB without largeCapacity: refused locally as well.
      sim.clearLog();
      const e200 = await rejection(client.upgradeToken({ file: file('large.sw', 200 * MIB), auth: AUTH }));
      assert.is(e200.kind, 'invalid_request');
      assert.is(sim.log.length, 0);
    }),
  ));

test('largeCapacity: up to 200 MiB accepted, 200 MiB + 1 refused before any request', () =>
  withFirmwareDir((file) =>
    withRig({ largeCapacity: true }, { largeCapacity: true }, async ({ sim, client }) => {
      const ok = await client.upgradeToken({ file: file('large.sw', 200 * MIB), auth: AUTH });
      assert.match(ok.upgrade_token, /^[0-9a-f]+$/);
      assert.is(obj(entries(sim, '/API/Maintenance/SystemUpgrade/Token')[0].data, 'data').file_size, 200 * MIB);
      sim.clearLog();
      const err = await rejection(client.upgradeToken({ file: file('huge.sw', 200 * MIB + 1), auth: AUTH }));
      assert.equal([err.kind, err.error_code], ['invalid_request', 'invalid_firmware']);
      assert.match(err.reason, /209715201 bytes/);
      assert.match(err.reason, /large-capacity/);
      assert.is(sim.log.length, 0);
      // The raw operation enforces the absolute cap through its schema.
      const raw = await rejection(client.invoke(upgradeToken, { file_name: 'x.sw', file_size: 200 * MIB + 1, upgrade_head: [1] }));
      assert.equal([raw.kind, raw.page], ['invalid_request', 'Maintenance/SystemUpgrade']);
      assert.match(raw.reason, /file_size/);
      assert.is(sim.log.length, 0);
    }),
  ));

test('upgrade token operation with an upgrade_head that is not 3072 values: refused locally, naming the field', () =>
  withRig({}, {}, async ({ sim, client }) => {
    for (const upgrade_head of [[1, 2, 3], Array(3073).fill(0)]) {
      const err = await rejection(
        client.invoke(upgradeToken, { file_name: 'x.sw', file_size: 5000, upgrade_head, base_secondary_authentication: AUTH }),
      );
      assert.equal([err.kind, err.page, err.operation], ['invalid_request', 'Maintenance/SystemUpgrade', 'Token']);
      assert.match(err.reason, /data\.upgrade_head/);
    }
    assert.is(sim.log.length, 0, 'nothing sent, not even a login');
  }));

test('firmware file name of 256 non-ASCII characters: the client and the device agree it is allowed', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const name = `${'é'.repeat(200)}${'😀'.repeat(55)}.`; // 256 characters, 512 UTF-16 units, 621 UTF-8 bytes
    const ok = await client.upgradeToken({ file: Buffer.alloc(4096, 1), file_name: name, auth: AUTH });
    assert.is(ok.upgrade_timeout, 600);
    assert.equal(
      entries(sim, '/API/Maintenance/SystemUpgrade/Token').map((e) => [e.status, obj(e.data, 'data').file_name]),
      [[200, name]],
    );
    const err = await rejection(client.upgradeToken({ file: Buffer.alloc(4096, 1), file_name: `😀${name}`, auth: AUTH }));
    assert.equal([err.kind, err.error_code], ['invalid_request', 'invalid_firmware']);
    assert.match(err.reason, /257 characters/);
    assert.is(entries(sim, '/API/Maintenance/SystemUpgrade/Token').length, 1);
  }));

test('firmware file name over 256 characters: refused before any request', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const err = await rejection(client.upgradeToken({ file: Buffer.alloc(4096, 1), file_name: `${'n'.repeat(253)}.swx`, auth: AUTH }));
    assert.equal([err.kind, err.error_code], ['invalid_request', 'invalid_firmware']);
    assert.match(err.reason, /257 characters/);
    assert.is(sim.log.length, 0);
  }));

test.run();
