/**
 * The channel `disarmed` config switch (issue 9): on a recorder that disarms through AlarmConfig/Disarming it is the
 * channel's membership of `disarming_channel` (ON adds, OFF removes, read inside the write queue so two channels
 * switched together both land); on one without Disarming it is LinkageManage's per-channel `enable`, as before.
 * Real broker, real simulator; device requests counted at the simulator.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import type { Simulator } from '../../simulator';
import { rowSupported, rowValue } from '../../bridge/device/sources';
import { emptyFacts } from '../../bridge/device/state';
import { rowsFor } from '../../bridge/device/table';
import { mergeChanges } from '../../bridge/device/write-queue';
import { json, setsOf, settle, setup, waitEvent, type Fixture } from './fixture';
import { until } from '../helpers/until';

const test = suite<{ fx: Fixture }>('bridge channel disarmed');

const DISARMING = 'AlarmConfig/Disarming';
const LINKAGE = 'LinkageConfig/LinkageManage';

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'chdis',
    devices: [
      { id: 'nvr', poll: 0.3, events: false },
      // No Disarming page: the recorder disarms through LinkageManage. Only two of its channels are configured.
      { id: 'old', poll: 0.3, events: false, sim: { disarming: false }, channels: ['CH1', 'CH2'] },
    ],
  });
  for (const t of ['nvr/ch1', 'nvr/ch2', 'nvr/wifi_ch1', 'old/ch1', 'old/ch2']) await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/${t}`);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

const listed = (sim: Simulator) => sim.state[DISARMING].disarming_channel as string[];
const disarmingSets = (sim: Simulator, since: number) => setsOf(sim, since).filter((e) => e.path === `/API/${DISARMING}/Set`);
const chState = (fx: Fixture, dev: string, slug: string) => fx.recorder.lastJson(`${fx.base}/${dev}/${slug}`);

test("the switch shows the simulator's disarming_channel, and follows a change made at the device", async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  // The simulator lists every configured channel: each online one says disarmed.
  assert.deepEqual(listed(sim), ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'WIFI_CH1']);
  for (const slug of ['ch1', 'ch2', 'ch3', 'ch4', 'ip_ch1', 'wifi_ch1']) assert.equal(chState(fx, 'nvr', slug)?.disarmed, true, slug);
  const since = fx.recorder.count;
  const before = [...listed(sim)];
  sim.state[DISARMING].disarming_channel = listed(sim).filter((c) => c !== 'CH3');
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch3`, (j) => j.disarmed === false, 3000, since);
  assert.equal(chState(fx, 'nvr', 'ch1')?.disarmed, true, 'CH1 still listed');
  sim.state[DISARMING].disarming_channel = before;
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch3`, (j) => j.disarmed === true, 3000, since);
});

test('OFF removes the channel from disarming_channel, ON adds it back: one Disarming Set each, nothing else', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const log = sim.log.length;
  let since = r.count;
  await r.publish(`${fx.base}/nvr/ch1/set/disarmed`, 'OFF');
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.disarmed === false, 3000, since);
  assert.ok(!listed(sim).includes('CH1'));
  assert.deepEqual(listed(sim), ['CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'WIFI_CH1'], 'the other channels stay');
  const sets = disarmingSets(sim, log);
  assert.equal(sets.length, 1);
  assert.deepEqual((sets[0].data as Record<string, unknown>).disarming_channel, listed(sim));
  // The master switch is not touched by a channel's switch.
  assert.equal(sim.state[DISARMING].disarming, false);

  since = r.count;
  await r.publish(`${fx.base}/nvr/ch1/set`, JSON.stringify({ disarmed: true }));
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.disarmed === true, 3000, since);
  assert.ok(listed(sim).includes('CH1'));
  assert.equal(disarmingSets(sim, log).length, 2);
  assert.deepEqual(
    setsOf(sim, log).map((e) => e.path),
    [`/API/${DISARMING}/Set`, `/API/${DISARMING}/Set`],
    'no LinkageManage Set on a Disarming recorder',
  );

  // Already listed: ON again sends nothing.
  const log2 = sim.log.length;
  await r.publish(`${fx.base}/nvr/ch1/set/disarmed`, 'ON');
  await settle(fx);
  await r.publish(`${fx.base}/nvr/ch1/get`, '');
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.disarmed === true, 3000, since);
  assert.deepEqual(disarmingSets(sim, log2), []);
});

test('each recorder polls only the disarm page it disarms through: no LinkageManage Get on a Disarming recorder', async ({ fx }) => {
  const gets = (sim: Simulator, since: number, page: string) => sim.log.slice(since).filter((e) => e.path === `/API/${page}/Get`).length;
  const nvr = fx.sims.get('nvr')!;
  const old = fx.sims.get('old')!;
  const from = { nvr: nvr.log.length, old: old.log.length };
  // Two whole polls of each recorder (each reads its channel list once).
  await until(() => gets(nvr, from.nvr, 'Login/ChannelInfo') >= 3 && gets(old, from.old, 'Login/ChannelInfo') >= 3, 'three polls of each');
  assert.ok(gets(nvr, from.nvr, DISARMING) >= 2, 'the Disarming recorder reads Disarming every poll');
  assert.equal(gets(nvr, from.nvr, LINKAGE), 0, 'LinkageManage publishes nothing there: never read');
  assert.ok(gets(old, from.old, LINKAGE) >= 2, 'the other recorder reads LinkageManage every poll');
  assert.equal(gets(old, from.old, DISARMING), 0, 'it has no Disarming page');
  // Both still publish their disarm action switches, each from its own page.
  assert.equal(typeof fx.recorder.lastJson(`${fx.base}/nvr`)?.disarm_mobile_push, 'boolean');
  assert.equal(typeof fx.recorder.lastJson(`${fx.base}/old`)?.disarm_mobile_push, 'boolean');
});

test('two channels switched at once both land (read-modify-write inside the write queue)', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const log = sim.log.length;
  let since = r.count;
  await Promise.all([r.publish(`${fx.base}/nvr/ch1/set/disarmed`, 'OFF'), r.publish(`${fx.base}/nvr/ch2/set/disarmed`, 'OFF')]);
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.disarmed === false, 3000, since);
  await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.disarmed === false, 3000, since);
  await settle(fx);
  assert.deepEqual(listed(sim), ['CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'WIFI_CH1']);
  const off = disarmingSets(sim, log).length;
  assert.ok(off >= 1 && off <= 2, `${off} Sets`);

  since = r.count;
  const log2 = sim.log.length;
  await Promise.all([r.publish(`${fx.base}/nvr/ch2/set/disarmed`, 'ON'), r.publish(`${fx.base}/nvr/ch1/set/disarmed`, 'ON')]);
  await r.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.disarmed === true, 3000, since);
  await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.disarmed === true, 3000, since);
  await settle(fx);
  // Added at the end, in the order the commands ran.
  assert.deepEqual(listed(sim).slice(0, 5), ['CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'WIFI_CH1']);
  assert.deepEqual([...listed(sim).slice(5)].sort(), ['CH1', 'CH2']);
  const on = disarmingSets(sim, log2).length;
  assert.ok(on >= 1 && on <= 2, `${on} Sets`);
  // Nobody reported a change that did not hold.
  const events = r.messages.slice(since).filter((m) => m.topic === `${fx.base}/bridge/event`);
  assert.ok(!events.some((m) => m.payload.includes('command_not_confirmed') || m.payload.includes('command_failed')));
});

test('a bad value is refused with a clear reason and nothing is sent', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  const log = sim.log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ch1/set/disarmed`, 'MAYBE');
  const e = await waitEvent(fx, 'command_refused', (d) => d.topic === `${fx.base}/nvr/ch1/set/disarmed`, since);
  assert.match(String(e.reason), /disarmed/);
  await settle(fx);
  assert.deepEqual(setsOf(sim, log), []);
  assert.ok(listed(sim).includes('CH1'));
});

test('a recorder without Disarming: the switch is LinkageManage enable of the channel, as before', async ({ fx }) => {
  const sim = fx.sims.get('old')!;
  const r = fx.recorder;
  const block = (ch: string) => sim.state[LINKAGE].channel_info![ch] as Record<string, unknown>;
  assert.equal(chState(fx, 'old', 'ch1')?.disarmed, block('CH1').enable);
  const log = sim.log.length;
  const since = r.count;
  const target = block('CH1').enable !== true;
  await r.publish(`${fx.base}/old/ch1/set/disarmed`, target ? 'ON' : 'OFF');
  await r.waitTopic(`${fx.base}/old/ch1`, (j) => j.disarmed === target, 3000, since);
  assert.equal(block('CH1').enable, target);
  assert.deepEqual(
    setsOf(sim, log).map((e) => e.path),
    [`/API/${LINKAGE}/Set`],
  );
  assert.ok(!sim.log.slice(log).some((e) => e.path.includes('Disarming')), 'no Disarming request');
  await r.publish(`${fx.base}/old/ch1/set/disarmed`, target ? 'OFF' : 'ON');
  await r.waitTopic(`${fx.base}/old/ch1`, (j) => j.disarmed === !target, 3000, since);
});

test('discovery: an "In disarm set" config switch on every configured channel, none elsewhere', ({ fx }) => {
  const configs = new Map<string, Record<string, any>>();
  for (const m of fx.recorder.on((t) => t.startsWith(`${fx.prefix}/device/`))) {
    if (m.payload) configs.set(m.topic, json(m));
    else configs.delete(m.topic);
  }
  const cmps = (...parts: string[]) => configs.get(`${fx.prefix}/device/${[fx.base.toLowerCase(), ...parts].join('_')}/config`)?.cmps;
  for (const [dev, slug] of [
    ['nvr', 'ch1'],
    ['nvr', 'ch3'],
    ['nvr', 'ip_ch1'],
    ['nvr', 'wifi_ch1'],
    ['old', 'ch1'],
    ['old', 'ch2'],
  ]) {
    const sw = cmps(dev, slug)?.disarmed;
    assert.ok(sw, `${dev} ${slug}`);
    assert.equal(sw.p, 'switch');
    assert.equal(sw.name, 'In disarm set');
    assert.equal(sw.entity_category, 'config');
    assert.equal(sw.command_topic, `${fx.base}/${dev}/${slug}/set/disarmed`);
  }
  // IP_CH3 is an empty slot (NotConfigured); the old recorder's CH3 is not in its `channels`.
  assert.equal(cmps('nvr', 'ip_ch3'), undefined);
  assert.equal(cmps('old', 'ch3'), undefined);
  // The recorder's own alarm panel is a different key at the device level.
  assert.equal(cmps('nvr')?.disarmed?.p, 'alarm_control_panel');
});

test('merged membership changes apply one after the other to the list the device holds', () => {
  const path = ['disarming_channel'];
  const now = { disarming_channel: ['CH1', 'CH2', 'CH3'], disarming: true };
  const off = (member: string) => ({ path, value: false, member });
  const on = (member: string) => ({ path, value: true, member });
  assert.deepEqual(mergeChanges([off('CH1'), off('CH2')], now), { disarming_channel: ['CH3'] });
  assert.deepEqual(mergeChanges([off('CH1'), on('CH4'), on('CH1')], now), { disarming_channel: ['CH2', 'CH3', 'CH4', 'CH1'] });
  // Already so: the same list in the same order (update() then sends nothing).
  assert.deepEqual(mergeChanges([on('CH2')], now), { disarming_channel: ['CH1', 'CH2', 'CH3'] });
  // No list reported: the membership starts from an empty one; plain changes merge alongside.
  assert.deepEqual(mergeChanges([on('CH2'), { path: ['disarming'], value: false }], {}), { disarming_channel: ['CH2'], disarming: false });
});

test("the vendor's Range shape: the switch for online channels the list may hold, the value from the Get", () => {
  // `disarming_channel` as the vendor's Range sample gives it: `items` one element descriptor (not a list of them).
  const range = {
    disarming: { type: 'bool' },
    disarming_channel: { type: 'array', min_size: 0, max_size: 4, items: { type: 'string', items: ['CH1', 'CH2', 'CH3', 'CH4'] } },
  };
  const model = {
    ...emptyFacts(),
    disarmPage: DISARMING,
    ranges: new Map([[DISARMING, range]]),
    gets: new Map([[DISARMING, { disarming: false, disarming_channel: ['CH2'] }]]),
    channelList: new Map([
      ['CH1', true],
      ['CH2', true],
      ['CH3', false],
      ['CH5', true],
    ]),
  } as const;
  const row = rowsFor('channel', 'disarmed').find((r) => r.source.kind === 'member')!;
  assert.deepEqual(
    ['CH1', 'CH2', 'CH3', 'CH5'].map((ch) => rowSupported(model, row, ch)),
    [true, true, false, false],
    'CH3 offline, CH5 not allowed in the list',
  );
  assert.deepEqual([rowValue(model, row, 'CH1'), rowValue(model, row, 'CH2')], [false, true]);
  // Through LinkageManage the member row is not the one (and the LinkageManage row needs its own page).
  const viaLinkage = { ...model, disarmPage: LINKAGE } as const;
  assert.equal(rowSupported(viaLinkage, row, 'CH2'), false);
  assert.equal(rowValue(viaLinkage, row, 'CH2'), undefined);
  // No list in the Range: unsupported (R2).
  const noList = { ...model, ranges: new Map([[DISARMING, { disarming: { type: 'bool' } }]]) };
  assert.equal(rowSupported(noList, row, 'CH2'), false);
});

test.run();
