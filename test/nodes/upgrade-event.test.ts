/**
 * nvr-upgrade (token from a buffer or a file, limits checked before anything is sent, progress in
 * the status) and nvr-event (one message per alarm raised on the simulator, stops on close).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Simulator } from '../../simulator';
import { NvrClient } from '../../core';
import {
  helper,
  credentials,
  DEV,
  eventStreamFailures,
  exchange,
  flowWith,
  load,
  newPassword,
  nextMessage,
  node,
  paths,
  simulator,
  statusesOf,
  timerCount,
  upgradeFlow,
  UPGRADE_AUTH,
  UPGRADE_TOKEN_PATH,
  useTempDir,
  waitFor,
  useSimulator,
  type SimulatorContext,
} from './harness';

interface Ctx extends SimulatorContext {
  dir?: string;
}
const test = suite<Ctx>('nodes: nvr-upgrade, nvr-event', { password: newPassword() });

const TOKEN_PATH = UPGRADE_TOKEN_PATH;
const EVENT_PATH = '/API/Event/Check';
const MiB = 1 << 20;
const AUTH = UPGRADE_AUTH;

const flow = (sim: Simulator, props: Record<string, unknown> = {}) => upgradeFlow(sim, { large_capacity: false, ...props });

/** A sparse file of `size` bytes: no disk space used, but stat() reports the size. */
async function sparse(path: string, size: number): Promise<string> {
  const fh = await open(path, 'w');
  await fh.write(Buffer.from('FWHEAD'));
  await fh.truncate(size);
  await fh.close();
  return path;
}

useSimulator(test, { eventHoldMs: 2000 });

/** An nvr-event payload without its arrival time (asserted on its own). */
const alarm = ({ time: _time, ...rest }: Record<string, unknown>) => rest;
useTempDir(test, 'nvr2mqtt-nodes-');

test('nvr-upgrade: a firmware buffer -> upgrade token; a msg.auth given is sent as given; status shows every step', async ({
  sim,
  password,
}) => {
  await load(flow(sim!), credentials(password));
  const firmware = randomBytes(5000);
  const r = await exchange('u1', { payload: firmware, file_name: 'fw_v2.sw', auth: { seq: 7, cipher: 'abc' } });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.type(r.out.payload.upgrade_token, 'string');
  assert.type(r.out.payload.upgrade_timeout, 'number');
  assert.equal(Object.keys(r.out.payload).sort(), ['upgrade_timeout', 'upgrade_token']);
  assert.is(r.out.page, 'Maintenance/SystemUpgrade');
  assert.is(r.out.operation, 'Token');
  const sent = sim!.log.find((e) => e.path === TOKEN_PATH)!.data as any;
  assert.is(sent.file_name, 'fw_v2.sw');
  assert.is(sent.file_size, 5000);
  assert.equal(sent.upgrade_head, [...firmware.subarray(0, 3072)]);
  assert.is(sent.base_secondary_authentication.seq, 7);
  const texts = statusesOf('u1').map((s) => s.text);
  const steps = ['reading file', 'requesting token', 'token received'];
  const at = steps.map((t) => texts.lastIndexOf(t));
  assert.ok(
    at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1])),
    JSON.stringify(texts),
  );
});

test('nvr-upgrade: a file path from the file property; name from the path', async ({ sim, password, dir }) => {
  const file = join(dir!, 'firmware_8.2.4.sw');
  await writeFile(file, randomBytes(4096));
  await load(flow(sim!, { file }), credentials(password));
  const r = await exchange('u1', { payload: Date.now(), auth: AUTH });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is((sim!.log.find((e) => e.path === TOKEN_PATH)!.data as any).file_name, 'firmware_8.2.4.sw');
});

test('nvr-upgrade: an oversized file is refused before any request; large_capacity allows 200 MiB', async ({ sim, password, dir }) => {
  const big = await sparse(join(dir!, 'big.sw'), 150 * MiB);
  await load(flow(sim!), credentials(password));
  await waitFor(() => statusesOf('u1').some((s) => s.fill === 'green'), 'connected');
  sim!.clearLog();
  const r = await exchange('u1', { payload: big, auth: AUTH });
  assert.ok(r.caught, 'expected a refusal');
  assert.is(r.caught.error.code, 'invalid_firmware');
  assert.is(r.caught.error.cause.kind, 'invalid_request');
  assert.ok(r.caught.error.message.includes('100 MiB'), r.caught.error.message);
  assert.equal(paths(sim!), [], 'nothing sent');
  assert.equal(statusesOf('u1').at(-1), { fill: 'red', shape: 'ring', text: 'failed: firmware file refused' });
  await helper.unload();

  // Large-capacity model: 150 MiB passes the node's check and the device's.
  const sim2 = await simulator({ password, largeCapacity: true });
  try {
    await load(flow(sim2, { large_capacity: true }), credentials(password));
    const ok = await exchange('u1', { payload: big, auth: AUTH });
    assert.ok(ok.out, JSON.stringify(ok.caught?.error));
    assert.is((sim2.log.find((e) => e.path === TOKEN_PATH)!.data as any).file_size, 150 * MiB);
  } finally {
    await helper.unload();
    await sim2.stop();
  }
});

