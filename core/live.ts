import { requireChannel } from './channels';
import { DeviceError, type Violation } from './errors';
import { isPlainObject } from './json';
import type { Invoker } from './operation';
import { liveGet, liveSet, type LiveAnswer, type LiveSetRequest, type OperationType, type ValueRange } from './pages/live';
import { nearestField } from './validate';

/**
 * Live control of one channel's floodlight, siren and red/blue light (`PreviewChannel/Floodlight2AudioAlarm`):
 * the typed state, and a Set checked against the page's own `_range` / `_adjustable` fields before anything is sent.
 */

export interface LiveState {
  channel: string;
  floodlight?: boolean;
  brightness?: number;
  brightnessRange?: { min: number; max: number };
  /** 0 steady, 1 flashing. */
  mode?: 0 | 1;
  /** 0 low, 1 middle, 2 high. */
  strobe?: 0 | 1 | 2;
  siren?: boolean;
  volume?: number;
  volumeRange?: { min: number; max: number };
  volumeAdjustable?: boolean;
  redBlueLight?: boolean;
}

export type LiveChange = Partial<Pick<LiveState, 'floodlight' | 'brightness' | 'mode' | 'strobe' | 'siren' | 'volume' | 'redBlueLight'>>;

type Part = Exclude<OperationType, 'All'>;

interface Control {
  /** Device field it reads and writes; absent from the Get answer = the channel lacks it (R2). */
  field: keyof LiveAnswer;
  part: Part;
  kind: 'bool' | 'int';
  /** Allowed values, or the Get member holding `{min, max}` with documented bounds as fallback. */
  values?: readonly number[];
  range?: { field: 'floodlight_value_range' | 'audioAlarm_value_range'; min: number; max: number };
}

/** One row per user-facing control: the only place that knows the device's field names. */
const CONTROLS: Readonly<Record<keyof LiveChange, Control>> = {
  floodlight: { field: 'floodlight_switch', part: 'Floodlight', kind: 'bool' },
  brightness: { field: 'floodlight_value', part: 'Floodlight', kind: 'int', range: { field: 'floodlight_value_range', min: 1, max: 100 } },
  mode: { field: 'floodlight_mode', part: 'Floodlight', kind: 'int', values: [0, 1] },
  strobe: { field: 'floodlight_strobe_frequency', part: 'Floodlight', kind: 'int', values: [0, 1, 2] },
  siren: { field: 'audioAlarm_switch', part: 'AudioAlarm', kind: 'bool' },
  volume: { field: 'audioAlarm_value', part: 'AudioAlarm', kind: 'int', range: { field: 'audioAlarm_value_range', min: 1, max: 10 } },
  redBlueLight: { field: 'redBlueLight_switch', part: 'RedBlueLight', kind: 'bool' },
};

function bounds(r: ValueRange | undefined, fallback: { min: number; max: number }): { min: number; max: number } {
  return { min: typeof r?.min === 'number' ? r.min : fallback.min, max: typeof r?.max === 'number' ? r.max : fallback.max };
}

export function liveState(channel: string, a: LiveAnswer): LiveState {
  const s: LiveState = { channel: a.channel ?? channel };
  if (a.floodlight_switch !== undefined) s.floodlight = a.floodlight_switch;
  if (a.floodlight_value !== undefined) {
    s.brightness = a.floodlight_value;
    s.brightnessRange = bounds(a.floodlight_value_range, CONTROLS.brightness.range!);
  }
  if (a.floodlight_mode === 0 || a.floodlight_mode === 1) s.mode = a.floodlight_mode;
  const strobe = a.floodlight_strobe_frequency;
  if (strobe === 0 || strobe === 1 || strobe === 2) s.strobe = strobe;
  if (a.audioAlarm_switch !== undefined) s.siren = a.audioAlarm_switch;
  if (a.audioAlarm_value !== undefined) {
    s.volume = a.audioAlarm_value;
    s.volumeRange = bounds(a.audioAlarm_value_range, CONTROLS.volume.range!);
    s.volumeAdjustable = a.audioAlarm_value_adjustable !== false;
  }
  if (a.redBlueLight_switch !== undefined) s.redBlueLight = a.redBlueLight_switch;
  return s;
}

