/**
 * Faces and plates recognised, with who and which list (issue 39), against a real broker and a simulator whose
 * Event/Check carries the identity in `ai_snap_picture` `FaceInfo` / `PlateInfo` and which serves FDGroup/Get and
 * PlateGroup/Get in the vendor's shapes: Home Assistant gets "Recognition", "Last face", "Last plate" and their
 * pictures only on a channel that recognises faces or plates; each recognition goes out on `<ch>/event` and retained
 * on `last_face` / `last_plate` (pictures on their own retained topics) with the group's name and policy, the group
 * lists read once and again only for a group the copy lacks; a device that recognises nothing is asked nothing more.
 */
import * as assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { suite } from 'uvu';
import { json, setup, until, type Fixture } from './fixture';

const test = suite('bridge: recognised faces and plates');
type Msg = { topic: string; payload: Buffer; retain: boolean };
const ctx: { fx: Fixture; msgs: Msg[]; sub: mqtt.MqttClient } = {} as never;

const requests = (fx: Fixture, path: string, since = 0) =>
  fx.sims
    .get('rec')!
    .log.slice(since)
    .filter((e) => e.path === path).length;

test.before(async () => {
  ctx.fx = await setup({
    label: 'recognition',
    devices: [{ id: 'rec', poll: 0.3, sim: { channels: 4, analog: 2, alarmPictures: 'ai', plateChannels: ['CH1'] } }],
  });
  ctx.msgs = [];
  ctx.sub = await mqtt.connectAsync(ctx.fx.broker.url, { reconnectPeriod: 0 });
  ctx.sub.on('message', (topic, payload, packet) => ctx.msgs.push({ topic, payload, retain: !!packet.retain }));
  await ctx.sub.subscribeAsync([`${ctx.fx.base}/rec/+/last_face/#`, `${ctx.fx.base}/rec/+/last_plate/#`], { qos: 1 });
});
test.after(async () => {
  await ctx.sub.endAsync();
  await ctx.fx.stop();
});

/** What a subscriber arriving now gets on `topic` (retained). */
async function retained(fx: Fixture, topic: string): Promise<Buffer> {
  const late = await mqtt.connectAsync(fx.broker.url, { reconnectPeriod: 0 });
  const got = new Promise<Buffer>((resolve) => late.once('message', (_t, payload, p) => p.retain && resolve(payload)));
  await late.subscribeAsync(topic, { qos: 1 });
  const payload = await got;
  await late.endAsync();
  return payload;
}

type Cmps = Record<string, Record<string, unknown>>;
const config = async (fx: Fixture, ch: string) =>
  (json(await fx.recorder.waitTopic(`${fx.prefix}/device/${fx.base}_rec_${ch}/config`, () => true, 5000)) as { cmps: Cmps }).cmps;

test('entities only where the device says the channel recognises; nothing asked of the device before a recognition', async () => {
  const { fx } = ctx;
  const ch1 = await config(fx, 'ch1');
  const node = `${fx.base}_rec_ch1`;
  assert.deepEqual(ch1.recognition, {
    p: 'event',
    name: 'Recognition',
    unique_id: `${node}_recognition`,
    state_topic: `${fx.base}/rec/ch1/event`,
    event_types: ['face_known', 'face_blocked', 'face_stranger', 'plate_allowed', 'plate_blocked', 'plate_unknown'],
    value_template: "{% if value_json.type in ['face_recognized', 'plate_recognized'] %}{{ value_json | to_json }}{% endif %}",
    icon: 'mdi:account-search',
  });
  assert.equal(ch1.last_plate.name, 'Last plate');
  assert.equal(ch1.last_plate.state_topic, `${fx.base}/rec/ch1/last_plate`);
  assert.equal(ch1.last_face.name, 'Last face');
  assert.equal(ch1.last_face_picture.p, 'image');
  assert.equal(ch1.last_face_picture.image_topic, `${fx.base}/rec/ch1/last_face/picture`);
  assert.equal(ch1.last_plate_picture.image_topic, `${fx.base}/rec/ch1/last_plate/picture`);
  // CH2 recognises nothing (no FD, no LPD): no recognition entity at all.
  const ch2 = await config(fx, 'ch2');
  assert.deepEqual(
    Object.keys(ch2).filter((k) => /recognition|last_face|last_plate/.test(k)),
    [],
  );
  assert.equal(requests(fx, '/API/AI/FDGroup/Get') + requests(fx, '/API/AI/PlateGroup/Get'), 0, 'no group read before a recognition');
});

