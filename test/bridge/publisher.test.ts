/** StatePublisher with a fake MQTT link: state gated behind discovery, only changes published, force, close; bridge/info paced. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { parseConfig } from '../../bridge/base/config';
import type { MqttLink, PublishOptions } from '../../bridge/mqtt/link';
import { StatePublisher } from '../../bridge/api/publisher';
import type { DeviceRuntime } from '../../bridge/device/runtime';
import { emptyFacts } from '../../bridge/device/state';
import { Topics } from '../../bridge/mqtt/topics';
import { withFakeTime } from '../helpers/fake-time';

const test = suite('bridge publisher');
const config = parseConfig(
  { mqtt: { base_topic: 'b' }, devices: [{ id: 'nvr', url: 'http://h', username: 'u', password: 'p' }] },
  { env: {} },
).config;

function fixture(devices = 1) {
  const sent: Array<{ topic: string; payload: string; o: PublishOptions }> = [];
  const link = {
    connected: true,
    publish: (topic: string, payload: string, o: PublishOptions) => (sent.push({ topic, payload, o }), link.connected),
  };
  const model = { ...emptyFacts(), info: { model: 'N1', firmware: 'V1' } };
  const rt = { id: 'nvr', online: true, device: { id: 'nvr', name: 'NVR', facts: model, channels: () => [] } } as unknown as DeviceRuntime;
  const publisher = new StatePublisher({
    link: link as unknown as MqttLink,
    topics: new Topics('b', 'ha'),
    config,
    // Further devices (`devices`): the same runtime under other ids (only their number matters to the pacing).
    runtimes: new Map([['nvr', rt], ...Array.from({ length: devices - 1 }, (_, i) => [`d${i}`, rt] as const)]),
  });
  return { sent, link, rt, publisher, model };
}

test('state waits for open(); then only changes go out, unless forced', () => {
  const { sent, rt, publisher } = fixture();
  publisher.state(rt);
  assert.equal(sent.length, 0, 'gated before discovery');
  publisher.open();
  publisher.state(rt);
  assert.deepEqual(
    sent.map((m) => [m.topic, JSON.parse(m.payload)]),
    [['b/nvr', { model: 'N1', firmware: 'V1' }]],
  );
  assert.equal(sent[0].o.qos, 1);
  assert.equal(sent[0].o.retain, true);
  publisher.state(rt);
  assert.equal(sent.length, 1, 'unchanged: not again');
  publisher.state(rt, { force: true });
  assert.equal(sent.length, 2);
  assert.equal(publisher.count, 2);
});

test('reset(): gated again and everything republished after; a failed send is retried next time', () => {
  const { sent, link, rt, publisher } = fixture();
  publisher.open();
  publisher.state(rt);
  publisher.reset();
  publisher.state(rt);
  assert.equal(sent.length, 1);
  publisher.open();
  link.connected = false;
  publisher.state(rt); // not connected: forgotten
  link.connected = true;
  publisher.state(rt);
  assert.equal(sent.filter((m) => m.topic === 'b/nvr').length, 3);
  assert.equal(publisher.count, 2, 'the failed one is not counted');
});

test('events are always sent and queued; nothing after close()', () => {
  const { sent, rt, publisher } = fixture();
  publisher.event('x', { a: 1 });
  publisher.event('x', { a: 1 });
  assert.equal(sent.length, 2);
  assert.equal(sent[0].o.queue, true);
  publisher.availability(rt);
  assert.deepEqual(JSON.parse(sent[2].payload), { state: 'online' });
  publisher.close();
  publisher.event('y', {});
  publisher.open();
  publisher.state(rt, { force: true });
  assert.equal(sent.length, 3);
});

test('bridge/info: a burst of changes (devices coming online) makes one publish on the next turn, then at most one a second', () =>
  withFakeTime(async (clock) => {
    const { sent, rt, publisher } = fixture();
    const infos = () =>
      sent.filter((m) => m.topic === 'b/bridge/info').map((m) => JSON.parse(m.payload) as { devices: Array<{ online: boolean }> });
    (rt as { online: boolean }).online = false;
    for (let i = 0; i < 50; i++) publisher.info();
    (rt as { online: boolean }).online = true; // the availability change of the same poll
    publisher.info();
    assert.equal(infos().length, 0, 'not rebuilt per call');
    await clock.tickAsync(0);
    assert.deepEqual(
      infos().map((i) => i.devices[0].online),
      [true],
      'one publish, with the latest state',
    );
    (rt as { online: boolean }).online = false;
    for (let i = 0; i < 50; i++) {
      publisher.info();
      await clock.tickAsync(10);
    }
    assert.equal(infos().length, 1, 'none within the second after the last');
    await clock.tickAsync(600);
    assert.deepEqual(
      infos().map((i) => i.devices[0].online),
      [true, false],
    );
    publisher.info(true);
    assert.equal(infos().length, 3, 'forced (after connecting): at once');
    publisher.close();
  }));

test('bridge/info: a longer gap the more devices it lists (one second per hundred)', () =>
  withFakeTime(async (clock) => {
    const { sent, rt, publisher } = fixture(250);
    const infos = () => sent.filter((m) => m.topic === 'b/bridge/info');
    publisher.info();
    await clock.tickAsync(0);
    assert.equal(infos().length, 1);
    assert.equal((JSON.parse(infos()[0].payload) as { devices: unknown[] }).devices.length, 250);
    // A change every 100 ms for 5.5 s (an unchanged list is not sent again).
    for (let i = 0; i < 55; i++) {
      (rt as { online: boolean }).online = i % 2 === 0;
      publisher.info();
      await clock.tickAsync(100);
    }
    assert.equal(infos().length, 2, 'one in each 3 s (250 devices), not one a second');
    await clock.tickAsync(3000);
    assert.equal(infos().length, 3, 'the last change still goes out');
    publisher.close();
  }));

test.run();
