/**
 * Version 2 of nvr-range / nvr-get / nvr-set: page, channel and data from TypedInputs (msg, flow,
 * global, env, JSON, JSONata), a configurable output property, "ignore msg overrides", nvr-set
 * answering the state read back, and saved flows of version 1 that keep working (migration).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Simulator } from '../../simulator';
import { migrateRequestDef } from '../../nodes/shared/request-props';
import {
  helper,
  credentials,
  DEV,
  exchange,
  flowWith,
  load,
  newPassword,
  node,
  paths,
  type FlowNode,
  useSimulator,
  type SimulatorContext,
} from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: typed inputs, output property, ignore msg, Set read-back, migration', { password: newPassword() });

const VOICE = 'AlarmConfig/VoiceAlarm';
const DETERRENCE = 'AlarmConfig/Deterrence';
const state = (sim: Simulator, page: string) => (sim.state as any)[page];

function flow(sim: Simulator, type: string, props: Record<string, unknown>): FlowNode[] {
  return flowWith(sim.url, [
    { id: 'n1', type, name: '', device: DEV, wires: [['out']], ...props },
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: ['n1'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ]);
}

async function run(ctx: Ctx, type: string, props: Record<string, unknown>, msg: Record<string, unknown> = {}) {
  await load(flow(ctx.sim!, type, props), credentials(ctx.password));
  return exchange('n1', msg);
}

useSimulator(test);

test('migration: a version 1 node (plain page, channel, JSON text data) reads as literal inputs with msg overrides on', () => {
  const v1 = { id: 'x', type: 'nvr-set', page: VOICE, channel: 'CH1', data: '{"siren_switch":true}' };
  assert.equal(migrateRequestDef(v1), {
    page: VOICE,
    pageType: 'str',
    channel: 'CH1',
    channelType: 'str',
    data: '{"siren_switch":true}',
    dataType: 'json',
    output: 'payload',
    ignoreMsg: false,
  });
  // Hand-written v1 flows sometimes held the data as an object; an unknown type falls back to the default.
  const odd = migrateRequestDef({ id: 'y', type: 'nvr-get', data: { a: 1 }, pageType: 'bogus' });
  assert.is(odd.data, '{"a":1}');
  assert.is(odd.pageType, 'str');
});

test('an old flow (version 1 properties only) still sets from its data property and is overridden by msg', async (ctx) => {
  state(ctx.sim!, VOICE).channel_info.CH1.siren_time = 10;
  const r = await run(ctx, 'nvr-set', { page: VOICE, channel: 'CH1', data: '{"siren_time":20}' }, { payload: 'go' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(state(ctx.sim!, VOICE).channel_info.CH1.siren_time, 20);
  const o = await exchange('n1', { payload: { siren_time: 25 }, channel: 'CH2' });
  assert.ok(o.out, JSON.stringify(o.caught?.error));
  assert.is(state(ctx.sim!, VOICE).channel_info.CH2.siren_time, 25);
  assert.is(state(ctx.sim!, VOICE).channel_info.CH1.siren_time, 20);
});

test("nvr-set answers the channel's state read back after the Set (not {}), in one Set and one Get", async (ctx) => {
  const r = await run(ctx, 'nvr-set', { page: VOICE, channel: 'CH1' }, { payload: { siren_value: 3, siren_switch: true } });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.payload.siren_value, 3);
  assert.is(r.out.payload.siren_switch, true);
  assert.type(r.out.payload.siren_time, 'number');
  const writes = paths(ctx.sim!).filter((p) => p.startsWith(`/API/${VOICE}/`));
  assert.equal(writes.slice(-2), [`/API/${VOICE}/Set`, `/API/${VOICE}/Get`]);
  assert.is(writes.filter((p) => p.endsWith('/Set')).length, 1);
});

test('nvr-set writes through update(): values the channel already has send no Set, only the read', async (ctx) => {
  const first = await run(ctx, 'nvr-set', { page: VOICE, channel: 'CH2' }, { payload: { siren_value: 4 } });
  assert.ok(first.out, JSON.stringify(first.caught?.error));
  ctx.sim!.clearLog();
  const again = await exchange('n1', { payload: { siren_value: 4 } });
  assert.ok(again.out, JSON.stringify(again.caught?.error));
  assert.is(again.out.payload.siren_value, 4);
  assert.not.ok(
    paths(ctx.sim!).some((p) => p.endsWith('/Set')),
    paths(ctx.sim!).join(' '),
  );
});

test('page from msg, channel from env, data from JSONata; the answer goes to the chosen output property', async (ctx) => {
  process.env.NVR2MQTT_TEST_CHANNEL = 'CH2';
  try {
    const r = await run(
      ctx,
      'nvr-set',
      {
        page: 'target',
        pageType: 'msg',
        channel: 'NVR2MQTT_TEST_CHANNEL',
        channelType: 'env',
        data: '{"siren_value": level + 1}',
        dataType: 'jsonata',
        output: 'result.voice',
        ignoreMsg: true,
      },
      { target: VOICE, level: 5, payload: 'untouched' },
    );
    assert.ok(r.out, JSON.stringify(r.caught?.error));
    assert.is(state(ctx.sim!, VOICE).channel_info.CH2.siren_value, 6);
    assert.is(r.out.result.voice.siren_value, 6);
    assert.is(r.out.payload, 'untouched');
    assert.is(r.out.channel, 'CH2');
  } finally {
    delete process.env.NVR2MQTT_TEST_CHANNEL;
  }
});

test('page and data from flow and global context', async (ctx) => {
  await load(
    flow(ctx.sim!, 'nvr-get', { page: 'nvrPage', pageType: 'flow', channel: '', channelType: 'str', data: 'nvrData', dataType: 'global' }),
    credentials(ctx.password),
  );
  node('n1').context().flow.set('nvrPage', DETERRENCE);
  node('n1').context().global.set('nvrData', {});
  const r = await exchange('n1', {});
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.ok(r.out.payload.channel_info.CH1, JSON.stringify(r.out.payload));
  assert.is(r.out.page, DETERRENCE);
});

test("ignore msg overrides: a chained message's page, channel and payload do not leak into the node", async (ctx) => {
  // As after an nvr-get of another page: msg.page, msg.channel and an object payload are set.
  const chained = () => ({ page: DETERRENCE, channel: 'CH2', payload: {} });
  const r = await run(ctx, 'nvr-get', { page: VOICE, channel: 'CH1', data: '', ignoreMsg: true }, chained());
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.page, VOICE);
  assert.is(r.out.channel, 'CH1');
  assert.type(r.out.payload.siren_time, 'number');
  assert.not.ok(paths(ctx.sim!).some((p) => p.includes('Deterrence')));
  // Without the option the same message overrides (version 1 behaviour).
  await helper.unload();
  const o = await run(ctx, 'nvr-get', { page: VOICE, channel: 'CH1', data: '' }, chained());
  assert.ok(o.out, JSON.stringify(o.caught?.error));
  assert.is(o.out.page, DETERRENCE);
  assert.is(o.out.channel, 'CH2');
});

test('a typed input that cannot be read fails at the Catch with a clear error; nothing sent', async (ctx) => {
  const r = await run(ctx, 'nvr-set', { page: VOICE, channel: 'CH1', data: '{"siren_value": (', dataType: 'jsonata' }, { payload: 'x' });
  assert.ok(r.caught);
  assert.is(r.caught.error.code, 'bad_data');
  assert.match(r.caught.error.message, /data property could not be read \(jsonata\)/);
  await helper.unload();
  const missing = await run(ctx, 'nvr-get', { page: 'nothing.here', pageType: 'msg' }, {});
  assert.is(missing.caught!.error.code, 'bad_page');
  assert.not.ok(paths(ctx.sim!).some((p) => p.endsWith('/Set')));
});

test.run();
