import type { ChannelHardware } from './channel-model';
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
type Bounds = { min: number; max: number };

/** A value of the live page that a user switches or sets (a row of {@link LIVE_CONTROLS}). */
export interface LiveControlSpec {
  /** Device field it reads and writes; absent from the Get answer = the channel lacks it (R2). */
  field: keyof LiveAnswer;
  /** `operation_type` of a Set that changes it. */
  part: Part;
  kind: 'bool' | 'int';
  /** The channel hardware (`ChannelInfo`) that offers it: where the live page is unknown, it exists when this does. */
  hardware: LiveHardware;
  /** Allowed values, or the Get member holding `{min, max}` (its `_range`) with documented bounds as fallback. */
  values?: readonly number[];
  range?: { field: 'floodlight_value_range' | 'audioAlarm_value_range'; min: number; max: number };
  /** The Get member that says whether the value may be changed at all (its `_adjustable`). */
  adjustable?: 'audioAlarm_value_adjustable';
  /**
   * A switch: what it is called in messages, the setting it may be switched on with, and that it can be switched
   * off again after a duration (by the bridge or nvr-control: the device's live page has no duration of its own).
   */
  switch?: { label: string; setting?: LiveSetting; timed: true };
}

/** Channel hardware a live control can belong to. */
export type LiveHardware = keyof Pick<ChannelHardware, 'floodlight' | 'siren' | 'redBlueLight'>;
/** Live values that are settings of a switch (sent with it when switching on). */
export type LiveSetting = 'brightness' | 'volume';

/**
 * THE table of live controls: one row per user-facing control, the only place that knows the device's field names,
 * `operation_type`, bounds and hardware. `liveState`, the Set check, the bridge's live rows and the nvr-control
 * modes (and so its editor) are derived from it.
 */
export const LIVE_CONTROLS = {
  floodlight: {
    field: 'floodlight_switch',
    part: 'Floodlight',
    kind: 'bool',
    hardware: 'floodlight',
    switch: { label: 'floodlight', setting: 'brightness', timed: true },
  },
  brightness: {
    field: 'floodlight_value',
    part: 'Floodlight',
    kind: 'int',
    hardware: 'floodlight',
    range: { field: 'floodlight_value_range', min: 1, max: 100 },
  },
  mode: { field: 'floodlight_mode', part: 'Floodlight', kind: 'int', hardware: 'floodlight', values: [0, 1] },
  strobe: { field: 'floodlight_strobe_frequency', part: 'Floodlight', kind: 'int', hardware: 'floodlight', values: [0, 1, 2] },
  siren: {
    field: 'audioAlarm_switch',
    part: 'AudioAlarm',
    kind: 'bool',
    hardware: 'siren',
    switch: { label: 'siren', setting: 'volume', timed: true },
  },
  volume: {
    field: 'audioAlarm_value',
    part: 'AudioAlarm',
    kind: 'int',
    hardware: 'siren',
    range: { field: 'audioAlarm_value_range', min: 1, max: 10 },
    adjustable: 'audioAlarm_value_adjustable',
  },
  redBlueLight: {
    field: 'redBlueLight_switch',
    part: 'RedBlueLight',
    kind: 'bool',
    hardware: 'redBlueLight',
    switch: { label: 'red/blue light', timed: true },
  },
} as const satisfies Readonly<Record<keyof LiveChange, LiveControlSpec>>;

const CONTROLS: Readonly<Record<keyof LiveChange, LiveControlSpec>> = LIVE_CONTROLS;

/** The controls that switch a part on and off (floodlight, siren, red/blue light), in table order. */
export type LiveSwitch = {
  [K in keyof typeof LIVE_CONTROLS]: (typeof LIVE_CONTROLS)[K] extends { switch: object } ? K : never;
}[keyof typeof LIVE_CONTROLS];
export const LIVE_SWITCHES: readonly LiveSwitch[] = (Object.keys(CONTROLS) as Array<keyof LiveChange>).filter(
  (k): k is LiveSwitch => CONTROLS[k].switch !== undefined,
);

/** Hardware that has a live page worth reading: a channel with none of it has no live control. */
export const LIVE_HARDWARE: readonly LiveHardware[] = [...new Set(Object.values(CONTROLS).map((c) => c.hardware))];

function bounds(r: ValueRange | undefined, fallback: Bounds): Bounds {
  return { min: typeof r?.min === 'number' ? r.min : fallback.min, max: typeof r?.max === 'number' ? r.max : fallback.max };
}

/** The typed state of a Get answer: each control the page reports (a value outside `values` is left out). */
export function liveState(channel: string, a: LiveAnswer): LiveState {
  const s: Record<string, unknown> = { channel: a.channel ?? channel };
  for (const [key, c] of Object.entries(CONTROLS)) {
    const value = a[c.field];
    if (value === undefined || (c.values && !c.values.includes(value as number))) continue;
    s[key] = value;
    if (c.range) s[`${key}Range`] = bounds(a[c.range.field], c.range);
    if (c.adjustable) s[`${key}Adjustable`] = a[c.adjustable] !== false;
  }
  return s as unknown as LiveState;
}

function check(key: keyof LiveChange, value: unknown, a: LiveAnswer): Violation | undefined {
  const c = CONTROLS[key];
  const v = (problem: Violation['problem'], message: string): Violation => ({ path: key, problem, message });
  if (a[c.field] === undefined) return v('unsupported', `this channel has no ${c.field} (absent from the live page)`);
  if (c.kind === 'bool') return typeof value === 'boolean' ? undefined : v('type', `must be a boolean (got ${JSON.stringify(value)})`);
  if (typeof value !== 'number' || !Number.isInteger(value)) return v('type', `must be an integer (got ${JSON.stringify(value)})`);
  if (c.values && !c.values.includes(value)) return v('enum', `must be one of ${c.values.join(', ')} (got ${value})`);
  if (c.range) {
    if (c.adjustable && a[c.adjustable] === false)
      return v('read_only', `the ${key} of this ${c.hardware} is not adjustable (${c.adjustable} false)`);
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
