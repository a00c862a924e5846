/**
 * Commands and requests on a fake device and fake time (the end-to-end suites, commands.test.ts and hostile.test.ts,
 * run the same paths through a real broker and the simulator). The fake device keeps its pages in the vendor's shapes
 * (test/conformance/vendor.ts) behind the bridge's real write queue, so a command's check, merge, write and report are
 * the bridge's own; only the device and the clock are stand-ins.
 */
import * as assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { suite } from 'uvu';
import { liveState, type LiveChange, type LiveState } from '../../core';
import { Commands } from '../../bridge/api/commands';
import { parseConfig } from '../../bridge/base/config';
import type { BridgeContext } from '../../bridge/api/context';
import type { Device } from '../../bridge/device/device';
import { createLogger } from '../../bridge/base/log';
import { noSecrets } from '../../core/quote';
import { Requests } from '../../bridge/api/requests';
import { DeviceRuntime } from '../../bridge/device/runtime';
import { emptyFacts, valueAt, type Json } from '../../bridge/device/state';
import { Topics } from '../../bridge/mqtt/topics';
import { mergeChanges, WriteQueue, type Change } from '../../bridge/device/write-queue';
import { deterrenceGet, deterrenceRange, liveFull, voiceAlarmGet, voiceAlarmRange } from '../conformance/vendor';
import { runOut, withFakeTime, type Clock } from '../helpers/fake-time';

const test = suite('bridge commands (unit)');
const topics = new Topics('nvr2mqtt', 'homeassistant');
const cfg = parseConfig(
  { devices: [{ id: 'nvr', url: 'http://127.0.0.1:9', username: 'u', password: 'p', poll_interval: 3600, events: false }] },
  { env: {} },
).config.devices[0];

const clone = <T>(x: T): T => structuredClone(x);
const WRITE_MS = 400;

/**
 * The device side: config pages as the vendor answers them, written after `WRITE_MS` each; the live page of CH1.
 * `firstPoll` holds the first poll until released (a device that has not answered yet).
 */
function fakeDevice(o: { ignore?: (page: string, change: Change) => boolean; firstPoll?: Promise<void> } = {}) {
  const pages = new Map<string, Json>([
    ['AlarmConfig/Deterrence', clone(deterrenceGet)],
    ['AlarmConfig/VoiceAlarm', clone(voiceAlarmGet)],
  ]);
  const writes: Array<{ at: number; page: string; data: Json }> = [];
  const liveWrites: Array<{ at: number; channel: string; change: LiveChange }> = [];
  let live: LiveState = liveState('CH1', liveFull);
  let polls = 0;
  const model = emptyFacts();
  model.info = { device_name: 'NVR' };
  model.channelList = new Map([['CH1', true]]);
  model.ranges.set('AlarmConfig/Deterrence', clone(deterrenceRange));
  model.ranges.set('AlarmConfig/VoiceAlarm', clone(voiceAlarmRange));
  for (const [page, data] of pages) model.gets.set(page, clone(data));
  model.live.set('CH1', live);
  const device = {
    id: 'nvr',
    facts: model,
    channels: () => ['CH1'],
    async poll() {
      if (polls++ === 0) await o.firstPoll;
    },
    invalidate() {},
    readAllSettings() {},
    async close() {},
    writes: new WriteQueue(async (page, batch) => {
      const changes = batch.flatMap((job) => (job.kind === 'changes' ? job.changes : []));
      const data = mergeChanges(changes, pages.get(page));
      writes.push({ at: Date.now(), page, data });
      await delay(WRITE_MS);
      const stored = pages.get(page)!;
      for (const c of changes) {
        if (o.ignore?.(page, c)) continue;
        let node = stored;
        for (const k of c.path.slice(0, -1)) node = node[k] as Json;
        node[c.path[c.path.length - 1]] = c.value;
      }
      return { readBack: clone(stored) };
    }),
    async writeLive(channel: string, change: LiveChange): Promise<LiveState> {
      // Applied at once; the read-back comes 50 ms later and shows whatever the live page holds by then.
      liveWrites.push({ at: Date.now(), channel, change });
      live = { ...live, ...change };
      await delay(50);
      return live;
    },
    async writeDisarmed(): Promise<boolean> {
      throw new Error('not used here');
    },
  };
  return { device: device as unknown as Device, pages, writes, liveWrites, polls: () => polls };
}

