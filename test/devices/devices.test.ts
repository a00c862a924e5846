/**
 * Every capture in test/devices/ (made by `nvr2mqtt capture`) is a device the product must work with. Each is served
 * by the simulator's replay (`nvr2mqtt simulate --replay`); one bridge on one broker runs them all, and per capture:
 * the device comes online, its discovery passes Home Assistant's checks, every configured channel's state is
 * published, one command per writable entity round-trips to its confirmed state, and the client reads every page
 * the capture answered without a schema error (a failure names the page and the field).
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import { DeviceError, NvrClient, channelSlug, findOperation } from '../../core';
import { startBridge, type Bridge } from '../../bridge/bridge';
import { parseConfig } from '../../bridge/base/config';
import { createLogger } from '../../bridge/base/log';
import { startReplay, type CaptureData, type Replay } from '../../simulator';
import { readCaptures } from './device-table';
import { clearRetained, Recorder, startTestBroker, uniqueTopics, type TestBroker } from '../helpers/mqtt-broker';
import { deviceDiscoveryProblems, selectSends } from '../bridge/homeassistant';

const test = suite('devices that work (test/devices/ replayed)');
const PASSWORD = `replay-${randomBytes(6).toString('hex')}`;

const captures: Array<{ id: string; capture: CaptureData }> = readCaptures().map(({ file, capture }) => ({
  id: file.slice(0, -'.json'.length),
  capture,
}));

type Json = Record<string, any>;
/** Platforms whose command has no state to confirm: a button's press, an update's install. */
const NO_STATE_PLATFORMS = new Set(['button', 'update']);
let broker: TestBroker;
let recorder: Recorder;
let bridge: Bridge;
const replays = new Map<string, Replay>();
const { base, prefix } = uniqueTopics('devices');
const logs: string[] = [];

test.before(async () => {
  broker = await startTestBroker();
  for (const { id, capture } of captures) replays.set(id, await startReplay({ capture, password: PASSWORD }));
  recorder = await Recorder.start(broker.url, ['#'], (t) => t.startsWith(base) || t.startsWith(prefix));
  const config = parseConfig(
    {
      mqtt: { url: broker.url, base_topic: base },
      homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
      devices: captures.map(({ id }) => ({
        id,
        url: replays.get(id)!.url,
        username: 'admin',
        password: PASSWORD,
        poll_interval: 0.5,
        request_rate: 50,
      })),
    },
    { env: {} },
  ).config;
  const log = createLogger({ level: 'info', sink: (level, line) => logs.push(`${level} ${line}`) });
  bridge = await startBridge(config, { log, backoff: { minMs: 50, maxMs: 300 }, haStateDelayMs: 100, deviceTimeoutMs: 2000 });
});

test.after(async () => {
  await bridge?.stop();
  for (const r of replays.values()) await r.stop();
  await clearRetained(broker.url, [base, prefix]);
  await recorder?.stop();
  await broker?.stop();
  const leaked = [...recorder.messages.map((m) => m.payload), ...logs].filter((l) => l.includes(PASSWORD));
  assert.deepEqual(leaked, [], 'the password in a message or a log line');
});

/** The discovery configs of one device (recorder and channels), as last published. */
function discoveryOf(id: string): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const m of recorder.on((t) => t.startsWith(`${prefix}/device/`) && (t.endsWith(`_${id}/config`) || t.includes(`_${id}_`)))) {
    if (m.payload) out.set(m.topic, JSON.parse(m.payload) as Json);
  }
  return out;
}

/** The channels the capture's ChannelInfo lists as configured (the bridge's channel slugs). */
function configuredChannels(capture: CaptureData): string[] {
  const x = capture.exchanges.find((e) => e.path === '/API/Login/ChannelInfo/Get' && e.status === 200);
  const param = (x?.body as Json | undefined)?.data?.channel_param;
  const list: Json[] = Array.isArray(param) ? param : (param?.items ?? []);
  return list.filter((c) => c.connect_status !== 'NotConfigured').map((c) => channelSlug(c.channel as string));
}

/** A value other than `current` that the entity takes: the other switch position, another bound, another option. */
function anotherValue(c: Json, current: unknown): unknown {
  if (typeof current === 'boolean') return !current;
  if (typeof current === 'number') {
    const min = c.min ?? c.mn;
    const max = c.max ?? c.mx;
    if (typeof min === 'number' && current !== min) return min;
    if (typeof max === 'number' && current !== max) return max;
    return current + 1;
  }
  if (c.options ?? c.ops) return selectSends(c).find((o) => o !== current);
  return undefined;
}

