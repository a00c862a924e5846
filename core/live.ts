import { requireChannel } from './channels';
import { DeviceError, type Violation } from './errors';
import { isPlainObject } from './json';
import { sendThenReadBack, type LateOptions } from './late';
import type { Invoker } from './operation';
import { liveGet, liveSet, type LiveAnswer, type LiveSetRequest, type OperationType, type ValueRange } from './pages/live';
import { nearestField } from './validate';
import {
  CONTROLS,
  LIVE_CONTROLS,
  type LiveChange,
  type LiveControlName,
  type LiveControlSpec,
  type LiveHardware,
  type LiveSetting,
  type LiveState,
  type LiveSwitch,
} from './live-controls';

/**
 * Live control of one channel's floodlight, siren and red/blue light (`PreviewChannel/Floodlight2AudioAlarm`):
 * the typed state, and a Set checked against the page's own `_range` / `_adjustable` fields before anything is sent.
 */

export { LIVE_CONTROLS, type LiveChange, type LiveControlSpec, type LiveHardware, type LiveSetting, type LiveState, type LiveSwitch };

type Part = Exclude<OperationType, 'All'>;
type Bounds = { min: number; max: number };

/** The controls that switch a part on and off (floodlight, siren, red/blue light), in table order. */
export const LIVE_SWITCHES: readonly LiveSwitch[] = (Object.keys(CONTROLS) as LiveControlName[]).filter(
  (k): k is LiveSwitch => CONTROLS[k].switch !== undefined,
);

/** Hardware that has a live page worth reading: a channel with none of it has no live control. */
export const LIVE_HARDWARE: readonly LiveHardware[] = [...new Set(Object.values(CONTROLS).map((c) => c.hardware))];

function bounds(answer: unknown, fallback: Bounds): Bounds {
  const r = answer as ValueRange | undefined;
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

function check(key: LiveControlName, value: unknown, a: LiveAnswer): Violation | undefined {
  const c = CONTROLS[key];
  const v = (problem: Violation['problem'], message: string): Violation => ({ path: key, problem, message });
  if (a[c.field] === undefined) return v('unsupported', 'is not available on this channel');
  if (c.kind === 'bool') return typeof value === 'boolean' ? undefined : v('type', `must be a boolean (got ${JSON.stringify(value)})`);
  if (typeof value !== 'number' || !Number.isInteger(value)) return v('type', `must be an integer (got ${JSON.stringify(value)})`);
  if (c.values && !c.values.includes(value)) return v('enum', `must be one of ${c.values.join(', ')} (got ${value})`);
  if (c.range) {
    if (c.adjustable && a[c.adjustable] === false) return v('read_only', 'cannot be changed on this channel (the device fixes it)');
    const { min, max } = bounds(a[c.range.field], c.range);
    if (value < min) return v('min', `must be at least ${min} on this channel (got ${value})`);
    if (value > max) return v('max', `must be at most ${max} on this channel (got ${value})`);
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
      violations.push({ path: key, problem: 'unsupported', message: `is not a live control${near ? `; did you mean ${near}?` : ''}` });
      continue;
    }
    const k = key as LiveControlName;
    const bad = check(k, value, a);
    if (bad) {
      violations.push(bad);
      continue;
    }
    const { field, part } = CONTROLS[k];
    if (a[field] === value) continue;
    fields[field] = value;
    parts.add(part as Part);
  }
  if (violations.length || parts.size === 0) return { violations };
  const operation_type: OperationType = parts.size > 1 ? 'All' : [...parts][0];
  return { violations, data: { ...a, ...fields, channel: a.channel ?? channel, operation_type } };
}

/** A refused change (the error message lists every violation); nothing was sent (kind `invalid_request` says so). */
export function refused(where: { page: string; operation: string }, violations: Violation[]): DeviceError {
  return new DeviceError({
    kind: 'invalid_request',
    error_code: 'out_of_range',
    violations,
    ...where,
    reason: `${violations.length} value${violations.length > 1 ? 's' : ''} refused`,
  });
}

export async function readLive(c: Invoker, channel: string, fresh = false): Promise<LiveState> {
  requireChannel(channel, { page: liveGet.page, operation: 'Get' });
  return liveState(channel, await c.invoke(liveGet, { channel, command_flag: false }, { fresh }));
}

/**
 * Read, check, Set with `operation_type`, read back (see {@link planLiveSet}); a Set answered too late counts when
 * the read-back holds every value asked for (core/late.ts).
 */
export async function writeLive(c: Invoker, channel: string, change: LiveChange, opts: LateOptions = {}): Promise<LiveState> {
  const where = { page: liveSet.page, operation: 'Set' };
  requireChannel(channel, where);
  if (!isPlainObject(change)) throw refused(where, [{ path: '', problem: 'type', message: 'the change must be an object' }]);
  const current = await c.invoke(liveGet, { channel, command_flag: false }, { fresh: true });
  const plan = planLiveSet(channel, current, change);
  if (plan.violations.length) throw refused(where, plan.violations);
  if (!plan.data) return liveState(channel, current);
  const data = plan.data;
  const asked = Object.entries(change).filter(([, v]) => v !== undefined);
  return sendThenReadBack(
    () => c.invoke(liveSet, data, { skipRangeCheck: true }),
    () => readLive(c, channel, true),
    (after) => asked.every(([k, v]) => (after as unknown as Record<string, unknown>)[k] === v),
    opts,
  );
}