/** The bridge's command side around one fake device: what it reported on `bridge/event` and in responses. */
async function rig(clock: Clock, fake = fakeDevice()) {
  const rt = new DeviceRuntime(cfg, { log: createLogger({ sink: () => undefined }), deviceFactory: () => fake.device });
  const events: Array<{ type: string; data: Json }> = [];
  const responses: Array<{ topic: string; body: Json }> = [];
  const inflight = new Set<Promise<unknown>>();
  let stopping = false;
  const ctx: BridgeContext = {
    topics,
    link: { publish: (topic: string, payload: string) => responses.push({ topic, body: JSON.parse(payload) as Json }) } as never,
    log: createLogger({ sink: () => undefined }),
    devices: new Map([['nvr', rt]]),
    event: (type, data) => events.push({ type, data }),
    commandError: () => undefined,
    publishState: () => undefined,
    refresh: async () => undefined,
    get stopping() {
      return stopping;
    },
    track(work) {
      inflight.add(work);
      const done = () => inflight.delete(work);
      work.then(done, done);
      return work;
    },
    quoter: noSecrets,
  };
  const commands = new Commands(ctx);
  const requests = new Requests(ctx);
  rt.start();
  await clock.tickAsync(0);
  /** Sends a command to `nvr2mqtt/nvr/<topic>` as the broker delivers it (`retained`: from the broker's store). */
  const set = (topic: string, payload: string, retained = false) => {
    const parsed = topics.parse(`nvr2mqtt/nvr/${topic}`);
    assert.ok(parsed && parsed.kind !== 'request', topic);
    commands.handle(`nvr2mqtt/nvr/${topic}`, parsed, Buffer.from(payload), retained);
  };
  const request = (op: string, body: string, retained = false) => requests.handle(topics.request(op), op, Buffer.from(body), retained);
  /** Runs the clock until every command has been carried out. */
  const settled = async () => {
    while (inflight.size) await clock.tickAsync(100);
  };
  return {
    fake,
    events,
    responses,
    set,
    request,
    settled,
    stop: async () => {
      stopping = true;
      commands.close();
      await runOut(clock, rt.stop());
    },
  };
}

const refusals = (r: { events: Array<{ type: string; data: Json }> }) => r.events.filter((e) => e.type === 'command_refused');

test('a malformed payload is refused with its reason; nothing reaches the device', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    r.set('ch1/set', '{"siren_on_alarm": tru');
    r.set('ch1/set', '[1,2]');
    r.set('ch1/set', '{}');
    r.set('ch1/set/siren_volume', 'loud');
    await r.settled();
    const reasons = refusals(r).map((e) => String(e.data.reason));
    assert.deepEqual(reasons.slice(0, 3), [
      'payload is not valid JSON',
      'payload must be a JSON object (got an array)',
      'nothing to set (empty object)',
    ]);
    assert.equal(reasons.length, 4);
    assert.match(reasons[3], /^siren_volume: /);
    assert.deepEqual(r.fake.writes, []);
    await r.stop();
  }));

