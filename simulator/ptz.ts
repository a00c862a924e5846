/**
 * PTZ of the channels with a PTZ camera (`ChannelInfo` ability `Ptz`), in the vendor's shapes
 * (PreviewChannel > PTZ > Get / Control / Control > Progress):
 *
 * - Get `{channel}` (the vendor's sample adds UI members) answers the vendor's sample members (255 preset slots of
 *   `{no, name, add}`, `preset_point` dwell times, cruise and scan members) and the table's lens and capability
 *   members (`zoom_slider`, `ptz_direction_control`, `zoom_minus_add`...).
 * - Control `{channel, cmd, state?, speed?, preset_point_no?, ...}` answers `{}`. A move or zoom runs from
 *   `state:"Start"` until the same cmd with `state:"Stop"` (or `ctl_stop:true`); the camera's position follows the
 *   time it ran and its speed. Presets: add stores the position (with a name), call moves there, clear forgets it.
 *
 * Refused as the vendor's tables refuse: a cmd not in table 3, `state` other than Start/Stop, `speed` outside 0-10
 * (IPC) / 0-100 (DVR/NVR), `preset_point_no` outside 1-255 (or missing where the cmd needs it), a name outside 1-31
 * characters, steps other than 1/5/20, members the tables do not list; a channel without PTZ or offline: no_support.
 */
import type { Device } from './device';
import { Reply, failure, paramError, success } from './envelope';
import type { ChannelSpec } from './profiles';
import type { Route } from './route';

const PTZ_PAGE = 'PreviewChannel/PTZ';
const SLOTS = 255;
const NAME_MAX = 31;
const STEPS = [1, 5, 20];
/** Degrees per second at full speed; zoom slider units per second at full speed. */
const PAN_RATE = 60;
const ZOOM_RATE = 20;
const ZOOM = { min: 1, max: 100 } as const;
const TILT = { min: -10, max: 90 } as const;

const DIRECTIONS: Readonly<Record<string, [number, number]>> = {
  Ptz_Cmd_Up: [0, 1],
  Ptz_Cmd_Down: [0, -1],
  Ptz_Cmd_Left: [-1, 0],
  Ptz_Cmd_Right: [1, 0],
  Ptz_Cmd_UpLeft: [-1, 1],
  Ptz_Cmd_UpRight: [1, 1],
  Ptz_Cmd_DownLeft: [-1, -1],
  Ptz_Cmd_DownRight: [1, -1],
};
const ZOOMS: Readonly<Record<string, number>> = { Ptz_Cmd_ZoomAdd: 1, Ptz_Cmd_ZoomMinus: -1 };
/** Continuous commands besides moves and zoom: they run and stop, but change nothing the simulator keeps. */
const OTHER_CONTINUOUS = new Set(['Ptz_Cmd_FocusAdd', 'Ptz_Cmd_FocusMinus', 'Ptz_Cmd_IrisAdd', 'Ptz_Cmd_IrisMinus']);
const PRESET_CMDS = new Set(['Ptz_Cmd_AddPreset', 'Ptz_Cmd_ClearPreset', 'Ptz_Cmd_CallPreset']);

/** Table 3: every cmd the vendor lists. */
const PTZ_CMDS: readonly string[] = [
  ...Object.keys(DIRECTIONS),
  'Ptz_Cmd_ZoomAdd',
  'Ptz_Cmd_ZoomMinus',
  'Ptz_Cmd_FocusAdd',
  'Ptz_Cmd_FocusMinus',
  'Ptz_Cmd_IrisAdd',
  'Ptz_Cmd_IrisMinus',
  'Ptz_Cmd_CircleCenter',
  'Ptz_Cmd_Cruise',
  'Ptz_Change_CruiseTime',
  'Ptz_Cmd_AddPreset',
  'Ptz_Cmd_ClearPreset',
  'Ptz_Cmd_CallPreset',
  'Ptz_Cmd_AuxiliartOpen',
  'Ptz_Cmd_AuxiliartClose',
  'Ptz_Cmd_LockFocus',
  'Ptz_LineScan_StartPoint',
  'Ptz_LineScan_EndPoint',
  'Ptz_Cmd_LineScanSetSpeed',
  'Ptz_LineScan_CruiseStart',
  'Ptz_LineScan_CruiseStop',
  'Ptz_Btn_Default',
  'Ptz_Zoom_Position',
  'Ptz_Focus_Position',
  'Ptz_Zoom_Move',
  'Ptz_Focus_Move',
  'Ptz_Btn_AutoFocus',
  'Ptz_AreaFocus',
  'Ptz_Btn_Refresh',
  'Ptz_CalibRationSetting',
  'Ptz_Tour_Start',
  'Ptz_Tour_Stop',
  'Ptz_Pattern_CruiseStart',
  'Ptz_Pattern_CruiseStop',
  'Ptz_Pattern_RecordStart',
  'Ptz_Pattern_RecordStop',
  'Ptz_Net_Osd',
  'Ptz_3Dposition',
  'Ptz_Light',
  'Ptz_Rain',
  'Ptz_CalcpadNumSetting',
  'Ptz_Cmd_NewSceneCalib',
  'Ptz_Cmd_DefCruise_Start',
  'Ptz_Cmd_DefCruise_Stop',
  'Ptz_WatchPoint_Add',
  'Ptz_Privacy_Mode',
  'Ptz_Trace_Mode',
];
const CMD_SET = new Set(PTZ_CMDS);