function check(key: keyof LiveChange, value: unknown, a: LiveAnswer): Violation | undefined {
  const c = CONTROLS[key];
  const v = (problem: Violation['problem'], message: string): Violation => ({ path: key, problem, message });
  if (a[c.field] === undefined) return v('unsupported', `this channel has no ${c.field} (absent from the live page)`);
  if (c.kind === 'bool') return typeof value === 'boolean' ? undefined : v('type', `must be a boolean (got ${JSON.stringify(value)})`);
  if (typeof value !== 'number' || !Number.isInteger(value)) return v('type', `must be an integer (got ${JSON.stringify(value)})`);
  if (c.values && !c.values.includes(value)) return v('enum', `must be one of ${c.values.join(', ')} (got ${value})`);
  if (c.range) {
    if (key === 'volume' && a.audioAlarm_value_adjustable === false)
      return v('read_only', 'the volume of this siren is not adjustable (audioAlarm_value_adjustable false)');
    const { min, max } = bounds(a[c.range.field], c.range);
    if (value < min) return v('min', `must be >= ${min} (${c.range.field}; got ${value})`);
    if (value > max) return v('max', `must be <= ${max} (${c.range.field}; got ${value})`);
  }
  return undefined;
}

export interface LivePlan {
  /** Set `data`, or undefined when the change leaves everything as it is. */
  data?: LiveSetRequest;
  violations: Violation[];
}

/**
 * The Set for `change` on top of the Get answer `a`: the Get object (ranges echoed) with the changed fields and
 * `operation_type` (the one part touched, or `All`). Violations when a value leaves the page's own range, a part
 * is missing on this channel (R2), or the volume is not adjustable.
 */
export function planLiveSet(channel: string, a: LiveAnswer, change: Record<string, unknown>): LivePlan {
  const violations: Violation[] = [];
  const fields: Record<string, unknown> = {};
  const parts = new Set<Part>();
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(CONTROLS, key)) {
      const near = nearestField(key, Object.keys(CONTROLS));
      violations.push({ path: key, problem: 'unsupported', message: `not a live control${near ? `; did you mean ${near}?` : ''}` });
      continue;
    }
    const k = key as keyof LiveChange;
    const bad = check(k, value, a);
    if (bad) {
      violations.push(bad);
      continue;
    }
    const { field, part } = CONTROLS[k];
    if (a[field] === value) continue;
    fields[field] = value;
    parts.add(part);
  }
  if (violations.length || parts.size === 0) return { violations };
  const operation_type: OperationType = parts.size > 1 ? 'All' : [...parts][0];
  return { violations, data: { ...a, ...fields, channel: a.channel ?? channel, operation_type } };
}

/** A refused change (the error message lists every violation); nothing was sent. */
export function refused(where: { page: string; operation: string }, violations: Violation[]): DeviceError {
  return new DeviceError({
    kind: 'invalid_request',
    error_code: 'out_of_range',
    violations,
    ...where,
    reason: `${violations.length} value${violations.length > 1 ? 's' : ''} refused; nothing was sent`,
  });
}

export async function readLive(c: Invoker, channel: string, fresh = false): Promise<LiveState> {
  requireChannel(channel, { page: liveGet.page, operation: 'Get' });
  return liveState(channel, await c.invoke(liveGet, { channel, command_flag: false }, { fresh }));
}

/** Read, check, Set with `operation_type`, read back (see {@link planLiveSet}). */
export async function writeLive(c: Invoker, channel: string, change: LiveChange): Promise<LiveState> {
  const where = { page: liveSet.page, operation: 'Set' };
  requireChannel(channel, where);
  if (!isPlainObject(change)) throw refused(where, [{ path: '', problem: 'type', message: 'the change must be an object' }]);
  const current = await c.invoke(liveGet, { channel, command_flag: false }, { fresh: true });
  const plan = planLiveSet(channel, current, change);
  if (plan.violations.length) throw refused(where, plan.violations);
  if (!plan.data) return liveState(channel, current);
  await c.invoke(liveSet, plan.data, { skipRangeCheck: true });
  return readLive(c, channel, true);
}
