/**
 * The Home Assistant blueprints shipped in `blueprints/automation/nvr2mqtt/`: each one is a blueprint Home Assistant
 * imports (its blueprint schema and selectors, restated in blueprint-schema.ts), importable by URL (`source_url`, the
 * repository's file; the README links each with Home Assistant's import link), and the entities, attributes and
 * event types it relies on are the ones the bridge announces for the demo's recorder and a single camera (real broker,
 * real simulator, discovery as Home Assistant reads it).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import { COMMAND_ERROR_TYPES } from '../../bridge/homeassistant/command-error';
import { actionsOf, blueprintProblems, declaredInputs, inputRefs, parseBlueprint } from './blueprint-schema';
import { json, settle, setup, type Fixture } from './fixture';

type Json = Record<string, any>;

const repo = join(__dirname, '..', '..', '..');
const DIR = 'blueprints/automation/nvr2mqtt';
const files = readdirSync(join(repo, DIR))
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const blueprint = (file: string): Json => parseBlueprint(readFileSync(join(repo, DIR, file), 'utf8'));
const text = (file: string) => readFileSync(join(repo, DIR, file), 'utf8');

/** The repository's web address: package.json's `repository` once set (RELEASING.md), the placeholder until then. */
function repository(): string {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { repository?: string | { url?: string } };
  const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  return url ? url.replace(/^git\+/, '').replace(/\.git$/, '') : 'https://github.com/<owner>/nvr2mqtt';
}

const test = suite<{ fx: Fixture }>('Home Assistant blueprints');

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'blueprints',
    devices: [
      { id: 'nvr', poll: 600, sim: { channels: 8, profile: 'nvr' } },
      { id: 'ipc', poll: 600, sim: { profile: 'ipc' } },
    ],
  });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr/wifi_ch1`, () => true, 5000);
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/ipc`, () => true, 5000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

/** Every component the bridge announces now, with its device's config. */
function components(fx: Fixture): Array<{ topic: string; id: string; c: Json; device: Json }> {
  const latest = new Map<string, Json>();
  for (const m of fx.recorder.on((t) => t.startsWith(`${fx.prefix}/device/`))) {
    if (m.payload) latest.set(m.topic, json(m));
    else latest.delete(m.topic);
  }
  return [...latest].flatMap(([topic, doc]) =>
    Object.entries(doc.cmps as Json)
      .filter(([, c]) => Object.keys(c as Json).length > 1)
      .map(([id, c]) => ({ topic, id, c: c as Json, device: doc })),
  );
}

/** Whether a component of ours matches an entity selector filter (all ours are the mqtt integration's). */
function matches(filter: Json, c: Json): boolean {
  const list = (x: unknown) => (x === undefined ? undefined : Array.isArray(x) ? x : [x]);
  if (filter.integration !== undefined && filter.integration !== 'mqtt') return false;
  const domains = list(filter.domain);
  const classes = list(filter.device_class);
  return (!domains || domains.includes(c.p)) && (!classes || classes.includes(c.device_class));
}

test('the three blueprints are there, one per file', () => {
  assert.deepEqual(files, ['alarm-picture-notify.yaml', 'command-error-notify.yaml', 'disarm-on-arrival.yaml']);
});

test('each is a blueprint Home Assistant imports: its schema, its selectors, every !input declared and used', () => {
  for (const file of files) {
    const doc = blueprint(file);
    assert.deepEqual(blueprintProblems(doc), [], file);
    assert.equal(doc.blueprint.domain, 'automation', file);
    const used = new Set(inputRefs({ ...doc, blueprint: undefined }).map((r) => r.name));
    assert.deepEqual(
      [...declaredInputs(doc).keys()].filter((k) => !used.has(k)),
      [],
      `${file}: inputs never used`,
    );
    assert.match(String(doc.blueprint.name), /^nvr2mqtt: /, file);
  }
});

test('importable by URL: source_url is the file in the repository; the README links each with the import link', () => {
  const docsDir = join(repo, 'docs');
  const docs = [
    readFileSync(join(repo, 'README.md'), 'utf8'),
    ...(existsSync(docsDir)
      ? readdirSync(docsDir, { recursive: true })
          .filter((f) => String(f).endsWith('.md'))
          .map((f) => readFileSync(join(docsDir, String(f)), 'utf8'))
      : []),
  ].join('\n');
  for (const file of files) {
    const url = `${repository()}/blob/main/${DIR}/${file}`;
    assert.equal(blueprint(file).blueprint.source_url, url, file);
    assert.ok(docs.includes(`${DIR}/${file}`), `${file} linked from the README`);
    const importLink = `https://my.home-assistant.io/redirect/blueprint_import/?blueprint_url=${encodeURIComponent(url)}`;
    assert.ok(docs.includes(importLink), `${file}: Home Assistant's import link in the README (${importLink})`);
  }
});

