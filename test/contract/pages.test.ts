/**
 * Contract: every operation of the page registry, invoked through the client against the simulator, for both
 * profiles (nvr, ipc) and both firmware generations (8.2.3: telnet_switch + integer PTZ index; 8.2.4: ssh_switch +
 * hex preset set). Each answer is checked field by field against the specification, and every Set page makes a
 * round trip: Get -> change a value inside the Range -> Set -> Get shows the change.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { OperationDef } from '../../core/operation';
import type { PageDef } from '../../core/page';
import {
  LINKAGE_KEYS,
  type ChannelMarker,
  audioGet,
  audioRange,
  audioSet,
  channelInfoGet,
  crossCountingGet,
  crossCountingRange,
  crossCountingSet,
  deterrenceGet,
  deterrenceRange,
  deterrenceSet,
  developerModeGet,
  developerModeRange,
  developerModeSet,
  eventSettingsRange,
  eventPushGet,
  eventPushRange,
  eventPushSet,
  firmwareAfter,
  isChannelMarker,
  linkageManageGet,
  linkageManageRange,
  linkageManageSet,
  mainStreamGet,
  mainStreamRange,
  mainStreamSet,
  pages,
  ptzLinkageGet,
  ptzLinkageRange,
  ptzLinkageSet,
  shellSwitchKey,
  systemInfoGet,
  upgradeToken,
  upgradeUpload,
  firmwareCheck,
  firmwareOnlineUpgrade,
  firmwareProgress,
  voiceAlarmGet,
  voiceAlarmRange,
  voiceAlarmSet,
  diskGet,
  diskRange,
  diskSet,
  deviceRebootSet,
  imageControlPage,
  ipcRebootGet,
  ipcRebootRange,
  ipcUpgradeGet,
  ipcRebootSet,
  motionPage,
  pirPage,
  recordConfigPage,
  transKeyGet,
  videoCoverPage,
} from '../../core/pages';
import { ipcVersions } from '../../core/pages/ipc-upgrade';
import { claimEventPush, restoreEventPush } from '../../core/event-push';
import { ptzPresetIndices, isPtzHex } from '../../core/ptz';
import { boundsOf, channelFields, defaultFor, descriptorAt, supportedChannels } from '../../core/range';
import { prepareUpgrade } from '../../core/upgrade';
import type { Simulator } from '../../simulator';
import * as V from '../conformance/vendor';
import { FEATURE_CASES, expectedRefusals } from './feature-cases';
import { RECORDING_CASES } from './recording-cases';
import {
  ALL_NVR,
  NOT_CONFIGURED,
  NOT_SUPPORT,
  OFFLINE,
  VARIANTS,
  closeRig,
  entries,
  lastOk,
  obj,
  openRig,
  rejection,
  until,
  withRig,
  type Case,
  type Ctx,
  type Obj,
  type Rig,
} from './harness';

/** Channel parameters of a Get channel map entry (fails on a `{reason}` marker). */
function params<T>(x: T | undefined, what: string): Exclude<T, ChannelMarker> {
  assert.ok(x !== undefined, `${what} is missing`);
  assert.not.ok(isChannelMarker(x), `${what} is a marker: ${JSON.stringify(x)}`);
  return x as Exclude<T, ChannelMarker>;
}

function fieldsOf(range: Obj, ch: string) {
  const f = channelFields(range, ch);
  assert.ok(f, `Range has no channel ${ch}`);
  return f;
}

// --- channel settings, storage and maintenance pages ---------------------------------------------------------------

/** A page's operation by verb (the channel settings pages are declared by a factory, their operations by verb). */
function opOf(page: PageDef, verb: 'Range' | 'Get' | 'Set'): OperationDef {
  const op = page.operations[verb];
  assert.ok(op, `${page.name} has no ${verb}`);
  return op;
}

/** Get of a channel page through its operation, as a channel map. */
async function channelGet(client: Ctx['client'], page: PageDef): Promise<Record<string, Obj>> {
  const g = (await client.invoke(opOf(page, 'Get'), {})) as { channel_info?: Record<string, Obj> };
  return obj(g.channel_info, `${page.name} channel_info`) as Record<string, Obj>;
}

interface ChannelPageCase {
  page: PageDef;
  /** `data` the Range and Get carry (the vendor samples: `page_type` on the alarm pages). */
  request: Obj;
  /** Channels the Range lists. */
  channels: (nvr: boolean) => string[];
  /** Members of the Range's CH1 block checked: [member, type]. */
  members: Array<[string, string]>;
  /** The Get's CH1 block on a fresh device (the simulator's defaults). */
  fresh: (nvr: boolean) => Obj;
  /** Get markers of channels the page does not cover (NVR). */
  markers: Record<string, Obj>;
  /** Read-only members of CH1 the Get carries (left out of a Set). */
  readOnly: string[];
  /** The change of CH1 (inside the Range), from the block read before. */
  change: (before: Obj) => Obj;
  /** The UI's `page` member the vendor's Set sample carries in each block. */
  uiPage?: string;
}

/** `data` of the vendor's Get request sample of a page (conformance/vendor.ts REQUEST_SAMPLES). */
function vendorGetData(page: PageDef): Obj {
  const sample = V.REQUEST_SAMPLES.find((x) => x.path === `/API/${page.name}/Get`);
  if (!sample) throw new Error(`no vendor Get sample of ${page.name}`);
  return sample.data;
}

const NVR_ALL_BUT_EMPTY = ALL_NVR.filter((c) => c !== 'IP_CH3');
const NVR_CAMERAS = NVR_ALL_BUT_EMPTY.filter((c) => c !== 'WIFI_CH1');
const alarmLinkage = (sensitivity: number) => ({
  switch: false,
  sensitivity,
  send_email: false,
  record_enable: true,
  record_channel: [],
  alarm_out: [],
  buzzer: 'Off',
  latch_time: '10',
  post_recording: '30',
  show_message: false,
  http_listening: false,
  light_linkage: false,
  siren_linkage: false,
  enforcerlight_linkage: false,
});

