/**
 * The replay of a capture (`nvr2mqtt simulate --replay FILE`): reads answer as captured (the same channel's), a page
 * the device refused stays refused (its Set too), a path never captured is unknown, a write shows in later reads,
 * events replay in order and then keep alive, u64 members go out as raw numbers, and login is the simulator's own.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import { DeviceError, NvrClient } from '../../core';
import { parseCapture, startReplay, type CaptureData, type Replay } from '../../simulator';

const test = suite('simulator replay of a capture');
const PASSWORD = 'replay-pw';
const ok = (data: unknown) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: { result: 'success', data } });
const refused = { status: 400, body: { result: 'failed', reason: 'Not support', error_code: 'no_support', data: {} } };

const CAPTURE: CaptureData = {
  format: 'nvr2mqtt-capture',
  version: 1,
  device: { model: 'N1', firmware: 'V1', kind: 'recorder', channels: 2 },
  exchanges: [
    { path: '/API/Web/Login', request: {}, ...ok({}) },
    { path: '/API/Login/DeviceInfo/Get', request: {}, ...ok({ dev_type: '9223372036854775809' }), raw_numbers: ['dev_type'] },
    {
      path: '/API/PreviewChannel/Floodlight2AudioAlarm/Get',
      request: { channel: 'CH1', command_flag: false },
      ...ok({ channel: 'CH1', floodlight_switch: false, floodlight_value: 50 }),
    },
    {
      path: '/API/PreviewChannel/Floodlight2AudioAlarm/Get',
      request: { channel: 'CH2', command_flag: false },
      ...ok({ channel: 'CH2', floodlight_switch: false, floodlight_value: 20 }),
    },
    { path: '/API/AlarmConfig/Disarming/Get', request: {}, ...refused },
    { path: '/API/Event/Check', request: {}, ...ok({ reader_id: 3, sequence: 0, heat_alarm: 'HeatAlarm' }) },
    {
      path: '/API/Event/Check',
      request: { reader_id: 3 },
      ...ok({ reader_id: 3, sequence: 1, alarm_list: [{ channel_alarm: [{ channel: 'CH1', motion_alarm: true }] }] }),
    },
  ],
};

let replay: Replay;
let client: NvrClient;
test.before(async () => {
  replay = await startReplay({ capture: parseCapture(JSON.stringify(CAPTURE)), password: PASSWORD });
  client = new NvrClient({ url: replay.url, username: 'admin', password: PASSWORD, heartbeatMs: 0 });
});
test.after(async () => {
  await client.close();
  await replay.stop();
});

test('reads answer as captured, the channel asked for; u64 members as raw numbers', async () => {
  assert.deepEqual(await client.call('/API/PreviewChannel/Floodlight2AudioAlarm/Get', { channel: 'CH2', command_flag: false }), {
    channel: 'CH2',
    floodlight_switch: false,
    floodlight_value: 20,
  });
  assert.equal((await client.deviceInfo()).dev_type, '9223372036854775809');
  const raw = await fetch(`${replay.url}/API/Login/DeviceInfo/Get`, { method: 'POST', body: '{"data":{}}' });
  assert.equal(raw.status, 401, 'no session, no answer');
});

test('a write is accepted and shows in later reads of the channel written, not of the others', async () => {
  await client.call('/API/PreviewChannel/Floodlight2AudioAlarm/Set', {
    channel: 'CH1',
    floodlight_switch: true,
    floodlight_value: 80,
    not_in_get: 1,
  });
  const ch1 = (await client.call('/API/PreviewChannel/Floodlight2AudioAlarm/Get', { channel: 'CH1', command_flag: false })) as Record<
    string,
    unknown
  >;
  assert.deepEqual(ch1, { channel: 'CH1', floodlight_switch: true, floodlight_value: 80 });
  const ch2 = (await client.call('/API/PreviewChannel/Floodlight2AudioAlarm/Get', { channel: 'CH2', command_flag: false })) as Record<
    string,
    unknown
  >;
  assert.equal(ch2.floodlight_switch, false);
});

test('a refused page stays refused, its Set too; a page never captured is unknown', async () => {
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'answered',
      (e: DeviceError) => `${e.status} ${e.error_code}`,
    );
  assert.equal(await codeOf(client.call('/API/AlarmConfig/Disarming/Get', {})), '400 no_support');
  assert.equal(await codeOf(client.call('/API/AlarmConfig/Disarming/Set', { disarming: true })), '400 no_support');
  assert.equal(await codeOf(client.call('/API/AlarmConfig/Deterrence/Get', {})), '404 not_found');
});

test('events replay in order, then keep alive on the same reader', async () => {
  const answers: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 3; i++) answers.push((await client.call('/API/Event/Check', { reader_id: 3 })) as Record<string, unknown>);
  assert.equal(answers[0].heat_alarm, 'HeatAlarm');
  assert.ok(JSON.stringify(answers[1].alarm_list).includes('motion_alarm'));
  assert.deepEqual(answers[2], { reader_id: 3, sequence: 1, heat_alarm: 'HeatAlarm' });
});

test('a file that is no capture is refused with what is wrong', () => {
  assert.throws(() => parseCapture('{"format":"other"}'), /not a capture/);
  assert.throws(() => parseCapture('{"format":"nvr2mqtt-capture","version":2,"exchanges":[]}'), /version 2/);
  assert.throws(
    () => parseCapture('{"format":"nvr2mqtt-capture","version":1,"exchanges":[{"path":"/x"}]}'),
    /exchanges\[0\] needs path and status/,
  );
});

test('nvr2mqtt simulate --replay serves the file until stopped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-replay-'));
  const file = join(dir, 'capture.json');
  writeFileSync(file, JSON.stringify(CAPTURE));
  const child = spawn(process.execPath, [
    join(__dirname, '..', '..', 'bridge', 'app', 'cli.js'),
    'simulate',
    '--replay',
    file,
    '--port',
    '0',
    '--password',
    PASSWORD,
    '--quiet',
  ]);
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out);
      });
      child.on('exit', () => reject(new Error(`exited: ${out}`)));
    });
    assert.match(line, /replaying .*capture\.json \(N1, firmware V1\) on http:\/\/127\.0\.0\.1:\d+ \(user admin\)/);
    const url = /on (http:\/\/\S+)/.exec(line)![1];
    const c = new NvrClient({ url, username: 'admin', password: PASSWORD, heartbeatMs: 0 });
    assert.equal((await c.deviceInfo()).dev_type, '9223372036854775809');
    await c.close();
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
