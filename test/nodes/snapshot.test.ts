/**
 * nvr-snapshot against the simulator: a JPEG Buffer of the channel with its channel, time and size; the channel and
 * resolution from the message or the node; bad input refused before anything is sent, with its code at a Catch node.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import nvrSnapshot from '../../nodes/nvr-snapshot/nvr-snapshot';
import { credentials, DEV, exchange, flowWith, helper, newPassword, NODES, useSimulator, type SimulatorContext } from './harness';
import type { Simulator } from '../../simulator';

const test = suite<SimulatorContext>('nodes: nvr-snapshot', { password: newPassword() });
useSimulator(test);

async function loadSnapshot(sim: Simulator, password: string, props: Record<string, unknown> = {}) {
  const flow = flowWith(sim.url, [
    { id: 's1', type: 'nvr-snapshot', name: '', device: DEV, channel: '', resolution: '', wires: [['out']], ...props },
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: ['s1'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ]);
  await helper.load([...NODES, nvrSnapshot], flow, credentials(password));
}

const snapshots = (sim: Simulator, since: number) => sim.log.slice(since).filter((e) => e.path === '/API/Snapshot/Get');

test('msg.channel -> msg.payload the JPEG Buffer, with channel, time and size', async ({ sim, password }) => {
  await loadSnapshot(sim!, password);
  const since = sim!.log.length;
  const before = Date.now();
  const r = await exchange('s1', { channel: 'ip_ch1', topic: 'door' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.ok(Buffer.isBuffer(r.out.payload));
  const sent = sim!.lastSnapshot('IP_CH1')!;
  assert.ok(r.out.payload.equals(sent), 'the device JPEG, byte for byte');
  assert.is(r.out.channel, 'IP_CH1');
  assert.is(r.out.size, sent.length);
  assert.is(r.out.format, 'image/jpeg');
  assert.is(r.out.topic, 'door', 'the rest of the message is kept');
  // The simulator stamps img_time in whole seconds.
  assert.ok(Math.abs(Date.parse(r.out.time) - before) < 5000, r.out.time);
  assert.equal(
    snapshots(sim!, since).map((e) => e.data),
    [{ channel: 'IP_CH1', reset_session_timeout: false }],
  );
});

test('the node properties when the message has none; msg.resolution overrides the property', async ({ sim, password }) => {
  await loadSnapshot(sim!, password, { channel: 'CH2', resolution: '640x480' });
  let since = sim!.log.length;
  let r = await exchange('s1', { payload: true });
  assert.is(r.out?.channel, 'CH2');
  assert.equal(snapshots(sim!, since)[0].data, { channel: 'CH2', reset_session_timeout: false, snapshot_resolution: '640x480' });
  since = sim!.log.length;
  r = await exchange('s1', { payload: 'CH1', resolution: '320x240' });
  assert.is(r.out?.channel, 'CH1', 'a channel id in msg.payload');
  assert.equal(snapshots(sim!, since)[0].data, { channel: 'CH1', reset_session_timeout: false, snapshot_resolution: '320x240' });
});

test('no channel, a bad channel or resolution: a Catch node gets the code, nothing is sent', async ({ sim, password }) => {
  await loadSnapshot(sim!, password);
  const since = sim!.log.length;
  for (const [msg, code] of [
    [{ payload: 1 }, 'no_channel'],
    [{ channel: 'camera 1' }, 'bad_channel'],
    [{ channel: 'CH1', resolution: 'big' }, 'bad_resolution'],
  ] as const) {
    const r = await exchange('s1', { ...msg });
    assert.is(r.out, undefined);
    assert.is(r.caught?.error?.code, code, JSON.stringify(r.caught?.error));
  }
  assert.is(snapshots(sim!, since).length, 0);
});

test("the device's refusal (a resolution it does not offer) reaches the Catch node with its code", async ({ sim, password }) => {
  await loadSnapshot(sim!, password);
  const r = await exchange('s1', { channel: 'CH1', resolution: '1920x1080' });
  assert.is(r.out, undefined);
  assert.ok(r.caught?.error?.code, JSON.stringify(r.caught?.error));
  assert.match(String(r.caught?.error?.message), /snapshot_resolution/);
});

test.run();