const CHANNEL_PAGES: ChannelPageCase[] = [
  {
    page: imageControlPage,
    request: vendorGetData(imageControlPage),
    channels: (nvr) => (nvr ? NVR_CAMERAS : ['CH1']),
    members: [
      ['ir_cut_mode', 'string'],
      ['ir_cut_delay', 'int32'],
      ['support_default', 'bool'],
      ['Daylight', 'object'],
    ],
    // The vendor's Get sample (its CH14, no full colour) without IR LEDs: CH1 has a floodlight.
    fresh: () => {
      const { ir_led: _irLed, ...block } = structuredClone(V.imageControlGet.channel_info.CH14);
      return block;
    },
    markers: { IP_CH2: OFFLINE, IP_CH3: NOT_CONFIGURED },
    readOnly: ['support_default'],
    change: (b) => ({ ir_cut_mode: b.ir_cut_mode === 'ColorMode' ? 'BlackWhiteMode' : 'ColorMode', ir_cut_delay: 5 }),
    uiPage: 'chn_imgCtrl',
  },
  {
    page: motionPage,
    request: vendorGetData(motionPage),
    channels: (nvr) => (nvr ? NVR_ALL_BUT_EMPTY : ['CH1']),
    members: [
      ['switch', 'bool'],
      ['sensitivity', 'int32'],
      ['record_channel', 'array'],
      ['intervals', 'int32'],
    ],
    fresh: () => ({ ...alarmLinkage(4), intervals: 5, target_type: 'Motion' }),
    markers: { IP_CH2: OFFLINE, IP_CH3: NOT_CONFIGURED },
    readOnly: [],
    change: (b) => ({ switch: !b.switch, sensitivity: b.sensitivity === 6 ? 7 : 6, send_email: true }),
  },
  {
    page: pirPage,
    request: vendorGetData(pirPage),
    channels: (nvr) => (nvr ? ['CH1', 'IP_CH1', 'WIFI_CH1'] : ['CH1']),
    members: [
      ['switch', 'bool'],
      ['sensitivity', 'int32'],
      ['alarm_out', 'array'],
    ],
    fresh: () => alarmLinkage(3),
    // Channels without a PIR sensor: "Not configured" (the vendor's PIR Get sample).
    markers: { CH2: NOT_CONFIGURED, CH3: NOT_CONFIGURED, CH4: NOT_CONFIGURED, IP_CH2: OFFLINE, IP_CH3: NOT_CONFIGURED },
    readOnly: [],
    change: (b) => ({ switch: !b.switch, sensitivity: b.sensitivity === 5 ? 4 : 5, record_channel: ['CH1'] }),
  },
  {
    page: recordConfigPage,
    request: vendorGetData(recordConfigPage),
    channels: (nvr) => (nvr ? NVR_ALL_BUT_EMPTY : ['CH1']),
    members: [
      ['record_switch', 'bool'],
      ['prerecord', 'bool'],
      ['manual_record', 'bool'],
    ],
    fresh: (nvr) =>
      nvr
        ? { record_switch: true, stream_mode: 'DualStream', prerecord: true, anr: false }
        : { record_switch: true, prerecord: true, anr: false, net_break_record: false },
    markers: { IP_CH2: OFFLINE, IP_CH3: NOT_CONFIGURED },
    readOnly: [],
    change: (b) => ({ record_switch: !b.record_switch }),
  },
  {
    page: videoCoverPage,
    request: {},
    channels: (nvr) => (nvr ? NVR_CAMERAS : ['CH1']),
    members: [
      ['privacy_zone_enable', 'bool'],
      ['zone_info', 'array'],
    ],
    fresh: () => ({ privacy_zone_enable: false, zone_info: [] }),
    markers: { IP_CH2: OFFLINE, IP_CH3: NOT_CONFIGURED },
    readOnly: [],
    change: () => ({
      privacy_zone_enable: true,
      zone_info: [{ zone_no: 1, zone_enable: true, rect: { left: 0, top: 0, width: 352, height: 288 } }],
    }),
  },
];

const CHANNEL_SETTINGS_CASES: Case[] = CHANNEL_PAGES.flatMap((p): Case[] => {
  const path = `/API/${p.page.name}`;
  return [
    {
      op: opOf(p.page, 'Range'),
      async run({ client, sim, nvr, channels }) {
        const r = (await client.invoke(opOf(p.page, 'Range'), {})) as Obj;
        assert.is(r.channel_max, channels.length);
        assert.equal(supportedChannels(r), p.channels(nvr));
        const f = fieldsOf(r, 'CH1');
        assert.equal(
          p.members.map(([m]) => f[m]?.type),
          p.members.map(([, t]) => t),
        );
        assert.equal(lastOk(sim, `${path}/Range`), p.request, 'the addressing of the vendor samples');
      },
    },
    {
      op: opOf(p.page, 'Get'),
      async run({ client, sim, nvr }) {
        const ci = await channelGet(client, p.page);
        assert.equal(params(ci.CH1, 'CH1'), p.fresh(nvr));
        if (nvr) {
          assert.equal(
            Object.keys(ci),
            ALL_NVR.filter((c) => p.channels(true).includes(c) || c in p.markers),
          );
          for (const [ch, marker] of Object.entries(p.markers)) assert.equal(ci[ch], marker, ch);
        } else {
          assert.equal(Object.keys(ci), ['CH1']);
        }
        assert.equal(lastOk(sim, `${path}/Get`), p.request);
      },
    },
    {
      op: opOf(p.page, 'Set'),
      async run({ client, sim, nvr }) {
        const before = await channelGet(client, p.page);
        const ch1 = params(before.CH1, 'CH1');
        const change = p.change(ch1);
        const returned = await client.update(p.page.name, { channel_info: { CH1: change } });
        // The vendor's Set samples: the touched channel's block whole (read-only members left out), with chn_index
        // (and the UI's page), and the page_type the page is read with.
        const block: Obj = { ...ch1, ...change, chn_index: 'CH1', ...(p.uiPage ? { page: p.uiPage } : {}) };
        for (const k of p.readOnly) delete block[k];
        assert.equal(sentSet(sim, p.page.name), { ...p.request, channel_info: { CH1: block } });
        const after = await channelGet(client, p.page);
        assert.equal(obj(returned.channel_info, 'returned channel_info'), after, 'update() returns the page read back');
        assert.equal(params(after.CH1, 'CH1'), { ...ch1, ...change }, 'the change, and unsent members kept');
        for (const ch of Object.keys(before).filter((c) => c !== 'CH1')) assert.equal(after[ch], before[ch], `${ch} untouched`);
        assert.ok(nvr || Object.keys(after).length === 1);
      },
    },
  ];
});

const STORAGE_CASES: Case[] = [
  {
    op: diskRange,
    async run({ client, sim, nvr }) {
      const r = await client.invoke(diskRange, {});
      const list = descriptorAt(r, ['disk_info']);
      assert.equal([list?.type, list?.max_size], ['array', 18]);
      assert.equal(descriptorAt(r, ['over_write'])?.items, ['Off', 'Auto', '1Day', '3Days', '7Days', '14Days', '30Days', '90Days']);
      assert.is(r.default_timeout, nvr ? 60000 : 30000);
      assert.equal(lastOk(sim, '/API/StorageConfig/Disk/Range'), {});
    },
  },
  {
    op: diskGet,
    async run({ client, nvr }) {
      const g = await client.invoke(diskGet, {});
      assert.equal([g.over_write, g.hdd_format_type, g.support_format, g.NasMaxCount], ['Auto', 'AllHddData', true, 1]);
      assert.is(g.disk_info!.length, 1);
      const d = g.disk_info![0];
      // NVR: the vendor sample's drive (full, overwriting); IPC: a memory card with room left.
      if (nvr) assert.equal([d.device_type, d.status, d.total_size, d.free_size, d.display_id], ['Normal', 'Full', 476940, 0, 1]);
      else assert.equal([d.device_type, d.status, d.total_size, d.free_size, d.display_id], ['Sd', 'Normal', 60906, 41210, undefined]);
    },
  },
  {
    op: diskSet,
    async run({ client, sim }) {
      // The overwrite mode only: never a format (that is Disk/Format, with secondary authentication).
      const before = await client.invoke(diskGet, {});
      const over_write = before.over_write === 'Off' ? 'Auto' : 'Off';
      await client.update('StorageConfig/Disk', { over_write });
      // The vendor's Set sample: the Get object sent back, the change in it; the top-level read-only members
      // (hdd_format_type, support_format) left out, the disk list as read.
      const { hdd_format_type, support_format, ...writable } = before;
      assert.equal([hdd_format_type, support_format], ['AllHddData', true]);
      assert.equal(sentSet(sim, 'StorageConfig/Disk'), { ...writable, over_write });
      const after = await client.invoke(diskGet, {});
      assert.equal(after, { ...before, over_write }, 'the change, the disks as they were');
      assert.not.ok(
        sim.log.some((e) => e.path.startsWith('/API/StorageConfig/Disk/Format')),
        'no format',
      );
    },
  },
];

const REBOOT_MS = 200;

