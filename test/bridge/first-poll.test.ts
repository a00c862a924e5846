/**
 * What a recorder's first poll asks of it (issue 23: start-up at scale). A 16-channel recorder at the default request
 * budget (8 a second), real HTTP to the simulator, requests counted at the simulator: every read once (the page that
 * tells how the recorder disarms is also the poll's read of that page, the identity's DeviceInfo also gives the
 * recorder's alarm inputs), and no more than what decides the device's entities. The time it took is printed, never
 * asserted.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { LIVE_HARDWARE } from '../../core';
import { polledPages } from '../../bridge/device/table';
import type { LogEntry } from '../../simulator';
import { setup, until } from './fixture';

const test = suite('bridge first poll');

const RATE = 8;
/** A read: its path and what it asked (the live page is read once per channel). */
const readKey = (e: LogEntry) => `${e.path.replace(/^\/API\//, '')} ${JSON.stringify(e.data ?? {})}`;

const isLogin = (e: LogEntry) => e.path === '/API/Web/Login';

/** Reads made more than once (the log-in is two requests by design: challenge and answer, their bodies redacted). */
function repeated(reads: readonly LogEntry[]): string[] {
  const seen = new Map<string, number>();
  for (const e of reads) if (!isLogin(e)) seen.set(readKey(e), (seen.get(readKey(e)) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} x${n}`);
}

function byPage(reads: readonly LogEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of reads) {
    const page = e.path.replace(/^\/API\//, '');
    out[page] = (out[page] ?? 0) + 1;
  }
  return out;
}

test('first poll of a 16-channel recorder: each read once, no more than what decides its entities; the reads that follow once too', async () => {
  const fx = await setup({
    label: 'firstpoll',
    noWait: true,
    devices: [{ id: 'nvr', sim: { channels: 16 }, poll: 60, budget: { rate: RATE } }],
  });
  try {
    const sim = fx.sims.get('nvr')!;
    const device = fx.bridge.devices.get('nvr')!.device;
    assert.equal(device.polled, false, 'attached before the first poll ended');
    // The first poll's end: its update, before anything it triggers (cameras, firmware, events) reaches the device.
    const end = await new Promise<number>((resolve) => device.once('update', () => resolve(sim.log.length)));
    const reads = sim.log.slice(0, end);
    const ms = reads[reads.length - 1].time - reads[0].time;
    console.log(`   first poll: ${reads.length} requests in ${ms} ms at ${RATE} a second: ${JSON.stringify(byPage(reads))}`);

    assert.deepEqual(repeated(reads), [], 'no read twice');
    assert.ok(reads.filter(isLogin).length <= 2, 'one log-in: challenge and answer');
    const disarmPage = device.facts.disarmPage;
    assert.equal(disarmPage, 'AlarmConfig/Disarming');
    const pages = polledPages(disarmPage);
    const models = device.facts.channelSlots ?? [];
    const live = models.filter((m) => m.configured && m.online && LIVE_HARDWARE.some((part) => m.hardware[part])).length;
    assert.ok(live > 0, 'the recorder has channels with a light or siren');
    // Log-in (challenge, answer); identity (SystemInfo, DeviceInfo); channel list; Range and Get of each page polled on
    // this recorder (the disarm page's Get among them); the live page of each online channel with a light or siren;
    // the alarm outputs.
    const bound = 2 + 2 + 1 + 2 * pages.length + live + 1;
    assert.ok(reads.length <= bound, `${reads.length} requests, at most ${bound}`);
    // What decides the entities is all read: every polled page's Range and Get.
    const read = new Set(reads.map((e) => e.path));
    for (const page of pages) for (const op of ['Range', 'Get']) assert.ok(read.has(`/API/${page}/${op}`), `${page}/${op} read`);
    // A page only other recorders' rows read publishes nothing here: not even its Range.
    assert.ok(!read.has('/API/LinkageConfig/LinkageManage/Range'), 'no LinkageManage Range on a Disarming recorder');

    // What the device's availability and entities start (cameras, PTZ, firmware, restarts, disks): each once too.
    // Event checks repeat by design; quiet (no other read for a second) ends the start-up.
    const others = () => sim.log.filter((e) => !e.path.endsWith('/Event/Check'));
    await until(
      () => {
        const last = others().at(-1);
        return others().length > end && !!last && Date.now() - last.time > 1000;
      },
      'start-up reads done',
      20_000,
    );
    const startup = others();
    console.log(`   then ${startup.length - end} more before it is quiet: ${JSON.stringify(byPage(startup.slice(end)))}`);
    assert.deepEqual(repeated(startup), [], 'no read twice in the start-up');
    assert.equal(startup.filter(isLogin).length, reads.filter(isLogin).length, 'no log-in again');
  } finally {
    await fx.stop();
  }
});

test('a 64-channel recorder with the default budget (8 a second, 32 waiting) comes online: its own first poll is never "device busy"', async () => {
  const fx = await setup({
    label: 'poll64',
    noWait: true,
    devices: [{ id: 'nvr', sim: { channels: 64 }, poll: null, budget: { rate: RATE } }],
  });
  try {
    const sim = fx.sims.get('nvr')!;
    const t0 = Date.now();
    await fx.recorder.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'online', 60_000);
    console.log(`   64 channels: online after ${Date.now() - t0} ms, ${sim.log.length} requests`);
    // Every channel's state follows (64 slots, 56 configured: the simulator leaves a few empty).
    const channels = fx.bridge.devices.get('nvr')!.device.channels();
    assert.ok(channels.length > 50, `${channels.length} channels`);
    for (const ch of channels) await fx.recorder.waitTopic(`${fx.base}/nvr/${ch.toLowerCase()}`, () => true, 20_000);
    const busy = fx.logs.filter((l) => l.includes('device busy'));
    assert.deepEqual(busy, [], 'nothing refused by its own budget');
  } finally {
    await fx.stop();
  }
});

test.run();