test('an allowed plate: event and retained last_plate with text, colour, owner, list and policy; its pictures retained; lists read once', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('rec')!;
  sim.recognition.addPlate('GATE1', 1, 1, 'Ann');
  const at = fx.recorder.count;
  const from = ctx.msgs.length;
  sim.raiseAlarm({ channel: 'CH1', type: 'plate', active: true, plate: 'GATE1' });
  const ev = json(await fx.recorder.waitTopic(`${fx.base}/rec/ch1/event`, (j) => j.type === 'plate_recognized', 5000, at));
  const expected = {
    type: 'plate_recognized',
    event_type: 'plate_allowed',
    plate: 'GATE1',
    color: 'green',
    owner: 'Ann',
    group: 'Allow List',
    group_id: 1,
    policy: 'allow',
    channel: 'CH1',
  };
  assert.deepEqual({ ...ev, time: undefined, pictures: undefined }, { ...expected, time: undefined, pictures: undefined });
  assert.match(String(ev.time), /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(ev.pictures, { picture: `${fx.base}/rec/ch1/last_plate/picture`, scene: `${fx.base}/rec/ch1/last_plate/scene` });
  await until(() => ctx.msgs.slice(from).some((m) => m.topic.endsWith('/ch1/last_plate')), 'last_plate', 5000);
  const msgs = ctx.msgs.slice(from);
  const last = msgs.find((m) => m.topic === `${fx.base}/rec/ch1/last_plate`)!;
  assert.deepEqual(await retained(fx, `${fx.base}/rec/ch1/last_plate`), last.payload, 'kept for a later subscriber');
  assert.deepEqual(JSON.parse(last.payload.toString()), ev, 'last_plate is the event, no picture inline');
  const crop = msgs.find((m) => m.topic === `${fx.base}/rec/ch1/last_plate/picture`)!;
  assert.ok(crop.payload[0] === 0xff && crop.payload[1] === 0xd8, 'the plate crop, a JPEG');
  assert.deepEqual(await retained(fx, `${fx.base}/rec/ch1/last_plate/picture`), crop.payload, 'retained');
  assert.match(crop.payload.toString('latin1'), /ai \d+ CH1 lpd plate/);
  assert.match(msgs.find((m) => m.topic === `${fx.base}/rec/ch1/last_plate/scene`)!.payload.toString('latin1'), /ai \d+ CH1 lpd scene/);
  assert.ok(
    msgs.findIndex((m) => m.topic.endsWith('/last_plate/picture')) < msgs.findIndex((m) => m.topic.endsWith('/ch1/last_plate')),
    'the pictures before the JSON that names them',
  );
  sim.raiseAlarm({ channel: 'CH1', type: 'plate', active: false });
  // A blocked plate and an unknown one: the lists are not read again.
  sim.recognition.addPlate('BAD666', 2, 0, '');
  for (const [plate, type] of [
    ['BAD666', 'plate_blocked'],
    ['NOBODY1', 'plate_unknown'],
  ]) {
    const at2 = fx.recorder.count;
    sim.raiseAlarm({ channel: 'CH1', type: 'plate', active: true, plate });
    const e = json(await fx.recorder.waitTopic(`${fx.base}/rec/ch1/event`, (j) => j.type === 'plate_recognized', 5000, at2));
    assert.equal(e.event_type, type);
    assert.equal(e.plate, plate);
    sim.raiseAlarm({ channel: 'CH1', type: 'plate', active: false });
  }
  assert.equal(requests(fx, '/API/AI/PlateGroup/Get'), 1, 'the plate lists read once');
});

test('faces: a blocked one, then a stranger while the alarm is still on; a group added later is read again', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('rec')!;
  sim.recognition.addFace('Mallory', 2);
  let at = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH1', type: 'face', active: true, face: 'Mallory' });
  const blocked = json(await fx.recorder.waitTopic(`${fx.base}/rec/ch1/event`, (j) => j.type === 'face_recognized', 5000, at));
  assert.equal(blocked.event_type, 'face_blocked');
  assert.equal(blocked.name, 'Mallory');
  assert.equal(blocked.group, 'Block List');
  assert.equal(blocked.policy, 'block');
  assert.equal(blocked.similarity, 93.57);
  // The same alarm still on: the device's next face is a stranger.
  at = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH1', type: 'face', active: true });
  const stranger = json(await fx.recorder.waitTopic(`${fx.base}/rec/ch1/event`, (j) => j.type === 'face_recognized', 5000, at));
  assert.equal(stranger.event_type, 'face_stranger');
  assert.equal(stranger.name, null);
  assert.equal(stranger.policy, 'stranger');
  const last = json(await fx.recorder.waitTopic(`${fx.base}/rec/ch1/last_face`, (j) => j.event_type === 'face_stranger', 5000, at));
  assert.equal(last.group, 'Stranger');
  sim.raiseAlarm({ channel: 'CH1', type: 'face', active: false });
  assert.equal(requests(fx, '/API/AI/FDGroup/Get'), 1, 'the face lists read once');
  // A list added on the device after the bridge read them: read again for the group it lacks.
  sim.recognition.faceGroups.push({ Id: 7, Name: 'Family', Policy: 0, Enabled: 1, CanDel: 1, Similarity: 70 });
  sim.recognition.addFace('Bob', 7);
  at = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH1', type: 'face', active: true, face: 'Bob' });
  const known = json(await fx.recorder.waitTopic(`${fx.base}/rec/ch1/event`, (j) => j.type === 'face_recognized', 5000, at));
  assert.equal(known.event_type, 'face_known');
  assert.equal(known.group, 'Family');
  assert.equal(known.group_id, 7);
  assert.equal(requests(fx, '/API/AI/FDGroup/Get'), 2);
  sim.raiseAlarm({ channel: 'CH1', type: 'face', active: false });
});

test.run();
