import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  aiPictures,
  alarmSnaps,
  eventsOf,
  eventCheckRequest,
  jpegOf,
  pictureTarget,
  VehicleTracker,
  type DeviceEvent,
} from '../../core/events';

/**
 * The pictures of `/API/Event/Check` answers in the vendor's shapes (the vendor's Event/Check page: table 5
 * `take_alarm_snap`, table 15 `alarm_snap_data` with its `chnnel` spelling, table 16 the flat `ai_snap_picture`;
 * C1.3 `{SnapedObjInfo, PlateInfo, FaceInfo}`; vendor facts o): each picture goes with its alarm start, a lone AI
 * picture is an event of its own, what is not a base64 JPEG is dropped alone, and a vehicle in an AI picture
 * reports `motor_vehicle`, which ends with the AI alarm it came with.
 */

const test = suite('event pictures');

/** A valid JPEG whose comment names it (as simulator/pictures.ts builds them, written out here). */
function jpeg(name: string): Buffer {
  const body = Buffer.from(name, 'latin1');
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0, body.length + 2]),
    body,
    Buffer.from([0xff, 0xdb, 0, 4, 0, 0, 0xff, 0xd9]),
  ]);
}
const b64 = (name: string) => jpeg(name).toString('base64');
const alarms = (events: DeviceEvent[]) => events.filter((e): e is Extract<DeviceEvent, { kind: 'alarm' }> => e.kind === 'alarm');
const names = (b: Buffer | undefined) => (b ? b.toString('latin1').slice(6, b.indexOf(0xff, 4)) : undefined);

test('alarm_snap_data (table 15, "chnnel"): the picture goes with the alarm start whose take_alarm_snap names it', () => {
  const answer = {
    reader_id: 1,
    sequence: 9596,
    alarm_list: [
      {
        time: '2023-08-25T08:38:58Z+08:00',
        channel_alarm: [
          { channel: 'CH1', motion_alarm: true, record_flag: { m: 'R' }, take_alarm_snap: 707 },
          { channel: 'CH2', io_alarm: true, take_alarm_snap: 708 },
          { channel: 'CH3', motion_alarm: false, take_alarm_snap: 709 },
        ],
      },
    ],
    alarm_snap_data: [
      { chnnel: 'CH1', chn_alias: 'Drive', img_id: 707, img_encode: 'base64', img_format: 'image/jpeg', img_data: b64('drive') },
      { chnnel: 'CH2', chn_alias: 'Gate', img_id: 708, img_encode: 'base64', img_format: 'image/jpeg', img_data: b64('gate') },
      { chnnel: 'CH3', img_id: 709, img_encode: 'base64', img_format: 'image/jpeg', img_data: b64('end') },
    ],
  };
  const [ch1, ch2, ch3] = alarms(eventsOf(answer));
  assert.equal(names(ch1.picture?.jpeg), 'drive');
  assert.equal({ ...ch1.picture, jpeg: undefined }, { jpeg: undefined, source: 'alarm', id: 707 });
  assert.equal(ch1.time, '2023-08-25T08:38:58+08:00');
  assert.equal(names(ch2.picture?.jpeg), 'gate');
  assert.is(ch3.active, false);
  assert.is(ch3.picture, undefined, 'an alarm end carries no picture');
});

test('take_alarm_snap inside int_alarm (as devices send it with AI alarms) also matches', () => {
  const answer = {
    alarm_list: [
      {
        time: '2024-03-09T21:04:05Z+01:00',
        channel_alarm: [{ channel: 'CH1', int_alarm: { alarm_val: true, int_subtype: 'lcd', take_alarm_snap: 5 } }],
      },
    ],
    alarm_snap_data: [{ channel: 'CH1', img_id: 5, img_encode: 'base64', img_format: 'image/jpeg', img_data: b64('line') }],
  };
  const [e] = alarms(eventsOf(answer));
  assert.is(e.type, 'line_crossing');
  assert.equal(names(e.picture?.jpeg), 'line');
});

