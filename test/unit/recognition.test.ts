import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AiResultError, RecognitionGroups, eventsOf, groupsOf, identityOf } from '../../core';

/**
 * Identities and group lists decoded from the vendor's own samples (PlateGroup/Get 53408299226, FDGroup/Get
 * 53196121075, processAlarm 53670618556 FaceInfo fields, C1.3 PlateInfo): a plate's text, colour, owner and group; a
 * face's name, group and similarity; a stranger without a name; a refusal by its integer Result; the lists read once
 * and again only for a group the copy lacks.
 */
const test = suite('core: recognition identities and groups');

// The vendor's PlateGroup/Get answer sample, verbatim but for its "..." lines.
const PLATE_GROUPS = {
  channel: ['CH1', 'CH2', 'CH3'],
  Result: 0,
  Count: 4,
  Group: [
    { Id: 1, Name: '白名单', Policy: 0, DetectType: 2, Similarity: 1, CanDel: 0, Enabled: 1, EnableAlarm: 1 },
    { Id: 2, Name: '黑名单', Policy: 1, DetectType: 2, Similarity: 1, CanDel: 0, Enabled: 1, EnableAlarm: 1 },
    { Id: 3, Name: '未知', Policy: 2, DetectType: 2, Similarity: 1, CanDel: 0, Enabled: 1, EnableAlarm: 1 },
  ],
};

test('PlateGroup/Get sample: three built-in groups, allow / block / unknown', () => {
  assert.equal(groupsOf(PLATE_GROUPS, 'plate'), [
    { id: 1, name: '白名单', policy: 'allow', enabled: true, builtIn: true },
    { id: 2, name: '黑名单', policy: 'block', enabled: true, builtIn: true },
    { id: 3, name: '未知', policy: 'unknown', enabled: true, builtIn: true },
  ]);
});

test('FDGroup/Get: policies 0-4 (a bad item left out), the table spelling `name`; a Result other than 0 is a clear refusal', () => {
  const answer = {
    MsgId: null,
    Result: 0,
    Count: 3,
    Group: [
      { Id: 2, Name: 'Block List', DetectType: 0, Policy: 1, Enabled: 1, CanDel: 0, Similarity: 70 },
      { Id: 9, name: 'Friends', DetectType: 0, Policy: 4, Enabled: 0, CanDel: 1, Similarity: 80 },
      { Id: 'x', Policy: 0 },
      { Id: 10, Name: 'Odd', Policy: 9 },
    ],
  };
  assert.equal(groupsOf(answer, 'face'), [
    { id: 2, name: 'Block List', policy: 'block', enabled: true, builtIn: true },
    { id: 9, name: 'Friends', policy: 'advance', enabled: false, builtIn: false },
  ]);
  assert.throws(
    () => groupsOf({ Result: -5 }, 'face'),
    (e: unknown) => e instanceof AiResultError && e.result === -5 && /FDGroup\/Get: no disk \(Result -5\)/.test(e.message),
  );
});

test('identities: a plate (text, colour, owner, group), a known face, a stranger, a plate without text (none)', () => {
  assert.equal(identityOf({ Id: 'GATE1', GrpId: 1, PlateColor: 1, Owner: 'Ann', StrChn: 'CH1', PlateImg: 'x' }, 'plate'), {
    kind: 'plate',
    plate: 'GATE1',
    color: 'green',
    groupId: 1,
    owner: 'Ann',
  });
  assert.equal(identityOf({ Id: 12, GrpId: 2, Name: 'Eve', Similarity: 93.56932, StrChn: 'CH4', Chn: 3 }, 'face'), {
    kind: 'face',
    id: 12,
    name: 'Eve',
    groupId: 2,
    similarity: 93.57,
  });
  assert.equal(identityOf({ Id: -1, GrpId: 3, Name: '', Similarity: 0 }, 'face'), { kind: 'face', groupId: 3, similarity: 0 });
  assert.is(identityOf({ Id: '', GrpId: 3 }, 'plate'), undefined);
});

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]).toString('base64');

test('Event/Check: the identity goes with the plate alarm start its picture belongs to', () => {
  const events = eventsOf({
    time: '2026-12-06 06:00:00',
    alarm_list: [{ time: '2026-12-06 06:00:00', channel_alarm: [{ channel: 'CH1', int_alarm: { alarm_val: true, int_subtype: 'lpd' } }] }],
    ai_snap_picture: { PlateInfo: { Id: 'BAD666', GrpId: 2, PlateColor: 0, StrChn: 'CH1', SnapId: 5, PlateImg: JPEG, BgImg: JPEG } },
  });
  const start = events.find((e) => e.kind === 'alarm');
  assert.ok(start && start.kind === 'alarm' && start.picture);
  assert.equal(start.picture.identity, { kind: 'plate', plate: 'BAD666', color: 'blue', groupId: 2 });
});

test('groups: read once, again for a group the copy lacks, not again for one still missing; a failed read is not kept', async () => {
  const calls: string[] = [];
  let groups = PLATE_GROUPS.Group;
  let fail = false;
  const g = new RecognitionGroups(async (path) => {
    calls.push(path);
    if (fail) throw new Error('offline');
    return { Result: 0, Group: groups };
  });
  assert.is((await g.group('plate', 2))?.policy, 'block');
  assert.is((await g.group('plate', 1))?.policy, 'allow');
  assert.is(calls.length, 1);
  groups = [...groups, { Id: 7, Name: 'Visitors', Policy: 0, DetectType: 2, Similarity: 1, CanDel: 1, Enabled: 1, EnableAlarm: 1 }];
  assert.is((await g.group('plate', 7))?.name, 'Visitors');
  assert.is(calls.length, 2);
  assert.is(await g.group('plate', 99), undefined);
  assert.is(await g.group('plate', 99), undefined);
  assert.is(calls.length, 3, 'a missing group asked for once');
  g.invalidate('plate');
  fail = true;
  await g.group('plate', 1).then(
    () => assert.unreachable(),
    () => undefined,
  );
  fail = false;
  assert.is((await g.group('plate', 1))?.policy, 'allow');
  assert.is(calls.length, 5);
});

test.run();
