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
import { Refusal } from './context';
import { liveBounds, type DeviceModel } from './state';
import type { LiveRow } from './table';

export interface LivePlan {
  change: LiveChange;
  /** Siren: switch off again after this many seconds. */
  durationS?: number;
}

const ON = new Set(['ON', 'TRUE', '1', 'YES']);
const OFF = new Set(['OFF', 'FALSE', '0', 'NO']);
/** Longest siren duration honoured (a day): a timer longer than that is a typo. */
const MAX_DURATION_S = 86_400;

function onOff(key: string, raw: unknown, current: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const w = raw.trim().toUpperCase();
    if (ON.has(w)) return true;
    if (OFF.has(w)) return false;
    if (w === 'TOGGLE' && typeof current === 'boolean') return !current;
  }
  throw new Refusal(`${key}: expected ON/OFF (got ${shown(raw)})`, { key });
}

function shown(x: unknown): string {
  if (typeof x === 'string') return JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}...` : x);
  if (x === null || typeof x !== 'object') return String(x);
  return Array.isArray(x) ? 'an array' : 'an object';
}

function whole(key: string, raw: unknown, bounds: { min: number; max: number } | undefined, what: string): number {
  if (!bounds) throw new Refusal(`${key}: this channel reports no ${what} range (not adjustable)`, { key });
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n)) throw new Refusal(`${key}: must be a whole number (got ${shown(raw)})`, { key });
  if (n < bounds.min || n > bounds.max) throw new Refusal(`${key}: must be between ${bounds.min} and ${bounds.max} (got ${n})`, { key });
  return n;
}

/** Members of a JSON command other than the ones listed: refused by name. */
function onlyMembers(key: string, doc: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(doc).filter((k) => !allowed.includes(k));
  if (extra.length)
    throw new Refusal(
      `${key}: unknown member${extra.length > 1 ? 's' : ''} ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')} (accepted: ${allowed.join(', ')})`,
      { key },
    );
}

/** `volume_level` 0..1 onto the device's volume range: the share of its maximum, at least its minimum. */
export function volumeFromLevel(level: number, range: { min: number; max: number }): number {
  return Math.min(range.max, Math.max(range.min, Math.round(level * range.max)));
}

/** The live change (and siren duration) a command asks for; refuses what the channel cannot do. */
export function planLive(model: DeviceModel, row: LiveRow, channel: string, raw: unknown): LivePlan {
  const key = row.key;
  const state = model.live.get(channel);
  switch (row.source.control) {
    case 'floodlight': {
      if (!isPlainObject(raw)) return { change: { floodlight: onOff(key, raw, state?.floodlight) } };
      onlyMembers(key, raw, ['state', 'brightness']);
      const change: LiveChange = {};
      if (raw.brightness !== undefined)
        change.brightness = whole(`${key}.brightness`, raw.brightness, liveBounds(model, channel, 'brightness'), 'brightness');
      // The JSON schema always sends a state; a brightness alone means "on at this brightness".
      change.floodlight =
        raw.state === undefined && change.brightness !== undefined ? true : onOff(`${key}.state`, raw.state, state?.floodlight);
      return { change };
    }
    case 'brightness':
      return { change: { brightness: whole(key, raw, liveBounds(model, channel, 'brightness'), 'brightness') } };
    case 'redBlueLight':
      return { change: { redBlueLight: onOff(key, raw, state?.redBlueLight) } };
    case 'siren': {
      if (!isPlainObject(raw)) return { change: { siren: onOff(key, raw, state?.siren) } };
      onlyMembers(key, raw, ['state', 'duration', 'volume_level']);
      const on = onOff(`${key}.state`, raw.state ?? 'ON', state?.siren);
      const plan: LivePlan = { change: { siren: on } };
      if (raw.volume_level !== undefined) {
        const level = raw.volume_level;
        if (typeof level !== 'number' || !(level >= 0 && level <= 1))
          throw new Refusal(`${key}.volume_level: must be a number from 0 to 1 (got ${shown(level)})`, { key });
        const range = liveBounds(model, channel, 'volume');
        if (!range) throw new Refusal(`${key}.volume_level: the volume of this siren is not adjustable`, { key });
        plan.change.volume = volumeFromLevel(level, range);
      }
      if (raw.duration !== undefined) {
        const d = raw.duration;
        if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0 || d > MAX_DURATION_S) {
          throw new Refusal(`${key}.duration: must be a number of seconds above 0, at most ${MAX_DURATION_S} (got ${shown(d)})`, { key });
        }
        if (on) plan.durationS = d;
      }
      return plan;
    }
  }
}
