/**
 * In-memory Get/Set state per page. A page's state has the shape of its Get `data` (top-level fields plus
 * `channel_info` of the channels the page covers) and is initialised from the Range defaults of the profile, so
 * that Get and Range can never disagree. Offline and unsupported channels are rendered by the Get view, not
 * stored: a channel that comes back online shows its settings again.
 */
import type { Profile } from './profiles';
import { defaultsOf, isPlainObject } from './descriptors';
import { isGetMarker } from './check';
import { NOT_CONFIGURED_GET, OFFLINE_GET, Obj } from './page-def';
import { PAGES, PAGE_BY_NAME, coveredChannels } from './pages';

export type { Obj } from './page-def';
export interface PageState extends Obj {
  channel_info?: Record<string, Obj>;
}
export type SimState = Record<string, PageState>;

/** Keys of a channel block that are not parameters: checked for their value, never stored. */
const CHANNEL_META = new Set(['chn_index', 'copy_ch', 'page']);

/** Fresh state of every Get/Set page for a profile (all channels configured as if online). */
export function initialState(p: Profile): SimState {
  const state: SimState = {};
  for (const { page, get: def, range } of PAGES) {
    if (!def) continue;
    const omit = new Set(def.omit ?? []);
    const s: PageState = { ...defaultsOf(range.top(p), omit), ...def.top?.(p) };
    if (range.channel) {
      const ci: Record<string, Obj> = {};
      for (const ch of coveredChannels(page, p)) {
        ci[ch.id] = { ...defaultsOf(range.channel(ch, p), omit), ...def.channel?.(ch, p) };
      }
      s.channel_info = ci;
    }
    state[page] = s;
  }
  return state;
}

function withoutKeys(o: Obj, keys: readonly string[]): Obj {
  let copy: Obj | undefined;
  for (const k of keys) {
    if (k in o) {
      copy ??= { ...o };
      delete copy[k];
    }
  }
  return copy ?? o;
}

/**
 * The Get `data` of a page: a shallow view over the state (no deep copy per request). Channels the page does not
 * cover get the page's marker, offline ones `{status: "Offline", reason: "Not support"}`, empty slots
 * `{reason: "Not configured"}` (vendor Get shapes).
 */
export function getView(page: string, state: PageState, p: Profile, isOnline: (id: string) => boolean): Obj {
  const def = PAGE_BY_NAME.get(page)!.get!;
  const out: Obj = {};
  for (const key of Object.keys(state)) if (key !== 'channel_info') out[key] = state[key];
  const stored = state.channel_info;
  if (stored) {
    const ci: Obj = {};
    for (const ch of p.channels) {
      const block = stored[ch.id];
      if (!ch.configured) {
        if (def.markers !== false) ci[ch.id] = NOT_CONFIGURED_GET;
      } else if (!isOnline(ch.id)) {
        if (def.markers !== false) ci[ch.id] = OFFLINE_GET;
      } else if (block === undefined) {
        if (def.absent) ci[ch.id] = def.absent;
      } else {
        const shown = def.writeOnly ? withoutKeys(block, def.writeOnly) : block;
        ci[ch.id] = def.view ? def.view(shown) : shown;
      }
    }
    out.channel_info = ci;
  }
  return out;
}

function mergeField(target: Obj, key: string, value: unknown): void {
  const current = target[key];
  if (isPlainObject(value) && isPlainObject(current)) {
    for (const k of Object.keys(value)) mergeField(current, k, value[k]);
  } else {
    // Copy objects in, so the request (kept in the log) and the state never share structure.
    target[key] = typeof value === 'object' && value !== null ? structuredClone(value) : value;
  }
}

/**
 * Merge a checked Set `data` into the page state (objects merged, arrays and scalars replaced). `meta`: top-level
 * keys that are not parameters (page_type, UI leftovers); Get markers sent back are not settings either.
 */
export function applySet(page: string, state: PageState, data: Obj, meta: readonly string[]): void {
  for (const key of Object.keys(data)) {
    if (meta.includes(key)) continue;
    const value = data[key];
    if (key === 'channel_info' && isPlainObject(value) && state.channel_info) {
      for (const ch of Object.keys(value)) {
        const block = value[ch];
        const target = state.channel_info[ch];
        if (!isPlainObject(block) || !target || isGetMarker(block)) continue;
        for (const f of Object.keys(block)) if (!CHANNEL_META.has(f)) mergeField(target, f, block[f]);
      }
    } else {
      mergeField(state, key, value);
    }
  }
  PAGE_BY_NAME.get(page)!.get!.afterSet?.(state);
}
