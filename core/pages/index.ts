import type { OperationDef } from '../operation';
import type { PageDef } from '../page';
import { systemUpgradePage } from './upgrade-token';
import { onlineUpgradePage } from './online-upgrade';
import { ipcUpgradePage } from './ipc-upgrade';
import { mainStreamPage } from './main-stream';
import { ptzLinkagePage } from './ptz-linkage';
import { crossCountingPage } from './cross-counting';
import { developerModePage } from './developer-mode';
import { voiceAlarmPage } from './voice-alarm';
import { audioPage } from './audio';
import { ipcVoicePromptsPage, voicePromptsPage } from './voice-prompts';
import { deterrencePage } from './deterrence';
import { linkageManagePage } from './linkage-manage';
import { eventSettingsPage } from './event-settings';
import { eventPushPage } from './event-push';
import { systemInfoPage } from './system-info';
import { channelInfoPage } from './channel-info';
import { deviceInfoPage } from './device-info';
import { disarmingPage } from './disarming';
import { livePage } from './live';
import { manualAlarmPage } from './manual-alarm';
import { ptzPage } from './ptz';
import { snapshotPage } from './snapshot';
import { streamUrlPage } from './stream-url';
import { diskPage } from './storage';
import { recordInfoPage, recordTagPage, recordedPicturePage, searchMonthPage, searchRecordPage } from './recordings';
import { deviceRebootPage, ipcRebootPage, transKeyPage } from './reboot';
import { imageControlPage, motionPage, pirPage, recordConfigPage, videoCoverPage } from './channel-settings';

// Schema building blocks stay internal (optBool...); what callers need is re-exported.
export {
  AnyRequest,
  AnyResponse,
  ChannelMarker,
  GenericRange,
  META_KEYS,
  RangeChannelInfo,
  channelMap,
  channelSetMap,
  isChannelMarker,
} from './common';
export * from './upgrade-token';
export * from './online-upgrade';
export * from './ipc-upgrade';
export * from './main-stream';
export * from './ptz-linkage';
export * from './cross-counting';
export * from './developer-mode';
export * from './voice-alarm';
export * from './audio';
export * from './voice-prompts';
export * from './deterrence';
export * from './linkage-manage';
export * from './event-settings';
export * from './event-push';
export * from './system-info';
export * from './channel-info';
export * from './device-info';
export * from './disarming';
export * from './live';
export * from './manual-alarm';
export * from './ptz';
export * from './snapshot';
export * from './stream-url';
export * from './channel-settings';
export * from './storage';
export * from './recordings';
export * from './reboot';
export type { PageDef, WriteRule } from '../page';

/** Every typed page, derived from the declarations. Other pages work through generic range/get/set. */
export const pages: readonly PageDef[] = [
  deterrencePage,
  voiceAlarmPage,
  disarmingPage,
  linkageManagePage,
  livePage,
  manualAlarmPage,
  ptzPage,
  audioPage,
  voicePromptsPage,
  ipcVoicePromptsPage,
  mainStreamPage,
  ptzLinkagePage,
  crossCountingPage,
  developerModePage,
  eventSettingsPage,
  eventPushPage,
  systemInfoPage,
  deviceInfoPage,
  channelInfoPage,
  snapshotPage,
  streamUrlPage,
  systemUpgradePage,
  imageControlPage,
  motionPage,
  pirPage,
  recordConfigPage,
  videoCoverPage,
  diskPage,
  transKeyPage,
  deviceRebootPage,
  ipcRebootPage,
  onlineUpgradePage,
  ipcUpgradePage,
  searchMonthPage,
  searchRecordPage,
  recordedPicturePage,
  recordTagPage,
  recordInfoPage,
];

const byName = new Map(pages.map((p) => [p.name, p]));

/** A page name in any spelling users write it: `/API/AlarmConfig/Deterrence/` -> `AlarmConfig/Deterrence`. */
export function pageName(page: string): string {
  return page.replace(/^\/?(API\/)?/, '').replace(/\/+$/, '');
}

/**
 * Page-name syntax, for every place that takes a page name from a user (the bridge's request API, the Node-RED
 * nodes, their editor through the admin route): segments of letters, digits and `_`, each starting with a letter,
 * at most five.
 */
export const PAGE_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_]*(/[A-Za-z][A-Za-z0-9_]*){0,4}$';
const PAGE_NAME_RE = new RegExp(PAGE_NAME_PATTERN);

/**
 * The page a user means, or undefined when the text is not a page name: any spelling {@link pageName} accepts
 * (surrounding spaces too), and, given the operation, `AlarmConfig/Deterrence/Get` for `AlarmConfig/Deterrence`.
 */
export function parsePageName(raw: unknown, operation?: string): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let page = pageName(raw.trim().replace(/^\/+/, ''));
  if (operation && page.endsWith(`/${operation}`)) page = page.slice(0, -operation.length - 1);
  return PAGE_NAME_RE.test(page) ? page : undefined;
}

/** A page by name; leading `/API/` and surrounding slashes are ignored. */
export function findPage(name: string): PageDef | undefined {
  return byName.get(pageName(name));
}

/** An operation of a page, e.g. `findOperation('AlarmConfig/Deterrence', 'Set')`. */
export function findOperation(page: string, operation: string): OperationDef | undefined {
  const ops = findPage(page)?.operations;
  return ops && Object.hasOwn(ops, operation) ? ops[operation] : undefined;
}
