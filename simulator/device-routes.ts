/**
 * Endpoints that are not configuration pages, in the vendor's shapes: channel list (`channel_param`), device and
 * system information, Event/Check, live light/siren, manual alarm outputs, snapshot and RTSP addresses, PTZ (ptz.ts).
 */
import type { Activity } from './activity';
import type { Device } from './device';
import type { EventHub } from './events';
import { Reply, failure, paramError, success } from './envelope';
import { LIVE_PAGE, MANUAL_ALARM_PAGE, judgeLiveSet, liveChannel, liveView, manualAlarmOutputs, volumeAdjustable } from './live';
import type { Ctx, Route } from './route';
import type { ChannelSpec } from './profiles';
import { ptzRoutes } from './ptz';
import { channelPicture } from './pictures';
import { hasLocalSpeaker } from './voice-prompts';

export interface DeviceServices {
  device: Device;
  events: EventHub;
  activity: Activity;
  /** `channel_param` as a plain array (vendor table) or wrapped `{type:"array", items}` (vendor sample). */
  channelParamForm: 'array' | 'wrapped';
  disarming: boolean;
  /** Dash-separated upper-case MAC (vendor form). */
  mac: string;
  serial: string;
  /** ChannelInfo `dev_type`: a u64 beyond 2^53, written as a raw JSON number. */
  devType: string;
}

/** ChannelInfo `ability` of an online channel, from its hardware. */
function abilities(ch: ChannelSpec): string[] {
  return [
    'Mainstream',
    'Substream',
    'Mobilestream',
    ...(ch.ptz ? ['Ptz'] : []),
    ...(ch.floodlight ? ['FloodLight'] : []),
    ...(ch.siren ? ['AudioAlarm'] : []),
    ...(ch.alarmOut > 0 ? ['AlarmOutNum'] : []),
    ...(ch.audio ? ['TalkHalf'] : []),
    'Color',
    ...(ch.redBlueLight ? ['RedBlueLight'] : []),
    ...(ch.pir ? ['Pir'] : []),
  ];
}

function channelParam(s: DeviceServices): Reply {
  const items = s.device.profile.channels.map((ch) => {
    const status = s.device.status(ch.id);
    const online = status === 'Online';
    return {
      channel: ch.id,
      connect_status: status,
      channel_name: s.device.channelName(ch.id),
      channel_alias: ch.configured ? ch.id : '',
      ability: online ? abilities(ch) : [],
      intelligent_ability: online ? [...ch.ai] : [],
      alarm_in_num: online ? ch.alarmIn : 0,
      alarm_out_num: online ? ch.alarmOut : 0,
      videoloss: !online,
      ...(ch.battery ? { wireless_ipc_type: 1 } : {}),
    };
  });
  const n = items.length;
  return success({ channel_param: s.channelParamForm === 'array' ? items : { type: 'array', min_size: 0, max_size: n, items } });
}

function deviceInfo(s: DeviceServices): Reply {
  const p = s.device.profile;
  const chans = p.channels;
  const data = {
    device_type: p.deviceType,
    dev_type: '__DEV_TYPE__',
    channel_num: chans.length,
    analog_channel_num: chans.filter((c) => c.kind === 'analog').length,
    local_alarmin_num: p.name === 'ipc' ? 1 : 4,
    local_alarmout_num: p.name === 'ipc' ? 1 : 2,
    mac_addr: s.mac,
    ptz_support: chans.some((c) => c.ptz),
    support_flood_light: chans.some((c) => c.floodlight),
    support_siren_audio: chans.some((c) => c.siren),
    support_pir_record: chans.some((c) => c.pir),
    support_disarming: s.disarming,
    support_eventchk_snap: true,
    support_voice_prompts: true,
    support_speaker: hasLocalSpeaker(p),
    client_logout_time: '5m',
    intelligent_chn_arr: chans.filter((c) => c.ai.length > 0).map((c) => c.id),
  };
  const r = success(data);
  // dev_type is a u64 beyond 2^53: written as the raw number, as the device does.
  return { ...r, body: r.body.replace('"__DEV_TYPE__"', s.devType) };
}