test('a picture that is not a base64 JPEG, of another format or encoding, or without img_id is dropped alone', () => {
  const answer = {
    alarm_list: [
      {
        channel_alarm: [
          { channel: 'CH1', motion_alarm: true, take_alarm_snap: 1 },
          { channel: 'CH2', motion_alarm: true, take_alarm_snap: 2 },
          { channel: 'CH3', motion_alarm: true, take_alarm_snap: 3 },
          { channel: 'CH4', motion_alarm: true, take_alarm_snap: 4 },
          { channel: 'CH5', motion_alarm: true, take_alarm_snap: 5 },
        ],
      },
    ],
    alarm_snap_data: [
      {
        chnnel: 'CH1',
        img_id: 1,
        img_encode: 'base64',
        img_format: 'image/jpeg',
        img_data: Buffer.from('not a picture').toString('base64'),
      },
      { chnnel: 'CH2', img_id: 2, img_encode: 'hex', img_format: 'image/jpeg', img_data: b64('x') },
      { chnnel: 'CH3', img_id: 3, img_encode: 'base64', img_format: 'image/png', img_data: b64('x') },
      { chnnel: 'CH4', img_encode: 'base64', img_format: 'image/jpeg', img_data: b64('x') },
      { chnnel: 'CH5', img_id: 5, img_encode: 'base64', img_format: 'image/jpeg', img_data: b64('fine') },
      'garbage',
    ],
  };
  const events = alarms(eventsOf(answer));
  assert.is(events.length, 5, 'every alarm still arrives');
  assert.equal(
    events.map((e) => names(e.picture?.jpeg)),
    [undefined, undefined, undefined, undefined, 'fine'],
  );
  assert.is(jpegOf('%%%notbase64%%%'), undefined);
  assert.is(jpegOf(''), undefined);
  assert.ok(jpegOf(`data:image/jpeg;base64,${b64('uri')}`));
  assert.equal([...alarmSnaps('not a list')], []);
});

test('ai_snap_picture, first set (table 16, flat): scene and object crop go with the AI alarm start of its channel', () => {
  const answer = {
    alarm_list: [
      { time: '2024-03-09T21:04:05Z+01:00', channel_alarm: [{ channel: 'CH2', int_alarm: { alarm_val: true, int_subtype: 'pd' } }] },
    ],
    ai_snap_picture: {
      Chn: 1,
      strChn: 'CH2',
      Chn_alias: 'Yard',
      StartTime: 1710014645,
      EndTime: 1710014650,
      SnapId: 31,
      Type: 1,
      ImageAllInfo: 'GAAAAA==',
      ObjectImage: b64('person crop'),
      backGround: b64('yard scene'),
    },
  };
  const events = eventsOf(answer);
  assert.is(events.length, 1, 'a person: no vehicle alarm');
  const [e] = alarms(events);
  assert.is(e.type, 'person');
  assert.equal(names(e.picture?.jpeg), 'yard scene');
  assert.equal(names(e.picture?.object), 'person crop');
  assert.equal([e.picture?.source, e.picture?.id, e.picture?.target], ['ai', 31, 'human']);
});

test('ai_snap_picture, C1.3 SnapedObjInfo of a vehicle: the picture with its alarm, and motor_vehicle starts after it', () => {
  const answer = {
    alarm_list: [
      {
        time: '2024-03-09T21:04:05Z+01:00',
        channel_alarm: [{ channel: 'CH1', int_alarm: { alarm_val: true, int_subtype: 'pd_vd' }, take_alarm_snap: 9 }],
      },
    ],
    alarm_snap_data: [{ chnnel: 'CH1', img_id: 9, img_encode: 'base64', img_format: 'image/jpeg', img_data: b64('plain') }],
    ai_snap_picture: {
      SnapedObjInfo: {
        Chn: 0,
        StrChn: 'CH1',
        StartTime: 1710014645,
        EndTime: 1710014650,
        SnapId: 12,
        Type: 2,
        ObjectImage: b64('car'),
        Background: b64('drive'),
      },
    },
  };
  const events = alarms(eventsOf(answer));
  assert.equal(
    events.map((e) => [e.type, e.active, e.subtype]),
    [
      ['vehicle', true, 'pd_vd'],
      ['motor_vehicle', true, 'pd_vd'],
    ],
  );
  assert.equal(names(events[0].picture?.jpeg), 'drive', 'the AI picture (with its object) wins over the plain one');
  assert.equal(names(events[0].picture?.object), 'car');
  assert.is(events[1].time, '2024-03-09T21:04:05+01:00');
  assert.is(events[1].picture, events[0].picture, 'the vehicle start shows the same picture');
});