/** Members of the Get page's table 2 (Control takes its members from there) and the Get sample's UI members. */
const TABLE2 = new Set([
  'channel',
  'ptz_version',
  'cmd',
  'state',
  'zoom_step',
  'focus_step',
  'zoom_slider',
  'focus_slider',
  'isctl',
  'speed',
  'preset_point',
  'line_scan_state',
  'trace_preset_point',
  'preset_point_no',
  'ctl_stop',
  'preset_point_time',
  'preset_point_name',
  'zoom_minus_add',
  'focus_minus_add',
  'iris_minus_add',
  'btn_autofocus',
  'btn_default',
  'btn_refresh',
  'preset_point_cruise_btn',
  'is_req_progress',
  'ptz_direction_control',
  'advanced_mode',
  'trace_number',
  'pattern_scan_number',
  'pattern_scan_number_isset',
  'line_scan_speed',
  'line_scan_area',
  'trace_interval',
  'utc_protocol',
  'utc_cmd',
  'current_cruise_mode',
  'belt_times_use',
  'quick_use',
  'preset_point_obj',
  'watch_mode_mode',
  'watch_mode_num',
  'watch_mode_time',
  'disable_ManualHumanTrace',
]);

export interface Preset {
  name: string;
  add: boolean;
  pan: number;
  tilt: number;
  zoom: number;
}

/** What one PTZ camera holds: where it looks, what runs, its preset slots (1-255). */
export interface PtzChannel {
  pan: number;
  tilt: number;
  zoom: number;
  /** The continuous command running since `since` (ms), or undefined. */
  moving?: { cmd: string; speed: number; since: number };
  presets: Preset[];
}

/** Fresh PTZ state: looking ahead, three named presets stored (slots 1-3), the rest empty as the vendor's sample. */
function initial(): PtzChannel {
  const presets: Preset[] = Array.from({ length: SLOTS }, (_, i) => ({
    name: `point ${i + 1}`,
    add: false,
    pan: 0,
    tilt: 0,
    zoom: ZOOM.min,
  }));
  Object.assign(presets[0], { name: 'Gate', add: true, pan: 30, tilt: 10, zoom: 10 });
  Object.assign(presets[1], { name: 'Driveway', add: true, pan: 120, tilt: 5, zoom: 1 });
  Object.assign(presets[2], { name: 'Garden', add: true, pan: 250, tilt: 20, zoom: 40 });
  return { pan: 0, tilt: 0, zoom: ZOOM.min, presets };
}

const clamp = (x: number, r: { min: number; max: number }) => Math.min(r.max, Math.max(r.min, x));
const round1 = (x: number) => Math.round(x * 10) / 10;

/** IPC 0-10, DVR/NVR 0-100 (vendor table 2). */
const speedMax = (device: Device) => (device.profile.name === 'ipc' ? 10 : 100);

/** The PTZ cameras of one simulated device. */
class PtzHub {
  private readonly channels = new Map<string, PtzChannel>();

  constructor(private readonly device: Device) {}

  /** A PTZ channel's state (created on first use), brought up to now. */
  state(id: string): PtzChannel {
    let s = this.channels.get(id);
    if (!s) this.channels.set(id, (s = initial()));
    this.advance(s, Date.now());
    return s;
  }

  /** Applies the running move up to `now` (the move keeps running). */
  private advance(s: PtzChannel, now: number): void {
    const m = s.moving;
    if (!m) return;
    const seconds = Math.max(0, now - m.since) / 1000;
    const share = m.speed / speedMax(this.device);
    const dir = DIRECTIONS[m.cmd];
    if (dir) {
      s.pan = round1((((s.pan + dir[0] * PAN_RATE * share * seconds) % 360) + 360) % 360);
      s.tilt = round1(clamp(s.tilt + dir[1] * PAN_RATE * share * seconds, TILT));
    }
    const z = ZOOMS[m.cmd];
    if (z) s.zoom = Math.round(clamp(s.zoom + z * ZOOM_RATE * share * seconds, ZOOM));
    m.since = now;
  }

