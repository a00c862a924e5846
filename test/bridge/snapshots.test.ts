/**
 * Cameras in Home Assistant and on MQTT, against a real broker and simulator: a camera and a "Snapshot" button per
 * channel with video, stream addresses without credentials as the camera's attributes, the picture (JPEG bytes,
 * retained) on demand and on every alarm start, in the resolution the Snapshot Range offers; the budget: nothing at
 * idle without an interval, one picture in flight per device, pictures coalesced per channel, commands never held
 * up by a slow picture.
 */
import * as assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { suite } from 'uvu';
import { pickResolution, snapshotChannels } from '../../bridge/features/cameras/cameras';
import { parseConfig } from '../../bridge/base/config';
import { json, pollsSince, settle, setup, until, waitEvent, type Fixture } from './fixture';

const test = suite('cameras: pictures and stream addresses');
const ctx: { fx: Fixture; pics: Array<{ topic: string; payload: Buffer; retain: boolean }>; sub: mqtt.MqttClient } = {} as never;

const snapshotsOf = (fx: Fixture, since = 0, channel?: string) =>
  fx.sims
    .get('nvr')!
    .log.slice(since)
    .filter((e) => e.path === '/API/Snapshot/Get' && (!channel || (e.data as { channel?: string }).channel === channel));

test.before(async () => {
  ctx.fx = await setup({
    label: 'cameras',
    devices: [
      // The device reports the LAN address it knows itself by (vendor sample): the bridge publishes the configured host.
      { id: 'nvr', poll: 0.3, sim: { channels: 4, analog: 2, lanAddress: '172.16.10.169' } },
    ],
  });
  ctx.pics = [];
  ctx.sub = await mqtt.connectAsync(ctx.fx.broker.url, { reconnectPeriod: 0 });
  ctx.sub.on('message', (topic, payload, packet) => ctx.pics.push({ topic, payload, retain: !!packet.retain }));
  await ctx.sub.subscribeAsync(`${ctx.fx.base}/+/+/snapshot`, { qos: 1 });
});
test.after(async () => {
  await ctx.sub.endAsync();
  await ctx.fx.stop();
});

test('pickResolution: the configured one when offered (either spelling), else the largest not above 1280x720', () => {
  const offered = ['1920x1080', '1280x720', '640x480', '320x240'];
  assert.equal(pickResolution(offered), '1280x720');
  assert.equal(pickResolution(['640x480', '1280 x 720', '2560x1440']), '1280 x 720');
  assert.equal(pickResolution(['2560x1440', '1920x1080']), '1920x1080', 'all larger: the smallest');
  assert.equal(pickResolution(offered, '640 x 480'), '640x480');
  assert.equal(pickResolution(offered, '800x600'), undefined);
  assert.equal(pickResolution([]), undefined);
  // The vendor's Range shape: channel_info {type: array, items: [{channel, snapshot_resolution: {items}}]}.
  const range = { channel_info: { type: 'array', items: [{ channel: 'CH1', snapshot_resolution: { items: ['1280x720', '640x480'] } }] } };
  assert.deepEqual([...snapshotChannels(range)], [['CH1', ['1280x720', '640x480']]]);
  assert.deepEqual([...snapshotChannels({})], []);
});

test('config: snapshot_interval and snapshot_resolution are checked, with the path and the problem', () => {
  const base = {
    mqtt: { url: 'mqtt://127.0.0.1:1883' },
    devices: [{ id: 'nvr', url: 'http://10.0.0.2', username: 'admin', password: 'x1' }],
  };
  const withDevice = (extra: Record<string, unknown>) => ({ ...base, devices: [{ ...base.devices[0], ...extra }] });
  assert.throws(
    () => parseConfig(withDevice({ snapshot_resolution: 'large' }), { env: {} }),
    /devices\[0\]\.snapshot_resolution.*1280x720/,
  );
  assert.throws(() => parseConfig(withDevice({ snapshot_interval: '200ms' }), { env: {} }), /devices\[0\]\.snapshot_interval.*between 1 s/);
  const ok = parseConfig(withDevice({ snapshot_interval: '1m', snapshot_resolution: '640x480' }), { env: {} }).config.devices[0];
  assert.equal(ok.snapshot_interval, 60_000);
  assert.equal(ok.snapshot_resolution, '640x480');
  assert.equal(parseConfig(base, { env: {} }).config.devices[0].snapshot_interval, undefined, 'default: no pictures at idle');
});

