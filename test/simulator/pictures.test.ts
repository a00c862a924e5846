import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, SimulatorOptions, startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';

/**
 * The simulator's alarm pictures in Event/Check, in the vendor's shapes (Event/Check page tables 5, 15, 16; C1.3
 * SnapedObjInfo/PlateInfo/FaceInfo): `alarm_snap_data` matched by `take_alarm_snap` when the device attaches them
 * (and not for a reader that asked for `no_snapshot`), `ai_snap_picture` only for readers subscribed with
 * `aipushpic`, one per answer, in the C1.3 wrapper or the first set's flat form; none on an alarm's end.
 */

const CHECK = '/API/Event/Check';
const EVENTS = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }] } };
const WITH_AI = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }, { aipushpic: ['all'] }] } };

let sim: Simulator;
let c: RawClient;

async function start(opts: Partial<SimulatorOptions>) {
  sim = await startSimulator({ password: PASSWORD, ...opts });
  c = new RawClient(sim.url);
  await c.login();
}

const test = suite('simulator alarm pictures (vendor shapes)');
test.after.each(async () => {
  await sim.stop();
});

type Data = Record<string, any>;
async function reader(sub: object): Promise<() => Promise<Data>> {
  let cur: Data = (await c.post(CHECK, sub)).json.data;
  return async () => {
    const res = await c.post(CHECK, { ...sub, reader_id: cur.reader_id, sequence: cur.sequence, lap_number: null });
    assert.is(res.status, 200, res.text);
    cur = res.json.data;
    return cur;
  };
}
const decoded = (b64: string) => Buffer.from(b64, 'base64');
const isJpeg = (b: Buffer) => b[0] === 0xff && b[1] === 0xd8 && b.at(-2) === 0xff && b.at(-1) === 0xd9;

test('alarmPictures snap: an alarm start carries take_alarm_snap and its alarm_snap_data item (table 15 spelling)', async () => {
  await start({ alarmPictures: 'snap' });
  const plain = await reader(EVENTS);
  const none = await reader({ ...EVENTS, ext_data: { ...EVENTS.ext_data, snap_resolution: 'no_snapshot' } });
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  const d = await plain();
  const [begin, end] = d.alarm_list.map((i: Data) => i.channel_alarm[0]);
  assert.type(begin.take_alarm_snap, 'number');
  assert.is(end.take_alarm_snap, undefined, 'no picture on the end');
  assert.is(d.alarm_snap_data.length, 1);
  const item = d.alarm_snap_data[0];
  assert.equal(Object.keys(item), ['chnnel', 'chn_alias', 'img_id', 'img_encode', 'img_format', 'img_data']);
  assert.equal([item.chnnel, item.img_id, item.img_encode, item.img_format], ['CH1', begin.take_alarm_snap, 'base64', 'image/jpeg']);
  const jpeg = decoded(item.img_data);
  assert.ok(isJpeg(jpeg));
  assert.match(jpeg.toString('latin1'), `alarm ${item.img_id} CH1 motion`);
  assert.is(d.ai_snap_picture, undefined, 'no AI pictures on this device');
  const n = await none();
  assert.is(n.alarm_snap_data, undefined, 'no_snapshot: no pictures');
  assert.is(n.alarm_list[0].channel_alarm[0].take_alarm_snap, undefined);
});

test('alarmPictures ai: ai_snap_picture (C1.3 SnapedObjInfo) only for aipushpic readers, one per answer, Type by target', async () => {
  await start({ alarmPictures: 'ai' });
  const ai = await reader(WITH_AI);
  const plain = await reader(EVENTS);
  sim.raiseAlarm({ channel: 'CH1', type: 'vehicle', active: true });
  sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true, target: 'human' });
  sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  const first = await ai();
  assert.is(first.alarm_list.length, 1, 'the answer ends before the second AI picture');
  assert.is(first.alarm_snap_data, undefined);
  const obj = first.ai_snap_picture.SnapedObjInfo;
  assert.equal([obj.Chn, obj.StrChn, obj.Type], [0, 'CH1', 2]);
  for (const k of ['StartTime', 'EndTime', 'SnapId']) assert.type(obj[k], 'number');
  assert.ok(isJpeg(decoded(obj.ObjectImage)) && isJpeg(decoded(obj.Background)));
  assert.match(decoded(obj.ObjectImage).toString('latin1'), 'pd_vd object vehicle 2');
  const second = await ai();
  assert.is(second.alarm_list.length, 2, 'the person and the motion');
  assert.is(second.ai_snap_picture.SnapedObjInfo.Type, 1);
  const p = await plain();
  assert.is(p.alarm_list.length, 3);
  assert.is(p.ai_snap_picture, undefined, 'not subscribed with aipushpic');
});

test('face and plate pictures; the first set flat form; both pictures together', async () => {
  await start({ alarmPictures: 'both', aiPictureForm: 'flat', channels: 4 });
  const ai = await reader(WITH_AI);
  sim.raiseAlarm({ channel: 'CH1', type: 'intrusion', active: true, target: 'vehicle' });
  const d = await ai();
  const flat = d.ai_snap_picture;
  assert.equal(Object.keys(flat), [
    'Chn',
    'strChn',
    'Chn_alias',
    'StartTime',
    'EndTime',
    'SnapId',
    'Type',
    'ImageAllInfo',
    'ObjectImage',
    'backGround',
  ]);
  assert.equal([flat.strChn, flat.Type], ['CH1', 4], 'PID vehicle');
  assert.is(d.alarm_snap_data.length, 1);
  assert.is(d.alarm_list[0].channel_alarm[0].take_alarm_snap, d.alarm_snap_data[0].img_id);
  await sim.stop();

  await start({ alarmPictures: 'ai' });
  const r = await reader(WITH_AI);
  sim.raiseAlarm({ channel: 'CH1', type: 'face', active: true });
  const face = (await r()).ai_snap_picture.FaceInfo;
  assert.equal([face.StrChn, face.Type], ['CH1', 0]);
  assert.ok(isJpeg(decoded(face.Image2)) && isJpeg(decoded(face.Image4)));
  assert.throws(() => sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true, target: 'cat' as never }), /target must be/);
});

test('default: no pictures at all (as before)', async () => {
  await start({});
  const ai = await reader(WITH_AI);
  sim.raiseAlarm({ channel: 'CH1', type: 'vehicle', active: true });
  const d = await ai();
  assert.is(d.alarm_snap_data, undefined);
  assert.is(d.ai_snap_picture, undefined);
  assert.is(d.alarm_list[0].channel_alarm[0].take_alarm_snap, undefined);
});

test.run();
