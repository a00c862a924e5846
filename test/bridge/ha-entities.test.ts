/**
 * What a Home Assistant user meets after adding the demo's 8-channel recorder (and a single IP camera): entity names
 * people say (no two alike on a device, the camera named by its device alone, the device's options as words, alarm
 * outputs as the device numbers them, no "Person or vehicle" beside "Person" and "Vehicle", the channel's disarm
 * membership saying so, the disarm settings reading as settings, the panel and the channels' event entities not both
 * "Alarm"), and no flood: what is rarely used, the channel settings beyond the everyday ones and diagnostics are
 * announced disabled (`enabled_by_default: false`), as the Reolink integration does; the counts per device kind are
 * the README's. Real broker, real simulator, discovery as Home Assistant reads it.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import { TABLE } from '../../bridge/device/table';
import { json, settle, setsOf, setup, waitEvent, type Fixture } from './fixture';
import { deviceDiscoveryProblems, selectSends } from './homeassistant';

type Cmp = Record<string, unknown>;
const test = suite<{ fx: Fixture }>('bridge home assistant entities');

/** The simulator's device kinds, as the README's table of entity counts names them. */
const KINDS = [
  { id: 'nvr', kind: 'NVR, 8 channels (the demo)', sim: { channels: 8, profile: 'nvr' as const } },
  { id: 'ipc', kind: 'IP camera', sim: { profile: 'ipc' as const } },
];