test('a camera and a Snapshot button per channel with video; stream addresses as its attributes, without credentials', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('nvr')!;
  for (const ch of sim.profile.channels) {
    const slug = ch.toLowerCase();
    const cfg = json(
      await fx.recorder.waitTopic(
        `${fx.prefix}/device/${fx.base}_nvr_${slug}/config`,
        (j) => (j as { cmps?: Record<string, unknown> }).cmps?.camera !== undefined,
        5000,
      ),
    );
    const cmps = (cfg as { cmps: Record<string, Record<string, unknown>> }).cmps;
    assert.deepEqual(cmps.camera, {
      p: 'camera',
      name: null, // the channel device's main feature: named by the device alone
      unique_id: `${fx.base}_nvr_${slug}_camera`,
      topic: `${fx.base}/nvr/${slug}/snapshot`,
      json_attributes_topic: `${fx.base}/nvr/${slug}/streams`,
    });
    assert.equal(cmps.snapshot.p, 'button');
    assert.equal(cmps.snapshot.name, 'Snapshot');
    assert.equal(cmps.snapshot.command_topic, `${fx.base}/nvr/${slug}/snapshot/get`);
    const streams = json(await fx.recorder.waitTopic(`${fx.base}/nvr/${slug}/streams`, () => true, 5000));
    const port = new URL(sim.url).port;
    for (const [k, sub] of [
      ['main', 0],
      ['sub', 1],
      ['mobile', 2],
    ] as const) {
      assert.match(String(streams[k]), new RegExp(`^rtsp://127\\.0\\.0\\.1:${port}/rtsp/streaming\\?channel=\\d+&subtype=${sub}$`));
    }
  }
  // Retained: a client that subscribes later (Home Assistant after a restart) gets every channel's addresses.
  const late = await mqtt.connectAsync(fx.broker.url, { reconnectPeriod: 0 });
  const retained = new Set<string>();
  late.on('message', (topic, _p, packet) => packet.retain && retained.add(topic));
  await late.subscribeAsync(`${fx.base}/nvr/+/streams`, { qos: 1 });
  await until(() => retained.size === sim.profile.channels.length, 'retained stream addresses', 3000);
  await late.endAsync();
});

test('at idle without snapshot_interval: polls go on, no picture is read', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('nvr')!;
  const since = sim.log.length;
  await until(() => pollsSince(sim, since) >= 4, 'pollsSince(sim, since) >= 4', 5000);
  assert.equal(snapshotsOf(fx, since).length, 0);
  assert.equal(ctx.pics.length, 0);
});

