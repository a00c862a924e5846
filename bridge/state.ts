/**
 * State building: from what a device answered (identity, channel model, Range and Get of the table's pages, the
 * live page per channel, the disarm state) to the JSON published on `<base>/<dev>` and `<base>/<dev>/<ch>`,
 * driven by the table.
 *
 * A field absent from Range (or from the live page) is unsupported (R2) and absent from state; a channel that
 * answers a page with `{reason}` has no values on that page; an offline channel publishes `{"online": false}` only;
 * a `NotConfigured` slot is no channel at all. Change detection lives in {@link ChangeCache}.
 */
import {
  descriptorAt,
  DISARM_MEMBER,
  isChannelMarker,
  isChannelId,
  LIVE_CONTROLS,
  type ChannelModel,
  type DisarmPage,
  type LiveControlSpec,
  type LiveHardware,
  type LiveState,
  type RangeDescriptor,
} from '../core';
import { isPlainObject } from '../core/json';
import { channelEventState, type EventValues } from './event-state';
import { DISK_PROBLEM_KEY } from './event-sensors';
import { boundsPath, isConfigRow, POLLED_PAGES, readsOn, TABLE, type Level, type LiveControl, type Row } from './table';

export type Json = Record<string, unknown>;

/** What the bridge knows about one device; replaced piecewise by polls, writes and events. */
export interface DeviceModel {
  /** `client.identity()`: model, firmware, serial, MAC. Set once the device answered. */
  info?: Json;
  /** Configured channel id -> online, in the device's order. Undefined when the device has no channel list. */
  channelList?: Map<string, boolean>;
  /** Every channel slot with status, hardware and abilities (`client.channelModel()`). */
  channelModels?: ChannelModel[];
  /** Range `data` per page; `null` = the device has no such page (R2). */
  ranges: Map<string, Json | null>;
  /** Last Get `data` per page. */
  gets: Map<string, Json>;
  /** Live page per channel (what the light, siren, red/blue light do now). */
  live: Map<string, LiveState>;
  /** The page the device disarms through (Disarming where it has it, LinkageManage otherwise). */
  disarmPage?: DisarmPage;
  /** What the device's events said (alarms, disk); undefined with `events: false`. Live state is `live`'s. */
  events?: EventValues;
}