test('nvr-upgrade: a name over 256 characters, bad auth, no firmware: refused locally', async ({ sim, password }) => {
  await load(flow(sim!), credentials(password));
  await waitFor(() => statusesOf('u1').some((s) => s.fill === 'green'), 'connected');
  sim!.clearLog();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ payload: Buffer.alloc(4096), file_name: 'x'.repeat(257) }, 'invalid_firmware'],
    [{ payload: Buffer.alloc(4096), auth: { seq: 'one' } }, 'bad_auth'],
    [{ payload: 42 }, 'invalid_firmware'],
    [{ payload: Buffer.alloc(100), file_name: 'short.sw' }, 'invalid_firmware'],
  ];
  for (const [msg, code] of cases) {
    const r = await exchange('u1', msg);
    assert.is(r.caught?.error.code, code, JSON.stringify(r));
  }
  assert.equal(paths(sim!), []);
});

test('nvr-event: one message per alarm raised on the simulator; stops on close', async ({ sim, password }) => {
  const before = timerCount();
  await load(
    flowWith(sim!.url, [
      { id: 'e1', type: 'nvr-event', name: '', device: DEV, wires: [['out']] },
      { id: 'out', type: 'helper' },
    ]),
    credentials(password),
  );
  await waitFor(() => sim!.log.some((e) => e.path === '/API/Event/Check'), 'subscribed');
  const received: any[] = [];
  node('out').on('input', (m: any) => received.push(m));
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  sim!.raiseAlarm({ channel: 'IP_CH1', type: 'pir', active: true });
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  await waitFor(() => received.length >= 3, 'three events');
  assert.equal(
    received.map((m) => m.topic),
    ['CH1/motion', 'IP_CH1/pir', 'CH1/motion'],
  );
  assert.equal(alarm(received[0].payload), { device: 'sim', channel: 'CH1', type: 'motion', active: true, state: true });
  assert.equal(alarm(received[2].payload), { device: 'sim', channel: 'CH1', type: 'motion', active: false, state: false });
  assert.ok(Math.abs(Date.parse(received[0].payload.time) - Date.now()) < 10_000, received[0].payload.time);

  const t0 = Date.now();
  await helper.unload();
  assert.ok(Date.now() - t0 < 2000, `close took ${Date.now() - t0} ms`);
  sim!.clearLog();
  // A time: nothing may come; the timer count below shows that nothing is scheduled for later either.
  await new Promise((r) => setTimeout(r, 300));
  assert.not.ok(paths(sim!).includes('/API/Event/Check'), 'no polling after close');
  assert.ok(timerCount() <= before, `timers: ${before} before, ${timerCount()} after`);
});

test('nvr-event: keeps listening across keep-alives and after the device drops the session', async ({ sim, password }) => {
  await load(
    flowWith(sim!.url, [
      { id: 'e1', type: 'nvr-event', name: '', device: DEV, wires: [['out']] },
      { id: 'out', type: 'helper' },
    ]),
    credentials(password),
  );
  await waitFor(() => sim!.log.some((e) => e.path === '/API/Event/Check'), 'subscribed');
  // The simulator holds a poll 2 s here, then answers a keep-alive; the node polls again.
  await waitFor(() => sim!.log.filter((e) => e.path === '/API/Event/Check').length >= 2, 'a keep-alive', 5000);
  sim!.expireSessions();
  sim!.clearLog();
  await waitFor(() => sim!.log.some((e) => e.path === '/API/Event/Check' && e.status === 200), 'the held poll answered', 6000);
  // The poll after it meets the expired session: re-login, the poll repeated and held again.
  await waitFor(() => sim!.held === 1, 'a poll held under the new session', 3000);
  const next = nextMessage('out');
  sim!.raiseAlarm({ channel: 'CH1', type: 'io', active: true });
  assert.equal(alarm((await next).payload), { device: 'sim', channel: 'CH1', type: 'io', active: true, state: true });
});

