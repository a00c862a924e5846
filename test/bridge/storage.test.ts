/**
 * Disks: status, sizes, recording time left and a problem sensor per disk, read on their own slow schedule (not with
 * every poll), for an NVR's hard disk and an IPC's memory card; a failing disk shows as a problem; disks that come
 * and go take their entities with them (removed from discovery, no ghosts).
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, settle, setup, until, type Fixture } from './fixture';

type Json = Record<string, any>;
const test = suite<{ fx: Fixture }>('bridge storage');
const FAST = 300; // ms between disk reads of 'nvr' (config minimum 60 s; set after parsing)

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'storage',
    devices: [
      { id: 'nvr', poll: 0.2 },
      { id: 'cam', sim: { profile: 'ipc' }, poll: 0.2 },
      { id: 'bad', sim: { diskStatus: 'HddError' }, poll: 0.2 },
    ],
    tweak: (config) => {
      config.devices[0].storage_interval = FAST;
    },
  });
  for (const id of ['nvr', 'cam', 'bad'])
    await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/${id}`, (j) => j.disk_1_status !== undefined, 5000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

const node = (fx: Fixture, ...parts: string[]) => [fx.base.toLowerCase(), ...parts].join('_');
function cmps(fx: Fixture, id: string): Json {
  const topic = `${fx.prefix}/device/${node(fx, id)}/config`;
  return json(fx.recorder.on((t) => t === topic).pop()).cmps as Json;
}

test("the NVR's hard disk as the device reports it (MB, seconds), and in Home Assistant in GB and hours", ({ fx }) => {
  const dev = json(fx.recorder.last(`${fx.base}/nvr`));
  // The simulator's NVR holds the vendor sample's disk: full, overwriting.
  assert.deepEqual(Object.fromEntries(Object.entries(dev).filter(([k]) => k.startsWith('disk_1_') || k === 'overwrite')), {
    overwrite: 'Auto',
    disk_1_status: 'Full',
    disk_1_type: 'Normal',
    disk_1_total: 476940,
    disk_1_free: 0,
    disk_1_used: 476940,
    disk_1_time_left: 0,
    disk_1_problem: false, // full, but overwriting: not a problem
  });
  const c = cmps(fx, 'nvr');
  assert.equal(c.disk_1_free.device_class, 'data_size');
  assert.equal(c.disk_1_free.state_class, 'measurement');
  assert.equal(c.disk_1_free.unit_of_measurement, 'GB');
  assert.match(c.disk_1_used.value_template, /value_json\.disk_1_used/);
  assert.equal(c.disk_1_time_left.device_class, 'duration');
  assert.equal(c.disk_1_problem.p, 'binary_sensor');
  assert.equal(c.disk_1_problem.device_class, 'problem');
  assert.equal(c.disk_1_status.name, 'Disk 1 status');
  assert.equal(c.disk_1_status.entity_category, 'diagnostic');
});

test("the IPC's memory card; a failing disk (simulator option) is a problem", ({ fx }) => {
  const cam = json(fx.recorder.last(`${fx.base}/cam`));
  assert.equal(cam.disk_1_type, 'Sd');
  assert.equal(cam.disk_1_problem, false);
  assert.equal(cmps(fx, 'cam').disk_1_free.name, 'SD card 1 free');
  const bad = json(fx.recorder.last(`${fx.base}/bad`));
  assert.equal(bad.disk_1_status, 'HddError');
  assert.equal(bad.disk_1_problem, true);
});

test('slow schedule: the disks are not read with every poll', async ({ fx }) => {
  const sim = fx.sims.get('cam')!;
  const disks = () => sim.log.filter((e) => e.path === '/API/StorageConfig/Disk/Get').length;
  const polls = () => sim.log.filter((e) => e.path === '/API/Login/ChannelInfo/Get').length;
  const [d0, p0] = [disks(), polls()];
  await until(() => polls() >= p0 + 5, 'five more polls', 5000);
  assert.equal(disks(), d0, 'no disk read in five polls (default storage_interval 10 min)');
  assert.equal(d0, 1, 'one read since start');
});

test('a disk going bad, full without overwrite, one added and one removed: state and entities follow, no ghosts', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const page = sim.state['StorageConfig/Disk'] as Json;
  let since = fx.recorder.count;
  page.over_write = 'Off';
  await fx.recorder.waitTopic(`${fx.base}/nvr`, (j) => j.disk_1_problem === true && j.overwrite === 'Off', 3000, since);
  page.over_write = 'Auto';
  page.disk_info[0].status = 'Broken';
  since = fx.recorder.count;
  await fx.recorder.waitTopic(`${fx.base}/nvr`, (j) => j.disk_1_status === 'Broken' && j.disk_1_problem === true, 3000, since);
  // A second disk appears: its entities are announced.
  page.disk_info.push({ ...page.disk_info[0], id: 2, display_id: 2, status: 'Normal', free_size: 1000, free_time: 3600 });
  await until(() => cmps(fx, 'nvr').disk_2_free !== undefined, 'disk 2 announced', 3000);
  assert.equal(cmps(fx, 'nvr').disk_2_free.name, 'Disk 2 free', 'named by number');
  // Its state follows its config (a message of its own: on an external broker it may not be here yet).
  await until(() => json(fx.recorder.last(`${fx.base}/nvr`)).disk_2_time_left === 3600, 'disk 2 in the state', 3000);
  // It goes away: its components are removed (`{p}` only), the first disk stays.
  page.disk_info.pop();
  await until(() => Object.keys(cmps(fx, 'nvr').disk_2_free ?? {}).join() === 'p', 'disk 2 removed', 3000);
  const after = cmps(fx, 'nvr');
  assert.deepEqual(after.disk_2_problem, { p: 'binary_sensor' });
  assert.equal(after.disk_1_problem.p, 'binary_sensor');
  await until(() => json(fx.recorder.last(`${fx.base}/nvr`)).disk_2_status === undefined, 'disk 2 gone from state', 3000);
});

test.run();