test('the checker itself catches what Home Assistant refuses', () => {
  const clone = (): Json => parseBlueprint(text('disarm-on-arrival.yaml'));
  const bad = (mutate: (d: Json) => void) => {
    const d = clone();
    mutate(d);
    return blueprintProblems(d);
  };
  assert.ok(bad((d) => (d.blueprint.colour = 'red')).some((p) => p.includes('extra key')));
  assert.ok(bad((d) => delete d.blueprint.domain).some((p) => p.includes('domain')));
  assert.ok(bad((d) => (d.blueprint.source_url = 'github.com/x')).some((p) => p.includes('source_url')));
  assert.ok(bad((d) => (d.blueprint.homeassistant.min_version = '2024.10')).some((p) => p.includes('min_version')));
  assert.ok(bad((d) => (d.blueprint.input.zone.selector = { entity: {}, device: {} })).some((p) => p.includes('only one type')));
  assert.ok(bad((d) => (d.blueprint.input.zone.selector = { colour_wheel: {} })).some((p) => p.includes('not one this check knows')));
  assert.ok(bad((d) => (d.blueprint.input.zone.selector = { number: { min: 1 } })).some((p) => p.includes('slider')));
  assert.ok(bad((d) => (d.blueprint.input.zone.selector = { entity: { filter: [{ domian: 'zone' }] } })).some((p) => p.includes('domian')));
  assert.ok(bad((d) => delete d.blueprint.input.code).some((p) => p.includes('!input code is not declared')));
  assert.ok(bad((d) => (d.triggers = [{ platform: 'state' }])).some((p) => p.includes('trigger required')));
});

test('every entity input finds the entities the bridge announces (the demo recorder and a camera)', ({ fx }) => {
  const ours = components(fx);
  for (const file of files)
    for (const [name, input] of declaredInputs(blueprint(file))) {
      const entity = (input.selector as Json | undefined)?.entity as Json | undefined;
      if (!entity?.filter) continue;
      const filters = (Array.isArray(entity.filter) ? entity.filter : [entity.filter]) as Json[];
      if (filters.every((f) => f.integration !== 'mqtt')) continue; // zone.home and the like: Home Assistant's own
      const found = ours.filter(({ c }) => filters.some((f) => matches(f, c)));
      assert.ok(found.length, `${file}: ${name} finds none of the bridge's entities`);
    }
});

test("command errors: its event types are the entity's, and the attributes it reads are in every message", async ({ fx }) => {
  const doc = blueprint('command-error-notify.yaml');
  const kinds = (declaredInputs(doc).get('kinds')!.selector as Json).select.options.map((o: Json) => o.value);
  assert.deepEqual(kinds, [...COMMAND_ERROR_TYPES]);
  const entity = components(fx).find(({ id }) => id === 'command_error')!;
  assert.equal(entity.c.p, 'event');
  assert.deepEqual(entity.c.event_types, [...COMMAND_ERROR_TYPES]);
  // A refused command: the message Home Assistant turns into the event's attributes.
  const since = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/ch1/set/siren_duration`, '9999');
  const msg = json(await fx.recorder.waitTopic(`${fx.base}/nvr/command_error`, () => true, 5000, since));
  const read = [...text('command-error-notify.yaml').matchAll(/attributes\.(\w+)/g)].map((m) => m[1]);
  assert.ok(read.length >= 3);
  for (const a of read) assert.ok(a in msg, `attribute ${a} read by the blueprint, in ${JSON.stringify(msg)}`);
  assert.equal(msg.event_type, 'refused');
});

test('alarm pictures: every camera with a person, vehicle or motion sensor has its picture on the same device', ({ fx }) => {
  const doc = blueprint('alarm-picture-notify.yaml');
  const filters = ((declaredInputs(doc).get('sensors')!.selector as Json).entity.filter as Json[]) ?? [];
  const byDevice = new Map<string, Json[]>();
  const names = new Map<string, string>();
  for (const x of components(fx)) {
    byDevice.set(x.topic, [...(byDevice.get(x.topic) ?? []), x.c]);
    names.set(x.topic, String(x.device.dev.name));
  }
  let cameras = 0;
  for (const [topic, cmps] of byDevice) {
    const sensors = cmps.filter((c) => filters.some((f) => matches(f, c)));
    if (!sensors.some((c) => c.name === 'Person' || c.name === 'Motion')) continue;
    cameras++;
    // The blueprint takes the device's "Last alarm" image (by its entity id), beside any recognition pictures.
    const images = cmps.filter((c) => c.p === 'image');
    assert.equal(images.filter((c) => c.name === 'Last alarm').length, 1, `${topic}: one Last alarm picture`);
    assert.ok(
      images.every((c) => /^Last (alarm|face picture|plate picture)$/.test(String(c.name))),
      `${topic}: pictures`,
    );
    // The notification says what was seen by the sensor's name, without the device's (Home Assistant's friendly name).
    for (const s of sensors) assert.ok(!String(s.name).includes(names.get(topic)!), `${topic}: ${String(s.name)}`);
  }
  assert.ok(cameras >= 6, `${cameras} cameras`);
  // The picture's URL and the camera's name are what the notification carries.
  assert.match(text('alarm-picture-notify.yaml'), /\/api\/image_proxy\//);
  assert.match(text('alarm-picture-notify.yaml'), /select\('match', 'image\[\.\]\.\*last_alarm'\)/, 'the Last alarm image, not a face');
  assert.match(text('alarm-picture-notify.yaml'), /device_attr\(camera, 'name'\)/);
});

test("disarm on arrival: the recorder's panel disarms and arms away, as the blueprint calls it", ({ fx }) => {
  const doc = blueprint('disarm-on-arrival.yaml');
  const panels = components(fx).filter(({ c }) => c.p === 'alarm_control_panel');
  assert.equal(panels.length, 2, 'one per recorder');
  for (const { c } of panels) {
    assert.ok((c.supported_features as string[]).includes('arm_away'));
    assert.deepEqual([c.code_arm_required, c.code_disarm_required], [false, false], 'no code asked unless configured');
  }
  const services = actionsOf(doc.actions)
    .map((a) => a.action)
    .filter(Boolean);
  assert.deepEqual(services, ['alarm_control_panel.alarm_disarm', 'alarm_control_panel.alarm_arm_away']);
});

test.run();