test('out of Range: refused by the Range the device reported, with the violation; one bad key refuses the whole command', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    r.set('ch1/set/siren_volume', '11'); // VoiceAlarm siren_value: 1..10
    r.set('ch1/set', '{"siren_on_alarm":false,"floodlight_mode":"Disco"}');
    r.set('ch1/set/floodlight', '{"state":"ON","brightness":95}'); // the live page's own range: 10..90
    await r.settled();
    const [volume, mode, light] = refusals(r);
    assert.equal(volume.data.key, 'siren_volume');
    assert.match(String(volume.data.reason), /\(siren_volume\) must be at most 10/);
    assert.ok(Array.isArray(volume.data.violations) && volume.data.violations.length === 1, 'the violation, by path');
    assert.equal(mode.data.key, 'floodlight_mode');
    assert.match(String(mode.data.reason), /Warninglight/, 'the allowed options are named');
    assert.match(String(light.data.reason), /between 10 and 90 \(got 95\)/);
    assert.deepEqual(r.fake.writes, [], 'nothing written, not even the good key of the refused command');
    assert.deepEqual(r.fake.liveWrites, []);
    await r.stop();
  }));

test('superseded commands (ON, OFF, ON, OFF within one write): one merged write, only the last command reported', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    for (const v of ['ON', 'OFF', 'ON', 'OFF']) r.set('ch1/set/floodlight_on_alarm', v);
    await r.settled();
    // The first write went out at once; the other three waited and were merged into one (the last value wins).
    assert.deepEqual(
      r.fake.writes.map((w) => [w.at, valueAt(w.data, ['channel_info', 'CH1', 'flood_light_switch'])]),
      [
        [0, true],
        [WRITE_MS, false],
      ],
    );
    assert.equal(valueAt(r.fake.pages.get('AlarmConfig/Deterrence'), ['channel_info', 'CH1', 'flood_light_switch']), false);
    assert.deepEqual(r.events, [], 'no command_not_confirmed for the commands the last one replaced');
    await r.stop();
  }));

test('the last command is still reported when the device does not take it', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock, fakeDevice({ ignore: (_page, c) => c.path.at(-1) === 'siren_value' }));
    r.set('ch1/set/siren_volume', '3');
    r.set('ch1/set/siren_volume', '7');
    await r.settled();
    assert.deepEqual(r.events, [
      {
        type: 'command_not_confirmed',
        data: {
          topic: 'nvr2mqtt/nvr/ch1/set/siren_volume',
          device: 'nvr',
          field: 'channel_info.CH1.siren_value',
          requested: 7,
          reported: 5,
        },
      },
    ]);
    await r.stop();
  }));

