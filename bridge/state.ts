/**
 * State building: from what a device answered (system info, channel list, Range and Get of the table's
 * pages) to the JSON published on `<base>/<dev>` and `<base>/<dev>/<ch>`, driven by the table.
 *
 * A field absent from Range is unsupported (R2) and absent from state; a channel that answers a page
 * with `{reason}` has no values on that page; an offline channel publishes `{"online": false}` only.
 * Change detection lives in {@link ChangeCache}: a topic is published only when its JSON changes.
 */
import { descriptorAt, isChannelId, type ChannelModel, type RangeDescriptor } from '../core';
import { isPlainObject } from '../core/json';
import { channelEventState, type EventValues } from './event-state';
import { DISK_PROBLEM_KEY } from './event-sensors';
import { boundsPath, isPageRow, POLLED_PAGES, TABLE, type Level, type PageName, type Row } from './table';

export type Json = Record<string, unknown>;

/** What the bridge knows about one device; replaced piecewise by polls and writes. */
export interface DeviceModel {
  info?: Json;
  /** Channel id -> online, in the device's order. Undefined when the device has no channel list. */
  channelList?: Map<string, boolean>;
  /** Range `data` per page; `null` = the device has no such page (R2). */
  ranges: Map<PageName, Json | null>;
  /** Last Get `data` per page. */
  gets: Map<PageName, Json>;
  /** Every channel slot with status and abilities (from the same `Login/ChannelInfo` answer as `channelList`). */
  channelModels?: ChannelModel[];
  /** What the device's events said (alarms, live light and siren, disk); undefined with `events: false`. */
  events?: EventValues;
  /** Epoch ms the read behind `gets` started (poll or write read-back): live events after it stand over it. */
  readAt?: number;
}

export function emptyModel(): DeviceModel {
  return { ranges: new Map(), gets: new Map() };
}

/** `{reason}` / `{status, reason}` instead of parameters (spec 7). */
export function isMarker(block: unknown): boolean {
  return isPlainObject(block) && typeof block.reason === 'string';
}

export function valueAt(obj: unknown, path: readonly string[]): unknown {
  let node = obj;
  for (const k of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, k)) return undefined;
    node = node[k];
  }
  return node;
}

function channelBlock(get: Json | undefined, ch: string): unknown {
  return get ? valueAt(get, ['channel_info', ch]) : undefined;
}

/** The Range descriptor that bounds a row for a channel (or the device), if the device reports one. */
export function rowDescriptor(model: DeviceModel, row: Row, channel?: string): RangeDescriptor | undefined {
  if (!isPageRow(row)) return undefined;
  const range = model.ranges.get(row.source.page);
  if (!range) return undefined;
  return descriptorAt(range, boundsPath(row, channel));
}

/** Channel ids the bridge publishes: the channel list plus channels of the pages' Ranges, in order. */
export function channelIds(model: DeviceModel, only?: readonly string[]): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  const add = (id: string) => {
    if (!isChannelId(id) || seen.has(id)) return;
    if (only && !only.includes(id)) return;
    seen.add(id);
    ids.push(id);
  };
  for (const id of model.channelList?.keys() ?? []) add(id);
  for (const page of POLLED_PAGES) {
    const items = valueAt(model.ranges.get(page), ['channel_info', 'items']);
    if (isPlainObject(items)) for (const id of Object.keys(items)) add(id);
  }
  return ids;
}

/** Online from the channel list; without one, a channel is online when some page answers parameters for it. */
export function channelOnline(model: DeviceModel, ch: string): boolean {
  const listed = model.channelList?.get(ch);
  if (listed !== undefined) return listed;
  if (model.channelList) return false;
  for (const page of POLLED_PAGES) {
    const block = channelBlock(model.gets.get(page), ch);
    if (isPlainObject(block) && !isMarker(block)) return true;
  }
  return false;
}

/**
 * Rows the device supports for a channel (or the device level): Range lists the field, and (for an
 * online channel) the page does not answer the channel with a `{reason}` marker.
 */
export function supportedRows(model: DeviceModel, level: Level, channel?: string): Row[] {
  const out: Row[] = [];
  const online = level === 'channel' && !!channel && channelOnline(model, channel);
  for (const row of TABLE) {
    if (row.level !== level) continue;
    if (row.source.kind === 'online') out.push(row);
    else if (row.source.kind === 'info') {
      if (rowValue(model, row) !== undefined) out.push(row);
    } else {
      if (!rowDescriptor(model, row, channel)) continue;
      if (online) {
        const get = model.gets.get(row.source.page);
        if (get && isMarker(channelBlock(get, channel))) continue;
      }
      out.push(row);
    }
  }
  return out;
}

/** A state value: a scalar the device reported; anything else counts as not reported. */
function scalar(value: unknown): boolean | number | string | undefined {
  return typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

function rowValue(model: DeviceModel, row: Row, channel?: string): unknown {
  switch (row.source.kind) {
    case 'online':
      return channel ? channelOnline(model, channel) : undefined;
    case 'info':
      return scalar(valueAt(model.info, [row.source.field]));
    case 'page': {
      if (!rowDescriptor(model, row, channel)) return undefined; // R2: not supported
      const get = model.gets.get(row.source.page);
      const base = row.level === 'channel' ? channelBlock(get, channel!) : get;
      if (!isPlainObject(base) || isMarker(base)) return undefined;
      return scalar(valueAt(base, row.source.field));
    }
  }
}

/** `<base>/<dev>` payload: device-level keys the device reports. */
export function deviceState(model: DeviceModel): Json {
  const out: Json = {};
  for (const row of TABLE) {
    if (row.level !== 'device') continue;
    const value = rowValue(model, row);
    if (value !== undefined) out[row.key] = value;
  }
  if (model.events) out[DISK_PROBLEM_KEY] = model.events.diskProblem;
  return out;
}

/** The table's keys of an online channel (what polls and writes say, without events). */
export function channelRowState(model: DeviceModel, ch: string): Json {
  const out: Json = {};
  for (const row of TABLE) {
    if (row.level !== 'channel') continue;
    const value = rowValue(model, row, ch);
    if (value !== undefined) out[row.key] = value;
  }
  return out;
}

/** `<base>/<dev>/<ch>` payload; an offline channel carries `online: false` and nothing else. */
export function channelState(model: DeviceModel, ch: string): Json {
  const online = channelOnline(model, ch);
  if (!online) return { online: false };
  const out = channelRowState(model, ch);
  return model.events ? Object.assign(out, channelEventState(model.events, ch, out, model.readAt)) : out;
}

/** Last published payload per topic: publish only what changed; cleared on every (re)connect. */
export class ChangeCache {
  private readonly last = new Map<string, string>();

  /** True when `payload` differs from what was last recorded for `topic` (and records it). */
  changed(topic: string, payload: string): boolean {
    if (this.last.get(topic) === payload) return false;
    this.last.set(topic, payload);
    return true;
  }

  forget(topic: string): void {
    this.last.delete(topic);
  }

  clear(): void {
    this.last.clear();
  }
}
