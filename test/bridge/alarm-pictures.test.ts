/**
 * The alarm's own picture, against a real broker and a simulator whose Event/Check carries pictures in the
 * vendor's shapes: an alarm start that brought its picture publishes it on `<ch>/alarm_picture` (retained, the
 * "Last alarm" image entity) with `{type, time, source, target}` on `.../attributes`, the AI object cut-out on
 * `.../object` and the scene on the camera's `snapshot`, with NO Snapshot/Get; a storm of starts gives at most one
 * picture per start and still no request; a vehicle in an AI picture turns the `motor_vehicle` sensor on (its
 * entity appears once the device reported one) and its AI alarm's end turns it off. A device that sends no
 * pictures gets the alarm picture read (one Snapshot/Get, source `snapshot`).
 */
import * as assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { suite } from 'uvu';
import { json, settle, setup, until, type Fixture } from './fixture';

const test = suite('bridge: alarm pictures sent with the alarm');
type Pic = { topic: string; payload: Buffer; retain: boolean };
const ctx: { fx: Fixture; pics: Pic[]; sub: mqtt.MqttClient } = {} as never;

const requests = (fx: Fixture, id: string, path: string, since = 0) =>
  fx.sims
    .get(id)!
    .log.slice(since)
    .filter((e) => e.path === path);
const comment = (b: Buffer) => b.toString('latin1');

test.before(async () => {
  ctx.fx = await setup({
    label: 'alarm-pictures',
    devices: [
      { id: 'pics', poll: 0.3, sim: { channels: 4, analog: 2, alarmPictures: 'both' } },
      { id: 'plain', poll: 0.3, sim: { channels: 2, analog: 1 } },
    ],
  });
  ctx.pics = [];
  ctx.sub = await mqtt.connectAsync(ctx.fx.broker.url, { reconnectPeriod: 0 });
  ctx.sub.on('message', (topic, payload, packet) => ctx.pics.push({ topic, payload, retain: !!packet.retain }));
  const b = ctx.fx.base;
  await ctx.sub.subscribeAsync([`${b}/+/+/snapshot`, `${b}/+/+/alarm_picture`, `${b}/+/+/alarm_picture/#`], { qos: 1 });
});
test.after(async () => {
  await ctx.sub.endAsync();
  await ctx.fx.stop();
});

test('"Last alarm": an HA image entity per channel with video, the picture topic and the attributes topic', async () => {
  const { fx } = ctx;
  const cfg = json(
    await fx.recorder.waitTopic(
      `${fx.prefix}/device/${fx.base}_pics_ch1/config`,
      (j) => (j as { cmps?: Record<string, unknown> }).cmps?.last_alarm !== undefined,
      5000,
    ),
  ) as { cmps: Record<string, unknown> };
  assert.deepEqual(cfg.cmps.last_alarm, {
    p: 'image',
    name: 'Last alarm',
    unique_id: `${fx.base}_pics_ch1_last_alarm`,
    image_topic: `${fx.base}/pics/ch1/alarm_picture`,
    content_type: 'image/jpeg',
    json_attributes_topic: `${fx.base}/pics/ch1/alarm_picture/attributes`,
    icon: 'mdi:cctv',
  });
});

