/** Comparisons a poll runs every time to tell whether anything changed (without allocating). */
import { isChannelMarker } from '../../core';
import { valueAt, type DeviceFacts } from './state';
import { POLLED_PAGES } from './table';

/** Deep equality of JSON values (Get answers), without allocating. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k in ao) {
    if (!Object.hasOwn(bo, k) || !sameJson(ao[k], bo[k])) return false;
    n++;
  }
  for (const k in bo) if (Object.hasOwn(bo, k)) n--;
  return n === 0;
}

/** Same channels, same online flags, same order (what a poll compares every time, without allocating arrays). */
export function sameChannelList(a: Map<string, boolean> | undefined, b: Map<string, boolean> | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.size !== b.size) return false;
  const other = b.entries();
  for (const [ch, online] of a) {
    const [otherCh, otherOnline] = other.next().value!;
    if (ch !== otherCh || online !== otherOnline) return false;
  }
  return true;
}

function markerSignature(facts: DeviceFacts): string {
  let sig = '';
  for (const page of POLLED_PAGES) {
    const ci = valueAt(facts.gets.get(page), ['channel_info']);
    if (ci && typeof ci === 'object') for (const [ch, block] of Object.entries(ci)) if (isChannelMarker(block)) sig += `${page}:${ch};`;
  }
  return sig;
}

/**
 * What decides which entities exist besides Ranges and the channel list: channels answering a page with a
 * `{reason}` marker, the parts each channel's live page reports, the page the device disarms through, the alarm
 * outputs the device lists.
 */
export function structureSignature(facts: DeviceFacts): string {
  let sig = markerSignature(facts);
  for (const [ch, s] of facts.live)
    sig += `|${ch}:${Object.keys(s)
      .filter((k) => s[k as keyof typeof s] !== undefined)
      .join(',')}`;
  return `${sig}|${facts.disarmPage ?? ''}|${facts.alarmOutputNames?.join(',') ?? ''}`;
}
