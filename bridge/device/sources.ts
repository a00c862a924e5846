/**
 * What each source kind of the table (table.ts `Source`) means, in one place, in the manner of Home Assistant
 * Reolink's entity descriptions: when a row of that kind is supported (R2), how its value is read from the device's
 * facts, and how a command for it is checked and planned (read-only kinds have no `plan`). State building
 * (`deviceState`, `channelState`), discovery (`supportedRows`) and commands read rows only through this module.
 *
 * A field absent from Range (or from the live page) is unsupported and absent from state; a channel that answers a
 * page with `{reason}` has no values on that page; an offline channel publishes `{"online": false}` only.
 */
import { addressingOf, DISARM_MEMBER, findPage, isChannelMarker, validateAgainstRange } from '../../core';
import { isPlainObject } from '../../core/json';
import type { Quoter } from '../../core/quote';
import { notOffered, Refusal, shownKey } from './refusal';
import { channelEventState } from './event-state';
import { DISK_PROBLEM_KEY } from './event-sensors';
import { alarmOutputState } from './alarm-output-names';
import { storageState } from './storage-state';
import { planLive, type LivePlan } from './live-commands';
import { coerce, shownViolations } from './payload';
import { channelBlock, channelOnline, liveHardware, rowDescriptor, valueAt, type DeviceFacts, type Json } from './state';
import { placedField, TABLE, type ConfigRow, type Level, type LiveRow, type Row, type Source } from './table';
import { setAt, withMember, type Change } from './write-queue';

/** A checked command key: what to write and how (by the row's source). */
export type Planned =
  | { kind: 'page'; row: ConfigRow; change: Change }
  | { kind: 'live'; row: LiveRow; plan: LivePlan }
  | { kind: 'disarm'; row: Row; value: boolean };

/** A command for one key, as the source kind plans it. */
interface Command {
  facts: DeviceFacts;
  device: string;
  channel?: string;
  raw: unknown;
  q: Quoter;
}

interface SourceKind<S extends Source> {
  /** Whether the device (or the channel) has what the row reads (R2). */
  supported: (facts: DeviceFacts, row: Row & { source: S }, channel?: string) => boolean;
  /** The row's value, or undefined when the device does not report it. */
  read: (facts: DeviceFacts, row: Row & { source: S }, channel?: string) => unknown;
  /** The write a command asks for, checked against the device's Range or live page; absent: read-only. */
  plan?: (row: Row & { source: S }, cmd: Command) => Planned;
}

type Kinds = { [K in Source['kind']]: SourceKind<Extract<Source, { kind: K }>> };