  /** The user adds, renames or clears a preset on the device itself (web UI): name undefined clears it. */
  setPreset(id: string, no: number, name?: string): void {
    if (!Number.isInteger(no) || no < 1 || no > SLOTS) throw new Error(`setPtzPreset: preset ${no} is not 1-${SLOTS}`);
    const s = this.state(id);
    const p = s.presets[no - 1];
    if (name === undefined) Object.assign(p, { add: false, name: `point ${no}` });
    else Object.assign(p, { add: true, name, pan: s.pan, tilt: s.tilt, zoom: s.zoom });
  }

  get(ch: ChannelSpec): Record<string, unknown> {
    const s = this.state(ch.id);
    return {
      channel: ch.id,
      ptz_version: '2.0',
      preset_point: new Array<number>(SLOTS).fill(0),
      belt_times_use: 0,
      preset_point_obj: s.presets.map((p, i) => ({ no: i + 1, name: p.name, add: p.add })),
      watch_mode_time: 20,
      watch_mode_mode: 'Mode_Default_Cruise',
      watch_mode_num: 0,
      line_scan_area: false,
      line_scan_speed: 'low',
      trace_interval: 20,
      trace_number: 0,
      trace_preset_point: [[], [], [], []],
      pattern_scan_number_isset: [true, false, false, false],
      pattern_scan_number: 0,
      current_cruise_mode: 'No_Cruise',
      zoom_slider: s.zoom,
      focus_slider: 180,
      zoom_step: 5,
      focus_step: 5,
      isctl: true,
      is_req_progress: false,
      state: s.moving ? 'Start' : 'Stop',
      // Capability members ("used to display" buttons); their form is not shown by the vendor: a descriptor here.
      ptz_direction_control: { type: 'string', items: [...Object.keys(DIRECTIONS), 'Ptz_Cmd_CircleCenter'] },
      zoom_minus_add: { type: 'string', items: ['Ptz_Cmd_ZoomMinus', 'Ptz_Cmd_ZoomAdd'] },
      focus_minus_add: { type: 'string', items: ['Ptz_Cmd_FocusMinus', 'Ptz_Cmd_FocusAdd'] },
    };
  }

  progress(ch: ChannelSpec): Record<string, unknown> {
    const s = this.state(ch.id);
    return { channel: ch.id, zoom_slider: s.zoom, focus_slider: 180, isctl: true };
  }

  /** Checks and carries out a Control request; the reasons it is refused, if any. */
  control(ch: ChannelSpec, data: Record<string, unknown>): string[] {
    const problems = judgeControl(data, speedMax(this.device));
    if (problems.length) return problems;
    const s = this.state(ch.id);
    const cmd = data.cmd as string;
    const speed = typeof data.speed === 'number' ? data.speed : speedMax(this.device) / 2;
    if (data.ctl_stop === true || data.state === 'Stop') {
      s.moving = undefined;
      return [];
    }
    if (DIRECTIONS[cmd] || ZOOMS[cmd] || OTHER_CONTINUOUS.has(cmd)) {
      // Start runs until Stop; without a state the command is one step (a tenth of a second's worth).
      s.moving = { cmd, speed, since: Date.now() };
      if (data.state !== 'Start') {
        s.moving.since -= 100;
        this.state(ch.id);
        s.moving = undefined;
      }
      return [];
    }
    if (PRESET_CMDS.has(cmd)) {
      const p = s.presets[(data.preset_point_no as number) - 1];
      s.moving = undefined;
      if (cmd === 'Ptz_Cmd_CallPreset' && p.add) Object.assign(s, { pan: p.pan, tilt: p.tilt, zoom: p.zoom });
      if (cmd === 'Ptz_Cmd_AddPreset')
        Object.assign(p, {
          add: true,
          pan: s.pan,
          tilt: s.tilt,
          zoom: s.zoom,
          name: (data.preset_point_name as string | undefined) ?? p.name,
        });
      if (cmd === 'Ptz_Cmd_ClearPreset') Object.assign(p, { add: false, name: `point ${data.preset_point_no as number}` });
    }
    return [];
  }
}

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x);

