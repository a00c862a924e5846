import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientRig, rejection } from '../client/harness';
import * as V from './vendor';

/** Channel list, identity, snapshot and stream URLs: vendor-shaped answers replayed to the client. */

const test = suite('conformance: channels, identity, media');
const { setup, closeAll } = clientRig('Conf0rm-pw');
test.after.each(closeAll);

const CI = '/API/Login/ChannelInfo/Get';

for (const [form, answer] of [
  ['wrapped {type, items}', V.channelInfoWrapped],
  ['plain array', V.channelInfoArray],
] as const) {
  test(`channelSlots: channel_param as ${form}, every connect_status, hardware and AI abilities`, async () => {
    const { dev, c } = await setup({ handlers: { [CI]: () => answer } });
    const models = await c.channelSlots();
    assert.equal(
      models.map((m) => [m.id, m.status, m.online, m.configured]),
      [
        ['CH1', 'Online', true, true],
        ['CH2', 'Online', true, true],
        ['CH3', 'FailConnectNetwork', false, true],
        ['CH4', 'NotConfigured', false, false],
        ['IP_CH1', 'Offline', false, true],
        ['WIFI_CH1', 'Sleep', false, true],
        ['WIFI_CH2', 'NotPaired', false, true],
      ],
    );
    const [ch1, ch2] = models;
    assert.equal(ch1.hardware, { floodlight: true, siren: true, redBlueLight: false, pir: true, alarmIn: 1, alarmOut: 1 });
    assert.equal(ch1.ai, ['PVD', 'LCD', 'PID']);
    assert.is(ch1.name, 'Driveway');
    assert.equal(ch2.hardware, { floodlight: false, siren: true, redBlueLight: true, pir: false, alarmIn: 0, alarmOut: 0 });
    assert.ok(ch2.abilities.includes('Ptz'));
    assert.is(models[3].name, 'CH4', 'an unconfigured slot is named by its id');
    assert.equal(dev.bodies(CI), [{}]);
    // The older list form of the same page keeps working (the bridge reads it).
    assert.equal(
      (await c.channels()).filter((x) => x.online).map((x) => x.channel),
      ['CH1', 'CH2'],
    );
  });
}

test('channelSlots: a device without Login/ChannelInfo falls back to the channels its pages report', async () => {
  const { dev, c } = await setup({
    handlers: {
      '/API/AlarmConfig/Deterrence/Get': () => V.deterrenceGet,
      '/API/AlarmConfig/VoiceAlarm/Get': () => V.voiceAlarmGet,
    },
  });
  const models = await c.channelSlots();
  assert.equal(
    models.map((m) => [m.id, m.status, m.hardware.floodlight, m.hardware.siren]),
    [
      ['CH1', 'Online', true, true],
      ['CH2', 'NotConfigured', false, false],
      ['CH3', 'NotConfigured', false, false],
      ['IP_CH1', 'Offline', false, false],
    ],
  );
  assert.is(dev.count(CI), 1);
  assert.equal(dev.bodies('/API/AlarmConfig/Deterrence/Get'), [{ page_type: 'ChannelConfig' }]);
});

test('identity: serialNum, dash MAC, and dev_type beyond 2^53 without loss', async () => {
  const { c } = await setup({
    handlers: {
      '/API/SystemInfo/Base/Get': () => V.systemInfo,
      '/API/Login/DeviceInfo/Get': () => ({ rawText: V.deviceInfoText }),
    },
  });
  const id = await c.identity();
  assert.equal(id, {
    model: 'N7516',
    firmware: 'V8.2.3-20221014',
    hardware: 'DM-448',
    serial: 'B18ABCDEF0123',
    mac: '88-26-1D-AA-8E-E0',
    name: 'Recorder',
    devType: V.DEV_TYPE,
  });
  assert.not.equal(String(Number(V.DEV_TYPE)), V.DEV_TYPE, 'the fixture really is beyond what a double holds');
  const info = await c.deviceInfo();
  assert.is(info.local_alarmout_num, 1);
  assert.is(info.support_disarming, true);
});

