/**
 * Live control: `PreviewChannel/Floodlight2AudioAlarm` (white light, siren, red/blue light now) and
 * `PreviewChannel/ManualAlarm` (alarm outputs now). Fields exist only where the channel has the hardware.
 * The live state lives in `state['PreviewChannel/Floodlight2AudioAlarm'].channel_info.<CH>` (Get field names).
 */
import type { ChannelSpec, Profile } from './profiles';
import { isPlainObject } from './descriptors';
import type { Obj } from './state';

export const LIVE_PAGE = 'PreviewChannel/Floodlight2AudioAlarm';
export const MANUAL_ALARM_PAGE = 'PreviewChannel/ManualAlarm';

/** What the live pages need of the device (device.ts builds on this module, so it is not imported here). */
interface LiveDevice {
  readonly profile: Profile;
  channel(id: string): ChannelSpec | undefined;
  isOnline(id: string): boolean;
}

const BRIGHTNESS = { type: 'int32', min: 1, max: 100 } as const;
const VOLUME = { type: 'int32', min: 1, max: 10 } as const;

/** Which part of the page each value field belongs to, its type and bounds. */
const FIELDS: Readonly<Record<string, { part: 'Floodlight' | 'AudioAlarm' | 'RedBlueLight'; kind: 'bool' | [number, number] }>> = {
  floodlight_switch: { part: 'Floodlight', kind: 'bool' },
  floodlight_mode: { part: 'Floodlight', kind: [0, 1] },
  floodlight_value: { part: 'Floodlight', kind: [1, 100] },
  floodlight_strobe_frequency: { part: 'Floodlight', kind: [0, 2] },
  audioAlarm_switch: { part: 'AudioAlarm', kind: 'bool' },
  audioAlarm_value: { part: 'AudioAlarm', kind: [1, 10] },
  redBlueLight_switch: { part: 'RedBlueLight', kind: 'bool' },
};
/** Echoed members a Set may carry back unchanged (the Get object is sent back, vendor). */
const ECHO = new Set(['floodlight_value_range', 'audioAlarm_value_range', 'audioAlarm_value_adjustable', 'command_flag']);

const has = (ch: ChannelSpec, part: string) =>
  part === 'Floodlight' ? ch.floodlight : part === 'AudioAlarm' ? ch.siren : part === 'RedBlueLight' ? ch.redBlueLight : true;
const hasLive = (ch: ChannelSpec) => ch.configured && (ch.floodlight || ch.siren || ch.redBlueLight);

/** Initial live state of every channel with live hardware: everything off. */
export function initialLive(channels: readonly ChannelSpec[]): Record<string, Obj> {
  const out: Record<string, Obj> = {};
  for (const ch of channels) {
    if (!hasLive(ch)) continue;
    const s: Obj = {};
    if (ch.floodlight)
      Object.assign(s, { floodlight_switch: false, floodlight_mode: 0, floodlight_value: 50, floodlight_strobe_frequency: 1 });
    if (ch.siren) Object.assign(s, { audioAlarm_switch: false, audioAlarm_value: 5 });
    if (ch.redBlueLight) s.redBlueLight_switch = false;
    out[ch.id] = s;
  }
  return out;
}

/** Battery cameras sound at a fixed volume (`audioAlarm_value_adjustable: false`). */
export const volumeAdjustable = (ch: ChannelSpec) => !ch.battery;

export function liveView(ch: ChannelSpec, s: Obj): Obj {
  const out: Obj = { channel: ch.id };
  if (ch.floodlight) {
    Object.assign(out, {
      floodlight_switch: s.floodlight_switch,
      floodlight_mode: s.floodlight_mode,
      floodlight_value: s.floodlight_value,
      floodlight_value_range: BRIGHTNESS,
      floodlight_strobe_frequency: s.floodlight_strobe_frequency,
    });
  }
  if (ch.siren) {
    Object.assign(out, {
      audioAlarm_switch: s.audioAlarm_switch,
      audioAlarm_value: s.audioAlarm_value,
      audioAlarm_value_range: VOLUME,
      audioAlarm_value_adjustable: volumeAdjustable(ch),
    });
  }
  if (ch.redBlueLight) out.redBlueLight_switch = s.redBlueLight_switch;
  return out;
}

