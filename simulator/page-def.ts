/**
 * What one configuration page of the simulator is: its Range (per profile and channel), its Get state and the
 * rules its routes follow. `pages.ts` declares every page once with these parts.
 */
import type { MetaRules } from './check';
import type { RangeMap } from './descriptors';
import type { ChannelSpec, Profile } from './profiles';

export type Obj = Record<string, unknown>;
export type Op = 'Range' | 'Get' | 'Set';

/**
 * `page_type` of the alarm pages (Motion, PIR: vendor-facts-more l): the alarm page, the channel page, or an NVR's
 * view of an IPC's page. Their Range needs one of these, their Get and Set accept them.
 */
export const ALARM_PAGE_TYPES: readonly string[] = ['AlarmConfig', 'ChannelConfig', 'AllConfig'];

/** Range of a page, following the specification's and the vendor's tables. */
export interface RangePage {
  /** Plain meta values and top-level descriptors (everything but channel_info). */
  top(p: Profile): RangeMap;
  /** Field descriptors of one channel; absent when the page has no channel_info. */
  channel?(ch: ChannelSpec, p: Profile): RangeMap;
  /** Channels the page lists (others are absent from Range: R2). Default: all configured. */
  covers?(ch: ChannelSpec, p: Profile): boolean;
}

/** Get state of a page: initialised from its Range defaults, so that Get and Range never disagree. */
interface GetPage {
  /** Range fields a fresh device does not show in Get (capabilities, write-only uploads, copy actions). */
  omit?: readonly string[];
  /** Stored when set, never shown by Get (an uploaded siren file). */
  writeOnly?: readonly string[];
  /** Initial top-level values beyond the Range defaults. */
  top?(p: Profile): Obj;
  /** Initial channel values beyond the Range defaults. */
  channel?(ch: ChannelSpec, p: Profile): Obj;
  /** Get shape of a channel the page does not cover; undefined: the channel is left out of the Get. */
  absent?: Obj;
  /** false: offline channels and empty slots are left out of the Get instead of shown as markers (vendor Disarming Get). */
  markers?: boolean;
  /** How a stored channel is shown (never echo a stored password). */
  view?(stored: Obj): Obj;
  /** Derived fields after a Set. */
  afterSet?(state: Obj & { channel_info?: Record<string, Obj> }): void;
}

/** One configuration page, declared once. */
export interface SimPage {
  page: string;
  ops: readonly Op[];
  range: RangePage;
  /** Pages with Get/Set: their state. */
  get?: GetPage;
  /** Served only when this simulator option is on (pages a device may lack, so clients' fall-backs are tested). */
  optional?: 'disarming' | 'linkageManage';
  /** Top-level keys that are not parameters, and the values they may take (Get and Set); beside `page_type`. */
  meta?: MetaRules;
  /** Channel-block keys that are not parameters (vendor Deterrence Set: `page: "chn_floodlight"`). */
  channelMeta?: MetaRules;
  /** Groups a channel's Get nests whose members the Range lists flat (ImageControl `FullColorMode`): checked as flat. */
  flatGroups?: readonly string[];
  /** Repairs a vendor sample's slip before the check (the Disarming Set sample's 47 half-hours). */
  normalizeSet?(data: Obj): Obj;
  /** Range refuses a request without `page_type` (AlarmConfig, ChannelConfig or AllConfig). */
  rangeNeedsPageType?: boolean;
  /** A second path prefix serving the same operations. */
  alias?: string;
  /** Cross counting Get answers `{version, data}` instead of `{result, data}`. */
  versionEnvelope?: boolean;
  /** The spec's Set sample puts channel_info beside `version`: accept it there too. */
  channelInfoBesideVersion?: boolean;
}

/** Get shapes (vendor): an offline digital channel, an empty slot, an online channel without the hardware. */
export const OFFLINE_GET: Obj = Object.freeze({ status: 'Offline', reason: 'Not support' });
export const NOT_CONFIGURED_GET: Obj = Object.freeze({ reason: 'Not configured' });
export const NOT_SUPPORT_GET: Obj = Object.freeze({ reason: 'Not support' });