test('PlateInfo and FaceInfo (arrays, as devices send them): plate and face crops; a lone picture is a picture event', () => {
  const answer = {
    time: '03/09/202421:04:05',
    heat_alarm: 'HeatAlarm',
    ai_snap_picture: {
      PlateInfo: [
        {
          Id: 'AB123CD',
          SnapId: 3,
          Type: 0,
          StrChn: 'CH4',
          Chn: 3,
          PlateImg: b64('plate'),
          BgImg: b64('street'),
          ImageAllInfo: 'GAAAAA==',
        },
      ],
      FaceInfo: [{ Id: 1, SnapId: 4, Type: 0, StrChn: 'CH5', Chn: 4, Image2: b64('face'), Image4: b64('hall') }],
      SnapedObjInfo: [],
    },
  };
  const events = eventsOf(answer);
  assert.equal(
    events.map((e) =>
      e.kind === 'picture' ? [e.channel, e.picture.target, names(e.picture.jpeg), names(e.picture.object), e.time] : e.kind,
    ),
    [
      ['CH4', 'plate', 'street', 'plate', '2024-03-09T21:04:05'],
      ['CH5', 'face', 'hall', 'face', '2024-03-09T21:04:05'],
    ],
  );
  // No channel name, or no JPEG at all: dropped.
  assert.equal(aiPictures({ Type: 2, ObjectImage: b64('x') }), []);
  assert.equal(aiPictures({ StrChn: 'CH1', Type: 2, ObjectImage: 'AAAA' }), []);
  assert.equal(aiPictures('x'), []);
});

test('two AI alarms on one channel in one answer: each picture goes with the alarm its Type names, not the latest', () => {
  // A person-vehicle alarm and a line crossing on CH1; the device sends the LCD human picture (Type 5) after the
  // vehicle one (Type 2), and a face picture no alarm of this answer names.
  const answer = {
    alarm_list: [
      {
        time: '2024-03-09T21:04:05Z+01:00',
        channel_alarm: [
          { channel: 'CH1', int_alarm: { alarm_val: true, int_subtype: 'lcd' } },
          { channel: 'CH1', int_alarm: { alarm_val: true, int_subtype: 'pd_vd' } },
        ],
      },
    ],
    ai_snap_picture: {
      SnapedObjInfo: [
        {
          Chn: 0,
          StrChn: 'CH1',
          StartTime: 1710014645,
          EndTime: 1710014650,
          SnapId: 1,
          Type: 5,
          ObjectImage: b64('walker'),
          Background: b64('line'),
        },
        {
          Chn: 0,
          StrChn: 'CH1',
          StartTime: 1710014645,
          EndTime: 1710014650,
          SnapId: 2,
          Type: 2,
          ObjectImage: b64('car'),
          Background: b64('drive'),
        },
      ],
      FaceInfo: [{ Id: 1, SnapId: 3, Type: 0, StrChn: 'CH1', Chn: 0, Image2: b64('face'), Image4: b64('door') }],
    },
  };
  const events = eventsOf(answer);
  assert.equal(
    events.map((e) => (e.kind === 'alarm' ? [e.type, e.subtype, e.picture?.id] : [e.kind, e.kind === 'picture' ? e.picture.id : -1])),
    [
      ['line_crossing', 'lcd', 1],
      ['vehicle', 'pd_vd', 2],
      ['motor_vehicle', 'pd_vd', 2],
      ['picture', 3],
    ],
  );
});

test('an intrusion picture (Type 11) goes with a PID alarm: both are the intrusion alarm', () => {
  const answer = {
    alarm_list: [
      { time: '2024-03-09T21:04:05Z+01:00', channel_alarm: [{ channel: 'CH3', int_alarm: { alarm_val: true, int_subtype: 'pid' } }] },
    ],
    ai_snap_picture: {
      SnapedObjInfo: [
        { Chn: 2, StrChn: 'CH3', StartTime: 1710014645, SnapId: 5, Type: 11, ObjectImage: b64('intruder'), Background: b64('fence') },
      ],
    },
  };
  assert.equal(
    eventsOf(answer).map((e) => (e.kind === 'alarm' ? [e.type, e.picture?.id] : [e.kind])),
    [['intrusion', 5]],
  );
});

