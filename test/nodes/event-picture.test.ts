/**
 * nvr-event "Attach the alarm's picture" in the Node-RED runtime, against a simulator whose Event/Check carries
 * pictures in the vendor's shapes: an alarm start carries `msg.picture` (the JPEG the device sent; with an AI
 * picture also `msg.object`), with no Snapshot/Get; the end carries none; a node without the option gets no
 * picture; the vehicle of an AI picture comes as `motor_vehicle`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { credentials, DEV, flowWith, load, newPassword, node, waitFor, useSimulator, type SimulatorContext } from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: nvr-event attaches the alarm picture', { password: newPassword() });

useSimulator(test, { alarmPictures: 'both' });

const label = (b: Buffer) => b.toString('latin1');

test('alarm starts carry the picture the device sent (no Snapshot/Get); ends and nodes without the option carry none', async ({
  sim,
  password,
}) => {
  await load(
    flowWith(sim!.url, [
      {
        id: 'pic',
        type: 'nvr-event',
        name: '',
        device: DEV,
        channels: 'CH1',
        types: [],
        startOnly: false,
        picture: true,
        wires: [['outPic']],
      },
      { id: 'plain', type: 'nvr-event', name: '', device: DEV, channels: 'CH1', types: [], startOnly: false, wires: [['outPlain']] },
      { id: 'outPic', type: 'helper' },
      { id: 'outPlain', type: 'helper' },
    ]),
    credentials(password),
  );
  await waitFor(() => sim!.log.filter((e) => e.path === '/API/Event/Check').length >= 2, 'subscribed and polling');
  const pics: any[] = [];
  const plain: any[] = [];
  node('outPic').on('input', (m: any) => pics.push(m));
  node('outPlain').on('input', (m: any) => plain.push(m));
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  sim!.raiseAlarm({ channel: 'CH1', type: 'vehicle', active: true });
  await waitFor(() => pics.length >= 4 && plain.length >= 4, 'four messages on each node');
  assert.equal(
    pics.map((m) => `${m.payload.type} ${m.payload.active} ${m.pictureSource ?? '-'}`),
    ['motion true alarm', 'motion false -', 'vehicle true ai', 'motor_vehicle true ai'],
  );
  assert.ok(Buffer.isBuffer(pics[0].picture));
  assert.match(label(pics[0].picture), /alarm \d+ CH1 motion/);
  assert.is(pics[1].picture, undefined);
  assert.match(label(pics[2].picture), /scene vehicle 2/);
  assert.match(label(pics[2].object), /object vehicle 2/);
  assert.is(pics[2].pictureTarget, 'vehicle');
  assert.ok(pics[3].picture.equals(pics[2].picture), 'the vehicle shows the same picture');
  assert.ok(
    plain.every((m) => m.picture === undefined && m.pictureSource === undefined),
    'the option is off: no picture',
  );
  assert.is(sim!.log.filter((e) => e.path === '/API/Snapshot/Get').length, 0, 'no picture was read');
  sim!.raiseAlarm({ channel: 'CH1', type: 'vehicle', active: false });
});

test.run();