function systemInfo(s: DeviceServices): Reply {
  const p = s.device.profile;
  return success({
    device_id: '1',
    device_name: p.name === 'ipc' ? 'IPC' : 'NVR',
    device_type: p.deviceType,
    hardware_version: p.hardwareVersion,
    software_version: p.softwareVersion,
    build_time: '2022-10-14 10:00:00',
    ie_client_version: 'V1.0.0',
    video_format: 'PAL',
    hdd_volume: '1863GB',
    ip_address: '192.168.1.100',
    web: '80,80',
    client: '9000,9000',
    mac_address: s.mac,
    p2p_id: `RS${s.serial.slice(-10)}`,
    p2p_switch: false,
    network_state: 'Connected',
    // Only some builds report the serial number (vendor): new firmware does, old does not.
    ...(p.legacy ? {} : { serialNum: s.serial }),
    language: 'English',
  });
}

function liveGet(s: DeviceServices, data: Record<string, unknown>): Reply {
  const ch = liveChannel(s.device, data.channel);
  if (!('id' in ch)) return failure(400, ch.code, ch.reason);
  if (data.command_flag !== undefined && typeof data.command_flag !== 'boolean') return paramError('command_flag: must be a bool');
  return success(liveView(ch, s.device.state[LIVE_PAGE].channel_info![ch.id]));
}

function liveSet(s: DeviceServices, data: Record<string, unknown>): Reply {
  const ch = liveChannel(s.device, data.channel);
  if (!('id' in ch)) return failure(400, ch.code, ch.reason);
  const state = s.device.state[LIVE_PAGE].channel_info![ch.id];
  const { problems, changes } = judgeLiveSet(ch, data);
  if (changes.audioAlarm_value !== undefined && !volumeAdjustable(ch) && changes.audioAlarm_value !== state.audioAlarm_value) {
    problems.push(`audioAlarm_value: ${ch.id} has a fixed volume (audioAlarm_value_adjustable false)`);
  }
  if (problems.length) return paramError(problems.join('; '));
  const changed = Object.keys(changes).some((k) => state[k] !== changes[k]);
  Object.assign(state, changes);
  if (changed) s.activity.liveChanged(ch.id);
  return success({});
}

function manualAlarmGet(s: DeviceServices): Reply {
  const state = s.device.state[MANUAL_ALARM_PAGE] as Record<string, boolean>;
  return success(Object.fromEntries(manualAlarmOutputs(s.device).map((k) => [k, state[k] ?? false])));
}

function manualAlarmSet(s: DeviceServices, data: Record<string, unknown>): Reply {
  const outputs = manualAlarmOutputs(s.device);
  const problems: string[] = [];
  for (const [k, v] of Object.entries(data)) {
    if (!outputs.includes(k)) problems.push(`${k}: unknown alarm output (${outputs.join(', ')})`);
    else if (typeof v !== 'boolean') problems.push(`${k}: wrong type: expected bool`);
  }
  if (problems.length) return paramError(problems.join('; '));
  Object.assign(s.device.state[MANUAL_ALARM_PAGE], data);
  return success({});
}

const SNAP_RESOLUTIONS = ['1280x720', '640x480', '320x240'];

const onlineChannels = (d: Device) => d.profile.channels.filter((c) => c.configured && d.isOnline(c.id));

function snapshotGet(s: DeviceServices, data: Record<string, unknown>): Reply {
  const ch = typeof data.channel === 'string' ? s.device.channel(data.channel) : undefined;
  if (!ch) return paramError(`channel: unknown channel ${JSON.stringify(data.channel)}`);
  if (!onlineChannels(s.device).includes(ch)) return failure(400, 'no_support', `${ch.id} is ${s.device.status(ch.id)}`);
  // The Range sample spells `1280x720`, the Get page's own sample `1280 x 720`: both name the same resolution.
  const res = data.snapshot_resolution;
  if (res !== undefined && (typeof res !== 'string' || !SNAP_RESOLUTIONS.includes(res.replace(/^(\d+) x (\d+)$/, '$1x$2'))))
    return paramError(`snapshot_resolution: must be one of ${SNAP_RESOLUTIONS.join(', ')} (or spelled with spaces, 1280 x 720)`);
  if (data.reset_session_timeout !== undefined && typeof data.reset_session_timeout !== 'boolean')
    return paramError('reset_session_timeout: must be a bool');
  // The size asked for, else the largest the Range offers; the camera's name and the time stamped on it.
  const [w, h] = (typeof res === 'string' ? res.replace(/ /g, '') : SNAP_RESOLUTIONS[0]).split('x').map(Number);
  const now = new Date();
  const jpeg = channelPicture([w, h], { channel: ch.id, name: s.device.channelName(ch.id), now, comment: `snapshot ${ch.id}` });
  s.device.pictures.set(ch.id, jpeg);
  return success({
    img_time: Math.floor(now.getTime() / 1000),
    img_encodes: 'base64',
    img_format: 'image/jpeg',
    img_data: jpeg.toString('base64'),
  });
}