const MAINTENANCE_CASES: Case[] = [
  {
    op: transKeyGet,
    async run({ client, sim }) {
      const t = await client.invoke(transKeyGet, { type: ['base_salt', 'base_x_public'] });
      const [salt, pub] = t.Key_lists!;
      assert.equal([salt.type, salt.iter, pub.type, pub.iter, pub.seq], ['base_salt', 1000, 'base_x_public', undefined, salt.seq + 1]);
      // Keys with a leading 0 before the base64 (vendor samples).
      assert.match(salt.key, /^0[A-Za-z0-9+/=]+$/);
      assert.equal(lastOk(sim, '/API/Maintenance/TransKey/Get'), { type: ['base_salt', 'base_x_public'] });
      // A fresh salt each time.
      const again = await client.invoke(transKeyGet, { type: ['base_salt'] });
      assert.ok(again.Key_lists![0].seq > pub.seq && again.Key_lists![0].key !== salt.key);
    },
  },
  {
    op: ipcRebootRange,
    async run({ client, sim, nvr, channels }) {
      if (!nvr) {
        // A camera has no IPCReboot page: unsupported, with the page named.
        const err = await rejection(client.invoke(ipcRebootRange, {}));
        assert.equal([err.kind, err.error_code, err.page, err.status], ['unsupported', 'not_found', 'IPCMaintaint/IPCReboot', 404]);
        return;
      }
      const r = await client.invoke(ipcRebootRange, {});
      assert.is(r.channel_max, channels.length);
      // Only channels that hold an IPC (the empty slot IP_CH3 none).
      assert.equal(supportedChannels(r), ['IP_CH1', 'IP_CH2']);
      const f = fieldsOf(r, 'IP_CH1');
      assert.equal([f.reboot_switch.type, f.reboot_switch.mode, f.status.mode], ['bool', 'rw', 'r']);
      assert.is(descriptorAt(r, ['password'])?.max_len, 16);
      assert.equal(lastOk(sim, '/API/IPCMaintaint/IPCReboot/Range'), {});
    },
  },
  {
    op: ipcRebootGet,
    async run({ client, nvr }) {
      if (!nvr) {
        assert.is((await rejection(client.invoke(ipcRebootGet, {}))).error_code, 'not_found');
        return;
      }
      const g = await client.invoke(ipcRebootGet, {});
      assert.equal(g.channel_info, {
        IP_CH1: { status: 'Online', ip_address: '192.168.1.105', software_version: 'V21.45.8.2.2_220705' },
        IP_CH2: { status: 'Offline', ip_address: '192.168.1.106', software_version: 'V21.45.8.2.2_220705' },
      });
    },
  },
  {
    op: ipcUpgradeGet,
    async run({ client, sim, nvr }) {
      if (!nvr) {
        assert.is((await rejection(client.invoke(ipcUpgradeGet, {}))).error_code, 'not_found');
        return;
      }
      const g = await client.invoke(ipcUpgradeGet, {});
      // Only channels that hold a camera (IP and Wi-Fi); the offline one with no version (the vendor's spelling
      // On-line / Off-line).
      assert.equal(Object.keys(g.channel_info!), ['IP_CH1', 'IP_CH2', 'WIFI_CH1']);
      const [on, off] = [g.channel_info!.IP_CH1, g.channel_info!.IP_CH2];
      assert.equal([on.state, on.software_version, on.file_type], ['On-line', sim.ipcFirmware.version('IP_CH1'), 'sw']);
      assert.equal([off.state, off.software_version], ['Off-line', '']);
      assert.equal(ipcVersions(g), new Map(['IP_CH1', 'WIFI_CH1'].map((ch) => [ch, sim.ipcFirmware.version(ch)])));
    },
  },
  {
    op: ipcRebootSet,
    async run({ v, nvr }) {
      // Its own device: the camera goes away for a while (REBOOT_MS), which the other cases must not see.
      await withRig({ profile: v.profile, firmware: v.firmware, rebootMs: REBOOT_MS }, {}, async ({ client, sim }) => {
        const set = '/API/IPCMaintaint/IPCReboot/Set';
        if (!nvr) {
          const err = await rejection(client.restartCamera('CH1'));
          assert.match(err.reason, /CH1 is not a camera this recorder can restart/);
          assert.is(entries(sim, set).length, 0, 'nothing sent');
          return;
        }
        const status = async () => (await client.invoke(ipcRebootGet, {})).channel_info?.IP_CH1?.status;
        assert.is(await status(), 'Online');
        assert.is(await client.restartCamera('IP_CH1'), 'Success');
        // The admin password and the wrapped authentication built from the first salt handed out (the log redacts
        // both secrets); the device checked the cipher.
        assert.equal(lastOk(sim, set), {
          password: '***',
          channel_info: { IP_CH1: { reboot_switch: true } },
          base_secondary_authentication: { seq: 1, cipher: '***' },
        });
        assert.is(await status(), 'Offline', 'the camera restarts');
        await new Promise((r) => setTimeout(r, REBOOT_MS + 50));
        assert.is(await status(), 'Online');
        // An offline camera: the recorder answers Failed, an error.
        assert.is((await rejection(client.restartCamera('IP_CH2'))).error_code, 'failed');
        assert.is(entries(sim, set).length, 2);
        assert.is(entries(sim, '/API/Web/Login').length, 2, "the recorder's session is kept");
      });
    },
  },
  {
    op: deviceRebootSet,
    async run({ v }) {
      // Its own device: the reboot ends every session.
      await withRig({ profile: v.profile, firmware: v.firmware, rebootMs: REBOOT_MS }, {}, async ({ client, sim }) => {
        const path = '/API/Maintenance/DeviceReboot/Set';
        const info = await client.invoke(systemInfoGet);
        await client.restart();
        // The page's own flat shape {cipher, seq}, from the first salt; the device checked the cipher.
        assert.equal(lastOk(sim, path), { cipher: '***', seq: 1 });
        await until(() => sim.reboots === 1, 'the reboot');
        // Meanwhile: the client holds its calls (the device restarts); the device answers device_reboot to all.
        assert.is((await rejection(client.invoke(systemInfoGet))).error_code, 'device_reboot');
        const raw = await fetch(`${sim.url}/API/Web/Login`, { method: 'POST', body: JSON.stringify({ version: '1.0', data: {} }) });
        assert.equal([raw.status, ((await raw.json()) as Obj).error_code], [400, 'device_reboot']);
        // Then it is back: one new login, the same device.
        await until(() => !sim.firmware.rebooting && Date.now() >= (client.loginHeldUntil ?? 0), 'the device back', 5000);
        assert.equal(await client.invoke(systemInfoGet), info);
        // One challenge (401) and one answer per login: two logins, the second after the reboot.
        const logins = entries(sim, '/API/Web/Login').filter((e) => e.status === 200);
        assert.is(logins.length, 2, 'the session dropped: logged in again');
        assert.ok(logins[1].time > entries(sim, path)[0].time);
        assert.is(entries(sim, path).length, 1, 'sent once');
      });
    },
  },
];

// --- one check per registry operation ------------------------------------------------------------------------------

