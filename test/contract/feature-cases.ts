/**
 * Contract cases of the feature pages (disarming, live control, manual alarm, device info, snapshot, stream URLs),
 * one per registry operation, run by pages.test.ts against every device variant. Answers are the simulator's
 * vendor shapes (simulator/README.md); each case checks what the client makes of them and what it sent.
 */
import * as assert from 'uvu/assert';
import {
  DISARM_ACTIONS,
  deviceInfoGet,
  ipcVoicePromptsGet,
  ipcVoicePromptsSet,
  voicePromptsGet,
  voicePromptsRange,
  voicePromptsSet,
  disarmingGet,
  disarmingRange,
  disarmingSet,
  linkageManageGet,
  liveGet,
  liveSet,
  manualAlarmGet,
  manualAlarmSet,
  ptzControl,
  ptzGet,
  snapshotGet,
  snapshotRange,
  streamUrlGet,
} from '../../core/pages';
import { descriptorAt } from '../../core/range';
import { ALL_NVR, entries, lastOk, obj, rejection, type Case, type Ctx } from './harness';

const DISARMING = '/API/AlarmConfig/Disarming';
const LINKAGE = '/API/LinkageConfig/LinkageManage';
const LIVE = '/API/PreviewChannel/Floodlight2AudioAlarm';
const MANUAL = '/API/PreviewChannel/ManualAlarm';

/** Channels the NVR profile has online at start (IP_CH2 offline, IP_CH3 empty). */
const ONLINE_NVR = ALL_NVR.filter((c) => c !== 'IP_CH2' && c !== 'IP_CH3');

/** Requests the device may refuse in the per-variant suite: the old firmware has no Disarming page (404). */
export function expectedRefusals({ legacy, nvr }: Ctx): Array<[string, number, string]> {
  return [
    // Firmware cases: the online upgrade with nothing newer found, the upload of a file that is no firmware image.
    ...([
      ['/API/Maintenance/FtpUpgrade/Upgrade', 400, 'no_need_upgrade'],
      ['/API/Maintenance/SystemUpgrade/Upgrade', 400, 'file_error'],
    ] as const),
    // A camera has no IPCReboot or IPCUpgrade page (their read cases).
    ...(nvr
      ? []
      : ([
          ['/API/IPCMaintaint/IPCReboot/Range', 404, 'not_found'],
          ['/API/IPCMaintaint/IPCReboot/Get', 404, 'not_found'],
          ['/API/IPCMaintaint/IPCUpgrade/Get', 404, 'not_found'],
        ] as const)),
    // Old firmware: Range (its case) and Get (the disarmState probe, once: the client remembers the page it found).
    ...(legacy
      ? ([
          [`${DISARMING}/Range`, 404, 'not_found'],
          [`${DISARMING}/Get`, 404, 'not_found'],
        ] as const)
      : []),
    // A camera has no page for cameras behind it (the voice prompt cases).
    ...(nvr
      ? []
      : ([
          ['/API/Extended/IPCVoicePrompts/Get', 404, 'not_found'],
          ['/API/Extended/IPCVoicePrompts/Set', 404, 'not_found'],
        ] as const)),
    // A snapshot of the offline camera.
    ...(nvr ? ([['/API/Snapshot/Get', 400, 'no_support']] as const) : []),
  ].map(([p, s, c]) => [p, s, c]);
}

const CH1_LIVE_FULL = {
  channel: 'CH1',
  floodlight: false,
  brightness: 50,
  brightnessRange: { min: 1, max: 100 },
  mode: 0,
  strobe: 1,
  siren: false,
  volume: 5,
  volumeRange: { min: 1, max: 10 },
  volumeAdjustable: true,
  redBlueLight: false,
};

