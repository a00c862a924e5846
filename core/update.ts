import { isDeepStrictEqual } from 'node:util';
import { isChannelId } from './channels';
import { isChannelMarker } from './pages/common';
import type { Violation } from './errors';
import { isPlainObject } from './json';
import { addressingOf, type PageDef } from './page';
import { writableSubset } from './validate';

/**
 * The pure half of `client.update(page, changes)`: which paths really change, whether the channels exist, and the
 * Set `data` a page's write rule asks for. The client reads, checks the Range of the changed paths, sends, reads back.
 */

type Data = Record<string, unknown>;

/** `changes` minus what already holds: nested objects compared member by member, anything else as a whole. */
export function changedPaths(current: unknown, changes: Data): Data {
  const out: Data = {};
  const cur = isPlainObject(current) ? current : {};
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    const before = Object.hasOwn(cur, key) ? cur[key] : undefined;
    if (isPlainObject(value) && isPlainObject(before)) {
      const inner = changedPaths(before, value);
      if (Object.keys(inner).length) out[key] = inner;
    } else if (!isDeepStrictEqual(before, value)) {
      out[key] = value;
    }
  }
  return out;
}

/** `base` with `changes` merged in (plain objects member by member, anything else replaced); inputs untouched. */
export function mergeChanges(base: unknown, changes: Data): Data {
  const out: Data = isPlainObject(base) ? { ...base } : {};
  for (const [key, value] of Object.entries(changes)) {
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? mergeChanges(out[key], value) : value;
  }
  return out;
}

/** Channel blocks of a Get answer. */
function blocks(data: unknown): Data {
  return isPlainObject(data) && isPlainObject(data.channel_info) ? data.channel_info : {};
}

/**
 * Problems with the channels a change touches, before any Range is asked: not a channel id (R3), not on this
 * page, or answered with a marker (`{reason: "Not configured"}`, `{status: "Offline", reason: "Not support"}`).
 */
export function channelProblems(page: PageDef, current: unknown, diff: Data): Violation[] {
  if (!page.channelScoped || diff.channel_info === undefined) return [];
  const path = (ch: string) => `channel_info.${ch}`;
  if (!isPlainObject(diff.channel_info)) {
    return [{ path: 'channel_info', problem: 'type', message: 'must be an object of channel blocks ({"CH1": {...}})' }];
  }
  const have = blocks(current);
  const out: Violation[] = [];
  for (const [ch, block] of Object.entries(diff.channel_info)) {
    if (!isChannelId(ch)) out.push({ path: path(ch), problem: 'channel', message: 'is not a channel id (CH<n>, IP_CH<n>, WIFI_CH<n>)' });
    else if (!Object.hasOwn(have, ch))
      out.push({ path: path(ch), problem: 'channel', message: 'is not a channel of this page on the device' });
    else if (isChannelMarker(have[ch])) {
      const m = have[ch];
      out.push({
        path: path(ch),
        problem: 'channel',
        message: `has no settings here: the device answers ${typeof m.status === 'string' ? `${m.status}, ` : ''}"${m.reason}"`,
      });
    } else if (!isPlainObject(block)) {
      out.push({ path: path(ch), problem: 'type', message: 'must be an object of fields' });
    }
  }
  return out;
}

/**
 * The Set `data` for `diff` (the changed paths) per the page's write rule. `range` (the page's Range data, when
 * known) limits echoed blocks to writable members, so read-only and unsupported members are never sent back.
 */
export function buildSet(page: PageDef, current: unknown, diff: Data, range: Data | undefined, metaKeys: readonly string[]): Data {
  const addressing = addressingOf(page);
  const top: Data = { ...addressing.top };
  const writable = <T>(x: T): T => (range ? writableSubset(x, range, { metaKeys }) : x);
  const members = (ch: string) => addressing.block(ch);
  const { channel_info: chDiff, ...restDiff } = diff;
  const have = blocks(current);

  if (page.write === 'whole') {
    const merged = mergeChanges(current, diff);
    if (page.channelScoped && isPlainObject(merged.channel_info)) {
      const info: Data = {};
      for (const [ch, block] of Object.entries(merged.channel_info)) {
        if (isPlainObject(block) && typeof block.reason !== 'string') info[ch] = { ...block, ...members(ch) };
      }
      merged.channel_info = info;
    }
    return { ...writable(merged), ...top };
  }

  const out: Data = page.write === 'block' && !page.channelScoped ? writable(mergeChanges(current, diff)) : { ...restDiff };
  if (page.channelScoped && isPlainObject(chDiff)) {
    const info: Data = {};
    for (const [ch, change] of Object.entries(chDiff)) {
      const block = page.write === 'block' ? mergeChanges(have[ch], change as Data) : (change as Data);
      const kept = page.write === 'block' ? writable({ channel_info: { [ch]: block } }).channel_info : { [ch]: block };
      info[ch] = { ...(isPlainObject(kept) && isPlainObject(kept[ch]) ? kept[ch] : block), ...members(ch) };
    }
    out.channel_info = info;
  }
  return { ...out, ...top };
}