/** The vendor's tables applied to a Control request (types and bounds of the members it carries). */
function judgeControl(d: Record<string, unknown>, maxSpeed: number): string[] {
  const problems: string[] = [];
  const unknown = Object.keys(d).filter((k) => !TABLE2.has(k));
  if (unknown.length) problems.push(`${unknown.join(', ')}: not a PTZ member`);
  if (typeof d.cmd !== 'string' || !CMD_SET.has(d.cmd))
    problems.push(`cmd: must be one of the PTZ commands (got ${JSON.stringify(d.cmd)})`);
  if (d.state !== undefined && d.state !== 'Start' && d.state !== 'Stop') problems.push('state: must be "Start" or "Stop"');
  if (d.speed !== undefined && (!isInt(d.speed) || d.speed < 0 || d.speed > maxSpeed))
    problems.push(`speed: must be an integer 0-${maxSpeed} (got ${JSON.stringify(d.speed)})`);
  const no = d.preset_point_no;
  if (no !== undefined && (!isInt(no) || no < 1 || no > SLOTS))
    problems.push(`preset_point_no: must be an integer 1-${SLOTS} (got ${JSON.stringify(no)})`);
  else if (no === undefined && typeof d.cmd === 'string' && PRESET_CMDS.has(d.cmd)) problems.push(`preset_point_no: required by ${d.cmd}`);
  const name = d.preset_point_name;
  if (name !== undefined && (typeof name !== 'string' || name.length < 1 || name.length > NAME_MAX))
    problems.push(`preset_point_name: must be a string of 1-${NAME_MAX} characters`);
  if (d.preset_point_time !== undefined && (!isInt(d.preset_point_time) || d.preset_point_time < 1 || d.preset_point_time > SLOTS))
    problems.push(`preset_point_time: must be an integer 1-${SLOTS}`);
  if (d.preset_point !== undefined && (!Array.isArray(d.preset_point) || !d.preset_point.every((x) => isInt(x) && x >= 0 && x <= 255)))
    problems.push('preset_point: must be an array of integers 0-255');
  for (const k of ['zoom_step', 'focus_step'])
    if (d[k] !== undefined && !STEPS.includes(d[k] as number)) problems.push(`${k}: must be one of ${STEPS.join(', ')}`);
  for (const k of ['zoom_slider', 'focus_slider']) if (d[k] !== undefined && !isInt(d[k])) problems.push(`${k}: must be an integer`);
  if (d.ctl_stop !== undefined && typeof d.ctl_stop !== 'boolean') problems.push('ctl_stop: must be a bool');
  return problems;
}

/** The Get request's UI members (vendor sample), checked for their type only. */
function judgeGet(d: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (d.disable_ManualHumanTrace !== undefined && typeof d.disable_ManualHumanTrace !== 'boolean')
    problems.push('disable_ManualHumanTrace: must be a bool');
  if (d.current_cruise_mode !== undefined && typeof d.current_cruise_mode !== 'string')
    problems.push('current_cruise_mode: must be a string');
  for (const k of ['zoom_step', 'focus_step'])
    if (d[k] !== undefined && !STEPS.includes(d[k] as number)) problems.push(`${k}: must be one of ${STEPS.join(', ')}`);
  return problems;
}

const hubs = new WeakMap<Device, PtzHub>();
/** The PTZ cameras of a device (one hub per device). */
export function ptzOf(device: Device): PtzHub {
  let hub = hubs.get(device);
  if (!hub) hubs.set(device, (hub = new PtzHub(device)));
  return hub;
}

/** The PTZ channel a request names, or the refusal. */
function ptzChannel(device: Device, channel: unknown): ChannelSpec | Reply {
  if (typeof channel !== 'string') return paramError('channel: required string');
  const ch = device.channel(channel);
  if (!ch?.configured) return paramError(`channel: unknown channel ${JSON.stringify(channel)}`);
  if (!ch.ptz) return failure(400, 'no_support', `${ch.id} has no PTZ`);
  if (!device.isOnline(ch.id)) return failure(400, 'no_support', `${ch.id} is offline`);
  return ch;
}

export function ptzRoutes(device: Device): Array<[string, Route]> {
  const hub = ptzOf(device);
  const r = (answer: (ch: ChannelSpec, data: Record<string, unknown>) => Reply): Route => ({
    auth: 'session',
    handler: ({ data }) => {
      const ch = ptzChannel(device, data.channel);
      return 'id' in ch ? answer(ch, data) : ch;
    },
  });
  return [
    [
      `/API/${PTZ_PAGE}/Get`,
      r((ch, data) => {
        const bad = judgeGet(data);
        return bad.length ? paramError(bad.join('; ')) : success(hub.get(ch));
      }),
    ],
    [
      `/API/${PTZ_PAGE}/Control`,
      r((ch, data) => {
        const bad = hub.control(ch, data);
        return bad.length ? paramError(bad.join('; ')) : success({});
      }),
    ],
    [`/API/${PTZ_PAGE}/Control/Progress`, r((ch) => success(hub.progress(ch)))],
  ];
}
