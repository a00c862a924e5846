/**
 * Bounds as announced to Home Assistant: Range's, widened to a value the device holds outside them (its own UI set
 * `siren_time` 300 where Range says 5-180), which Home Assistant would otherwise reject as invalid and show nothing.
 * Writes stay checked against Range. The one rule: discovery builds its bounds with it, and the device's structure
 * signature includes every value outside its Range, so that a value leaving them at run time announces again.
 */
import { boundsOf, type Bounds, type RangeDescriptor } from '../../core';
import { rowValue } from './sources';
import { rowDescriptor, type DeviceFacts } from './state';
import { TABLE, isConfigRow } from './table';

export function announcedBounds(desc: RangeDescriptor | undefined, value: unknown): Bounds | undefined {
  const bounds = desc ? boundsOf(desc) : undefined;
  if (!bounds || !isOutside(bounds, value)) return bounds && { ...bounds };
  const out = { ...bounds };
  if (typeof value === 'number' && out.min !== undefined && out.max !== undefined) {
    out.min = Math.min(out.min, value);
    out.max = Math.max(out.max, value);
  }
  if (out.options && (typeof value === 'string' || typeof value === 'number')) out.options = [...out.options, value];
  return out;
}

function isOutside(b: Bounds, value: unknown): boolean {
  if (typeof value === 'number' && b.min !== undefined && b.max !== undefined && (value < b.min || value > b.max)) return true;
  return !!b.options && (typeof value === 'string' || typeof value === 'number') && !b.options.map(String).includes(String(value));
}

/** The settings rows bounded by Range (numbers, options): those whose announced bounds can move. */
const BOUNDED_ROWS = TABLE.filter((r) => isConfigRow(r) && (r.platform === 'number' || r.platform === 'select'));

/** Every value of the device (and its channels) outside its Range, as `key@channel=value;`: empty when none is. */
export function outsideRangeSignature(facts: DeviceFacts, channels: readonly string[]): string {
  let sig = '';
  for (const row of BOUNDED_ROWS) {
    for (const ch of row.level === 'channel' ? channels : [undefined]) {
      const desc = rowDescriptor(facts, row, ch);
      if (!desc) continue;
      const value = rowValue(facts, row, ch);
      if (isOutside(boundsOf(desc), value)) sig += `${row.key}@${ch ?? ''}=${String(value)};`;
    }
  }
  return sig;
}
