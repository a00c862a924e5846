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
import type { LiveChange } from '../core';
import { isPlainObject } from '../core/json';
import type { Quoter } from '../core/quote';
import { MAX_DURATION_S } from '../core/switch-off';
import { switchValue } from '../core/words';
import { Refusal } from './context';
import { liveBounds, type DeviceModel } from './state';
import type { LiveRow } from './table';

export interface LivePlan {
  change: LiveChange;
  /** Siren: switch off again after this many seconds. */
  durationS?: number;
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
export function volumeFromLevel(level: number, range: { min: number; max: number }): number {
  return Math.min(range.max, Math.max(range.min, Math.round(level * range.max)));
}

/** The live change (and siren duration) a command asks for; refuses what the channel cannot do. */
export function planLive(model: DeviceModel, row: LiveRow, channel: string, raw: unknown, q: Quoter): LivePlan {
  const key = row.key;
  const state = model.live.get(channel);
  switch (row.source.control) {
    case 'floodlight': {
      if (!isPlainObject(raw)) return { change: { floodlight: onOff(key, raw, state?.floodlight, q) } };
      onlyMembers(key, raw, ['state', 'brightness'], q);
      const change: LiveChange = {};
      if (raw.brightness !== undefined)
        change.brightness = whole(`${key}.brightness`, raw.brightness, liveBounds(model, channel, 'brightness'), 'brightness', q);
      // The JSON schema always sends a state; a brightness alone means "on at this brightness".
      change.floodlight =
        raw.state === undefined && change.brightness !== undefined ? true : onOff(`${key}.state`, raw.state, state?.floodlight, q);
      return { change };
    }
    case 'brightness':
      return { change: { brightness: whole(key, raw, liveBounds(model, channel, 'brightness'), 'brightness', q) } };
    case 'redBlueLight':
      return { change: { redBlueLight: onOff(key, raw, state?.redBlueLight, q) } };
    case 'siren': {
      if (!isPlainObject(raw)) return { change: { siren: onOff(key, raw, state?.siren, q) } };
      onlyMembers(key, raw, ['state', 'duration', 'volume_level'], q);
      const on = onOff(`${key}.state`, raw.state ?? 'ON', state?.siren, q);
      const plan: LivePlan = { change: { siren: on } };
      if (raw.volume_level !== undefined) {
        const level = raw.volume_level;
        if (typeof level !== 'number' || !(level >= 0 && level <= 1))
          throw new Refusal(`${key}.volume_level: must be a number from 0 to 1 (got ${q.describe(level)})`, { key });
        const range = liveBounds(model, channel, 'volume');
        if (!range) throw new Refusal(`${key}.volume_level: the volume of this siren is not adjustable`, { key });
        plan.change.volume = volumeFromLevel(level, range);
      }
      if (raw.duration !== undefined) {
        const d = raw.duration;
        if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0 || d > MAX_DURATION_S) {
          throw new Refusal(`${key}.duration: must be a number of seconds above 0, at most ${MAX_DURATION_S} (got ${q.describe(d)})`, {
            key,
          });
        }
        if (on) plan.durationS = d;
      }
      return plan;
    }
  }
}