test('snapshot/get: the JPEG bytes, retained, in the default resolution; an unknown or offline camera is refused', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('nvr')!;
  const since = sim.log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/snapshot/get`, '');
  await until(
    () => ctx.pics.some((p) => p.topic === `${fx.base}/nvr/ip_ch1/snapshot`),
    'ctx.pics.some((p) => p.topic === `${fx.base}/nvr/ip_ch1/snap',
    5000,
  );
  const pic = ctx.pics.find((p) => p.topic === `${fx.base}/nvr/ip_ch1/snapshot`)!;
  const sent = sim.lastSnapshot('IP_CH1')!;
  assert.ok(pic.payload.equals(sent), 'the device JPEG, byte for byte');
  const asked = snapshotsOf(fx, since);
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0].data, { channel: 'IP_CH1', reset_session_timeout: false, snapshot_resolution: '1280x720' });
  // A new subscriber gets the last picture (Home Assistant after a restart).
  const late = await mqtt.connectAsync(fx.broker.url, { reconnectPeriod: 0 });
  const got = new Promise<{ payload: Buffer; retain: boolean }>((resolve) =>
    late.once('message', (_t, payload, p) => resolve({ payload, retain: !!p.retain })),
  );
  await late.subscribeAsync(`${fx.base}/nvr/ip_ch1/snapshot`, { qos: 1 });
  const retained = await got;
  await late.endAsync();
  assert.ok(retained.retain && retained.payload.equals(sent));

  const before = sim.log.length;
  const at = fx.recorder.count;
  await fx.recorder.publish(`${fx.base}/nvr/ch9/snapshot/get`, '');
  await waitEvent(
    fx,
    'command_refused',
    (d) => d.topic === `${fx.base}/nvr/ch9/snapshot/get` && d.reason === 'nvr reports no camera CH9 with pictures',
    at,
  );
  sim.setOnline('IP_CH1', false);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/availability`, (j) => j.state === 'offline', 5000, at);
  await fx.recorder.publish(`${fx.base}/nvr/ip_ch1/snapshot/get`, '');
  await waitEvent(fx, 'command_refused', (d) => d.reason === 'IP_CH1 of nvr is offline', at);
  sim.setOnline('IP_CH1', true);
  await fx.recorder.waitTopic(`${fx.base}/nvr/ip_ch1/availability`, (j) => j.state === 'online', 5000, at);
  await settle(fx);
  assert.equal(snapshotsOf(fx, before).length, 0, 'it did not reach the device');
});

test('an alarm start takes one picture of its channel; its end takes none; a storm is coalesced', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('nvr')!;
  let since = sim.log.length;
  let at = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch2/event`, (j) => j.active === true, 5000, at);
  await until(() => snapshotsOf(fx, since, 'CH2').length === 1, 'snapshotsOf(fx, since, CH2).length === 1', 5000);
  at = fx.recorder.count;
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch2/event`, (j) => j.active === false, 5000, at);
  await settle(fx);
  assert.equal(
    snapshotsOf(fx, since).length,
    1,
    `the end of the alarm takes no picture: ${JSON.stringify(snapshotsOf(fx, since))} ${JSON.stringify(fx.recorder.messages.filter((m) => m.topic.endsWith('/event')).map((m) => m.payload))}`,
  );

  // A storm: 100 starts and ends as fast as the device reports them.
  since = sim.log.length;
  at = fx.recorder.count;
  for (let i = 0; i < 100; i++) {
    sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
    sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
    if (i % 10 === 0) await new Promise((r) => setImmediate(r));
  }
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: true });
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch2`, (j) => j.motion === true, 5000, at);
  await until(() => snapshotsOf(fx, since, 'CH2').length >= 1, 'snapshotsOf(fx, since, CH2).length >= 1', 5000);
  await settle(fx);
  const starts = fx.recorder.messages.slice(at).filter((m) => m.topic === `${fx.base}/nvr/ch2/event` && json(m).active === true).length;
  const pictures = snapshotsOf(fx, since, 'CH2').length;
  assert.ok(pictures <= starts, `${pictures} pictures for ${starts} alarm starts`);
  sim.raiseAlarm({ channel: 'CH2', type: 'motion', active: false });
});

test('one picture in flight per device; a command is confirmed while a slow picture is on the wire', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('nvr')!;
  sim.fault({ path: '/API/Snapshot/Get', kind: 'latency', ms: 1500, times: 3 });
  const since = sim.log.length;
  const picsBefore = ctx.pics.length;
  for (const slug of ['ch1', 'ip_ch1', 'wifi_ch1']) await fx.recorder.publish(`${fx.base}/nvr/${slug}/snapshot/get`, '');
  await until(() => sim.held >= 1, 'sim.held >= 1', 3000);
  const at = fx.recorder.count;
  const t0 = Date.now();
  await fx.recorder.publish(`${fx.base}/nvr/ch1/set/floodlight`, 'ON');
  await fx.recorder.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.floodlight === true, 3000, at);
  const commandMs = Date.now() - t0;
  assert.equal(sim.held, 1, 'one picture on the wire at a time');
  const asked = () => snapshotsOf(fx, since).filter((e) => ['CH1', 'IP_CH1', 'WIFI_CH1'].includes((e.data as { channel: string }).channel));
  await until(() => asked().length >= 3 && ctx.pics.length >= picsBefore + 3, 'three pictures', 10_000);
  const shots = asked();
  assert.equal(shots.length, 3);
  // Answered one after the other: each at least the fault's latency after the one before.
  for (let i = 1; i < shots.length; i++) assert.ok(shots[i].time - shots[i - 1].time >= 1400, 'pictures never overlap');
  process.stdout.write(`  [figure] command confirmed in ${commandMs} ms while a 1500 ms picture was on the wire\n`);
  await fx.recorder.publish(`${fx.base}/nvr/ch1/set/floodlight`, 'OFF');
});