/** Every page the capture answered, read by the client through its declared operation: what it could not read. */
async function unreadablePages(url: string, capture: CaptureData): Promise<{ problems: string[]; read: number }> {
  const client = new NvrClient({ url, username: 'admin', password: PASSWORD, heartbeatMs: 0 });
  const problems: string[] = [];
  let read = 0;
  try {
    for (const x of capture.exchanges) {
      const [page, op] = [x.path.replace(/^\/API\//, '').replace(/\/[^/]+$/, ''), x.path.split('/').at(-1)!];
      const declared = findOperation(page, op);
      if (!declared || x.status !== 200 || x.path === '/API/Event/Check') continue;
      try {
        await client.invoke(declared, x.request);
        read++;
      } catch (err) {
        const e = err as DeviceError;
        problems.push(`${x.path}: ${e.error_code} ${e.reason}`);
      }
    }
  } finally {
    await client.close();
  }
  return { problems, read };
}

async function waitOnline(id: string): Promise<void> {
  await recorder.waitTopic(`${base}/${id}/availability`, (j) => j.state === 'online', 15_000);
  // The channels' discovery follows the first states.
  await recorder.waitFor((m) => m.topic.startsWith(`${prefix}/device/`) && m.topic.includes(`_${id}`), 10_000);
}

for (const { id, capture } of captures) {
  test(`${id}: online, Home Assistant accepts its discovery, every channel's state published`, async () => {
    await waitOnline(id);
    const configs = discoveryOf(id);
    assert.ok(configs.size > 0, 'discovery published');
    for (const [topic, cfg] of configs) assert.deepEqual(deviceDiscoveryProblems(cfg), [], topic);
    const channels = configuredChannels(capture);
    assert.ok(channels.length > 0, 'the capture lists channels');
    for (const ch of channels) await recorder.waitTopic(`${base}/${id}/${ch}`, () => true, 5000);
  });

  test(`${id}: one command per writable entity round-trips to its confirmed state`, async () => {
    await waitOnline(id);
    // Each writable entity: where its command goes, and the state topic and member that confirm it.
    const commands: Array<{ command: string; state: string; member: string; c: Json }> = [];
    for (const cfg of discoveryOf(id).values()) {
      for (const c of Object.values((cfg.cmps ?? {}) as Record<string, Json>)) {
        const command = (c.cmd_t ?? c.command_topic) as string | undefined;
        const m = command ? /^(.*)\/set\/([a-z0-9_]+)$/.exec(command) : null;
        // A button's press has no state to confirm it (restart, PTZ moves); an update installs firmware, not a setting.
        if (!m || NO_STATE_PLATFORMS.has(c.p as string)) continue;
        // An entity on a state topic of its own (the PTZ preset) names its member in its value template.
        const own = (c.stat_t ?? c.state_topic) as string | undefined;
        const member = own && own !== m[1] ? /value_json\.([a-z0-9_]+)/.exec((c.val_tpl ?? c.value_template) as string)?.[1] : undefined;
        commands.push(member ? { command: command!, state: own!, member, c } : { command: `${m[1]}/set`, state: m[1], member: m[2], c });
      }
    }
    assert.ok(commands.length > 0, 'writable entities');
    const failed: string[] = [];
    for (const { command, state, member, c } of commands) {
      const current = recorder.lastJson<Json>(state)?.[member];
      const value = anotherValue(c, current);
      if (value === undefined) {
        failed.push(`${state} ${member}: no value to change to from ${JSON.stringify(current)}`);
        continue;
      }
      const since = recorder.count;
      await recorder.publish(command, command.endsWith('/set') ? JSON.stringify({ [member]: value }) : String(value));
      await recorder
        .waitTopic(state, (j) => j[member] === value, 5000, since)
        .catch(() =>
          failed.push(
            `${state} ${member}: ${JSON.stringify(value)} not confirmed (${JSON.stringify(recorder.lastJson<Json>(state)?.[member])})`,
          ),
        );
    }
    assert.deepEqual(failed, []);
  });

  test(`${id}: the client reads every page the capture answered without a schema error`, async () => {
    const { problems, read } = await unreadablePages(replays.get(id)!.url, capture);
    assert.deepEqual(problems, []);
    assert.ok(read >= 10, `${read} pages read`);
  });
}

test('a page the client cannot read fails with the page and the field', async () => {
  const { capture } = captures[0];
  // The device's model as a list: DeviceInfo's schema wants text.
  const broken = structuredClone(capture);
  const info = broken.exchanges.find((x) => x.path === '/API/Login/DeviceInfo/Get')!;
  (info.body as Json).data.device_type = ['N1'];
  const replay = await startReplay({ capture: broken, password: PASSWORD });
  try {
    const { problems } = await unreadablePages(replay.url, broken);
    assert.ok(problems.length > 0);
    for (const p of problems) assert.match(p, /^\/API\/Login\/DeviceInfo\/Get: invalid_answer data\.device_type: expected string/);
  } finally {
    await replay.stop();
  }
});

test.run();
