import type { OperationDef } from './operation';

/**
 * One device page declared once: its operations and everything about how it is read and written.
 * The registry (`pages`), `update()` and the bridge/nodes read these declarations; nobody restates them.
 */

/**
 * How `update()` writes a change:
 * - `changed`: the Set carries only the changed fields (of the touched channel blocks): VoiceAlarm, ManualAlarm.
 * - `block`: the touched channel blocks, each the writable members of its Get block merged with the changes: Deterrence.
 * - `whole`: the whole writable page (device-level members and every channel block): Disarming, LinkageManage.
 */
export type WriteRule = 'changed' | 'block' | 'whole';

type Data = Record<string, unknown>;

export interface PageDef {
  /** Path between `/API/` and the operation: `AlarmConfig/Deterrence`. */
  name: string;
  title: string;
  operations: Readonly<Record<string, OperationDef>>;
  /** `data` its Get and Range need, e.g. `{page_type: "ChannelConfig"}`; a Set carries these members too. */
  getRequest?: Readonly<Data>;
  /** Members each channel block of a Set carries, e.g. `{chn_index: "CH1", page: "chn_floodlight"}`. */
  setMembers?: (channel: string) => Data;
  write: WriteRule;
  /** Values live in `channel_info.<CH>`. */
  channelScoped: boolean;
  /** Read, not written through `update()` (identity, channel list, snapshots...). */
  readOnly?: boolean;
}

/** Alias kept for callers of the former registry type. */
export type PageInfo = PageDef;

export interface PageInput extends Omit<PageDef, 'write' | 'channelScoped'> {
  write?: WriteRule;
  channelScoped?: boolean;
}

/** Declare a page. Defaults: `write: 'changed'`, `channelScoped: false`. Every operation must belong to the page. */
export function definePage(def: PageInput): PageDef {
  for (const [verb, op] of Object.entries(def.operations)) {
    if (op.page !== def.name || op.operation !== verb) {
      throw new Error(`page ${def.name}: operation ${verb} is ${op.page}/${op.operation}`);
    }
  }
  return Object.freeze({ write: 'changed', channelScoped: false, ...def });
}

/** Request keys that are page addressing, never parameters: exempt from Range checks on every page. */
export function metaKeysOf(page: PageDef): string[] {
  const keys = new Set<string>(Object.keys(page.getRequest ?? {}));
  for (const k of Object.keys(page.setMembers?.('CH1') ?? {})) keys.add(k);
  return [...keys];
}