function streamUrl(s: DeviceServices, ctx: Ctx): Reply {
  const { device } = s;
  let chans = device.profile.channels.filter((c) => c.configured);
  const wanted: unknown = ctx.data.channel;
  if (wanted !== undefined) {
    if (!Array.isArray(wanted)) return paramError('channel: must be an array of channel names');
    const bad: unknown = wanted.find((w: unknown) => typeof w !== 'string' || !device.channel(w)?.configured);
    if (bad !== undefined) return paramError(`channel: unknown channel ${JSON.stringify(bad)}`);
    chans = chans.filter((c) => wanted.includes(c.id));
  }
  // A real device writes the address it knows itself by, which the client may not reach it at (vendor sample).
  const host = device.lanAddress ?? (ctx.req.headers.host ?? '127.0.0.1').replace(/:\d+$/, '');
  // The vendor's sample serves RTSP on the web port (80 there); the simulator models no separate RTSP port.
  const port = ctx.req.socket.localPort ?? 80;
  const url = (n: number, sub: number) => `rtsp://${host}:${port}/rtsp/streaming?channel=${n}&subtype=${sub}`;
  // Old firmware spells the mobile member as the vendor sample does.
  const mobileKey = device.profile.legacy ? 'mobile_stream_url' : 'mobilestream_url';
  return success({
    channel_info: chans.map((c) => ({
      channel: c.id,
      mainstream_url: url(c.index, 0),
      substream_url: url(c.index, 1),
      [mobileKey]: url(c.index, 2),
    })),
  });
}

async function eventCheck(s: DeviceServices, ctx: Ctx): Promise<Reply> {
  const a = await s.events.check(ctx.data, ctx.onAbort);
  return a.error_code ? failure(a.status, a.error_code, a.reason ?? a.error_code) : success(a.data);
}

export function deviceRoutes(s: DeviceServices): Array<[string, Route]> {
  const r = (handler: Route['handler']): Route => ({ auth: 'session', handler });
  return [
    ['/API/Login/ChannelInfo/Get', r(() => channelParam(s))],
    ['/API/Login/DeviceInfo/Get', r(() => deviceInfo(s))],
    ['/API/SystemInfo/Base/Get', r(() => systemInfo(s))],
    ['/API/Event/Check', r((ctx) => eventCheck(s, ctx))],
    [`/API/${LIVE_PAGE}/Get`, r(({ data }) => liveGet(s, data))],
    [`/API/${LIVE_PAGE}/Set`, r(({ data }) => liveSet(s, data))],
    [`/API/${MANUAL_ALARM_PAGE}/Get`, r(() => manualAlarmGet(s))],
    [`/API/${MANUAL_ALARM_PAGE}/Set`, r(({ data }) => manualAlarmSet(s, data))],
    [
      '/API/Snapshot/Range',
      r(() =>
        success({
          channel_info: {
            type: 'array',
            items: onlineChannels(s.device).map((c) => ({ channel: c.id, snapshot_resolution: { items: SNAP_RESOLUTIONS } })),
          },
        }),
      ),
    ],
    ['/API/Snapshot/Get', r(({ data }) => snapshotGet(s, data))],
    ['/API/Preview/StreamUrl/Get', r((ctx) => streamUrl(s, ctx))],
    ...ptzRoutes(s.device),
  ];
}