test('an alarm that brought its picture: published as sent (retained), attributes first, no Snapshot/Get', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('pics')!;
  const since = sim.log.length;
  const from = ctx.pics.length;
  const at = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  const attrs = await fx.recorder.waitTopic(`${fx.base}/pics/ch2/alarm_picture/attributes`, (j) => j.type === 'motion', 5000, at);
  const info = json(attrs);
  assert.equal(info.source, 'alarm');
  assert.match(String(info.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
  await until(() => ctx.pics.slice(from).some((p) => p.topic === `${fx.base}/pics/ch2/alarm_picture`), 'the alarm picture', 5000);
  const pic = ctx.pics.slice(from).find((p) => p.topic === `${fx.base}/pics/ch2/alarm_picture`)!;
  assert.match(comment(pic.payload), /alarm \d+ CH2 motion/, 'the picture the device sent, byte for byte');
  // Retained: Home Assistant after a restart shows it.
  const late = await mqtt.connectAsync(fx.broker.url, { reconnectPeriod: 0 });
  const got = new Promise<{ payload: Buffer; retain: boolean }>((resolve) =>
    late.once('message', (_t, payload, p) => resolve({ payload, retain: !!p.retain })),
  );
  await late.subscribeAsync(`${fx.base}/pics/ch2/alarm_picture`, { qos: 1 });
  const retained = await got;
  await late.endAsync();
  assert.ok(retained.retain && retained.payload.equals(pic.payload));
  await until(() => ctx.pics.slice(from).some((p) => p.topic === `${fx.base}/pics/ch2/snapshot`), 'the camera picture', 5000);
  assert.ok(
    ctx.pics
      .slice(from)
      .find((p) => p.topic === `${fx.base}/pics/ch2/snapshot`)!
      .payload.equals(pic.payload),
  );
  // The state came first: the edge is on MQTT before the picture.
  const edge = fx.recorder.messages.slice(at).findIndex((m) => m.topic === `${fx.base}/pics/ch2/event`);
  const attrIdx = fx.recorder.messages.slice(at).findIndex((m) => m.topic === `${fx.base}/pics/ch2/alarm_picture/attributes`);
  assert.ok(edge !== -1 && edge < attrIdx, 'state and edge before the picture');
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
  await fx.recorder.waitTopic(`${fx.base}/pics/ch2/event`, (j) => j.active === false, 5000, at);
  await settle(fx);
  assert.equal(requests(fx, 'pics', '/API/Snapshot/Get', since).length, 0, 'no second request for the picture');
});

test('a vehicle in the AI picture: the scene with the object cut-out, the Vehicle sensor (announced on a person/vehicle channel) goes on, then off', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('pics')!;
  // Announced before any vehicle came: the channel has person/vehicle detection.
  const cfg = json(
    await fx.recorder.waitTopic(
      `${fx.prefix}/device/${fx.base}_pics_ch1/config`,
      (j) => (j as { cmps?: Record<string, unknown> }).cmps?.motor_vehicle !== undefined,
      5000,
    ),
  ) as { cmps: Record<string, Record<string, unknown>> };
  const since = sim.log.length;
  const from = ctx.pics.length;
  const at = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH1', type: 'vehicle', active: true });
  await fx.recorder.waitTopic(`${fx.base}/pics/ch1`, (j) => j.vehicle === true && j.motor_vehicle === true, 5000, at);
  assert.equal(cfg.cmps.motor_vehicle.p, 'binary_sensor');
  assert.equal(cfg.cmps.motor_vehicle.name, 'Vehicle');
  const info = json(await fx.recorder.waitTopic(`${fx.base}/pics/ch1/alarm_picture/attributes`, () => true, 5000, at));
  assert.deepEqual(
    [info.type, info.source, info.target],
    ['vehicle', 'ai', 'vehicle'],
    'one picture for both starts, named by the alarm that brought it',
  );
  await until(() => ctx.pics.slice(from).some((p) => p.topic === `${fx.base}/pics/ch1/alarm_picture/object`), 'the object', 5000);
  const scene = ctx.pics.slice(from).find((p) => p.topic === `${fx.base}/pics/ch1/alarm_picture`)!;
  const object = ctx.pics.slice(from).find((p) => p.topic === `${fx.base}/pics/ch1/alarm_picture/object`)!;
  assert.match(comment(scene.payload), /scene vehicle 2/);
  assert.match(comment(object.payload), /object vehicle 2/);
  await settle(fx);
  assert.equal(
    ctx.pics.slice(from).filter((p) => p.topic === `${fx.base}/pics/ch1/alarm_picture`).length,
    1,
    'one alarm picture per start',
  );
  sim.raiseAlarm({ channel: 'CH1', type: 'vehicle', active: false });
  await fx.recorder.waitTopic(`${fx.base}/pics/ch1`, (j) => j.vehicle === false && j.motor_vehicle === false, 5000, at);
  assert.equal(requests(fx, 'pics', '/API/Snapshot/Get', since).length, 0);
  // A person: no vehicle.
  const at2 = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH1', type: 'vehicle', active: true, target: 'human' });
  await fx.recorder.waitTopic(`${fx.base}/pics/ch1/alarm_picture/attributes`, (j) => j.target === 'human', 5000, at2);
  assert.equal(fx.recorder.lastJson(`${fx.base}/pics/ch1`)?.motor_vehicle, false);
  sim.raiseAlarm({ channel: 'CH1', type: 'vehicle', active: false });
});

test('a storm of alarm starts with pictures: at most one picture per start, no Snapshot/Get', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('pics')!;
  const since = sim.log.length;
  const from = ctx.pics.length;
  const at = fx.recorder.count;
  for (let i = 0; i < 100; i++) {
    sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
    sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
    if (i % 10 === 0) await new Promise((r) => setTimeout(r, 30));
  }
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  await fx.recorder.waitTopic(`${fx.base}/pics/ch2`, (j) => j.motion === true, 5000, at);
  await until(() => ctx.pics.slice(from).some((p) => p.topic === `${fx.base}/pics/ch2/alarm_picture`), 'a picture', 5000);
  await settle(fx);
  const starts = fx.recorder.messages.slice(at).filter((m) => m.topic === `${fx.base}/pics/ch2/event` && json(m).active === true).length;
  const pictures = ctx.pics.slice(from).filter((p) => p.topic === `${fx.base}/pics/ch2/alarm_picture`).length;
  assert.ok(pictures >= 1 && pictures <= starts, `${pictures} pictures for ${starts} alarm starts`);
  assert.equal(requests(fx, 'pics', '/API/Snapshot/Get', since).length, 0);
  process.stdout.write(`  [figure] storm of 101 starts: ${starts} start edges, ${pictures} alarm pictures, 0 Snapshot/Get\n`);
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
});

test('a device that sends no pictures: the alarm picture is read once (source snapshot)', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('plain')!;
  const since = sim.log.length;
  const from = ctx.pics.length;
  const at = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  const info = json(await fx.recorder.waitTopic(`${fx.base}/plain/ch1/alarm_picture/attributes`, () => true, 5000, at));
  assert.deepEqual([info.type, info.source], ['motion', 'snapshot']);
  await until(() => ctx.pics.slice(from).some((p) => p.topic === `${fx.base}/plain/ch1/alarm_picture`), 'the picture', 5000);
  assert.ok(
    ctx.pics
      .slice(from)
      .find((p) => p.topic === `${fx.base}/plain/ch1/alarm_picture`)!
      .payload.equals(sim.lastSnapshot('CH1')!),
  );
  await settle(fx);
  assert.equal(requests(fx, 'plain', '/API/Snapshot/Get', since).length, 1);
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
});

test.run();
