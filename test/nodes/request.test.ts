/**
 * nvr-range, nvr-get, nvr-set with node-red-node-test-helper against the simulator: answers,
 * channel scoping, msg overrides, Range-checked Sets, and errors reaching a Catch node.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Simulator } from '../../simulator';
import {
  helper,
  credentials,
  DEV,
  exchange,
  flowWith,
  load,
  newPassword,
  paths,
  waitFor,
  statusesOf,
  type FlowNode,
  useSimulator,
  type SimulatorContext,
} from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: nvr-range, nvr-get, nvr-set', { password: newPassword() });

const DETERRENCE = 'AlarmConfig/Deterrence';
const VOICE = 'AlarmConfig/VoiceAlarm';
const state = (sim: Simulator, page: string) => (sim.state as any)[page];

/** One request node `n1` wired to helper `out`, and a Catch node feeding helper `caught`. */
function flow(sim: Simulator, type: string, props: Record<string, unknown>): FlowNode[] {
  return flowWith(sim.url, [
    { id: 'n1', type, name: '', device: DEV, page: DETERRENCE, channel: '', data: '', wires: [['out']], ...props },
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: ['n1'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ]);
}

async function run(ctx: Ctx, type: string, props: Record<string, unknown>, msg: Record<string, unknown> = { payload: 1 }) {
  await load(flow(ctx.sim!, type, props), credentials(ctx.password));
  return exchange('n1', msg);
}

useSimulator(test);

test('nvr-get: the whole page; msg.page and msg.operation set; other properties pass through', async (ctx) => {
  const r = await run(ctx, 'nvr-get', {}, { payload: 'tick', topic: 't', keep: { x: 1 } });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.page, DETERRENCE);
  assert.is(r.out.operation, 'Get');
  assert.is(r.out.topic, 't');
  assert.equal(r.out.keep, { x: 1 });
  assert.equal(r.out.payload.channel_info.CH1.flood_light_switch, state(ctx.sim!, DETERRENCE).channel_info.CH1.flood_light_switch);
  assert.type(r.out.payload.channel_info.CH3.reason, 'string', 'CH3 has no floodlight: a reason marker');
  const get = ctx.sim!.log.find((e) => e.path === `/API/${DETERRENCE}/Get`);
  assert.equal(get?.data, { page_type: 'ChannelConfig' }, 'the page_type the page needs was filled in');
});

