import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';

/**
 * The simulator's face and plate lists (FDGroup/Get 53196121075, PlateGroup/Get 53408299226) answered to the vendor's
 * own request samples in the AI pages' bare `{"data":{Result, ...}}` form, and the identity a face or plate
 * recognition carries in Event/Check's `ai_snap_picture` (`FaceInfo` / `PlateInfo`).
 */

const test = suite('simulator: recognition lists and identities');

test('FDGroup/Get and PlateGroup/Get answer the vendor samples: bare data, integer Result, the groups asked for', async () => {
  const sim = await startSimulator({ password: PASSWORD, channels: 4, analog: 2, plateChannels: ['CH1'] });
  try {
    const c = new RawClient(sim.url);
    assert.is((await c.login()).status, 200);
    const fd = await c.post('/API/AI/FDGroup/Get', {
      MsgId: null,
      TypeFlags: 1,
      DefaultVal: 0,
      WithInternal: 1,
      SimpleInfo: 0,
      GroupsId: [2],
    });
    assert.is(fd.status, 200);
    assert.is(fd.json.result, undefined, 'no result string on the AI pages');
    assert.is(fd.json.data.Result, 0);
    assert.is(fd.json.data.Count, 1);
    const [block] = fd.json.data.Group;
    assert.equal([block.Id, block.Name, block.DetectType, block.Policy, block.CanDel], [2, 'Block List', 0, 1, 0]);
    assert.ok(Array.isArray(block.EnableChnAlarm), 'SimpleInfo 0: the full group');
    const plates = await c.post('/API/AI/PlateGroup/Get', { MsgId: '', DefaultVal: 0, SimpleInfo: 1, GroupsId: [1, 2, 3] });
    const d = plates.json.data;
    assert.is(d.Result, 0);
    assert.equal(d.channel, ['CH1', 'CH2', 'IP_CH1', 'WIFI_CH1']);
    assert.equal(
      d.Group.map((g: Record<string, unknown>) => [g.Id, g.Policy, g.DetectType]),
      [
        [1, 0, 2],
        [2, 1, 2],
        [3, 2, 2],
      ],
    );
    assert.is(d.Group[0].EnableChnAlarm, undefined, 'SimpleInfo 1: the short form');
  } finally {
    await sim.stop();
  }
});

test('a plate and a face recognised: their identity in ai_snap_picture PlateInfo / FaceInfo', async () => {
  const sim = await startSimulator({ password: PASSWORD, channels: 4, analog: 2, plateChannels: ['CH1'], alarmPictures: 'ai' });
  try {
    sim.recognition.addPlate('GATE1', 1, 1, 'Ann');
    sim.recognition.addFace('Eve', 2);
    const c = new RawClient(sim.url);
    assert.is((await c.login()).status, 200);
    const sub = { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }, { aipushpic: ['all'] }] } };
    let cursor = (await c.post('/API/Event/Check', sub)).json.data;
    const next = async () => {
      const r = await c.post('/API/Event/Check', { ...sub, reader_id: cursor.reader_id, sequence: cursor.sequence, lap_number: null });
      cursor = r.json.data;
      return r.json.data.ai_snap_picture;
    };
    sim.raiseAlarm({ channel: 'CH1', type: 'plate', active: true, plate: 'GATE1' });
    const plate = (await next()).PlateInfo;
    assert.equal([plate.Id, plate.GrpId, plate.PlateColor, plate.Owner, plate.StrChn], ['GATE1', 1, 1, 'Ann', 'CH1']);
    sim.raiseAlarm({ channel: 'CH1', type: 'plate', active: true, plate: 'NOPE' });
    const unknown = (await next()).PlateInfo;
    assert.equal([unknown.Id, unknown.GrpId], ['NOPE', 3], 'not listed: the Unknown group');
    sim.raiseAlarm({ channel: 'CH1', type: 'face', active: true, face: 'Eve' });
    const face = (await next()).FaceInfo;
    assert.equal([face.Name, face.GrpId, typeof face.Similarity, face.StrChn], ['Eve', 2, 'number', 'CH1']);
    assert.ok(face.Id > 0);
  } finally {
    await sim.stop();
  }
});

test.run();
