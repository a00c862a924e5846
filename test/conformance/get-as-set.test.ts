import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatorOptions, startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from '../simulator/raw-client';

/**
 * The UI habit every client copies: read a page, send the whole answer back as the Set (with one member changed, or
 * none). For every Get/Set page the simulator serves, on every profile, the Get answer sent back is accepted and
 * changes nothing, offline channels, empty slots and read-only members included. The pages come from the
 * simulator itself (`sim.paths`), so a new page is covered without touching this file.
 */

const test = suite('conformance: a Get answer sent back as a Set');

const PROFILES: ReadonlyArray<[string, Partial<SimulatorOptions>]> = [
  ['nvr 8.2.4', {}],
  ['nvr 8.2.3', { firmware: '8.2.3' }],
  ['nvr 16 channels', { channels: 16 }],
  ['nvr, slot numbering', { channelNumbering: 'slot' }],
  ['ipc 8.2.4', { profile: 'ipc' }],
  ['ipc 8.2.3', { profile: 'ipc', firmware: '8.2.3' }],
];
const LIVE = '/API/PreviewChannel/Floodlight2AudioAlarm';

type Obj = Record<string, any>;

for (const [name, opts] of PROFILES) {
  test(`${name}: every page's Get answer is accepted back as its Set, and changes nothing`, async () => {
    const sim = await startSimulator({ password: PASSWORD, ...opts });
    try {
      const c = new RawClient(sim.url);
      assert.is((await c.login()).status, 200);
      // IPCReboot's Set is an action (restart cameras, with the admin password and secondary authentication), not
      // its Get's settings written back; so are the voice prompt pages' (a command: Upload, Play, PlayAudio...).
      // Playback/Tag's Set adds, renames or removes a bookmark (its `operate`): an action too, its Get a search.
      const actions = new Set([
        '/API/IPCMaintaint/IPCReboot/Get',
        '/API/AlarmConfig/VoicePrompts/Get',
        '/API/Extended/IPCVoicePrompts/Get',
        '/API/Playback/Tag/Get',
      ]);
      const pages = sim.paths.filter((p) => p.endsWith('/Get') && sim.paths.includes(p.replace(/\/Get$/, '/Set')) && !actions.has(p));
      // Requests of one page: the live page is per channel (every channel with live hardware).
      const param = (await c.post('/API/Login/ChannelInfo/Get')).json.data.channel_param;
      const channels = ((Array.isArray(param) ? param : param.items) as Obj[])
        .filter((e) => e.ability.some((a: string) => ['FloodLight', 'AudioAlarm', 'RedBlueLight'].includes(a)))
        .map((e) => e.channel as string);
      const refused: string[] = [];
      for (const get of pages) {
        const set = get.replace(/\/Get$/, '/Set');
        const requests: Obj[] = get === `${LIVE}/Get` ? channels.map((channel) => ({ channel, command_flag: false })) : [{}];
        for (const request of requests) {
          const before = await c.post(get, request);
          assert.is(before.status, 200, `${get}: ${before.text}`);
          // The live page's Set is its Get object plus `operation_type` (vendor).
          const back = get === `${LIVE}/Get` ? { ...before.json.data, operation_type: 'All' } : before.json.data;
          const res = await c.post(set, back);
          if (res.status !== 200) refused.push(`${set} ${JSON.stringify(request)}: ${res.json?.reason ?? res.text}`);
          const after = await c.post(get, request);
          assert.equal(after.json.data, before.json.data, `${get}: the Get answer sent back changed nothing`);
        }
      }
      assert.equal(refused, [], `${name}: pages that refuse their own Get answer`);
      assert.ok(pages.length >= 9, `${name}: ${pages.length} Get/Set pages served`);
    } finally {
      await sim.stop();
    }
  });
}

test('the Home Assistant integration way of disarming: the Disarming Get with `disarming` flipped, on an NVR with offline channels and empty slots', async () => {
  const sim = await startSimulator({ password: PASSWORD, channels: 16 });
  try {
    const c = new RawClient(sim.url);
    await c.login();
    const get = (await c.post('/API/AlarmConfig/Disarming/Get')).json.data;
    assert.ok(sim.profile.specs.some((s) => !s.configured) && sim.profile.specs.some((s) => s.configured && !s.online));
    const res = await c.post('/API/AlarmConfig/Disarming/Set', { ...get, disarming: !get.disarming });
    assert.is(res.status, 200, res.text);
    assert.is((await c.post('/API/AlarmConfig/Disarming/Get')).json.data.disarming, !get.disarming);
  } finally {
    await sim.stop();
  }
});

test('a changed read-only member is still refused, naming its path (read-only means not settable, not ignored)', async () => {
  const sim = await startSimulator({ password: PASSWORD, profile: 'ipc' });
  try {
    const c = new RawClient(sim.url);
    await c.login();
    const get = (await c.post('/API/Maintenance/DeveloperMode/Get')).json.data;
    const ch1 = get.channel_info.CH1;
    const res = await c.post('/API/Maintenance/DeveloperMode/Set', {
      ...get,
      channel_info: { CH1: { ...ch1, remote_server: { ...ch1.remote_server, password_empty: !ch1.remote_server.password_empty } } },
    });
    assert.equal([res.status, res.json.error_code], [400, 'param_error']);
    assert.match(res.json.reason, /channel_info\.CH1\.remote_server\.password_empty: read-only field/);
  } finally {
    await sim.stop();
  }
});

test.run();