/** The `Floodlight_AudioAlarm` member of an Event/Check entry (vendor table 8 spelling: `flood_light_value`). */
export function liveEventMember(ch: ChannelSpec, s: Obj): Obj {
  const out: Obj = {};
  if (ch.floodlight)
    Object.assign(out, {
      floodlight_switch: s.floodlight_switch,
      flood_light_value: s.floodlight_value,
      floodlight_value_range: BRIGHTNESS,
    });
  if (ch.siren)
    Object.assign(out, { audioAlarm_switch: s.audioAlarm_switch, audioAlarm_value: s.audioAlarm_value, audioAlarm_value_range: VOLUME });
  return out;
}

/** The channel a live request names, or why it cannot be served. */
export function liveChannel(device: LiveDevice, channel: unknown): ChannelSpec | { code: string; reason: string } {
  if (typeof channel !== 'string') return { code: 'param_error', reason: 'channel: required string' };
  const ch = device.channel(channel);
  if (!ch) return { code: 'param_error', reason: `channel: unknown channel ${JSON.stringify(channel)}` };
  if (!hasLive(ch)) return { code: 'no_support', reason: `${ch.id} has no floodlight, siren or red/blue light` };
  if (!device.isOnline(ch.id)) return { code: 'no_support', reason: `${ch.id} is offline` };
  return ch;
}

/**
 * Judge a Set `data` for a channel: problems, and the changes of the part `operation_type` names.
 * Fields of other parts may be echoed; fields of hardware the channel lacks are refused (R2).
 */
export function judgeLiveSet(ch: ChannelSpec, data: Obj): { problems: string[]; changes: Obj } {
  const problems: string[] = [];
  const changes: Obj = {};
  const op = data.operation_type;
  const ops = ['Floodlight', 'AudioAlarm', 'RedBlueLight', 'All'];
  if (typeof op !== 'string' || !ops.includes(op)) problems.push(`operation_type: must be one of ${ops.join(', ')}`);
  else if (op !== 'All' && !has(ch, op)) problems.push(`operation_type: ${ch.id} has no ${op}`);
  for (const [key, v] of Object.entries(data)) {
    if (key === 'channel' || key === 'operation_type') continue;
    if (ECHO.has(key)) {
      if (key === 'command_flag' || key === 'audioAlarm_value_adjustable' ? typeof v !== 'boolean' : !isPlainObject(v))
        problems.push(`${key}: wrong type`);
      continue;
    }
    const f = FIELDS[key];
    if (!f) {
      problems.push(`${key}: unsupported field`);
      continue;
    }
    if (!has(ch, f.part)) {
      problems.push(`${key}: ${ch.id} has no ${f.part} (absent from its Get)`);
      continue;
    }
    if (f.kind === 'bool') {
      if (typeof v !== 'boolean') problems.push(`${key}: wrong type: expected bool`);
    } else if (typeof v !== 'number' || !Number.isInteger(v)) {
      problems.push(`${key}: wrong type: expected int`);
    } else if (v < f.kind[0] || v > f.kind[1]) {
      problems.push(`${key}: ${v} is out of range ${f.kind[0]}-${f.kind[1]}`);
    }
    if (op === 'All' || op === f.part) changes[key] = v;
  }
  return { problems, changes };
}

/** ManualAlarm outputs: the recorder's own (`Local->n`) and those of online cameras with alarm outputs. */
export function manualAlarmOutputs(device: LiveDevice): string[] {
  const p = device.profile;
  const local = p.name === 'ipc' ? 1 : 2;
  const out = Array.from({ length: local }, (_, i) => `Local->${i + 1}`);
  if (p.name === 'nvr') {
    for (const ch of p.channels) {
      if (ch.kind !== 'analog' && ch.alarmOut > 0 && device.isOnline(ch.id))
        for (let i = 1; i <= ch.alarmOut; i++) out.push(`${ch.id}->${i}`);
    }
  }
  return out;
}
