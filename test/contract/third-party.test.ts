/**
 * The habits of public clients of this API, played against the simulator by a raw client (nothing from core, as
 * those clients have nothing of ours): Get-then-Set of the whole page, heartbeat with `data {}`, login with
 * `oem_type` or `remote_terminal_info`, the CSRF token of the login kept for the whole session, and both spellings
 * of the mobile stream URL. Then the same pages through core, on both channel numberings, to show that core needs
 * nothing from either.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../simulator';
import { PASSWORD, RawClient, challenges, digestHeader } from '../simulator/raw-client';
import { PASSWORD as RIG_PASSWORD, withRig } from './harness';

const test = suite('contract: third-party client habits');

type Obj = Record<string, any>;
const LOGIN = '/API/Web/Login';

async function withSim(opts: Partial<SimulatorOptions>, fn: (sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ password: PASSWORD, ...opts });
  try {
    await fn(sim);
  } finally {
    await sim.stop();
  }
}

const success = (res: { status: number; text: string; json: Obj }, what: string) => {
  assert.is(res.status, 200, `${what}: ${res.text.slice(0, 300)}`);
  assert.is(res.json.result, 'success', what);
};

test('login with the vendor sample `oem_type`, or with `remote_terminal_info` and no `version`', () =>
  withSim({}, async (sim) => {
    const a = new RawClient(sim.url);
    success(await a.login(undefined, { oem_type: 114 }), 'oem_type');
    // `{"data":{"remote_terminal_info":"WEB,chrome"}}` without `version` (field notes), challenge and answer.
    const b = new RawClient(sim.url);
    const body = JSON.stringify({ data: { remote_terminal_info: 'WEB,chrome' } });
    const first = await b.post(LOGIN, undefined, { anonymous: true, body });
    assert.is(first.status, 401);
    const authorization = digestHeader(challenges(first)[0], 'admin', PASSWORD, LOGIN);
    const res = await b.post(LOGIN, undefined, { anonymous: true, body, headers: { Authorization: authorization } });
    success(res, 'remote_terminal_info without version');
    b.cookie = res.headers['set-cookie']?.[0]?.split(';')[0];
    b.token = res.headers['x-csrftoken'] as string;
    success(await b.post('/API/Login/ChannelInfo/Get'), 'a call on that session');
  }));

test('the login CSRF token serves the whole session: heartbeats with `data {}` (and a stray envelope member), Sets, Gets', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    await c.login();
    const token = c.token!;
    const headers = { 'X-csrftoken': token };
    // Several clients: `{"version":"1.0","data":{},"actionType":"create"}` every 30 s.
    for (let i = 0; i < 4; i++) {
      success(await c.post('/API/Login/Heartbeat', {}, { headers }), `heartbeat ${i + 1}`);
      success(
        await c.post('/API/Login/Heartbeat', undefined, {
          headers,
          body: JSON.stringify({ version: '1.0', data: {}, actionType: 'create' }),
        }),
        'heartbeat with actionType',
      );
      success(
        await c.post('/API/AlarmConfig/VoiceAlarm/Set', { channel_info: { CH1: { siren_value: 4 + i } } }, { headers }),
        `Set ${i + 1}`,
      );
    }
    success(await c.post('/API/AlarmConfig/VoiceAlarm/Get', {}, { headers }), 'the login token after 8 heartbeats and 4 Sets');
    assert.is(sim.log.filter((e) => e.path === '/API/Web/Login').length, 2, 'one login (challenge and answer)');
  }));

test('Get-then-Set of the whole page: the Flood-light Get sent back with one switch changed', () =>
  withSim({}, async (sim) => {
    const c = new RawClient(sim.url);
    await c.login();
    const get = (await c.post('/API/AlarmConfig/Deterrence/Get', { page_type: 'ChannelConfig' })).json.data;
    assert.ok(get.channel_info.IP_CH2.status === 'Offline' && get.channel_info.IP_CH3.reason === 'Not configured', 'markers in the page');
    const was = get.channel_info.CH1.flood_light_switch;
    get.channel_info.CH1.flood_light_switch = !was;
    success(await c.post('/API/AlarmConfig/Deterrence/Set', get), 'the whole page back');
    const after = (await c.post('/API/AlarmConfig/Deterrence/Get', { page_type: 'ChannelConfig' })).json.data;
    assert.is(after.channel_info.CH1.flood_light_switch, !was);
    assert.equal(after.channel_info.IP_CH2, { status: 'Offline', reason: 'Not support' }, 'the offline marker was not stored');
  }));

test('mobile_stream_url (old firmware, vendor sample) and mobilestream_url (vendor table): core reads either', async () => {
  for (const [firmware, key] of [
    ['8.2.3', 'mobile_stream_url'],
    ['8.2.4', 'mobilestream_url'],
  ] as const) {
    await withRig({ firmware }, {}, async ({ sim, client }) => {
      const raw = new RawClient(sim.url, 'admin', RIG_PASSWORD);
      await raw.login();
      const [first] = (await raw.post('/API/Preview/StreamUrl/Get')).json.data.channel_info as Obj[];
      assert.ok(first[key], `${firmware}: ${key}`);
      const urls = await client.streamUrls();
      assert.is(urls.length, sim.profile.specs.filter((s) => s.configured).length);
      assert.ok(
        urls.every((u) => u.mobile?.startsWith('rtsp://')),
        `${firmware}: a mobile URL for every channel`,
      );
    });
  }
});

test('channel numbering: core reads the ids the device reports, vendor (IP_CH1 first) or by slot (IP_CH5), and writes to them', async () => {
  for (const [numbering, digital] of [
    ['vendor', 'IP_CH1'],
    ['slot', 'IP_CH5'],
  ] as const) {
    await withRig({ channelNumbering: numbering }, {}, async ({ sim, client }) => {
      const models = await client.channelSlots();
      assert.equal(
        models.map((m) => m.id),
        sim.profile.channels,
      );
      const ip = models.find((m) => m.id === digital)!;
      assert.ok(ip.online && ip.hardware.floodlight, `${numbering}: ${digital} is the first IP camera`);
      await client.update('AlarmConfig/Deterrence', { channel_info: { [digital]: { bright_time: 120 } } });
      const after = await client.get('AlarmConfig/Deterrence', { page_type: 'ChannelConfig' });
      assert.is((after.channel_info as Obj)[digital].bright_time, 120);
    });
  }
});

test.run();