const PAGE_CASES: Case[] = [
  {
    op: deterrenceRange,
    async run({ client, nvr, channels }) {
      const r = await client.invoke(deterrenceRange, {});
      assert.is(r.channel_max, channels.length);
      // Channels without a floodlight (CH3, WIFI_CH1) and the empty slot IP_CH3 are absent from the Range (R2).
      assert.equal(supportedChannels(r), nvr ? ['CH1', 'CH2', 'CH4', 'IP_CH1', 'IP_CH2'] : ['CH1']);
      const f = fieldsOf(r, 'CH1');
      assert.equal({ type: f.flood_light_switch.type, mode: f.flood_light_switch.mode }, { type: 'bool', mode: 'rw' });
      const bt = boundsOf(f.bright_time);
      assert.equal([bt.min, bt.max, bt.readOnly], [5, 180, false]);
      // Vendor: Warninglight = steady, Strobe = flashing; bright_time defaults to 60 s.
      assert.equal(f.flood_light_mode.items, ['Warninglight', 'Strobe']);
      assert.is(f.bright_time.default_value, 60);
      assert.equal(f.strobe_frequency.items, ['Low', 'Middle', 'High']);
      assert.equal([f.siren_value.min, f.siren_value.max, f.enforcer_bright_time.max], [1, 10, 180]);
      // Vendor Range: these UI members are settable (its Set sample sends them); only `status` is read-only.
      assert.is(f.flood_light_disable.mode, 'rw');
      assert.is(f.warning_light_disable.mode, 'rw');
      if (nvr) {
        // Siren members only with a siren, enforcer_* only with a red/blue light.
        const ch2 = fieldsOf(r, 'CH2');
        assert.ok('siren_switch' in ch2);
        assert.not.ok('enforcer_light_switch' in ch2);
        const ch4 = fieldsOf(r, 'CH4');
        assert.not.ok('siren_switch' in ch4);
        assert.not.ok('enforcer_light_switch' in ch4);
      }
    },
  },
  {
    op: deterrenceGet,
    async run({ client, sim, nvr }) {
      const g = await client.invoke(deterrenceGet, {});
      const ci = g.channel_info!;
      const ch1 = params(ci.CH1, 'CH1');
      assert.type(ch1.flood_light_switch, 'boolean');
      assert.is(ch1.bright_time, 60);
      assert.is(ch1.flood_light_mode, 'Warninglight');
      assert.is(ch1.strobe_frequency, 'Middle');
      assert.equal(ch1.param_video, { show: true, disable: false });
      if (nvr) {
        assert.equal(Object.keys(ci), ALL_NVR);
        assert.equal(ci.CH3, NOT_SUPPORT);
        assert.equal(ci.WIFI_CH1, NOT_SUPPORT);
        assert.equal(ci.IP_CH2, OFFLINE);
        assert.equal(ci.IP_CH3, NOT_CONFIGURED);
        params(ci.CH4, 'CH4');
      } else {
        assert.equal(Object.keys(ci), ['CH1']);
      }
      assert.is(lastOk(sim, '/API/AlarmConfig/Deterrence/Get').page_type, 'ChannelConfig');
    },
  },
  {
    op: deterrenceSet,
    run: (c) => SETS.deterrence(c),
  },
  {
    op: voiceAlarmRange,
    async run({ client, nvr }) {
      const r = await client.invoke(voiceAlarmRange);
      // CH4 has no siren, IP_CH3 is an empty slot: absent from the Range.
      assert.equal(supportedChannels(r), nvr ? ALL_NVR.filter((c) => c !== 'CH4' && c !== 'IP_CH3') : ['CH1']);
      const f = fieldsOf(r, 'CH1');
      assert.equal([f.siren_time.type, f.siren_time.min, f.siren_time.max, f.siren_time.default_value], ['int32', 5, 180, 10]);
      assert.equal([f.siren_value.min, f.siren_value.max], [1, 10]);
      assert.equal(f.siren_type.items, ['Alarm1', 'Alarm2', 'User-defined1', 'User-defined2', 'User-defined3']);
      assert.is(f.siren_support_format.mode, 'r');
      if (nvr) assert.equal(fieldsOf(r, 'CH2').siren_type.items, ['Alarm1', 'Alarm2']);
    },
  },
  {
    op: voiceAlarmGet,
    async run({ client, nvr }) {
      const g = await client.invoke(voiceAlarmGet);
      const ci = g.channel_info!;
      const ch1 = params(ci.CH1, 'CH1');
      assert.equal([ch1.siren_switch, ch1.siren_time, ch1.siren_value, ch1.siren_type, ch1.siren_file_name], [false, 10, 5, 'Alarm1', '']);
      if (nvr) {
        assert.equal(Object.keys(ci), ALL_NVR);
        assert.equal(ci.CH4, NOT_SUPPORT);
        assert.equal(ci.IP_CH2, OFFLINE);
        assert.equal(ci.IP_CH3, NOT_CONFIGURED);
        params(ci.WIFI_CH1, 'WIFI_CH1');
      }
    },
  },
  {
    op: voiceAlarmSet,
    run: (c) => SETS.voiceAlarm(c),
  },
  {
    op: linkageManageRange,
    async run({ client, nvr }) {
      const r = await client.invoke(linkageManageRange);
      assert.equal(descriptorAt(r, ['enable'])?.type, 'bool');
      const li = descriptorAt(r, ['linkage_info']);
      assert.is(li?.type, 'object');
      assert.equal(Object.keys(obj(li!.items, 'linkage_info.items')), [...LINKAGE_KEYS]);
      const ch1 = fieldsOf(r, 'CH1');
      assert.is(ch1.enable.type, 'bool');
      assert.is(ch1.linkage_info.type, 'object');
      if (nvr) {
        // CH4 has no siren: its linkage_info offers no siren or voice prompt linkage.
        const ch4 = obj(fieldsOf(r, 'CH4').linkage_info.items, 'CH4 linkage_info');
        assert.not.ok('linkage_siren' in ch4);
        assert.ok('linkage_floodlight' in ch4);
      }
    },
  },
  {
    op: linkageManageGet,
    async run({ client, nvr }) {
      const g = await client.invoke(linkageManageGet);
      assert.type(g.enable, 'boolean');
      assert.equal(Object.keys(g.linkage_info!), [...LINKAGE_KEYS]);
      for (const k of LINKAGE_KEYS) assert.type(g.linkage_info![k], 'boolean');
      const ch1 = params(g.channel_info!.CH1, 'CH1');
      assert.type(ch1.enable, 'boolean');
      assert.type(ch1.linkage_info?.linkage_mobile_push, 'boolean');
      if (nvr) assert.equal(g.channel_info!.IP_CH2, OFFLINE);
    },
  },
  {
    op: linkageManageSet,
    run: (c) => SETS.linkageManage(c),
  },
  {
    op: audioRange,
    async run({ client, nvr }) {
      const r = await client.invoke(audioRange);
      assert.equal(supportedChannels(r), nvr ? ['CH1', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2'] : ['CH1']);
      const f = fieldsOf(r, 'CH1');
      assert.equal([f.in_volume.min, f.in_volume.max, f.out_volume.min, f.out_volume.max], [0, 100, 0, 100]);
      assert.equal(f.audio_type.items, ['G711A', 'G711U', 'G726', 'AAC']);
      // audio_enable exists on some channels only (digital ones on the NVR, the camera itself).
      assert.is('audio_enable' in f, !nvr);
      if (nvr) assert.is(fieldsOf(r, 'IP_CH1').audio_enable.type, 'bool');
    },
  },
  {
    op: audioGet,
    async run({ client, nvr }) {
      const g = await client.invoke(audioGet);
      const ci = g.channel_info!;
      const ch1 = params(ci.CH1, 'CH1');
      assert.equal([ch1.audio_type, ch1.in_volume, ch1.out_volume], ['G711A', 50, 50]);
      if (nvr) {
        assert.equal(ci.CH2, NOT_SUPPORT);
        assert.equal(ci.WIFI_CH1, NOT_SUPPORT);
        assert.equal(ci.IP_CH3, NOT_CONFIGURED);
        assert.is(ch1.audio_enable, undefined);
        assert.is(params(ci.IP_CH1, 'IP_CH1').audio_enable, true);
      } else {
        assert.is(ch1.audio_enable, true);
      }
    },
  },
  {
    op: audioSet,
    run: (c) => SETS.audio(c),
  },
  {
    op: mainStreamRange,
    async run({ client, nvr, channels }) {
      const r = await client.invoke(mainStreamRange);
      assert.equal(r.channel, channels);
      assert.is(r.channel_max, channels.length);
      const f = fieldsOf(r, 'CH1');
      assert.equal([f.fps.min, f.fps.max, f.custom_bitrate.min, f.custom_bitrate.max], [1, 30, 8, 16384]);
      assert.ok((f.bitrate.items as number[]).includes(4096));
      assert.is(f.bitrate_default.mode, 'r');
      if (nvr) {
        assert.is(r.support_copy, true);
        assert.is(r.analog_max, 4);
        assert.equal(r.bandwidth, { total_bandwidth: 131072, remaining_bandwidth: 65536 });
        assert.ok('anr' in f, 'anr on the first channel only');
        assert.not.ok('anr' in fieldsOf(r, 'CH2'));
        assert.is(f.resolution_mode.mode, 'r');
      } else {
        assert.ok((f.video_encode_type.items as string[]).includes('MJPEG'));
        assert.is(f.video_encode_level.type, 'string');
      }
    },
  },
  {
    op: mainStreamGet,
    async run({ client, nvr }) {
      const g = await client.invoke(mainStreamGet);
      const ch1 = params(g.channel_info!.CH1, 'CH1');
      assert.equal([ch1.fps, ch1.video_encode_type, ch1.bitrate, ch1.record_switch], [25, 'H.265', 4096, true]);
      const range = await client.invoke(mainStreamRange);
      assert.ok((fieldsOf(range, 'CH1').resolution.items as string[]).includes(ch1.resolution!), 'resolution inside Range');
      if (nvr) {
        assert.equal(g.channel_info!.IP_CH2, OFFLINE);
        assert.is(ch1.resolution_mode, 'SUPPORT_8W');
      } else {
        assert.is(ch1.video_encode_level, 'MainProfile');
      }
    },
  },
  {
    op: mainStreamSet,
    run: (c) => SETS.mainStream(c),
  },
  {
    op: ptzLinkageRange,
    async run({ client, nvr, legacy }) {
      const r = await client.invoke(ptzLinkageRange);
      const top = descriptorAt(r, ['ptz_info']);
      assert.equal([top?.type, top?.min_size, top?.max_size], ['array', 0, 16]);
      assert.equal(descriptorAt(r, ['ptz_info', '0', 'ptz_chn'])?.items, nvr ? ['IP_CH1', 'IP_CH2'] : ['CH1']);
      const idx = descriptorAt(r, ['ptz_info', '0', 'linkage_ptz_point_index'])!;
      assert.equal([idx.type, idx.min, idx.max], ['int32', 0, 255]);
      if (legacy) {
        assert.is(idx.items, undefined, '8.2.3: plain int index');
      } else {
        assert.ok(isPtzHex(idx.items), `8.2.4: 256-bit hex preset set, got ${JSON.stringify(idx.items)}`);
        assert.equal(ptzPresetIndices(idx.items), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert.equal(boundsOf(idx).options, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
      }
      const ch1 = fieldsOf(r, 'CH1');
      assert.equal([ch1.ptz_info.max_size, ch1.all_alarm.type], [4, 'object']);
      // A pir linkage only on channels with a PIR sensor (CH1 has one on both profiles, CH2 of the NVR none).
      assert.ok('pir' in ch1, 'pir on a channel with a PIR sensor');
      if (nvr) assert.not.ok('pir' in fieldsOf(r, 'CH2'), 'no pir without a PIR sensor');
    },
  },
  {
    op: ptzLinkageGet,
    async run({ client, nvr }) {
      const g = await client.invoke(ptzLinkageGet);
      const targets = g.ptz_info!;
      assert.equal(
        targets.map((t) => t.ptz_chn),
        nvr ? ['IP_CH1', 'IP_CH2'] : ['CH1'],
      );
      for (const t of targets) assert.equal(ptzPresetIndices(t.linkage_ptz_point_index!), [0]);
      const ch1 = params(g.channel_info!.CH1, 'CH1');
      assert.equal([ch1.switch, ch1.motion, ch1.ptz_info?.length], [true, true, 4]);
      assert.type(ch1.all_alarm?.motion, 'boolean');
      if (nvr) assert.equal(g.channel_info!.IP_CH2, OFFLINE);
    },
  },
  {
    op: ptzLinkageSet,
    run: (c) => SETS.ptzLinkage(c),
  },
  {
    op: crossCountingRange,
    async run({ client, sim, nvr, channels }) {
      const r = await client.invoke(crossCountingRange, {});
      assert.equal(supportedChannels(r), nvr ? ['CH1', 'IP_CH1'] : ['CH1']);
      const f = fieldsOf(r, 'CH1');
      assert.equal([f.voice_prompts_index.size, f.voice_prompts_select.size, f.voice_prompts_time.size], [12, 2, 12]);
      assert.is(f.record_channel.max_size, channels.length);
      assert.is(lastOk(sim, '/API/AlarmConfig/Intelligent/CC/Range').page_type, 'AlarmConfig');
    },
  },
  {
    op: crossCountingGet,
    async run({ client, nvr }) {
      // The device answers {"version": "1.0", "data": {...}}: accepted because the page declares that envelope...
      const g = await client.invoke(crossCountingGet, {});
      assert.is(g.page_type, 'AlarmConfig');
      const ch1 = params(g.channel_info!.CH1, 'CH1');
      assert.equal(ch1.record_channel, ['CH1']);
      assert.equal([ch1.voice_prompts_index?.length, ch1.voice_prompts_select?.length, ch1.voice_prompts_time?.length], [12, 2, 12]);
      assert.equal(ch1.voice_prompts_time![0], {
        start_hour: 0,
        start_minute: 0,
        start_second: 0,
        end_hour: 23,
        end_minute: 59,
        end_second: 59,
      });
      if (nvr) {
        assert.equal(g.channel_info!.CH2, { reason: 'Not support' });
        params(g.channel_info!.IP_CH1, 'IP_CH1');
      }
      // ...and only because of it: the same answer read as a {result, data} page is refused.
      const strict = { ...crossCountingGet, envelope: 'result' as const };
      const err = await client.invoke(strict, {}).then(
        () => undefined,
        (e: { kind?: string; reason?: string }) => e,
      );
      assert.is(err?.kind, 'invalid_answer');
      assert.match(String(err?.reason), /no result field/);
    },
  },
  {
    op: crossCountingSet,
    run: (c) => SETS.crossCounting(c),
  },
  {
    op: developerModeRange,
    async run({ client, nvr, legacy }) {
      const r = await client.invoke(developerModeRange);
      // 8.2.3 and earlier report telnet_switch, later firmware ssh_switch (spec 9); never both.
      assert.is(shellSwitchKey(r), legacy ? 'telnet_switch' : 'ssh_switch');
      assert.is(r[legacy ? 'ssh_switch' : 'telnet_switch'], undefined);
      assert.equal(descriptorAt(r, [legacy ? 'telnet_switch' : 'ssh_switch'])?.type, 'bool');
      assert.equal(descriptorAt(r, ['export_days'])?.items, ['all', '1', '2', '3', '4', '5']);
      assert.is(r.enable_export, true);
      assert.is(r.default_timeout, 60);
      if (nvr) {
        assert.equal(supportedChannels(r), ['IP_CH1', 'IP_CH2']);
      } else {
        const rs = obj(fieldsOf(r, 'CH1').remote_server.items, 'remote_server.items') as Record<
          string,
          { max_len?: number; mode?: string }
        >;
        assert.equal([rs.username.max_len, rs.password.max_len, rs.server_address.max_len, rs.password_empty.mode], [63, 63, 127, 'r']);
        assert.is(r.log_collect_tips, 'ftp://192.168.1.100:21/log');
      }
    },
  },
  {
    op: developerModeGet,
    async run({ client, nvr, legacy }) {
      const g = await client.invoke(developerModeGet);
      assert.is(shellSwitchKey(g), legacy ? 'telnet_switch' : 'ssh_switch');
      assert.is(g[legacy ? 'telnet_switch' : 'ssh_switch'], false);
      assert.is(g[legacy ? 'ssh_switch' : 'telnet_switch'], undefined);
      assert.equal([g.export_disk_switch, g.export_days], ['Shut Off', 'all']);
      if (nvr) {
        assert.equal(Object.keys(g.channel_info!), ['IP_CH1', 'IP_CH2', 'IP_CH3']);
        assert.equal(g.channel_info!.IP_CH2, OFFLINE);
        assert.equal(g.channel_info!.IP_CH3, NOT_CONFIGURED);
      } else {
        const ch1 = params(g.channel_info!.CH1, 'CH1');
        assert.equal(ch1.remote_server, { username: '', password: '', password_empty: true, server_address: '' });
        assert.is(g.download_type, 'IPC_Local'); // not in the schema: kept
      }
    },
  },
  {
    op: developerModeSet,
    run: (c) => SETS.developerMode(c),
  },
  {
    op: eventPushRange,
    async run({ client }) {
      const r = await client.invoke(eventPushRange, {});
      const table = descriptorAt(r, ['params', 'table']) as { items: Record<string, { min?: number; max?: number; max_len?: number }> };
      assert.equal([table.items.port.min, table.items.port.max, table.items.addr.max_len, table.items.url.max_len], [1, 65535, 31, 63]);
    },
  },
  {
    op: eventPushGet,
    async run({ client }) {
      const g = await client.invoke(eventPushGet, {});
      assert.equal([g.params?.table?.enable, g.params?.table?.push_way], [false, 'HTTP']);
    },
  },
  {
    op: eventPushSet,
    async run({ client, sim }) {
      const before = await client.invoke(eventPushGet, {});
      await claimEventPush(client, before, { addr: '192.0.2.7', port: 8089, url: 'nvr2mqtt/abc' });
      const sent = sentSet(sim, 'AlarmConfig/EventPush') as { params: { table: Obj } };
      assert.equal([sent.params.table.addr, sent.params.table.enable, sent.params.table.method], ['192.0.2.7', true, 'GET']);
      assert.ok(!('password' in sent.params.table), 'the password is never echoed back');
      await restoreEventPush(client, before);
      assert.equal((await client.invoke(eventPushGet, {})).params?.table, before.params?.table);
    },
  },
  {
    op: eventSettingsRange,
    async run({ client, sim }) {
      const r = await client.invoke(eventSettingsRange, { channel: 'CH1', abilities: ['FaceDetection'] });
      assert.equal(supportedChannels(r), ['CH1']);
      assert.equal([r.default_timeout, r.page_type, r.channel_max], [60, 'ChannelConfig', sim.profile.channels.length]);
      assert.equal([descriptorAt(r, ['statement_file_name'])?.min_len, descriptorAt(r, ['statement_file_name'])?.max_len], [1, 48]);
      const f = fieldsOf(r, 'CH1');
      // default_value_frontal / _multi: the face angle picks the default.
      assert.equal(
        [defaultFor(f.roll_range), defaultFor(f.roll_range, 'FrontalView'), defaultFor(f.roll_range, 'Multiangle')],
        [30, 30, 180],
      );
      assert.equal([defaultFor(f.yaw_range, 'FrontalView'), defaultFor(f.yaw_range, 'Multiangle')], [45, 180]);
      assert.equal(boundsOf(f.picture_quality), { readOnly: true, min: 0, max: 100, default: 100, defaultFrontal: 100, defaultMulti: 100 });
      assert.equal([f.snap_frequency.min, f.snap_frequency.max], [1, 255]);
      const rule = descriptorAt(r, ['channel_info', 'CH1', 'rule_info', 'rule_number1', 'rule_rect', 'x1']);
      assert.equal([rule?.min, rule?.max], [0, 704]);
      assert.equal(lastOk(sim, '/API/Event/SettingConfig/Range'), { channel: 'CH1', abilities: ['FaceDetection'] });
    },
  },
  {
    op: systemInfoGet,
    async run({ client, sim, v, legacy, nvr }) {
      const info = await client.invoke(systemInfoGet);
      assert.is(info.software_version, `V${v.firmware}-20221014`);
      assert.is(firmwareAfter(info.software_version, [8, 2, 3]), !legacy);
      assert.is(info.device_type, sim.profile.deviceType);
      // Vendor: mac_address dash-separated upper-case; serialNum only on some builds (here: newer firmware).
      assert.match(info.mac_address!, /^([0-9A-F]{2}-){5}[0-9A-F]{2}$/);
      if (legacy) assert.is(info.serialNum, undefined);
      else assert.match(info.serialNum!, /^SIM[0-9A-F]{12}$/);
      assert.is(info.serial_number, undefined);
      assert.is(info.device_name, nvr ? 'NVR' : 'IPC');
      assert.is(info.language, 'English'); // not in the schema: kept
      assert.equal(await client.systemInfo(), info);
    },
  },
  {
    op: channelInfoGet,
    async run({ client, nvr, legacy, channels }) {
      const g = await client.invoke(channelInfoGet);
      // Vendor: `channel_param`, a plain array (table) on old firmware, `{type:"array", items}` (sample) on new.
      const raw = g.channel_param;
      assert.is(Array.isArray(raw), legacy, 'channel_param form');
      const slots = (Array.isArray(raw) ? raw : raw!.items) as Obj[];
      assert.equal(
        slots.map((s) => s.channel),
        channels,
        'every slot is listed, configured or not',
      );
      const status = Object.fromEntries(slots.map((s) => [s.channel, s.connect_status]));
      assert.equal(
        status,
        Object.fromEntries(
          channels.map((c) => [c, !nvr ? 'Online' : c === 'IP_CH2' ? 'Offline' : c === 'IP_CH3' ? 'NotConfigured' : 'Online']),
        ),
      );
      assert.ok((slots[0].ability as string[]).includes('FloodLight'));
      assert.equal(
        slots[0].intelligent_ability,
        nvr ? ['PVD', 'LCD', 'PID', 'FD', 'CrossCount'] : ['PVD', 'LCD', 'PID', 'FD', 'CrossCount', 'SOD'],
      );
      if (nvr) {
        const empty = slots.find((s) => s.channel === 'IP_CH3')!;
        assert.equal([empty.channel_name, empty.ability, empty.videoloss], ['', [], true]);
        assert.is(slots.find((s) => s.channel === 'WIFI_CH1')!.wireless_ipc_type, 1);
      }
      const list = await client.channels();
      assert.equal(
        list,
        channels.map((channel) => ({ channel, online: status[channel] === 'Online' })),
      );
    },
  },
  {
    op: upgradeToken,
    async run({ client, sim }) {
      const file = Buffer.alloc(4096);
      for (let i = 0; i < file.length; i++) file[i] = (i * 7 + 3) & 0xff;
      const prepared = await prepareUpgrade({ file, file_name: 'N7508_V8.2.5.sw' });
      const auth = { seq: 7, cipher: 'c1pher-from-user' };
      const t = await client.invoke(upgradeToken, { ...prepared, base_secondary_authentication: auth });
      assert.match(t.upgrade_token, /^[0-9a-f]{32}$/);
      assert.is(t.upgrade_timeout, 600);
      const sent = lastOk(sim, '/API/Maintenance/SystemUpgrade/Token');
      assert.is(sent.file_name, 'N7508_V8.2.5.sw');
      assert.is(sent.file_size, 4096);
      const head = sent.upgrade_head as number[];
      assert.is(head.length, 3072);
      assert.ok(
        head.every((b, i) => b === file[i]),
        'upgrade_head = the first 3072 bytes of the file, as integers',
      );
      // Passed through as given (the log redacts the cipher itself).
      assert.equal(sent.base_secondary_authentication, { seq: 7, cipher: '***' });
      // The client helper does the same from the buffer.
      const viaHelper = await client.upgradeToken({ file, file_name: 'N7508_V8.2.5.sw', auth });
      assert.is(viaHelper.upgrade_timeout, 600);
      assert.equal(lastOk(sim, '/API/Maintenance/SystemUpgrade/Token').upgrade_head, head);
    },
  },
  {
    op: firmwareCheck,
    async run({ client, sim }) {
      const v = await client.checkFirmware();
      assert.equal(v, { installed: sim.firmware.installed, latest: sim.firmware.installed, available: false });
      assert.equal(lastOk(sim, '/API/Maintenance/FtpUpgrade/Check'), {});
    },
  },
  {
    op: firmwareOnlineUpgrade,
    async run({ client }) {
      // Nothing newer found: the device refuses, nothing is installed (no reboot in the middle of the contract).
      const err = await client.invoke(firmwareOnlineUpgrade, {}).then(
        () => undefined,
        (e: unknown) => e as { error_code?: string },
      );
      assert.is(err?.error_code, 'no_need_upgrade');
    },
  },
  {
    op: firmwareProgress,
    async run({ client }) {
      const p = await client.invoke(firmwareProgress, {});
      assert.type(p.upgrade_percent, 'number');
      assert.type(p.upgrade_state, 'string');
    },
  },
  {
    op: upgradeUpload,
    async run({ client, sim }) {
      // The whole local upgrade of a file that is no firmware image: token, upload, the device's refusal.
      const err = await client.upgradeFirmware({ file: Buffer.alloc(4096, 1), file_name: 'x.sw', auth: { seq: 1, cipher: 'c' } }).then(
        () => undefined,
        (e: unknown) => e as { error_code?: string },
      );
      assert.is(err?.error_code, 'file_error');
      assert.equal(sim.log.filter((e) => e.path === '/API/Maintenance/SystemUpgrade/Upgrade').at(-1)?.data, { bytes: 4096 });
    },
  },
  ...CHANNEL_SETTINGS_CASES,
  ...STORAGE_CASES,
  ...MAINTENANCE_CASES,
];

const CASES: Case[] = [...PAGE_CASES, ...FEATURE_CASES, ...RECORDING_CASES];

// --- Set round trips -----------------------------------------------------------------------------------------------

/** The Set request the simulator logged last (exactly the data the client sent, password fields redacted). */
function sentSet(sim: Simulator, page: string): Obj {
  return lastOk(sim, `/API/${page}/Set`);
}

const SETS = {
  async voiceAlarm({ client, sim, nvr }: Ctx) {
    const before = params((await client.invoke(voiceAlarmGet)).channel_info!.CH1, 'CH1');
    const siren_time = before.siren_time === 120 ? 150 : 120; // inside 5-180
    const data = { channel_info: { CH1: { siren_time, siren_switch: !before.siren_switch, siren_type: 'Alarm2' } } };
    await client.invoke(voiceAlarmSet, data);
    assert.equal(sentSet(sim, 'AlarmConfig/VoiceAlarm'), data, 'only the changed fields are sent');
    const after = await client.invoke(voiceAlarmGet);
    const ch1 = params(after.channel_info!.CH1, 'CH1');
    assert.equal([ch1.siren_time, ch1.siren_switch, ch1.siren_type], [siren_time, !before.siren_switch, 'Alarm2']);
    if (nvr) assert.is(params(after.channel_info!.CH2, 'CH2').siren_time, 10, 'other channels untouched');
  },

  async deterrence({ client, sim, nvr }: Ctx) {
    const before = params((await client.invoke(deterrenceGet, {})).channel_info!.CH1, 'CH1');
    const bright_time = before.bright_time === 60 ? 90 : 60;
    // update(): the whole channel block goes back (minus read-only fields), with chn_index, page and page_type.
    const returned = await client.update('AlarmConfig/Deterrence', {
      channel_info: { CH1: { bright_time, flood_light_mode: 'Strobe', flood_light_switch: !before.flood_light_switch } },
    });
    const sent = sentSet(sim, 'AlarmConfig/Deterrence');
    assert.is(sent.page_type, 'ChannelConfig');
    const ch = obj(obj(sent.channel_info, 'channel_info').CH1, 'CH1');
    assert.is(ch.chn_index, 'CH1');
    assert.is(ch.page, 'chn_floodlight');
    // CH1 has floodlight, siren and red/blue light: all their writable members, and the UI members the vendor's
    // Range makes writable (param_video, flood_light_disable, warning_light_disable).
    assert.equal(
      Object.keys(ch).sort(),
      [
        'bright_time',
        'chn_index',
        'enforcer_bright_time',
        'enforcer_light_switch',
        'flood_light_disable',
        'flood_light_mode',
        'flood_light_switch',
        'flood_light_value',
        'page',
        'param_video',
        'sensitivity',
        'siren_switch',
        'siren_time',
        'siren_value',
        'strobe_frequency',
        'warning_light_disable',
      ],
      'writable fields only',
    );
    const after = await client.invoke(deterrenceGet, {});
    assert.equal(returned, after, 'update() returns the page read back');
    const ch1 = params(after.channel_info!.CH1, 'CH1');
    assert.equal([ch1.bright_time, ch1.flood_light_mode, ch1.flood_light_switch], [bright_time, 'Strobe', !before.flood_light_switch]);
    assert.is(ch1.chn_index, undefined, 'chn_index is addressing, not state');
    if (nvr) assert.equal(after.channel_info!.CH3, NOT_SUPPORT);
  },

  async linkageManage({ client, sim }: Ctx) {
    const before = await client.invoke(linkageManageGet);
    const ch1Before = params(before.channel_info!.CH1, 'CH1');
    const data = {
      enable: !before.enable,
      linkage_info: { linkage_siren: !before.linkage_info!.linkage_siren },
      channel_info: { CH1: { enable: !ch1Before.enable, linkage_info: { linkage_mobile_push: true } } },
    };
    await client.invoke(linkageManageSet, data);
    // channel_info travels inside `data`, next to enable and linkage_info (not beside `version`).
    const sent = sentSet(sim, 'LinkageConfig/LinkageManage');
    assert.equal(sent, data);
    assert.equal(obj(sent.channel_info, 'data.channel_info').CH1, data.channel_info.CH1);
    const after = await client.invoke(linkageManageGet);
    assert.is(after.enable, !before.enable);
    assert.is(after.linkage_info!.linkage_siren, !before.linkage_info!.linkage_siren);
    assert.is(after.linkage_info!.linkage_floodlight, before.linkage_info!.linkage_floodlight, 'unsent members kept');
    const ch1 = params(after.channel_info!.CH1, 'CH1');
    assert.equal([ch1.enable, ch1.linkage_info?.linkage_mobile_push], [!ch1Before.enable, true]);
  },

  async mainStream({ client, sim }: Ctx) {
    const before = params((await client.invoke(mainStreamGet)).channel_info!.CH1, 'CH1');
    const fps = before.fps === 15 ? 20 : 15;
    const data = { channel_info: { CH1: { fps, video_quality: 'Higher', bitrate: 2048 } } };
    await client.invoke(mainStreamSet, data);
    assert.equal(sentSet(sim, 'StreamConfig/MainStream'), data);
    const ch1 = params((await client.invoke(mainStreamGet)).channel_info!.CH1, 'CH1');
    assert.equal([ch1.fps, ch1.video_quality, ch1.bitrate, ch1.resolution], [fps, 'Higher', 2048, before.resolution]);
  },

  async developerMode({ client, sim, nvr, legacy }: Ctx) {
    const before = await client.invoke(developerModeGet);
    const key = shellSwitchKey(before)!;
    assert.is(key, legacy ? 'telnet_switch' : 'ssh_switch');
    const data: Obj = { [key]: !before[key], export_days: '3' };
    if (nvr) data.channel_info = { IP_CH1: { log_collect_enable: true } };
    else {
      data.channel_info = {
        CH1: { log_collect_mode: 'FTP', remote_server: { username: 'ftpuser', password: 'Ftp-secret-9', server_address: '192.168.1.100' } },
      };
    }
    await client.invoke(developerModeSet, data);
    const sent = sentSet(sim, 'Maintenance/DeveloperMode');
    assert.is(sent[key], !before[key]);
    const after = await client.invoke(developerModeGet);
    assert.is(after[key], !before[key]);
    assert.is(after.export_days, '3');
    if (nvr) {
      assert.is(params(after.channel_info!.IP_CH1, 'IP_CH1').log_collect_enable, true);
    } else {
      const ch1 = params(after.channel_info!.CH1, 'CH1');
      assert.is(ch1.log_collect_mode, 'FTP');
      // The device never echoes a stored password; password_empty tells that one is set.
      assert.equal(ch1.remote_server, { username: 'ftpuser', password: '', password_empty: false, server_address: '192.168.1.100' });
    }
  },

  async audio({ client, sim }: Ctx) {
    const before = params((await client.invoke(audioGet)).channel_info!.CH1, 'CH1');
    const in_volume = before.in_volume === 80 ? 70 : 80;
    const data = { channel_info: { CH1: { in_volume, out_volume: 0, audio_type: 'AAC' } } };
    await client.invoke(audioSet, data);
    assert.equal(sentSet(sim, 'DeviceConfig/Audio'), data);
    const ch1 = params((await client.invoke(audioGet)).channel_info!.CH1, 'CH1');
    assert.equal([ch1.in_volume, ch1.out_volume, ch1.audio_type], [in_volume, 0, 'AAC']);
  },

  async ptzLinkage({ client, sim, nvr }: Ctx) {
    const before = await client.invoke(ptzLinkageGet);
    const target = before.ptz_info![0].ptz_chn!;
    const groups = [{ ptz_switch: true }, { ptz_switch: false }, { ptz_switch: true }, { ptz_switch: false }];
    const data = {
      ptz_info: [{ ptz_chn: target, linkage_ptz_point_index: 3 }],
      channel_info: { CH1: { motion: false, ptz_info: groups, all_alarm: { io: true } } },
    };
    await client.invoke(ptzLinkageSet, data);
    assert.equal(sentSet(sim, 'AlarmConfig/PTZLinkage'), data);
    const after = await client.invoke(ptzLinkageGet);
    assert.equal(after.ptz_info, [{ ptz_chn: target, linkage_ptz_point_index: 3 }]);
    assert.equal(ptzPresetIndices(after.ptz_info![0].linkage_ptz_point_index!), [3]);
    const ch1 = params(after.channel_info!.CH1, 'CH1');
    assert.equal([ch1.motion, ch1.ptz_info, ch1.all_alarm?.io, ch1.all_alarm?.motion], [false, groups, true, false]);
    assert.is(target, nvr ? 'IP_CH1' : 'CH1');
  },

  async crossCounting({ client, sim }: Ctx) {
    const before = params((await client.invoke(crossCountingGet, {})).channel_info!.CH1, 'CH1');
    const buzzer = before.buzzer === '20' ? '40' : '20';
    const data = { channel_info: { CH1: { buzzer, voice_prompts_select: [1, 2], send_email: true, alarm_out: ['Local->2'] } } };
    await client.invoke(crossCountingSet, data);
    const sent = sentSet(sim, 'AlarmConfig/Intelligent/CC');
    assert.equal(sent, { page_type: 'AlarmConfig', ...data });
    const ch1 = params((await client.invoke(crossCountingGet, {})).channel_info!.CH1, 'CH1');
    assert.equal([ch1.buzzer, ch1.voice_prompts_select, ch1.send_email, ch1.alarm_out], [buzzer, [1, 2], true, ['Local->2']]);
    assert.equal(ch1.record_channel, before.record_channel, 'unsent fields kept');
  },
};

// --- suites: one per device variant --------------------------------------------------------------------------------

const opName = (op: OperationDef) => `${op.page}/${op.operation}`;

const registry = suite('contract: page registry');

registry('every registry operation has a contract case, and every case is in the registry', () => {
  const inRegistry = pages.flatMap((p) => Object.values(p.operations));
  const covered = new Set(CASES.map((c) => c.op));
  assert.equal(inRegistry.filter((op) => !covered.has(op)).map(opName), [], 'registry operations without a contract case');
  assert.equal(
    CASES.filter((c) => !inRegistry.includes(c.op)).map((c) => opName(c.op)),
    [],
    'cases of unregistered operations',
  );
  assert.is(new Set(CASES.map((c) => opName(c.op))).size, CASES.length, 'one case per operation');
});

registry.run();

for (const v of VARIANTS) {
  const test = suite(`contract: pages (${v.profile} ${v.firmware})`);
  let rig: Rig | undefined;
  let ctx: Ctx;

  test.before(async () => {
    rig = await openRig({ profile: v.profile, firmware: v.firmware });
    ctx = {
      v,
      sim: rig.sim,
      client: rig.client,
      nvr: v.profile === 'nvr',
      legacy: v.firmware === '8.2.3',
      channels: rig.sim.profile.channels,
    };
    assert.is(rig.sim.profile.legacy, ctx.legacy);
  });
  test.after(async () => {
    await closeRig(rig);
    rig = undefined;
  });

  // Reads first (they expect the fresh device), then the Sets (each reads its own "before").
  const ordered = [...CASES.filter((c) => c.op.operation !== 'Set'), ...CASES.filter((c) => c.op.operation === 'Set')];
  for (const c of ordered) {
    const label = c.op.operation === 'Set' ? `${c.op.page}: Get -> Set -> Get round trip` : opName(c.op);
    test(label, () => c.run(ctx));
  }

  test('the session stayed one login; no request failed but the probes of pages this firmware lacks', () => {
    const sim = ctx.sim;
    assert.is(entries(sim, '/API/Web/Login').length, 2, 'one challenge + one answer');
    // The deliberate strict-envelope read of cross counting is a client-side refusal; the device refused only what
    // the cases expect (old firmware: no Disarming page, answered 404 not_found).
    const refused = sim.log.filter((e) => e.status !== 200 && e.path !== '/API/Web/Login');
    assert.equal(
      refused.map((e) => [e.path, e.status, e.error_code]),
      expectedRefusals(ctx),
    );
  });

  test.run();
}