/** A state value: a scalar the device reported; anything else counts as not reported. */
function scalar(value: unknown): boolean | number | string | undefined {
  return typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

const disarmed = (facts: DeviceFacts) =>
  facts.disarmPage ? valueAt(facts.gets.get(facts.disarmPage), [DISARM_MEMBER[facts.disarmPage]]) : undefined;

const SOURCES: Kinds = {
  online: {
    supported: (_model, row) => row.level === 'channel',
    read: (facts, _row, channel) => (channel ? channelOnline(facts, channel) : undefined),
  },
  identity: {
    supported: (facts, row) => scalar(valueAt(facts.info, [row.source.field])) !== undefined,
    read: (facts, row) => scalar(valueAt(facts.info, [row.source.field])),
  },
  disarm: {
    supported: (facts) => typeof disarmed(facts) === 'boolean',
    read: (facts) => scalar(disarmed(facts)),
    plan: (row, c) => ({ kind: 'disarm', row, value: coerce(row, 'bool', c.raw, scalar(disarmed(c.facts)), c.q) as boolean }),
  },
  live: {
    supported(facts, row, channel) {
      if (!channel) return false;
      const state = facts.live.get(channel);
      if (state) return state[row.source.control] !== undefined;
      // Not read (yet): the channel slots's hardware says whether the light or siren exists.
      const hardware = liveHardware(row.source.control);
      return !!hardware && !!facts.channelSlots?.find((m) => m.id === channel)?.hardware[hardware];
    },
    read: (facts, row, channel) => (channel ? scalar(facts.live.get(channel)?.[row.source.control]) : undefined),
    plan: (row, c) => ({ kind: 'live', row, plan: planLive(c.facts, row, c.channel!, c.raw, c.q) }),
  },
  member: {
    supported(facts, row, channel) {
      // The list's Range and the list itself (a channel's own block, its schedule, does not matter here), for an
      // online channel the Range lets into the list (R1); like page rows, a channel never seen online has none.
      const desc = rowDescriptor(facts, row, channel);
      if (!channel || !desc || !Array.isArray(valueAt(facts.gets.get(row.source.page), row.source.field))) return false;
      const element: unknown = Array.isArray(desc.items) ? desc.items[0] : desc.items;
      const allowed = isPlainObject(element) && Array.isArray(element.items) && element.items.length ? element.items : undefined;
      return channelOnline(facts, channel) && (!allowed || allowed.includes(channel));
    },
    read(facts, row, channel) {
      if (!channel || !rowDescriptor(facts, row, channel)) return undefined; // R2: not supported
      const list = valueAt(facts.gets.get(row.source.page), row.source.field);
      return Array.isArray(list) ? list.includes(channel) : undefined;
    },
    plan(row, c) {
      // ON/OFF adds/removes the channel; the Range check sees the list as it would be now (R1).
      writableDescriptor(row, c);
      const path = row.source.field;
      const list = valueAt(c.facts.gets.get(row.source.page), path);
      const members = Array.isArray(list) ? list : [];
      const value = coerce(row, 'bool', c.raw, members.includes(c.channel), c.q) as boolean;
      return checkedPageWrite(row, c, path, withMember(members, c.channel!, value), { path, value, member: c.channel });
    },
  },
  page: {
    supported(facts, row, channel) {
      if (!rowDescriptor(facts, row, channel)) return false;
      return !(channel && channelOnline(facts, channel) && isChannelMarker(channelBlock(facts.gets.get(row.source.page), channel)));
    },
    read(facts, row, channel) {
      if (!rowDescriptor(facts, row, channel)) return undefined; // R2: not supported
      const get = facts.gets.get(row.source.page);
      const base = row.level === 'channel' ? channelBlock(get, channel!) : get;
      if (!isPlainObject(base) || isChannelMarker(base)) return undefined;
      return scalar(valueAt(base, getField(row, base)));
    },
    plan(row, c) {
      const get = c.facts.gets.get(row.source.page);
      const base = row.level === 'channel' ? channelBlock(get, c.channel!) : get;
      const path = [...(row.level === 'channel' ? ['channel_info', c.channel!] : []), ...getField(row, base)];
      const type = writableDescriptor(row, c).type;
      const value = coerce(row, type, c.raw, valueAt(c.facts.gets.get(row.source.page), path), c.q);
      return checkedPageWrite(row, c, path, value, { path, value, channel: c.channel });
    },
  },
};

/**
 * Where the Get (`base`: the channel block or the page) has a page row's member: its `field`, else its `or` place;
 * a Get that has neither is read and written at `field`.
 */
function getField(row: ConfigRow, base: unknown): readonly string[] {
  return placedField(row, (field) => valueAt(base, field) !== undefined) ?? row.source.field;
}

/** The Range descriptor a command on a configuration row is checked against: present and writable. */
function writableDescriptor(row: ConfigRow, c: Command) {
  const desc = rowDescriptor(c.facts, row, c.channel);
  if (!desc) throw notOffered(row, c.device, c.channel);
  if (desc.mode === 'r') throw new Refusal(`${shownKey(row)} is read-only on this device`, { key: row.key });
  return desc;
}

/** A page write whose payload (`value` at `path`) passes the page's Range; refused with every violation otherwise. */
function checkedPageWrite(row: ConfigRow, c: Command, path: readonly string[], value: unknown, change: Change): Planned {
  const payload: Json = {};
  setAt(payload, path, value);
  const range = c.facts.ranges.get(row.source.page);
  const violations = range ? validateAgainstRange(payload, range, { metaKeys: addressingOf(findPage(row.source.page)).keys }) : [];
  if (violations.length) {
    const shown = shownViolations(violations, c.raw, c.q);
    throw new Refusal(`${shownKey(row)} ${shown.map((v) => v.message).join('; ')}`, { key: row.key, violations: shown });
  }
  return { kind: 'page', row, change };
}

const kindOf = (row: Row) => SOURCES[row.source.kind] as SourceKind<Source>;

/** Whether the device (or a channel) has what a row reads (R2). */
export function rowSupported(facts: DeviceFacts, row: Row, channel?: string): boolean {
  return kindOf(row).supported(facts, row, channel);
}

export function rowValue(facts: DeviceFacts, row: Row, channel?: string): unknown {
  return kindOf(row).read(facts, row, channel);
}

/** The write a command for `row` asks for; refuses what the row's source cannot take. */
export function planRow(row: Row, cmd: Command): Planned {
  const plan = kindOf(row).plan;
  if (!plan) throw new Refusal(`${row.key} is read-only`, { key: row.key });
  return plan(row, cmd);
}

/** Rows the device supports for a channel (or the device level), in table order. */
export function supportedRows(facts: DeviceFacts, level: Level, channel?: string): Row[] {
  return TABLE.filter((row) => row.level === level && rowSupported(facts, row, channel));
}

/** `<base>/<dev>` payload: device-level keys the device reports. */
export function deviceState(facts: DeviceFacts): Json {
  const out = rowState(facts, 'device');
  if (facts.events) out[DISK_PROBLEM_KEY] = facts.events.diskProblem;
  if (facts.storage) Object.assign(out, storageState(facts.storage));
  if (facts.alarmOutputs) Object.assign(out, alarmOutputState(facts));
  return out;
}

/** `<base>/<dev>/<ch>` payload; an offline channel carries `online: false` and nothing else. */
export function channelState(facts: DeviceFacts, ch: string): Json {
  if (!channelOnline(facts, ch)) return { online: false };
  const out = rowState(facts, 'channel', ch);
  const recording = facts.recording?.[ch];
  if (recording !== undefined) out.record_state = recording;
  return facts.events ? Object.assign(out, channelEventState(facts.events, ch)) : out;
}

/** The table's keys of the device or an online channel (what polls and writes say, without events). */
function rowState(facts: DeviceFacts, level: Level, ch?: string): Json {
  const out: Json = {};
  for (const row of TABLE) {
    if (row.level !== level || Object.hasOwn(out, row.key)) continue;
    const value = rowValue(facts, row, ch);
    if (value !== undefined) out[row.key] = value;
  }
  return out;
}