test.before(async (ctx) => {
  // The demo's recorder (an 8-channel NVR) and a single camera, events on.
  ctx.fx = await setup({ label: 'entities', devices: KINDS.map(({ id, sim }) => ({ id, poll: 600, sim })) });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/wifi_ch1`, () => true, 5000);
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/ipc`, () => true, 5000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

/** Every device config as retained now, by topic (the recorder's first), of one device (`id`) or all. */
function configs(fx: Fixture, id?: string): Map<string, { cmps: Record<string, Cmp> }> {
  const out = new Map<string, { cmps: Record<string, Cmp> }>();
  const mine = (t: string) => t.startsWith(`${fx.prefix}/device/`) && (!id || t.startsWith(`${fx.prefix}/device/${fx.base}_${id}`));
  for (const m of fx.recorder.on(mine)) {
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
  for (const doc of all.values())
    for (const [k, c] of Object.entries(doc.cmps).filter(([, c]) => live(c))) {
      // The camera is its device's main feature: named by the device alone ("Camera1", not "Camera1 Camera").
      if (c.p === 'camera') {
        assert.equal(c.name, null, k);
        continue;
      }
      // Names start with a capital, never repeat the device's name (Home Assistant puts it in front), say no vendor
      // notation (`Local->1`).
      assert.match(String(c.name), /^[A-Z]/, String(c.name));
      assert.ok(!/Test (nvr|ipc)/.test(String(c.name)), String(c.name));
      assert.ok(!String(c.name).includes('->'), String(c.name));
    }
});

test("options as words people say, the device's own values on the wire", ({ fx }) => {
  const ch1 = configs(fx).get(`${fx.prefix}/device/${fx.base}_nvr_ch1/config`)!.cmps;
  assert.deepEqual(ch1.day_night.options, ['Auto', 'Colour', 'Black and white', 'Image', 'Schedule']);
  assert.deepEqual(selectSends(ch1.day_night), ['AutoMode', 'ColorMode', 'BlackWhiteMode', 'ImageMode', 'TimeSchedule']);
  assert.deepEqual(ch1.floodlight_mode.options, ['Warning light', 'Strobe']);
  assert.deepEqual(selectSends(ch1.floodlight_mode), ['Warninglight', 'Strobe']);
  assert.deepEqual(ch1.siren_tone.options, ['Alarm 1', 'Alarm 2', 'User-defined 1', 'User-defined 2', 'User-defined 3']);
  // No option anywhere in the vendor's notation (a capital inside a word: `AutoMode`), unless the device's own name.
  for (const doc of configs(fx).values())
    for (const [k, c] of Object.entries(doc.cmps))
      if (c.p === 'select' && k !== 'ptz_preset') for (const o of c.options as string[]) assert.ok(!/[a-z][A-Z]/.test(o), `${k}: ${o}`);
});

test('alarm outputs as the device numbers them; person and vehicle each once, no "Person or vehicle" beside them', ({ fx }) => {
  const all = configs(fx);
  const recorder = all.get(`${fx.prefix}/device/${fx.base}_nvr/config`)!.cmps;
  assert.equal(recorder.alarm_output_local_1.name, 'Alarm output 1');
  const ipCh1 = all.get(`${fx.prefix}/device/${fx.base}_nvr_ip_ch1/config`)!.cmps;
  assert.equal(ipCh1.alarm_output_ip_ch1_1.name, 'Camera alarm output 1');
  for (const [topic, doc] of all) {
    const names = Object.values(doc.cmps)
      .filter(live)
      .map((c) => c.name);
    if (names.includes('Person')) {
      assert.ok(names.includes('Vehicle'), topic);
      assert.ok(!names.includes('Person or vehicle') && !names.includes('Person/vehicle'), `${topic}: ${names.join(', ')}`);
    }
  }
});

/** Entities announced and enabled by default, per device kind (the recorder with its channel devices). */
function counts(fx: Fixture): Array<{ kind: string; announced: number; enabled: number }> {
  return KINDS.map(({ id, kind }) => {
    const cmps = [...configs(fx, id).values()].flatMap((d) => Object.values(d.cmps).filter(live));
    return { kind, announced: cmps.length, enabled: cmps.filter((c) => c.enabled_by_default !== false).length };
  });
}

/** The table of entity counts in the README (or the docs/ page it moved to), found by its marker. */
function documentedCounts(): { file: string; rows: Array<{ kind: string; announced: number; enabled: number }> } {
  const repo = join(__dirname, '..', '..', '..');
  const docs = join(repo, 'docs');
  const files = ['README.md', ...(existsSync(docs) ? readdirSync(docs, { recursive: true }).map((f) => join('docs', String(f))) : [])];
  const marker = '<!-- entity counts: test/bridge/ha-entities.test.ts -->';
  for (const file of files.filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(repo, file), 'utf8');
    const at = text.indexOf(marker);
    if (at < 0) continue;
    const lines = text
      .slice(at + marker.length)
      .trimStart()
      .split('\n')
      .map((l) => l.trim());
    const rows = lines
      .slice(
        2,
        lines.findIndex((l, i) => i > 1 && !l.startsWith('|')),
      )
      .map((l) => l.split('|').map((c) => c.trim()))
      .map(([, kind, announced, enabled]) => ({ kind, announced: Number(announced), enabled: Number(enabled) }));
    return { file, rows };
  }
  throw new Error(`no table after ${marker} in ${files.join(', ')}`);
}

test('no flood: the everyday entities enabled, the rest announced disabled; the counts the README states', ({ fx }) => {
  const all = configs(fx);
  const cmps = [...all.values()].flatMap((d) => Object.entries(d.cmps).filter(([, c]) => live(c)));
  for (const [, c] of cmps) assert.ok(c.enabled_by_default === undefined || c.enabled_by_default === false);
  // Every row the table marks advanced is disabled wherever it is announced, every other row enabled.
  const advanced = new Set(TABLE.filter((r) => r.advanced).map((r) => r.key));
  for (const [key, c] of cmps) {
    if (!TABLE.some((r) => r.key === key)) continue;
    assert.equal(c.enabled_by_default === false, advanced.has(key) && c.p !== 'alarm_control_panel', key);
  }
  // What a camera owner wants first: the camera, its picture, motion/person/vehicle, light, siren, the panel, PTZ.
  const ch1 = all.get(`${fx.prefix}/device/${fx.base}_nvr_ch1/config`)!.cmps;
  for (const k of ['camera', 'last_alarm', 'floodlight', 'siren', 'motion', 'person', 'motor_vehicle', 'event', 'floodlight_on_alarm'])
    assert.equal(ch1[k]?.enabled_by_default, undefined, `${k} enabled`);
  const recorder = all.get(`${fx.prefix}/device/${fx.base}_nvr/config`)!.cmps;
  for (const k of ['disarmed', 'command_error', 'disk_problem']) assert.equal(recorder[k]?.enabled_by_default, undefined, `${k} enabled`);
  // Beyond the everyday: durations, tones, volumes, diagnostics, zoom.
  for (const k of ['video_loss', 'siren_duration', 'siren_volume', 'floodlight_duration', 'online'])
    assert.equal(ch1[k]?.enabled_by_default, false, `${k} disabled`);
  for (const d of all.values())
    for (const [k, c] of Object.entries(d.cmps))
      if (c.entity_category === 'diagnostic' && live(c) && !/problem|command_error/.test(k))
        assert.equal(c.enabled_by_default, false, `diagnostic ${k} disabled`);
  const ptz = all.get(`${fx.prefix}/device/${fx.base}_nvr_ip_ch1/config`)!.cmps;
  assert.equal(ptz.ptz_zoom_in.enabled_by_default, false);
  assert.equal(ptz.ptz_stop.enabled_by_default, undefined);
  const now = counts(fx);
  for (const c of now) assert.ok(c.enabled < c.announced * 0.6, `${c.kind}: ${c.enabled} of ${c.announced} enabled`);
  process.stdout.write(
    `  [figure] entities (announced, enabled): ${now.map((c) => `${c.kind} ${c.announced}, ${c.enabled}`).join('; ')}\n`,
  );
  const doc = documentedCounts();
  assert.deepEqual(doc.rows, now, `${doc.file}: the table of entity counts (write what this test measured)`);
});

test('PTZ: a Stop button beside the moves, sending stop', ({ fx }) => {
  const ptz = configs(fx).get(`${fx.prefix}/device/${fx.base}_nvr_ip_ch1/config`)!.cmps;
  assert.deepEqual(
    [ptz.ptz_stop.p, ptz.ptz_stop.name, ptz.ptz_stop.command_topic, ptz.ptz_stop.payload_press],
    ['button', 'PTZ stop', `${fx.base}/nvr/ip_ch1/set/ptz`, '{"stop":true}'],
  );
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

test('a value that leaves its Range at run time (a poll, no refresh): announced again with bounds that include it, before its state', async ({
  fx,
}) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const topic = `${fx.prefix}/device/${fx.base}_nvr_ch3/config`;
  // Behind the bridge's back (the device's own menu): 5-180 says Range, 250 says the device.
  sim.state['AlarmConfig/VoiceAlarm'].channel_info!.CH3.siren_time = 250;
  const since = r.count;
  await r.publish(`${fx.base}/nvr/get`, '');
  const state = await r.waitTopic(`${fx.base}/nvr/ch3`, (j) => j.siren_duration === 250, 5000, since);
  const config = await r.waitFor((m) => m.topic === topic && m.payload.includes('siren_duration'), 3000, since);
  const cmp = (json(config) as { cmps: Record<string, Cmp> }).cmps.siren_duration;
  assert.deepEqual([cmp.min, cmp.max], [5, 250]);
  assert.ok(r.messages.indexOf(config) < r.messages.indexOf(state), 'the wider bounds reach Home Assistant before the state');
  assert.deepEqual(deviceDiscoveryProblems(JSON.parse(config.payload) as never), []);
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