test('nvr-event: subscribes again when the device forgets its reader (readerID_invalid)', async ({ sim, password }) => {
  await load(
    flowWith(sim!.url, [
      { id: 'e1', type: 'nvr-event', name: '', device: DEV, wires: [['out']] },
      { id: 'out', type: 'helper' },
    ]),
    credentials(password),
  );
  await waitFor(() => sim!.log.filter((e) => e.path === EVENT_PATH).length >= 2, 'subscribed and polling');
  // The device keeps 32 readers and drops the one idle the longest: 32 new subscriptions drop the node's.
  const other = new NvrClient({ url: sim!.url, username: 'admin', password, heartbeatMs: 0 });
  try {
    for (let i = 0; i < 32; i++) await other.call(EVENT_PATH, {});
  } finally {
    await other.close();
  }
  const invalid = await waitFor(
    () => sim!.log.findIndex((e) => e.path === EVENT_PATH && e.error_code === 'readerID_invalid') + 1,
    'readerID_invalid',
    6000,
  );
  await waitFor(() => sim!.log.slice(invalid).some((e) => e.path === EVENT_PATH && e.status === 200), 'subscribed again', 6000);
  // The node has taken the new subscription's answer (alarms still active are repeated in it) and polls with it.
  await waitFor(() => sim!.held === 1, 'a poll held with the new cursor', 3000);
  const next = nextMessage('out');
  sim!.raiseAlarm({ channel: 'CH4', type: 'motion', active: true });
  assert.equal(alarm((await next).payload), { device: 'sim', channel: 'CH4', type: 'motion', active: true, state: true });
});

test('nvr-event: a device refusing the event poll shows a red ring with the reason; the first answered poll clears it', async ({
  sim,
  password,
}) => {
  sim!.fault({ path: EVENT_PATH, kind: 'not_found' });
  try {
    await load(
      flowWith(sim!.url, [
        { id: 'e1', type: 'nvr-event', name: '', device: DEV, wires: [['out']] },
        { id: 'out', type: 'helper' },
        { id: 'catcher', type: 'catch', scope: ['e1'], uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper' },
      ]),
      credentials(password),
    );
    const caught = await nextMessage('caught');
    assert.is(caught.error.code, 'not_found');
    // The session itself is fine (green), but this node cannot do its job: it says so.
    await waitFor(() => statusesOf('e1').at(-1)?.fill === 'red', 'red status');
    assert.match(statusesOf('e1').at(-1)?.text ?? '', /^not supported by device; retry \d\d:\d\d:\d\d$/); // when the next try is
  } finally {
    sim!.clearFaults();
  }
  await waitFor(() => sim!.log.some((e) => e.path === EVENT_PATH && e.status === 200), 'listening again', 5000);
  // The first answered Event/Check clears the failure, before any alarm.
  await waitFor(() => statusesOf('e1').at(-1)?.fill === 'green', 'status cleared by the first answer', 3000);
  assert.equal(statusesOf('e1').at(-1), { fill: 'green', shape: 'dot', text: 'connected' });
  const next = nextMessage('out');
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  await next;
});

test('nvr-event: a failing event stream reaches a Catch node once per failure streak, with the code', async ({ sim }) => {
  await load(
    flowWith(sim!.url, [
      { id: 'e1', type: 'nvr-event', name: '', device: DEV, wires: [['out']] },
      { id: 'out', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: ['e1'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ]),
    credentials('not-the-password'),
  );
  const caught: any[] = [];
  node('caught').on('input', (m: any) => caught.push(m));
  await waitFor(() => caught.length > 0, 'a Catch message');
  const { error, payload } = caught[0];
  assert.is(error.code, 'verify_failed');
  assert.is(error.cause.kind, 'lockout');
  assert.type(error.cause.reason, 'string');
  assert.is(error.source.id, 'e1');
  assert.is(payload.error_code, 'verify_failed');
  // The node retries after 1 s and 2 s; the same failure is not reported again.
  const retries = eventStreamFailures();
  await waitFor(() => retries() >= 2, 'two failed retries', 5000);
  assert.is(caught.length, 1);
  assert.match(statusesOf('e1').at(-1)?.text ?? '', /^wrong username or password; retry \d\d:\d\d:\d\d$/); // when the next try is
});

test.run();