test('pictures asked for while one is taken wait as one per channel: 40 requests for CH1 cost 2 pictures', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('nvr')!;
  sim.fault({ path: '/API/Snapshot/Get', kind: 'latency', ms: 800, times: 2 });
  const since = sim.log.length;
  const picsBefore = ctx.pics.length;
  await fx.recorder.publish(`${fx.base}/nvr/ch1/snapshot/get`, '');
  await until(() => sim.held === 1, 'the first picture on the wire', 3000);
  for (let i = 0; i < 40; i++) await fx.recorder.publish(`${fx.base}/nvr/ch1/snapshot/get`, '');
  await settle(fx); // every request has reached the bridge
  await until(() => ctx.pics.length >= picsBefore + 2 && sim.held === 0, 'two pictures', 5000);
  await settle(fx);
  assert.equal(snapshotsOf(fx, since, 'CH1').length, 2);
});

test('snapshot_interval: pictures of every camera on the interval; snapshot_resolution as configured', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('nvr')!;
  await fx.bridge.stop();
  const config = fx.makeConfig([{ id: 'nvr', poll: 0.3 }]);
  config.devices[0].snapshot_interval = 1000;
  config.devices[0].snapshot_resolution = '640 x 480';
  const since = sim.log.length;
  await fx.restartBridge(config);
  await until(
    () => sim.profile.channels.every((ch) => snapshotsOf(fx, since, ch).length >= 2),
    'sim.profile.channels.every((ch) => snapshotsOf(fx, since, ch',
    8000,
  );
  const data = snapshotsOf(fx, since).map((e) => (e.data as { snapshot_resolution?: string }).snapshot_resolution);
  assert.ok(
    data.every((r) => r === '640x480'),
    `every picture at 640x480 (the device's spelling): ${data.join(', ')}`,
  );
});

test('snapshot_resolution the device does not offer: a warning, pictures at its default; a retained request is refused', async () => {
  const { fx } = ctx;
  const sim = fx.sims.get('nvr')!;
  await fx.bridge.stop();
  const config = fx.makeConfig([{ id: 'nvr', poll: 0.3 }]);
  config.devices[0].snapshot_resolution = '1920x1080';
  // Left retained by mistake: delivered from the broker's store when the bridge subscribes, refused.
  const before = sim.log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ch2/snapshot/get`, 'x', { retain: true });
  const at = fx.recorder.count;
  await fx.restartBridge(config);
  await waitEvent(
    fx,
    'command_refused',
    (d) => d.topic === `${fx.base}/nvr/ch2/snapshot/get` && /retained request ignored/.test(String(d.reason)),
    at,
  );
  // (fx.stop() clears it after the bridge stopped)
  await until(
    () => fx.logs.some((l) => /snapshot_resolution 1920x1080 is not offered by CH1 \(1280x720, 640x480, 320x240\)/.test(l)),
    'fx.logs.some((l) => /snapshot_resolution 1920x1080 is not of',
    5000,
  );
  const since = sim.log.length;
  await fx.recorder.publish(`${fx.base}/nvr/ch1/snapshot/get`, '');
  await until(() => snapshotsOf(fx, since, 'CH1').length === 1, 'a picture of CH1', 5000);
  assert.equal(snapshotsOf(fx, before, 'CH2').length, 0, 'the retained request took no picture');
  assert.deepEqual(snapshotsOf(fx, since, 'CH1')[0].data, { channel: 'CH1', reset_session_timeout: false });
});

test.run();