export const FEATURE_CASES: Case[] = [
  {
    op: disarmingRange,
    async run({ client, nvr, legacy }) {
      if (legacy) {
        // Old firmware: no Disarming page. Unsupported (R2), with the page named; not an outage.
        const err = await rejection(client.invoke(disarmingRange));
        assert.equal(
          [err.kind, err.error_code, err.page, err.operation, err.status],
          ['unsupported', 'not_found', 'AlarmConfig/Disarming', 'Range', 404],
        );
        return;
      }
      const r = await client.invoke(disarmingRange);
      assert.is(descriptorAt(r, ['disarming'])?.type, 'bool');
      assert.equal(Object.keys(obj(descriptorAt(r, ['action'])?.items, 'action.items')), [...DISARM_ACTIONS]);
      // disarming_channel offers every channel of the device, the empty slot IP_CH3 too (vendor: "the channel supported").
      const dc = descriptorAt(r, ['disarming_channel', '0']);
      assert.equal(dc?.items, nvr ? ALL_NVR : ['CH1']);
      assert.is(descriptorAt(r, ['disarming_channel'])?.max_size, nvr ? 8 : 1);
      assert.is(descriptorAt(r, ['channel_info', 'CH1', 'disarming_schedule'])?.type, 'array');
    },
  },
  {
    op: disarmingGet,
    async run({ client, sim, legacy, nvr }) {
      const state = await client.disarmState();
      if (legacy) {
        // No Disarming page: the recorder's "disarmed" is LinkageManage `enable`.
        const lm = await client.invoke(linkageManageGet);
        assert.equal(state, { page: 'LinkageConfig/LinkageManage', disarmed: lm.enable });
        assert.is(entries(sim, `${DISARMING}/Get`).length, 1, 'one probe of the missing page');
        await client.disarmState();
        assert.is(entries(sim, `${DISARMING}/Get`).length, 1, 'the page found is remembered: no second probe');
        return;
      }
      assert.equal(state, { page: 'AlarmConfig/Disarming', disarmed: false });
      const g = await client.invoke(disarmingGet);
      assert.is(g.disarming, false);
      assert.equal(Object.keys(g.action!), [...DISARM_ACTIONS]);
      assert.equal(g.disarming_channel, nvr ? ALL_NVR.filter((c) => c !== 'IP_CH3') : ['CH1']);
      const ch1 = obj(g.channel_info!.CH1, 'CH1') as {
        disarming_schedule: Array<{ schedule_type: string; week: Array<{ day: string; time: number[] }> }>;
      };
      const [sched] = ch1.disarming_schedule;
      assert.is(sched.schedule_type, 'Disarming');
      assert.equal(
        sched.week.map((d) => d.day),
        ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'],
      );
      assert.ok(
        sched.week.every((d) => d.time.length === 48),
        '48 half hours a day',
      );
    },
  },
  {
    op: disarmingSet,
    async run({ client, sim, legacy }) {
      if (legacy) {
        // The LinkageManage round trip before may have left `enable` either way: flip what is there.
        const before = await client.disarmState();
        const sets = entries(sim, `${LINKAGE}/Set`).length;
        const flipped = await client.setDisarmed(!before.disarmed);
        assert.equal(flipped, { page: 'LinkageConfig/LinkageManage', disarmed: !before.disarmed });
        assert.is(entries(sim, `${LINKAGE}/Set`).length, sets + 1);
        assert.is(lastOk(sim, `${LINKAGE}/Set`).enable, !before.disarmed);
        assert.is(entries(sim, `${DISARMING}/Set`).length, 0, 'nothing sent to the page the device lacks');
        assert.is((sim.state['LinkageConfig/LinkageManage'] as { enable?: boolean }).enable, !before.disarmed);
      } else {
        const linkageSets = entries(sim, `${LINKAGE}/Set`).length;
        const on = await client.setDisarmed(true);
        assert.equal(on, { page: 'AlarmConfig/Disarming', disarmed: true });
        const sent = lastOk(sim, `${DISARMING}/Set`);
        assert.is(sent.disarming, true);
        // Write rule 'whole': the writable page goes back, unchanged members as read.
        assert.equal(Object.keys(obj(sent.action, 'action')), [...DISARM_ACTIONS]);
        assert.is((sim.state['AlarmConfig/Disarming'] as { disarming?: boolean }).disarming, true);
        assert.is(entries(sim, `${LINKAGE}/Set`).length, linkageSets, 'LinkageManage untouched on a device with Disarming');
        // A Range violation is refused locally: disarming_channel naming a channel the device lacks.
        const before = entries(sim, `${DISARMING}/Set`).length;
        const err = await rejection(client.update('AlarmConfig/Disarming', { disarming_channel: ['CH9'] }));
        assert.is(err.kind, 'invalid_request');
        assert.match(err.message, /disarming_channel/);
        assert.is(entries(sim, `${DISARMING}/Set`).length, before, 'nothing sent');
      }
      const off = await client.setDisarmed(false);
      assert.is(off.disarmed, false);
      assert.equal(await client.disarmState(), off, 'read back from the device');
      const bad = await rejection(client.setDisarmed('yes' as unknown as boolean));
      assert.is(bad.kind, 'invalid_request');
    },
  },
  {
    op: liveGet,
    async run({ client, sim, nvr }) {
      assert.equal(await client.live('CH1'), CH1_LIVE_FULL);
      assert.equal(lastOk(sim, `${LIVE}/Get`), { channel: 'CH1', command_flag: false });
      if (!nvr) return;
      // Fields only where the channel has the hardware (R2).
      assert.equal(await client.live('CH3'), {
        channel: 'CH3',
        siren: false,
        volume: 5,
        volumeRange: { min: 1, max: 10 },
        volumeAdjustable: true,
      });
      assert.equal(await client.live('CH4'), {
        channel: 'CH4',
        floodlight: false,
        brightness: 50,
        brightnessRange: { min: 1, max: 100 },
        mode: 0,
        strobe: 1,
      });
      // The battery camera's siren has a fixed volume.
      assert.is((await client.live('WIFI_CH1')).volumeAdjustable, false);
    },
  },
  {
    op: liveSet,
    async run({ client, sim, nvr }) {
      const live = () => sim.state['PreviewChannel/Floodlight2AudioAlarm'].channel_info!.CH1;
      const lit = await client.setLive('CH1', { floodlight: true, brightness: 80 });
      assert.equal([lit.floodlight, lit.brightness], [true, 80]);
      const sent = lastOk(sim, `${LIVE}/Set`);
      // The Get object with the change and the one part touched.
      assert.equal([sent.channel, sent.operation_type, sent.floodlight_switch, sent.floodlight_value], ['CH1', 'Floodlight', true, 80]);
      assert.equal(sent.audioAlarm_value_range, { type: 'int32', min: 1, max: 10 }, 'ranges echoed');
      assert.equal([live().floodlight_switch, live().floodlight_value], [true, 80], 'the device light is on');
      await client.setLive('CH1', { siren: true });
      assert.is(lastOk(sim, `${LIVE}/Set`).operation_type, 'AudioAlarm');
      assert.is(live().audioAlarm_switch, true);
      const off = await client.setLive('CH1', { floodlight: false, siren: false, redBlueLight: true });
      assert.is(lastOk(sim, `${LIVE}/Set`).operation_type, 'All');
      assert.equal(off, { ...CH1_LIVE_FULL, brightness: 80, redBlueLight: true });
      await client.setLive('CH1', { redBlueLight: false });
      assert.is(lastOk(sim, `${LIVE}/Set`).operation_type, 'RedBlueLight');
      // Unchanged: nothing sent.
      const sets = entries(sim, `${LIVE}/Set`).length;
      await client.setLive('CH1', { floodlight: false });
      assert.is(entries(sim, `${LIVE}/Set`).length, sets);
      // Outside the page's own range, or not a control: refused, nothing sent.
      const high = await rejection(client.setLive('CH1', { brightness: 101 }));
      assert.equal(
        high.violations.map((x) => [x.path, x.problem]),
        [['brightness', 'max']],
      );
      const typo = await rejection(client.setLive('CH1', { floodligt: true } as never));
      assert.match(typo.violations[0].message, /did you mean floodlight/);
      if (nvr) {
        const noSiren = await rejection(client.setLive('CH4', { siren: true }));
        assert.equal(
          noSiren.violations.map((x) => [x.path, x.problem]),
          [['siren', 'unsupported']],
        );
        const fixed = await rejection(client.setLive('WIFI_CH1', { volume: 3 }));
        assert.equal(
          fixed.violations.map((x) => [x.path, x.problem]),
          [['volume', 'read_only']],
        );
      }
      assert.is(entries(sim, `${LIVE}/Set`).length, sets, 'no refused change reached the device');
    },
  },
  {
    op: manualAlarmGet,
    async run({ client, nvr }) {
      // Recorder outputs Local->n, camera outputs IP_CHn->m (vendor names, as in alarm_out lists).
      assert.equal(await client.manualAlarm(), nvr ? { 'Local->1': false, 'Local->2': false, 'IP_CH1->1': false } : { 'Local->1': false });
    },
  },
  {
    op: manualAlarmSet,
    async run({ client, sim, nvr }) {
      const out = nvr ? 'IP_CH1->1' : 'Local->1';
      const after = await client.setManualAlarm({ [out]: true });
      assert.equal(lastOk(sim, `${MANUAL}/Set`), { [out]: true }, 'only the output that changes');
      assert.is(after[out], true);
      assert.is((sim.state['PreviewChannel/ManualAlarm'] as Record<string, boolean>)[out], true);
      const sets = entries(sim, `${MANUAL}/Set`).length;
      const err = await rejection(client.setManualAlarm({ 'Local->9': true }));
      assert.equal(
        err.violations.map((x) => [x.path, x.problem]),
        [['Local->9', 'unsupported']],
      );
      assert.match(err.message, /Local->9/);
      assert.is(entries(sim, `${MANUAL}/Set`).length, sets, 'nothing sent');
      assert.is((await client.setManualAlarm({ [out]: false }))[out], false);
    },
  },
  {
    op: ptzGet,
    async run({ client, sim, nvr }) {
      // The PTZ camera: IP_CH1 of the NVR, CH1 of the IPC; the simulator stores presets 1-3.
      const ch = nvr ? 'IP_CH1' : 'CH1';
      const info = await client.ptzInfo(ch, sim.profile.channels.length);
      assert.equal(info.presets, [
        { no: 1, name: 'Gate' },
        { no: 2, name: 'Driveway' },
        { no: 3, name: 'Garden' },
      ]);
      assert.ok(info.moves.includes('left') && info.moves.includes('zoom_in'));
      assert.equal(info.speed, nvr ? { min: 0, max: 100 } : { min: 0, max: 10 });
      assert.equal(lastOk(sim, '/API/PreviewChannel/PTZ/Get'), { channel: ch });
    },
  },
  {
    op: ptzControl,
    async run({ client, sim, nvr }) {
      const ch = nvr ? 'IP_CH1' : 'CH1';
      const info = await client.ptzInfo(ch, sim.profile.channels.length);
      await client.ptz(info, { preset: 'Garden' });
      assert.equal(lastOk(sim, '/API/PreviewChannel/PTZ/Control'), { channel: ch, cmd: 'Ptz_Cmd_CallPreset', preset_point_no: 3 });
      assert.is(sim.ptz(ch).pan, 250);
      await client.ptz(info, { move: 'right', duration: 0.2, speed: info.speed.max });
      assert.equal(
        entries(sim, '/API/PreviewChannel/PTZ/Control')
          .slice(-2)
          .map((e) => e.data),
        [
          { channel: ch, cmd: 'Ptz_Cmd_Right', state: 'Start', speed: info.speed.max },
          { channel: ch, cmd: 'Ptz_Cmd_Right', state: 'Stop', speed: info.speed.max },
        ],
      );
      assert.ok(sim.ptz(ch).pan > 255 && sim.ptz(ch).moving === undefined, `pan ${sim.ptz(ch).pan}`);
      const sent = entries(sim, '/API/PreviewChannel/PTZ/Control').length;
      await rejection(client.ptz(info, { move: 'right', speed: info.speed.max + 1 }));
      assert.is(entries(sim, '/API/PreviewChannel/PTZ/Control').length, sent, 'nothing sent');
    },
  },
  {
    op: deviceInfoGet,
    async run({ client, sim, legacy }) {
      const d = await client.invoke(deviceInfoGet);
      assert.is(d.device_type, sim.profile.deviceType);
      assert.match(d.mac_addr!, /^([0-9A-F]{2}-){5}[0-9A-F]{2}$/);
      assert.is(d.channel_num, sim.profile.channels.length);
      assert.is(d.support_disarming, !legacy);
      const id = await client.identity();
      assert.equal(
        [id.model, id.firmware, id.hardware, id.mac],
        [
          sim.profile.deviceType,
          `V${sim.profile.firmware}-20221014`,
          sim.profile.name === 'ipc' ? 'IPC-B2-V1.0' : 'NVR-B1-V2.0',
          d.mac_addr,
        ],
      );
      // Serial number: SystemInfo `serialNum` on new firmware only; DeviceInfo never has one.
      if (legacy) assert.is(id.serial, undefined);
      else assert.match(id.serial!, /^SIM[0-9A-F]{12}$/);
      // dev_type is a u64 beyond 2^53 (here 2^63 + a 16-bit number): every digit kept, never rounded to a double.
      const dev = BigInt(id.devType!);
      assert.ok(dev >= 2n ** 63n && dev < 2n ** 63n + 65536n, `dev_type ${id.devType}`);
      assert.is(String(d.dev_type), id.devType);
      assert.is.not(id.devType, String(Number(id.devType)), 'digits beyond double precision kept');
    },
  },
  {
    op: snapshotRange,
    async run({ client, nvr }) {
      const r = obj(await client.invoke(snapshotRange), 'Snapshot Range');
      const list = obj(r.channel_info, 'channel_info').items as Array<{ channel: string; snapshot_resolution: { items: string[] } }>;
      // Channels with a picture now: not the offline IP camera, not the empty slot.
      assert.equal(
        list.map((e) => e.channel),
        nvr ? ONLINE_NVR : ['CH1'],
      );
      assert.equal(list[0].snapshot_resolution.items, ['1280x720', '640x480', '320x240']);
    },
  },
  {
    op: snapshotGet,
    async run({ client, sim, nvr }) {
      const t0 = Math.floor(Date.now() / 1000);
      const shot = await client.snapshot('CH1', { resolution: '640x480' });
      assert.equal(lastOk(sim, '/API/Snapshot/Get'), { channel: 'CH1', reset_session_timeout: false, snapshot_resolution: '640x480' });
      assert.is(shot.format, 'image/jpeg');
      assert.equal([...shot.jpeg.subarray(0, 2)], [0xff, 0xd8], 'JPEG start marker');
      assert.equal([...shot.jpeg.subarray(-2)], [0xff, 0xd9], 'JPEG end marker');
      assert.ok(shot.time! >= t0 - 5 && shot.time! <= t0 + 5, `img_time ${shot.time} is now (UTC seconds)`);
      // The Get page's own sample spells the resolution with spaces: core sends it as given, the device takes it.
      const spaced = await client.snapshot('CH1', { resolution: '1280 x 720' });
      assert.is(spaced.format, 'image/jpeg');
      assert.is(lastOk(sim, '/API/Snapshot/Get').snapshot_resolution, '1280 x 720');
      const bad = await rejection(client.snapshot('camera 1'));
      assert.is(bad.kind, 'invalid_request');
      const badResolution = await rejection(client.snapshot('CH1', { resolution: '1280 by 720' }));
      assert.is(badResolution.kind, 'invalid_request');
      assert.match(badResolution.message, /snapshot_resolution/);
      if (nvr) {
        const before = entries(sim, '/API/Snapshot/Get').length;
        const offline = await rejection(client.snapshot('IP_CH2'));
        assert.equal([offline.kind, offline.error_code], ['unsupported', 'no_support']);
        assert.match(offline.message, /IP_CH2/);
        assert.is(entries(sim, '/API/Snapshot/Get').length, before + 1, 'asked once, not retried');
      }
    },
  },
  {
    op: streamUrlGet,
    async run({ client, sim, nvr }) {
      const urls = await client.streamUrls();
      // Every configured channel (the offline camera too: its URL is fixed); not the empty slot.
      assert.equal(
        urls.map((u) => u.channel),
        nvr ? ALL_NVR.filter((c) => c !== 'IP_CH3') : ['CH1'],
      );
      for (const u of urls) {
        const n = sim.profile.specs.find((s) => s.id === u.channel)!.index;
        for (const [key, sub] of [
          ['main', 0],
          ['sub', 1],
          ['mobile', 2],
        ] as const) {
          // Old firmware spells the third one mobile_stream_url (vendor sample): read all the same.
          assert.match(u[key]!, new RegExp(`^rtsp://[^/]+/rtsp/streaming\\?channel=${n}&subtype=${sub}$`), `${u.channel} ${key}`);
        }
      }
    },
  },
  // Voice prompts (vendor-facts-next 3.1, 3.2): the device's files, what it plays, the cameras behind an NVR.
  {
    op: voicePromptsRange,
    async run({ client, sim }) {
      const r = await client.invoke(voicePromptsRange, { control_type: 'Normal' });
      assert.equal([descriptorAt(r, ['package_size'])?.max, descriptorAt(r, ['text'])?.max_len], [512000, 200]);
      assert.is((descriptorAt(r, ['language'])?.items as string[]).length, 34);
      assert.equal(lastOk(sim, '/API/AlarmConfig/VoicePrompts/Range'), { control_type: 'Normal' });
    },
  },
  {
    op: voicePromptsGet,
    async run({ client, nvr }) {
      const g = await client.invoke(voicePromptsGet, { control_type: 'Normal' });
      assert.ok(g.audio_list!.includes('46_warning.mp3'), JSON.stringify(g.audio_list));
      // The cameras able to play: online, with audio (none on a camera of its own).
      assert.equal(g.info?.ipc_channel_info, nvr ? ['CH1', 'CH3', 'CH4', 'IP_CH1'] : []);
    },
  },
  {
    op: voicePromptsSet,
    async run({ client, sim }) {
      const play = { control_type: 'Normal', command: 'Play', index: 46, ipc_channel_info: [255] } as const;
      assert.equal(await client.invoke(voicePromptsSet, { ...play, ipc_channel_info: [255] }, { skipRangeCheck: true }), {});
      assert.equal(lastOk(sim, '/API/AlarmConfig/VoicePrompts/Set'), play);
      assert.equal(sim.prompts.playLog.at(-1)!.targets, ['local']);
    },
  },
  {
    op: ipcVoicePromptsGet,
    async run({ client, nvr }) {
      if (!nvr) {
        assert.is((await rejection(client.invoke(ipcVoicePromptsGet, { command: 'GetAudioFilesList' }))).error_code, 'not_found');
        return;
      }
      const g = await client.invoke(ipcVoicePromptsGet, { command: 'GetAudioIndex' });
      assert.equal(g.channel_info?.IP_CH1, { status: 'Online', audio_index: 5 });
    },
  },
  {
    op: ipcVoicePromptsSet,
    async run({ client, sim, nvr }) {
      if (!nvr) {
        assert.is(
          (await rejection(client.invoke(ipcVoicePromptsSet, { command: 'StopPlaying', channel: ['IP_CH1'] }, { skipRangeCheck: true })))
            .error_code,
          'not_found',
        );
        return;
      }
      assert.equal(await client.invoke(ipcVoicePromptsSet, { command: 'PlayAudio', channel: ['IP_CH1'] }, { skipRangeCheck: true }), {});
      assert.equal(sim.prompts.playLog.at(-1), {
        ...sim.prompts.playLog.at(-1)!,
        page: 'IPCVoicePrompts',
        action: 'play',
        targets: ['IP_CH1'],
      });
    },
  },
];
