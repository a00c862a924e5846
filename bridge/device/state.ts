/**
 * What the bridge knows about a device (its facts: identity, channel slots, Range and Get of the table's pages, the
 * live page per channel, the disarm state) and how to look into it; sources.ts turns it into the JSON published on
 * `<base>/<dev>` and `<base>/<dev>/<ch>`, row by row.
 *
 * A field absent from Range (or from the live page) is unsupported (R2) and absent from state; a channel that
 * answers a page with `{reason}` has no values on that page; an offline channel publishes `{"online": false}` only;
 * a `NotConfigured` slot is no channel at all. Change detection lives in {@link ChangeCache}.
 */
import {
  descriptorAt,
  isChannelMarker,
  isChannelId,
  LIVE_CONTROLS,
  type ChannelSlot,
  type DisarmPage,
  type LiveControlSpec,
  type LiveHardware,
  type LiveState,
  type RangeDescriptor,
  type Storage,
} from '../../core';
import { isPlainObject } from '../../core/json';
import { textDigest } from '../../core/text-digest';
import type { EventValues } from './event-state';
import { boundsPrefix, fieldsOf, isConfigRow, POLLED_PAGES, readsOn, type LiveControl, type Row } from './table';

export type Json = Record<string, unknown>;

/** What the bridge knows about one device; replaced piecewise by polls, writes and events. */
export interface DeviceFacts {
  /** `client.identity()`: model, firmware, serial, MAC. Set once the device answered. */
  info?: Json;
  /** Configured channel id -> online, in the device's order. Undefined when the device has no channel list. */
  channelList?: Map<string, boolean>;
  /** Every channel slot with status, hardware and abilities (`client.channelSlots()`). */
  channelSlots?: ChannelSlot[];
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
  /** The disks, read on their own slow schedule (features/storage/); undefined until read or where the device has no disk page. */
  storage?: Storage;
  /** Per channel whether it records now (`SystemInfo/Record` `record_state`; features/recordings/), on its slow schedule. */
  recording?: Readonly<Record<string, boolean>>;
  /** Alarm outputs (`PreviewChannel/ManualAlarm`: `Local->1`, `IP_CH1->1`) and whether each is on; read with every poll. */
  alarmOutputs?: Readonly<Record<string, boolean>>;
  /** The outputs that get switches: those listed now, and a camera's listed before while it is a channel (alarm-output-names.ts). */
  alarmOutputNames?: readonly string[];
}

export function emptyFacts(): DeviceFacts {
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

/** `channel_info.<ch>` of a Get, without a path array per call (read for every row of every channel). */
export function channelBlock(get: Json | undefined, ch: string): unknown {
  const info = get && Object.hasOwn(get, 'channel_info') ? get.channel_info : undefined;
  return isPlainObject(info) && Object.hasOwn(info, ch) ? info[ch] : undefined;
}

/** The Range descriptor that bounds a page row for a channel (or the device), if the device reports one. */
export function rowDescriptor(facts: DeviceFacts, row: Row, channel?: string): RangeDescriptor | undefined {
  if (!isConfigRow(row)) return undefined;
  if (!readsOn(row, facts.disarmPage)) return undefined;
  const range = facts.ranges.get(row.source.page);
  if (!range) return undefined;
  const prefix = boundsPrefix(row, channel);
  for (const field of fieldsOf(row)) {
    const desc = descriptorAt(range, field, prefix);
    if (desc) return desc;
  }
  return undefined;
}

/** The hardware that makes a live switch exist while its live page is unknown (core's table; settings wait for the page). */
export function liveHardware(control: LiveControl): LiveHardware | undefined {
  const c: LiveControlSpec = LIVE_CONTROLS[control];
  return c.switch ? c.hardware : undefined;
}

/** Bounds of a live value (brightness, siren volume) as the live page reports them. */
export function liveBounds(facts: DeviceFacts, channel: string, control: LiveControl): { min: number; max: number } | undefined {
  const s = facts.live.get(channel) as Record<string, unknown> | undefined;
  if (s?.[control] === undefined || s[`${control}Adjustable`] === false) return undefined;
  return s[`${control}Range`] as { min: number; max: number } | undefined;
}

/** Channel ids the bridge publishes: configured channels of the channel list plus channels of the pages' Ranges. */
export function channelIds(facts: DeviceFacts, only?: readonly string[]): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  const add = (id: string) => {
    if (!isChannelId(id) || seen.has(id)) return;
    if (only && !only.includes(id)) return;
    // A slot the channel list does not name (NotConfigured, or not there) gets no entities.
    if (facts.channelList && !facts.channelList.has(id)) return;
    seen.add(id);
    ids.push(id);
  };
  for (const id of facts.channelList?.keys() ?? []) add(id);
  for (const page of POLLED_PAGES) {
    const items = valueAt(facts.ranges.get(page), ['channel_info', 'items']);
    if (isPlainObject(items)) for (const id of Object.keys(items)) add(id);
  }
  return ids;
}

/** Where a page's channel block says Offline (one array, not one per call: called for every channel of every build). */
const STATUS = ['status'] as const;

/** Online from the channel list; without one, a channel is online when some page answers parameters for it. */
export function channelOnline(facts: DeviceFacts, ch: string): boolean {
  const listed = facts.channelList?.get(ch);
  // A page read after the channel list may already say `{status: "Offline"}`: the newer word wins (a channel
  // seen "online" without its pages' values would lose its entities).
  if (listed) {
    for (const page of POLLED_PAGES) if (valueAt(channelBlock(facts.gets.get(page), ch), STATUS) === 'Offline') return false;
    return true;
  }
  if (listed !== undefined) return listed;
  if (facts.channelList) return false;
  for (const page of POLLED_PAGES) {
    const block = channelBlock(facts.gets.get(page), ch);
    if (isPlainObject(block) && !isChannelMarker(block)) return true;
  }
  return false;
}

/**
 * Last published payload per topic: publish only what changed; cleared on every (re)connect. Held as a digest (28
 * characters instead of a channel's state of about 1 KB, on every channel of every device).
 */
export class ChangeCache {
  private readonly last = new Map<string, string>();

  /** True when `payload` differs from what was last recorded for `topic` (and records it). */
  changed(topic: string, payload: string): boolean {
    const digest = textDigest(payload);
    if (this.last.get(topic) === digest) return false;
    this.last.set(topic, digest);
    return true;
  }

  forget(topic: string): void {
    this.last.delete(topic);
  }

  clear(): void {
    this.last.clear();
  }
}