test('two starts of one AI alarm in one answer: each picture goes with the start nearest its StartTime', () => {
  const answer = {
    alarm_list: [
      { time: '2024-03-09T21:04:05Z+01:00', channel_alarm: [{ channel: 'CH2', int_alarm: { alarm_val: true, int_subtype: 'pd' } }] },
      { time: '2024-03-09T21:04:07Z+01:00', channel_alarm: [{ channel: 'CH2', int_alarm: { alarm_val: false, int_subtype: 'pd' } }] },
      { time: '2024-03-09T21:04:30Z+01:00', channel_alarm: [{ channel: 'CH2', int_alarm: { alarm_val: true, int_subtype: 'pd' } }] },
    ],
    ai_snap_picture: {
      SnapedObjInfo: [
        {
          Chn: 1,
          StrChn: 'CH2',
          StartTime: 1710014645,
          EndTime: 1710014647,
          SnapId: 7,
          Type: 1,
          ObjectImage: b64('first'),
          Background: b64('a'),
        },
        {
          Chn: 1,
          StrChn: 'CH2',
          StartTime: 1710014670,
          EndTime: 1710014672,
          SnapId: 8,
          Type: 1,
          ObjectImage: b64('second'),
          Background: b64('b'),
        },
      ],
    },
  };
  assert.equal(
    alarms(eventsOf(answer)).map((e) => [e.active, e.time, e.picture?.id]),
    [
      [true, '2024-03-09T21:04:05+01:00', 7],
      [false, '2024-03-09T21:04:07+01:00', undefined],
      [true, '2024-03-09T21:04:30+01:00', 8],
    ],
  );
});

test('Type (o.1): 0 face, 1/3/5/11/14/17 human, 2/4/6/12/15/18 vehicle, 7-9/13/16/19 non-vehicle, 10 plate', () => {
  const vehicle = [2, 4, 6, 12, 15, 18];
  const human = [1, 3, 5, 11, 14, 17];
  const non = [7, 8, 9, 13, 16, 19];
  for (let t = 0; t <= 19; t++) {
    const want =
      t === 0
        ? 'face'
        : t === 10
          ? 'plate'
          : vehicle.includes(t)
            ? 'vehicle'
            : human.includes(t)
              ? 'human'
              : non.includes(t)
                ? 'non_vehicle'
                : '?';
    assert.is(pictureTarget(t), want, `Type ${t}`);
  }
  assert.is(pictureTarget(20), undefined);
  assert.is(pictureTarget(-1), undefined);
  assert.is(pictureTarget(undefined), undefined);
});

test('VehicleTracker: motor_vehicle ends with the end of its AI alarm (same int_subtype), once; a lone one with any AI end', () => {
  const t = new VehicleTracker();
  const a = (type: string, active: boolean, subtype?: string): DeviceEvent =>
    ({ kind: 'alarm', channel: 'CH1', type, active, ...(subtype ? { subtype } : {}) }) as DeviceEvent;
  t.apply([a('vehicle', true, 'pd_vd'), a('motor_vehicle', true, 'pd_vd')]);
  assert.equal(t.apply([a('line_crossing', false, 'lcd'), a('motion', false)]).length, 2, 'other ends leave it on');
  const out = t.apply([a('vehicle', false, 'pd_vd')]);
  assert.equal(
    out.map((e) => e.kind === 'alarm' && [e.type, e.active]),
    [
      ['vehicle', false],
      ['motor_vehicle', false],
    ],
  );
  assert.is(t.apply([a('vehicle', false, 'pd_vd')]).length, 1, 'ended once');
  t.apply([a('motor_vehicle', true)]);
  assert.is(t.apply([a('intrusion', false, 'pid')]).length, 2, 'a lone vehicle ends with any AI end of its channel');
});

test('the subscription asks for AI pictures only when told (vendor table 1.2: aipushpic ["all"])', () => {
  assert.equal(eventCheckRequest(undefined), { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }] } });
  assert.equal(eventCheckRequest({ reader_id: 1, sequence: 9595 }, true), {
    plus_eventchk: 'eventAiPushPic',
    ext_data: { subscribe_type: [{ event: ['all'] }, { aipushpic: ['all'] }] },
    reader_id: 1,
    sequence: 9595,
    lap_number: null,
  });
});

test.run();