export function emptyModel(): DeviceModel {
  return { ranges: new Map(), gets: new Map(), live: new Map() };
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

/** The Range descriptor that bounds a page row for a channel (or the device), if the device reports one. */
export function rowDescriptor(model: DeviceModel, row: Row, channel?: string): RangeDescriptor | undefined {
  if (!isConfigRow(row)) return undefined;
  if (!readsOn(row, model.disarmPage)) return undefined;
  const range = model.ranges.get(row.source.page);
  if (!range) return undefined;
  return descriptorAt(range, boundsPath(row, channel));
}

/** The hardware that makes a live switch exist while its live page is unknown (core's table; settings wait for the page). */
function liveHardware(control: LiveControl): LiveHardware | undefined {
  const c: LiveControlSpec = LIVE_CONTROLS[control];
  return c.switch ? c.hardware : undefined;
}

/** Bounds of a live value (brightness, siren volume) as the live page reports them. */
export function liveBounds(model: DeviceModel, channel: string, control: LiveControl): { min: number; max: number } | undefined {
  const s = model.live.get(channel) as Record<string, unknown> | undefined;
  if (s?.[control] === undefined || s[`${control}Adjustable`] === false) return undefined;
  return s[`${control}Range`] as { min: number; max: number } | undefined;
}

/** Channel ids the bridge publishes: configured channels of the channel list plus channels of the pages' Ranges. */
export function channelIds(model: DeviceModel, only?: readonly string[]): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  const add = (id: string) => {
    if (!isChannelId(id) || seen.has(id)) return;
    if (only && !only.includes(id)) return;
    // A slot the channel list does not name (NotConfigured, or not there) gets no entities.
    if (model.channelList && !model.channelList.has(id)) return;
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
  // A page read after the channel list may already say `{status: "Offline"}`: the newer word wins (a channel
  // seen "online" without its pages' values would lose its entities).
  if (listed) return !POLLED_PAGES.some((page) => valueAt(channelBlock(model.gets.get(page), ch), ['status']) === 'Offline');
  if (listed !== undefined) return listed;
  if (model.channelList) return false;
  for (const page of POLLED_PAGES) {
    const block = channelBlock(model.gets.get(page), ch);
    if (isPlainObject(block) && !isChannelMarker(block)) return true;
  }
  return false;
}

/** Whether the device (or a channel) has what a row reads (R2). */
export function rowSupported(model: DeviceModel, row: Row, channel?: string): boolean {
  const s = row.source;
  switch (s.kind) {
    case 'online':
      return row.level === 'channel';
    case 'identity':
      return rowValue(model, row) !== undefined;
    case 'disarm':
      return (
        model.disarmPage !== undefined && typeof valueAt(model.gets.get(model.disarmPage), [DISARM_MEMBER[model.disarmPage]]) === 'boolean'
      );
    case 'live': {
      if (!channel) return false;
      const hardware = liveHardware(s.control);
      const state = model.live.get(channel);
      if (state) return state[s.control] !== undefined;
      // Not read (yet): the channel model's hardware says whether the light or siren exists.
      return !!hardware && !!model.channelModels?.find((m) => m.id === channel)?.hardware[hardware];
    }
    case 'member': {
      // The list's Range and the list itself (a channel's own block, its schedule, does not matter here), for an
      // online channel the Range lets into the list (R1); like page rows, a channel never seen online has none.
      const desc = rowDescriptor(model, row, channel);
      if (!channel || !desc || !Array.isArray(valueAt(model.gets.get(s.page), s.field))) return false;
      const element: unknown = Array.isArray(desc.items) ? desc.items[0] : desc.items;
      const allowed = isPlainObject(element) && Array.isArray(element.items) && element.items.length ? element.items : undefined;
      return channelOnline(model, channel) && (!allowed || allowed.includes(channel));
    }
    case 'page': {
      if (!rowDescriptor(model, row, channel)) return false;
      if (channel && channelOnline(model, channel) && isChannelMarker(channelBlock(model.gets.get(s.page), channel))) return false;
      return true;
    }
  }
}

/** Rows the device supports for a channel (or the device level), in table order. */
export function supportedRows(model: DeviceModel, level: Level, channel?: string): Row[] {
  return TABLE.filter((row) => row.level === level && rowSupported(model, row, channel));
}

/** A state value: a scalar the device reported; anything else counts as not reported. */
function scalar(value: unknown): boolean | number | string | undefined {
  return typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

export function rowValue(model: DeviceModel, row: Row, channel?: string): unknown {
  const s = row.source;
  switch (s.kind) {
    case 'online':
      return channel ? channelOnline(model, channel) : undefined;
    case 'identity':
      return scalar(valueAt(model.info, [s.field]));
    case 'disarm':
      return model.disarmPage ? scalar(valueAt(model.gets.get(model.disarmPage), [DISARM_MEMBER[model.disarmPage]])) : undefined;
    case 'live':
      return channel ? scalar(model.live.get(channel)?.[s.control]) : undefined;
    case 'member': {
      if (!channel || !rowDescriptor(model, row, channel)) return undefined; // R2: not supported
      const list = valueAt(model.gets.get(s.page), s.field);
      return Array.isArray(list) ? list.includes(channel) : undefined;
    }
    case 'page': {
      if (!rowDescriptor(model, row, channel)) return undefined; // R2: not supported
      const get = model.gets.get(s.page);
      const base = row.level === 'channel' ? channelBlock(get, channel!) : get;
      if (!isPlainObject(base) || isChannelMarker(base)) return undefined;
      return scalar(valueAt(base, s.field));
    }
  }
}

/** `<base>/<dev>` payload: device-level keys the device reports. */
export function deviceState(model: DeviceModel): Json {
  const out: Json = {};
  for (const row of TABLE) {
    if (row.level !== 'device' || Object.hasOwn(out, row.key)) continue;
    const value = rowValue(model, row);
    if (value !== undefined) out[row.key] = value;
  }
  if (model.events) out[DISK_PROBLEM_KEY] = model.events.diskProblem;
  return out;
}

/** The table's keys of an online channel (what polls and writes say, without events). */
function channelRowState(model: DeviceModel, ch: string): Json {
  const out: Json = {};
  for (const row of TABLE) {
    if (row.level !== 'channel' || Object.hasOwn(out, row.key)) continue;
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
  return model.events ? Object.assign(out, channelEventState(model.events, ch)) : out;
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
