/**
 * nvr-event with faces and plates recognised (issue 39), in the Node-RED runtime against a simulator that reads
 * plates and faces and sends who or which plate in `ai_snap_picture`: a recognition carries `msg.recognition`
 * (plate or name, list, policy, event type) and its pictures; the node's Plates / Lists / Policies / Faces filters
 * pass only recognitions that match; the device's lists are read once for all nodes of the device.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { credentials, DEV, flowWith, load, newPassword, node, waitFor, useSimulator, type SimulatorContext } from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: nvr-event with faces and plates recognised', { password: newPassword() });

useSimulator(test, { alarmPictures: 'ai', plateChannels: ['CH1'] });

const ev = (id: string, props: Record<string, unknown>) => ({
  id,
  type: 'nvr-event',
  name: '',
  device: DEV,
  channels: 'CH1',
  types: [],
  startOnly: true,
  picture: false,
  ...props,
  wires: [[`out_${id}`]],
});

test('identity in msg.recognition with the pictures; filters on policy, plate, list and name', async ({ sim, password }) => {
  sim!.recognition.addPlate('GATE1', 1, 0, 'Ann');
  sim!.recognition.addPlate('BAD666', 2, 2, '');
  sim!.recognition.addFace('Eve', 1);
  const ids = ['all', 'allowed', 'blocked', 'plate', 'list', 'byname'];
  await load(
    flowWith(sim!.url, [
      ev('all', {}),
      ev('allowed', { policies: 'allow' }),
      ev('blocked', { types: ['plate'], policies: 'block' }),
      ev('plate', { plates: 'gate-1' }),
      ev('list', { lists: 'allow list' }),
      ev('byname', { names: 'eve' }),
      ...ids.map((id) => ({ id: `out_${id}`, type: 'helper' })),
    ]),
    credentials(password),
  );
  await waitFor(() => sim!.log.filter((e) => e.path === '/API/Event/Check').length >= 2, 'subscribed and polling');
  const got: Record<string, any[]> = Object.fromEntries(ids.map((id) => [id, []]));
  for (const id of ids) node(`out_${id}`).on('input', (m: any) => got[id].push(m));
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  sim!.raiseAlarm({ channel: 'CH1', type: 'plate', active: true, plate: 'GATE1' });
  sim!.raiseAlarm({ channel: 'CH1', type: 'plate', active: false });
  sim!.raiseAlarm({ channel: 'CH1', type: 'plate', active: true, plate: 'BAD666' });
  sim!.raiseAlarm({ channel: 'CH1', type: 'plate', active: false });
  sim!.raiseAlarm({ channel: 'CH1', type: 'face', active: true, face: 'Eve' });
  sim!.raiseAlarm({ channel: 'CH1', type: 'face', active: false });
  await waitFor(() => got.all.length >= 4, 'motion, two plates and a face on the unfiltered node');
  await waitFor(() => got.byname.length >= 1 && got.list.length >= 2 && got.allowed.length >= 2, 'the filtered nodes');
  const plates = got.all.filter((m) => m.recognition);
  assert.equal(
    got.all.map((m) => `${m.payload.type} ${m.recognition?.event_type ?? '-'}`),
    ['motion -', 'plate plate_allowed', 'plate plate_blocked', 'face face_known'],
  );
  assert.equal(plates[0].recognition, {
    event_type: 'plate_allowed',
    plate: 'GATE1',
    color: 'blue',
    owner: 'Ann',
    group: 'Allow List',
    group_id: 1,
    policy: 'allow',
  });
  assert.is(plates[1].recognition.color, 'yellow');
  assert.is(plates[2].recognition.name, 'Eve');
  assert.ok(Buffer.isBuffer(plates[0].picture) && Buffer.isBuffer(plates[0].object), 'the scene and the plate, without "Attach picture"');
  assert.match(plates[0].object.toString('latin1'), /CH1 lpd plate/);
  assert.equal(
    got.allowed.map((m) => m.recognition.event_type),
    ['plate_allowed', 'face_known'],
  );
  assert.equal(
    got.blocked.map((m) => m.recognition.plate),
    ['BAD666'],
  );
  assert.equal(
    got.plate.map((m) => m.recognition.plate),
    ['GATE1'],
    'plates compared without dashes or case',
  );
  assert.equal(
    got.list.map((m) => m.recognition.event_type),
    ['plate_allowed', 'face_known'],
  );
  assert.equal(
    got.byname.map((m) => m.recognition.name),
    ['Eve'],
  );
  const reads = (p: string) => sim!.log.filter((e) => e.path === p).length;
  assert.is(reads('/API/AI/PlateGroup/Get'), 1, 'the plate lists read once for all six nodes');
  assert.is(reads('/API/AI/FDGroup/Get'), 1);
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
});

test.run();
