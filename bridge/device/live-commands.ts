/**
 * Commands for the live rows (light, siren, red/blue light), in the payloads Home Assistant sends by default:
 *
 * - light: `ON`/`OFF` on `set/floodlight` (default schema), a number on `set/floodlight_brightness`
 *   (`brightness_command_topic`, scale = the device's maximum), or the JSON schema's `{"state":"ON","brightness":80}`;
 * - siren: `{"state":"ON","duration":10,"volume_level":0.5}` (HA's siren without `command_template`), `{"state":"OFF"}`,
 *   or `ON`/`OFF`. `volume_level` (0..1) is mapped onto the device's volume range; `duration` (seconds) is honoured by
 *   the bridge switching the siren off again (the live page has no duration of its own);
 * - red/blue light: `ON`/`OFF`.
 *
 * Values are checked against the live page's own ranges before anything is sent (core checks again).
 */
import { LIVE_CONTROLS, type LiveChange, type LiveControlSpec, type LiveSwitch } from '../../core';
import { isPlainObject } from '../../core/json';
import type { Quoter } from '../../core/quote';
import { MAX_DURATION_S } from '../../core/switch-off';
import { switchValue } from '../../core/words';
import { Refusal } from './refusal';
import { liveBounds, type DeviceFacts } from './state';
import type { LiveControl, LiveRow } from './table';

export interface LivePlan {
  change: LiveChange;
  /** A switch to switch off again after this many seconds (siren `duration`). */
  switchOff?: { control: LiveSwitch; seconds: number };
}

function onOff(key: string, raw: unknown, current: unknown, q: Quoter): boolean {
  const value = switchValue(raw, current);
  if (value === undefined) throw new Refusal(`${key}: expected ON/OFF (got ${q.describe(raw)})`, { key });
  return value;
}

function whole(key: string, raw: unknown, bounds: { min: number; max: number } | undefined, what: string, q: Quoter): number {
  if (!bounds) throw new Refusal(`${key}: this channel reports no ${what} range (not adjustable)`, { key });
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n)) throw new Refusal(`${key}: must be a whole number (got ${q.describe(raw)})`, { key });
  if (n < bounds.min || n > bounds.max) throw new Refusal(`${key}: must be between ${bounds.min} and ${bounds.max} (got ${n})`, { key });
  return n;
}

/** Members of a JSON command other than the ones listed: refused by name. */
function onlyMembers(key: string, doc: Record<string, unknown>, allowed: readonly string[], q: Quoter): void {
  const extra = Object.keys(doc).filter((k) => !allowed.includes(k));
  if (extra.length)
    throw new Refusal(
      `${key}: unknown member${extra.length > 1 ? 's' : ''} ${extra.map((k) => q.describe(k)).join(', ')} (accepted: ${allowed.join(', ')})`,
      { key },
    );
}

/** `volume_level` 0..1 onto the device's volume range: the share of its maximum, at least its minimum. */
function volumeFromLevel(level: number, range: { min: number; max: number }): number {
  return Math.min(range.max, Math.max(range.min, Math.round(level * range.max)));
}

/**
 * The live change (and switch-off duration) a command asks for, by core's table: a switch takes ON/OFF, and the JSON
 * of its Home Assistant entity (light: `state`, `brightness` = its setting; siren: `state`, `volume_level` onto its
 * setting's range, `duration`); a setting takes a whole number in its range. Refuses what the channel cannot do.
 */
export function planLive(facts: DeviceFacts, row: LiveRow, channel: string, raw: unknown, q: Quoter): LivePlan {
  const key = row.key;
  const control = row.source.control;
  const spec: LiveControlSpec = LIVE_CONTROLS[control];
  const current = facts.live.get(channel)?.[control];
  const change = (c: Record<string, unknown>): LiveChange => c;
  if (!spec.switch) return { change: change({ [control]: whole(key, raw, liveBounds(facts, channel, control), control, q) }) };
  const entity = spec.published?.entity;
  const setting = spec.switch.setting as LiveControl | undefined;
  if (!isPlainObject(raw) || (entity !== 'light' && entity !== 'siren'))
    return { change: change({ [control]: onOff(key, raw, current, q) }) };
  if (entity === 'light') {
    onlyMembers(key, raw, ['state', 'brightness'], q);
    const out: Record<string, unknown> = {};
    if (raw.brightness !== undefined && setting)
      out[setting] = whole(`${key}.brightness`, raw.brightness, liveBounds(facts, channel, setting), setting, q);
    // The JSON schema always sends a state; a brightness alone means "on at this brightness".
    out[control] = raw.state === undefined && setting && out[setting] !== undefined ? true : onOff(`${key}.state`, raw.state, current, q);
    return { change: change(out) };
  }
  onlyMembers(key, raw, ['state', 'duration', 'volume_level'], q);
  const on = onOff(`${key}.state`, raw.state ?? 'ON', current, q);
  const out: Record<string, unknown> = { [control]: on };
  const plan: LivePlan = { change: change(out) };
  if (raw.volume_level !== undefined && setting) {
    const level = raw.volume_level;
    if (typeof level !== 'number' || !(level >= 0 && level <= 1))
      throw new Refusal(`${key}.volume_level: must be a number from 0 to 1 (got ${q.describe(level)})`, { key });
    const range = liveBounds(facts, channel, setting);
    if (!range) throw new Refusal(`${key}.volume_level: the ${setting} of this ${spec.switch.label} is not adjustable`, { key });
    out[setting] = volumeFromLevel(level, range);
  }
  if (raw.duration !== undefined) {
    const d = raw.duration;
    if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0 || d > MAX_DURATION_S) {
      throw new Refusal(`${key}.duration: must be a number of seconds above 0, at most ${MAX_DURATION_S} (got ${q.describe(d)})`, { key });
    }
    if (on) plan.switchOff = { control: control as LiveSwitch, seconds: d };
  }
  return plan;
}