test('nvr-get with a channel: the channel block only; a channel without the feature or offline is an error with the reason', async (ctx) => {
  const r = await run(ctx, 'nvr-get', { channel: 'CH1' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.channel, 'CH1');
  assert.type(r.out.payload.flood_light_switch, 'boolean');
  assert.is(r.out.payload.channel_info, undefined);
  // CH3 has no floodlight: the device answers a marker ({"reason": ...}), which is no data.
  const marker = (ch: string) => (ctx.sim!.state as any)['AlarmConfig/Deterrence'].channel_info[ch];
  const r3 = await exchange('n1', { channel: 'CH3' });
  assert.is(r3.out, undefined, 'not a success');
  assert.is(r3.caught!.error.code, 'no_support');
  assert.is(r3.caught!.error.cause.kind, 'unsupported');
  assert.match(r3.caught!.error.message, /^Not supported by the device: CH3 has no AlarmConfig\/Deterrence \(the device answers "/);
  assert.ok(r3.caught!.error.cause.reason.includes(marker('CH3')?.reason ?? 'Not support'), r3.caught!.error.cause.reason);
  // IP_CH2 is an offline camera: {"status": "Offline", "reason": "Not support"}.
  const r6 = await exchange('n1', { channel: 'IP_CH2' });
  assert.is(r6.out, undefined, 'not a success');
  assert.is(r6.caught!.error.code, 'channel_offline');
  assert.match(r6.caught!.error.cause.reason, /^IP_CH2 is Offline \(the device answers "Not support"\)/);
});

test("nvr-range with a channel: that channel's descriptor", async (ctx) => {
  const r = await run(ctx, 'nvr-range', { channel: 'CH1' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.operation, 'Range');
  assert.is(r.out.payload.type, 'object');
  assert.is(r.out.payload.items.bright_time.type, 'int32');
});

test('nvr-range: a channel the page lacks fails with unknown_channel', async (ctx) => {
  const r = await run(ctx, 'nvr-range', { page: VOICE, channel: 'CH4' });
  assert.ok(r.caught, 'CH4 has no siren: expected an error');
  assert.is(r.caught.error.code, 'unknown_channel');
  assert.is(r.caught.error.cause.kind, 'unsupported');
});

test('nvr-range: pages whose request names a channel get it filled in', async (ctx) => {
  const r = await run(ctx, 'nvr-range', { page: 'Event/SettingConfig', channel: 'CH1', data: '{"ability":"FaceDetection"}' });
  const sent = ctx.sim!.log.find((e) => e.path === '/API/Event/SettingConfig/Range');
  assert.equal(sent?.data, { ability: 'FaceDetection', channel: 'CH1' }, JSON.stringify(r.caught?.error));
});

test('nvr-set with a channel: data wrapped in channel_info, device changed, answer passed on', async (ctx) => {
  const r = await run(ctx, 'nvr-set', { page: VOICE, channel: 'CH1' }, { payload: { siren_switch: true, siren_time: 30 } });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.operation, 'Set');
  const sent = ctx.sim!.log.find((e) => e.path === `/API/${VOICE}/Set`);
  assert.equal(sent?.data, { channel_info: { CH1: { siren_switch: true, siren_time: 30 } } });
  assert.is(state(ctx.sim!, VOICE).channel_info.CH1.siren_switch, true);
  assert.is(state(ctx.sim!, VOICE).channel_info.CH1.siren_time, 30);
});

test('nvr-set on Deterrence: the wrapped block names its channel (chn_index), page_type kept on top', async (ctx) => {
  const before = state(ctx.sim!, DETERRENCE).channel_info.CH1.flood_light_switch;
  const r = await run(ctx, 'nvr-set', { channel: 'CH1' }, { payload: { flood_light_switch: !before, bright_time: 45 } });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  const sent = ctx.sim!.log.find((e) => e.path === `/API/${DETERRENCE}/Set`)?.data as any;
  assert.is(sent.page_type, 'ChannelConfig');
  assert.is(sent.channel_info.CH1.chn_index, 'CH1');
  assert.is(state(ctx.sim!, DETERRENCE).channel_info.CH1.flood_light_switch, !before);
  assert.is(state(ctx.sim!, DETERRENCE).channel_info.CH1.bright_time, 45);
});

test('nvr-set outside the Range: Catch gets out_of_range with every violation; nothing sent', async (ctx) => {
  const r = await run(
    ctx,
    'nvr-set',
    { page: VOICE, channel: 'CH1' },
    { payload: { siren_time: 999, siren_value: 0, siren_type: 'Horn' } },
  );
  assert.ok(r.caught, 'expected a Catch message');
  const error = r.caught.error;
  assert.is(error.code, 'out_of_range');
  assert.is(error.source.id, 'n1');
  assert.is(error.cause.error_code, 'out_of_range');
  assert.is(error.cause.kind, 'invalid_request');
  // Each violation as a sentence, after the kind's name (Not sent), without saying twice that nothing was sent.
  assert.match(error.stack, /^Not sent: channel_info\.CH1\.siren_\w+ must be /);
  assert.ok(error.message.includes('channel_info.CH1.siren_time must be at most 180 (got 999)'), error.message);
  assert.not.match(error.stack, /nothing was sent/);
  const violated = error.cause.violations.map((x: any) => x.path).sort();
  assert.equal(violated, ['channel_info.CH1.siren_time', 'channel_info.CH1.siren_type', 'channel_info.CH1.siren_value']);
  for (const p of violated) assert.ok(error.message.includes(p), `message lists ${p}: ${error.message}`);
  assert.not.ok(
    paths(ctx.sim!).some((p) => p.endsWith('/Set')),
    'no Set reached the simulator',
  );
  assert.equal(statusesOf('n1').at(-1), { fill: 'red', shape: 'ring', text: 'outside Range' });
});

test('a page the device lacks: Catch gets not_found (kind unsupported)', async (ctx) => {
  const r = await run(ctx, 'nvr-get', { page: 'AlarmConfig/NoSuchPage' });
  assert.ok(r.caught, 'expected a Catch message');
  assert.is(r.caught.error.code, 'not_found');
  assert.is(r.caught.error.cause.kind, 'unsupported');
  assert.is(r.caught.error.cause.page, 'AlarmConfig/NoSuchPage');
});

test('msg.page, msg.channel and msg.payload override the properties', async (ctx) => {
  await load(flow(ctx.sim!, 'nvr-get', { page: 'AlarmConfig/NoSuchPage', channel: 'CH3' }), credentials(ctx.password));
  const r = await exchange('n1', { page: VOICE, channel: 'CH2', payload: {} });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.page, VOICE);
  assert.is(r.out.channel, 'CH2');
  assert.type(r.out.payload.siren_switch, 'boolean');
  // payload as request data, page typed the long way
  const r2 = await exchange('n1', { page: `/API/${DETERRENCE}/Get`, channel: 'ch1', payload: { page_type: 'ChannelConfig' } });
  assert.ok(r2.out, JSON.stringify(r2.caught?.error));
  assert.is(r2.out.page, DETERRENCE);
  assert.is(r2.out.channel, 'CH1');
  assert.type(r2.out.payload.bright_time, 'number');
});

test('nvr-set: msg.payload without channel is the whole page data', async (ctx) => {
  const r = await run(
    ctx,
    'nvr-set',
    { page: VOICE, data: '{"channel_info":{"CH2":{"siren_switch":true}}}' },
    {
      payload: { channel_info: { CH2: { siren_value: 7 } } },
    },
  );
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  const sent = ctx.sim!.log.find((e) => e.path === `/API/${VOICE}/Set`);
  assert.equal(sent?.data, { channel_info: { CH2: { siren_value: 7 } } }, 'msg.payload wins over the data property');
  assert.is(state(ctx.sim!, VOICE).channel_info.CH2.siren_value, 7);
});

test('the data property is used when msg.payload is not an object', async (ctx) => {
  const r = await run(ctx, 'nvr-set', { page: VOICE, channel: 'CH2', data: '{"siren_value":3}' }, { payload: Date.now() });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(state(ctx.sim!, VOICE).channel_info.CH2.siren_value, 3);
});

test('local refusals: bad page, bad channel, bad data, empty Set — nothing sent', async (ctx) => {
  await load(flow(ctx.sim!, 'nvr-set', { page: VOICE, data: '{not json' }), credentials(ctx.password));
  await waitFor(() => statusesOf('n1').some((s) => s.fill === 'green'), 'connected');
  ctx.sim!.clearLog();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ page: 'Alarm Config', payload: { a: 1 } }, 'bad_page'],
    [{ channel: 'CAM1', payload: { a: 1 } }, 'bad_channel'],
    [{ payload: 'x' }, 'bad_data'],
    [{ payload: {} }, 'bad_data'],
    [{ channel: 'CH1', payload: {} }, 'bad_data'],
  ];
  for (const [msg, code] of cases) {
    const r = await exchange('n1', msg);
    assert.is(r.caught?.error.code, code, JSON.stringify(msg));
    assert.is(r.caught?.error.cause.kind, 'invalid_request');
  }
  assert.equal(paths(ctx.sim!), []);
});

