/**
 * What a Home Assistant user meets after adding the demo's 8-channel recorder: entity names that read well after the
 * device name and do not mislead (no two alike on a device, the channel's disarm membership says so, the disarm
 * settings read as settings, the panel and the channels' event entities not both "Alarm"), and no flood: the
 * rarely used and advanced entities are announced disabled (`enabled_by_default: false`). Real broker, real
 * simulator, discovery as Home Assistant reads it.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { TABLE } from '../../bridge/device/table';
import { json, settle, setsOf, setup, waitEvent, type Fixture } from './fixture';
import { deviceDiscoveryProblems } from './homeassistant';

type Cmp = Record<string, unknown>;
const test = suite<{ fx: Fixture }>('bridge home assistant entities');

test.before(async (ctx) => {
  // The demo's recorder: an 8-channel NVR, events on.
  ctx.fx = await setup({ label: 'entities', devices: [{ id: 'nvr', poll: 600, sim: { channels: 8, profile: 'nvr' } }] });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/wifi_ch1`, () => true, 5000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

/** Every device config as retained now, by topic (the recorder's first). */
function configs(fx: Fixture): Map<string, { cmps: Record<string, Cmp> }> {
  const out = new Map<string, { cmps: Record<string, Cmp> }>();
  for (const m of fx.recorder.on((t) => t.startsWith(`${fx.prefix}/device/`))) {
    if (m.payload) out.set(m.topic, json(m) as { cmps: Record<string, Cmp> });
    else out.delete(m.topic);
  }
  return out;
}

const live = (c: Cmp) => Object.keys(c).length > 1; // {"p": ...} alone removes an entity

test('names: unique on each device, not misleading, disarm settings named as settings', ({ fx }) => {
  const all = configs(fx);
  const recorder = all.get(`${fx.prefix}/device/${fx.base}_nvr/config`)!.cmps;
  for (const [topic, doc] of all) {
    assert.deepEqual(deviceDiscoveryProblems(doc), [], topic);
    const names = Object.values(doc.cmps)
      .filter(live)
      .map((c) => String(c.name).toLowerCase());
    assert.deepEqual(
      names.filter((n, i) => names.indexOf(n) !== i),
      [],
      `${topic}: two entities of one name`,
    );
  }
  const ch1 = all.get(`${fx.prefix}/device/${fx.base}_nvr_ch1/config`)!.cmps;
  assert.match(String(ch1.disarmed.name), /in disarm set/i, 'the channel switch says it is membership, not a state');
  assert.notEqual(recorder.disarmed.name, ch1.event.name, 'the panel and the event entity are not both "Alarm"');
  const disarmSettings = Object.entries(recorder).filter(([k, c]) => k.startsWith('disarm_') && live(c));
  assert.ok(disarmSettings.length >= 5);
  for (const [k, c] of disarmSettings) assert.match(String(c.name), /^[A-Z].* off while disarmed$/, k);
  // Names start with a capital and never repeat the device's name (Home Assistant puts it in front).
  for (const doc of all.values())
    for (const c of Object.values(doc.cmps).filter(live)) {
      assert.match(String(c.name), /^[A-Z]/, String(c.name));
      assert.ok(!String(c.name).includes('Test nvr'), String(c.name));
    }
});

test('no flood: advanced entities announced disabled, the everyday ones enabled', ({ fx }) => {
  const all = configs(fx);
  const cmps = [...all.values()].flatMap((d) => Object.entries(d.cmps).filter(([, c]) => live(c)));
  const enabled = cmps.filter(([, c]) => c.enabled_by_default !== false);
  for (const [, c] of cmps) assert.ok(c.enabled_by_default === undefined || c.enabled_by_default === false);
  // Every row the table marks advanced is disabled wherever it is announced, every other row enabled.
  const advanced = new Set(TABLE.filter((r) => r.advanced).map((r) => r.key));
  for (const [key, c] of cmps) {
    if (!TABLE.some((r) => r.key === key)) continue;
    assert.equal(c.enabled_by_default === false, advanced.has(key) && c.p !== 'alarm_control_panel', key);
  }
  const ch1 = all.get(`${fx.prefix}/device/${fx.base}_nvr_ch1/config`)!.cmps;
  for (const k of ['floodlight', 'siren', 'motion', 'person', 'event', 'floodlight_on_alarm'])
    assert.equal(ch1[k]?.enabled_by_default, undefined, `${k} enabled`);
  assert.equal(ch1.video_loss?.enabled_by_default, false);
  assert.ok(enabled.length < cmps.length * 0.75, `${enabled.length} of ${cmps.length} enabled`);
});

test('a value the device holds outside its own Range: announced bounds include it, writes outside Range still refused', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const topic = `${fx.prefix}/device/${fx.base}_nvr_ch2/config`;
  // The device's Range says 5-180; its own setting is 300 (set on an older firmware, or from its own menu).
  sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH2.siren_time = 300;
  let since = r.count;
  await r.publish(`${fx.base}/bridge/request/refresh`, JSON.stringify({ device: 'nvr', transaction: 'bounds' }));
  await r.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.siren_duration === 300, 5000, since);
  const cmp = (json(r.last(topic)) as { cmps: Record<string, Cmp> }).cmps.siren_duration;
  assert.deepEqual([cmp.min, cmp.max], [5, 300], 'Home Assistant accepts the value the device shows');
  assert.deepEqual(deviceDiscoveryProblems(JSON.parse(r.last(topic)!.payload) as never), []);
  // Writing within the announced bounds but outside Range: refused, nothing sent.
  since = r.count;
  const log = sim.log.length;
  await r.publish(`${fx.base}/nvr/ch2/set/siren_duration`, '250');
  const e = await waitEvent(fx, 'command_refused', (d) => d.key === 'siren_duration', since);
  assert.match(String(e.reason), /180/);
  await settle(fx);
  assert.deepEqual(setsOf(sim, log), []);
  assert.equal(sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH2.siren_time, 300);
});

test('channel devices carry the camera names of the recorder, follow a rename there, and say what the camera is', async ({ fx }) => {
  const r = fx.recorder;
  const sim = fx.sims.get('nvr')!;
  const devOf = (slug: string) =>
    (JSON.parse(r.last(`${fx.prefix}/device/${fx.base}_nvr_${slug}/config`)!.payload) as { dev: Record<string, unknown> }).dev;
  // The simulator names its cameras Camera1..; the recorder device keeps the configured name.
  assert.equal(devOf('ch1').name, 'Camera1');
  assert.match(String(devOf('ch1').mdl), /^Analog camera with .*floodlight.*siren/);
  assert.match(String(devOf('ip_ch1').mdl), /^IP camera/);
  assert.match(String(devOf('wifi_ch1').mdl), /^Wi-Fi camera/);
  const since = r.count;
  sim.renameChannel('CH2', 'Front door');
  await r.publish(`${fx.base}/nvr/get`, '');
  const m = await r.waitFor(
    (x) => x.topic === `${fx.prefix}/device/${fx.base}_nvr_ch2/config` && x.payload.includes('Front door'),
    5000,
    since,
  );
  const doc = json(m) as { dev: Record<string, unknown>; cmps: Record<string, Cmp> };
  assert.equal(doc.dev.name, 'Front door');
  assert.deepEqual(doc.dev.ids, [`${fx.base}_nvr_ch2`], 'the same device, renamed');
  assert.equal(doc.cmps.floodlight.unique_id, `${fx.base}_nvr_ch2_floodlight`);
  assert.deepEqual(deviceDiscoveryProblems(doc), []);
});

test.run();