test('a 30,000-deep payload is refused for its depth (no stack overflow, no internal error); a request keeps its transaction', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`; // 60 kB: within the size limit
    r.set('ch1/set', `{"siren_on_alarm":${deep}}`);
    r.request('set', `{"transaction":"deep-1","device":"nvr","page":"AlarmConfig/VoiceAlarm","data":${deep}}`);
    await r.settled();
    assert.match(String(refusals(r)[0].data.reason), /nested too deeply/);
    assert.equal(r.responses.length, 1);
    assert.equal(r.responses[0].body.transaction, 'deep-1');
    assert.equal(r.responses[0].body.error_code, 'refused');
    assert.match(String(r.responses[0].body.error), /nested too deeply/);
    assert.deepEqual(r.fake.writes, []);
    await r.stop();
  }));

test('retained: a command or request from the broker store is refused once, the request with its transaction', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    r.set('ch1/set/siren_on_alarm', 'OFF', true);
    r.request('get', '{"transaction":7,"device":"nvr","page":"AlarmConfig/VoiceAlarm"}', true);
    await r.settled();
    assert.equal(refusals(r).length, 2, 'one refusal each');
    assert.match(String(refusals(r)[0].data.reason), /retained command ignored/);
    assert.equal(refusals(r)[1].data.transaction, 7);
    assert.deepEqual(
      r.responses.map((x) => [x.topic, x.body.status, x.body.transaction]),
      [['nvr2mqtt/bridge/response/get', 'error', 7]],
    );
    assert.deepEqual(r.fake.writes, []);
    await r.stop();
  }));

test('stopping: commands and requests are refused with that reason, the request with its transaction', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    await r.stop();
    r.set('ch1/set/siren_on_alarm', 'OFF');
    r.request('get', '{"transaction":"t-stop","device":"nvr","page":"AlarmConfig/VoiceAlarm"}');
    assert.deepEqual(
      refusals(r).map((e) => e.data.reason),
      ['the bridge is stopping', 'the bridge is stopping'],
    );
    assert.equal(r.responses[0].body.transaction, 't-stop');
    assert.deepEqual(r.fake.writes, []);
  }));

test('a command before the first poll waits for it and is then carried out; without an answer it is refused after 15 s', () =>
  withFakeTime(async (clock) => {
    let answer!: () => void;
    const r = await rig(clock, fakeDevice({ firstPoll: new Promise<void>((res) => (answer = res)) }));
    r.set('ch1/set/siren_on_alarm', 'OFF');
    await clock.tickAsync(5_000);
    assert.deepEqual(r.events, [], 'waiting, not refused');
    answer();
    await r.settled();
    assert.equal(r.fake.writes.length, 1, 'carried out once the device answered');
    assert.equal(r.fake.writes[0].at, 5_000);
    await r.stop();

    const silent = await rig(clock, fakeDevice({ firstPoll: new Promise<void>(() => undefined) }));
    const t0 = Date.now();
    silent.set('ch1/set/siren_on_alarm', 'OFF');
    await clock.tickAsync(14_999);
    assert.deepEqual(silent.events, []);
    await clock.tickAsync(1);
    assert.deepEqual(
      refusals(silent).map((e) => [Date.now() - t0, e.data.reason]),
      [[15_000, 'device nvr has not answered yet (starting)']],
    );
    assert.deepEqual(silent.fake.writes, []);
  }));

test("siren with Home Assistant's duration: switched off again exactly that long after it went on; a later siren command cancels it", () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    r.set('ch1/set/siren', '{"state":"ON","duration":10,"volume_level":0.5}');
    await clock.tickAsync(50); // the live write
    assert.deepEqual(r.fake.liveWrites, [{ at: 0, channel: 'CH1', change: { siren: true, volume: 5 } }]);
    await clock.tickAsync(9_999);
    assert.equal(r.fake.liveWrites.length, 1, 'still on just before the duration is over');
    await clock.tickAsync(1);
    assert.deepEqual(r.fake.liveWrites[1], { at: 10_050, channel: 'CH1', change: { siren: false } });

    r.set('ch1/set/siren', '{"state":"ON","duration":5}');
    await clock.tickAsync(1_000);
    r.set('ch1/set/siren', 'ON'); // no duration: on until told otherwise
    await clock.tickAsync(60_000);
    assert.deepEqual(
      r.fake.liveWrites.slice(2).map((w) => w.change),
      [{ siren: true }, { siren: true }],
      'the pending switch-off was cancelled',
    );
    assert.deepEqual(r.events, []);
    await r.stop();
  }));

test('a siren command arriving while one with a duration is still being confirmed: no switch-off; superseded live commands are not reported', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    r.set('ch1/set/siren', '{"state":"ON","duration":10}');
    await clock.tickAsync(10); // its read-back is still on the way
    r.set('ch1/set/siren', 'ON'); // no duration: on until told otherwise
    await clock.tickAsync(60_000);
    assert.deepEqual(
      r.fake.liveWrites.map((w) => w.change),
      [{ siren: true }, { siren: true }],
      'the later command replaced the switch-off before it was armed',
    );
    r.set('ch1/set/floodlight', 'ON');
    await clock.tickAsync(10);
    r.set('ch1/set/floodlight', 'OFF'); // the ON's read-back will show OFF
    await r.settled();
    assert.deepEqual(r.events, [], 'no command_not_confirmed for the ON the OFF replaced');
    await r.stop();
  }));

test('stop() cancels a pending siren switch-off (no write after stop)', () =>
  withFakeTime(async (clock) => {
    const r = await rig(clock);
    r.set('ch1/set/siren', '{"state":"ON","duration":30}');
    await clock.tickAsync(100);
    await r.stop();
    await clock.tickAsync(60_000);
    assert.deepEqual(
      r.fake.liveWrites.map((w) => w.change),
      [{ siren: true }],
    );
  }));

test.run();
