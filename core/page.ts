import type * as v from 'valibot';
import { defineOperation, type OperationDef } from './operation';
import { AnyRequest, AnyResponse, META_KEYS } from './pages/common';

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
  /**
   * Members (at any depth) whose values are secrets beside those named like passwords: withheld wherever an answer of
   * the page is shown (EventPush `url`: the bridge's push path is the listener's secret).
   */
  secretMembers?: readonly string[];
  /**
   * Groups a channel's Get nests members in while the Range may list those members flat at channel level
   * (ImageControl `FullColorMode`: vendor-facts-more k). The cached Range describes each such group as the channel's
   * own members (`nestFlatGroups`), so a Set of `FullColorMode.white_light` is checked against the flat
   * `white_light` and echoed blocks keep the group.
   */
  rangeFlattens?: readonly string[];
}

/**
 * An operation as its page lists it: the page and verb come from the page, the request and response default to any
 * object (the vendor does not show them).
 */
export type OperationSpec = Partial<Pick<OperationDef, 'request' | 'response'>> &
  Omit<OperationDef, 'page' | 'operation' | 'path' | 'request' | 'response'>;

type Operations = Readonly<Record<string, OperationDef | OperationSpec>>;

/** The operation a spec declares, its schemas' types kept. */
type Declared<S> = S extends OperationDef
  ? S
  : OperationDef<
      S extends { request: infer Q extends v.GenericSchema } ? Q : typeof AnyRequest,
      S extends { response: infer R extends v.GenericSchema } ? R : typeof AnyResponse
    >;

export interface PageInput<O extends Operations = Operations> extends Omit<PageDef, 'write' | 'channelScoped' | 'operations'> {
  operations: O;
  write?: WriteRule;
  channelScoped?: boolean;
}

/**
 * Declare a page. Defaults: `write: 'changed'`, `channelScoped: false`. Operations are declared in place (specs) or
 * given whole; one given whole must belong to the page.
 */
export function definePage<O extends Operations>(def: PageInput<O>): PageDef & { operations: { readonly [K in keyof O]: Declared<O[K]> } } {
  const operations = Object.fromEntries(
    Object.entries(def.operations).map(([verb, op]) => {
      if (!('path' in op)) {
        const { request = AnyRequest, response = AnyResponse, ...rest } = op;
        return [verb, defineOperation({ page: def.name, operation: verb, request, response, ...rest })];
      }
      if (op.page !== def.name || op.operation !== verb) {
        throw new Error(`page ${def.name}: operation ${verb} is ${op.page}/${op.operation}`);
      }
      return [verb, op];
    }),
  );
  return Object.freeze({ write: 'changed', channelScoped: false, ...def, operations }) as never;
}

/** Request keys that are page addressing, never parameters: exempt from Range checks on every page. */
export function metaKeysOf(page: PageDef): string[] {
  return [...addressingOf(page).keys];
}

/**
 * Which keys of a request address the page rather than set a parameter, and where they go: `top` beside
 * `channel_info` (`page_type`), `block(ch)` inside each channel block of a Set (`chn_index`, `page`). Read by
 * `update()`, the bridge's commands and request API and the Node-RED request nodes. A page nobody declared still
 * takes `page_type` at the top and adds nothing to its blocks.
 */
export interface Addressing {
  /** Data its Get and Range need; a Set carries it too. */
  top: Readonly<Data>;
  /** Keys that belong at the top of a request (never inside a channel block). */
  topKeys: readonly string[];
  /** Members each channel block of a Set carries. */
  block(channel: string): Data;
  /** Every addressing key of the page (exempt from Range checks: no Range lists them). */
  keys: readonly string[];
}

/** `page_type` belongs at the top of any page's request. */
const GENERIC_TOP_KEYS = ['page_type'] as const;

export function addressingOf(page: PageDef | undefined): Addressing {
  const top = page?.getRequest ?? {};
  const block = (channel: string): Data => page?.setMembers?.(channel) ?? {};
  const topKeys = [...new Set([...GENERIC_TOP_KEYS, ...Object.keys(top)])];
  // The usual addressing keys of any page, and a declared page's own (Deterrence's block member `page`).
  const own = page ? [...Object.keys(top), ...Object.keys(block('CH1')), ...(page.operations.Set?.metaKeys ?? [])] : [];
  return { top, topKeys, block, keys: [...new Set([...META_KEYS, ...own])] };
}