test('a failure does not stop the node: the next message succeeds and the status recovers', async (ctx) => {
  const r = await run(ctx, 'nvr-get', { page: 'AlarmConfig/NoSuchPage' });
  assert.is(r.caught?.error.code, 'not_found');
  const ok = await exchange('n1', { page: DETERRENCE });
  assert.ok(ok.out);
  assert.equal(statusesOf('n1').at(-1), { fill: 'green', shape: 'dot', text: 'connected' });
});

test('a device failing in every way never takes Node-RED down: each message ends at the Catch node', async (ctx) => {
  const unhandled: unknown[] = [];
  const record = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', record);
  try {
    await load(flow(ctx.sim!, 'nvr-get', {}), credentials(ctx.password));
    await waitFor(() => statusesOf('n1').some((s) => s.fill === 'green'), 'connected');
    const path = `/API/${DETERRENCE}/Get`;
    for (const kind of ['reset', 'html', 'truncated', 'http500', 'device_busy'] as const) {
      ctx.sim!.fault({ path, kind, times: 1 });
      const r = await exchange('n1', { payload: kind });
      // The client may retry once (a reset connection) and then succeed: either way the message ends.
      assert.ok(r.out || r.caught?.error.code, `${kind}: ${JSON.stringify(r)}`);
      ctx.sim!.clearFaults();
    }
    // Closing while a request is held by the device: close is bounded, the message is dropped silently.
    ctx.sim!.fault({ path, kind: 'latency', ms: 5000 });
    const late = exchange('n1', { payload: 'late' }, 'out', 'caught', 3000).catch(() => 'nothing');
    await waitFor(() => ctx.sim!.held === 1, 'the request held by the device');
    const t0 = Date.now();
    await helper.unload();
    assert.ok(Date.now() - t0 < 2500, `close took ${Date.now() - t0} ms`);
    assert.is(await late, 'nothing');
    await new Promise((r) => setTimeout(r, 100)); // a time: an unhandled rejection may come late; none may come
    assert.equal(unhandled, []);
  } finally {
    process.off('unhandledRejection', record);
    ctx.sim!.clearFaults();
  }
});

test('many messages at once all get their answer', async (ctx) => {
  await load(flow(ctx.sim!, 'nvr-get', { channel: 'CH1' }), credentials(ctx.password));
  const out = helper.getNode('out');
  const seen = new Set<number>();
  const all = new Promise<void>((resolve) =>
    out.on('input', (m: any) => {
      seen.add(m.n);
      if (seen.size === 20) resolve();
    }),
  );
  for (let n = 0; n < 20; n++) helper.getNode('n1').receive({ n });
  await waitFor(() => seen.size === 20, '20 answers', 10_000);
  await all;
});

test.run();