test('identity: a device without DeviceInfo still has one (SystemInfo only); both missing is an error', async () => {
  const { c } = await setup({ handlers: { '/API/SystemInfo/Base/Get': () => ({ device_type: 'N4104', serial_number: 'S1' }) } });
  assert.equal(await c.identity(), { model: 'N4104', serial: 'S1' });
  const { c: bare } = await setup({ handlers: { '/API/SystemInfo/Base/Get': () => ({ fail: 'not_found', status: 404 }) } });
  const err = await rejection(bare.identity());
  assert.is(err.kind, 'unsupported');
});

for (const [spelling, answer] of [
  ['img_* (table)', V.snapshotTable],
  ['ima_* (sample)', V.snapshotSample],
] as const) {
  test(`snapshot: ${spelling} answer decodes to the JPEG bytes`, async () => {
    const { dev, c } = await setup({ handlers: { '/API/Snapshot/Get': () => answer } });
    const snap = await c.snapshot('CH1', { resolution: '1280x720' });
    assert.ok(snap.jpeg.equals(V.JPEG));
    assert.is(snap.format, 'image/jpeg');
    assert.is(snap.time, 1732352400);
    assert.equal(dev.bodies('/API/Snapshot/Get'), [{ channel: 'CH1', snapshot_resolution: '1280x720', reset_session_timeout: false }]);
  });
}

test('snapshot: bad input and empty answers are clear errors', async () => {
  const { dev, c } = await setup({
    handlers: { '/API/Snapshot/Get': () => ({ img_encodes: 'base64', img_format: 'image/jpeg', img_data: '' }) },
  });
  const bad = await rejection(c.snapshot('CH1', { resolution: 'huge' }));
  assert.is(bad.kind, 'invalid_request');
  assert.match(bad.message, /snapshot_resolution.*huge/);
  const notChannel = await rejection(c.snapshot('ch1'));
  assert.match(notChannel.message, /not a channel id/);
  assert.is(dev.count('/API/Snapshot/Get'), 0, 'nothing sent for bad input');
  const empty = await rejection(c.snapshot('CH1'));
  assert.is(empty.kind, 'invalid_answer');
  assert.match(empty.message, /no image data/);
});

test('streamUrls: array answer, both mobile spellings; on the host the client reaches the device at, port and path kept', async () => {
  const { c } = await setup({ handlers: { '/API/Preview/StreamUrl/Get': () => V.streamUrls } });
  const host = new URL(c.url).hostname;
  const here = (url: string) => url.replace('192.168.1.20', host);
  const [ch1, ip1] = V.streamUrls.channel_info;
  assert.equal(await c.streamUrls(), [
    { channel: 'CH1', main: here(ch1.mainstream_url), sub: here(ch1.substream_url) },
    {
      channel: 'IP_CH1',
      main: here(ip1.mainstream_url),
      sub: here(ip1.substream_url),
      mobile: here(ip1.mobile_stream_url!),
    },
    { channel: 'CH2', main: `rtsp://${host}:554/a`, sub: `rtsp://${host}:554/b`, mobile: `rtsp://${host}:554/c` },
  ]);
  assert.ok(host !== '192.168.1.20');
});

test('identical concurrent reads share one device call; different data does not', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let arrived = 0;
  let bothArrived!: () => void;
  const two = new Promise<void>((r) => {
    bothArrived = r;
  });
  const { dev, c } = await setup({
    handlers: {
      '/API/AlarmConfig/VoiceAlarm/Get': async () => {
        if (++arrived === 2) bothArrived();
        await gate;
        return V.voiceAlarmGet;
      },
    },
  });
  const reads = [c.get('AlarmConfig/VoiceAlarm'), c.get('AlarmConfig/VoiceAlarm'), c.get('AlarmConfig/VoiceAlarm', { channel: ['CH1'] })];
  await two; // the two distinct reads are at the device, held
  release();
  const [a, b, other] = await Promise.all(reads);
  assert.equal(a, V.voiceAlarmGet);
  assert.equal(b, a);
  assert.ok(a !== b, 'each caller gets its own copy');
  assert.equal(other, a);
  assert.is(dev.count('/API/AlarmConfig/VoiceAlarm/Get'), 2);
  await c.get('AlarmConfig/VoiceAlarm');
  assert.is(dev.count('/API/AlarmConfig/VoiceAlarm/Get'), 3, 'a later read asks the device again');
});

test.run();
