import type { OperationDef } from '../operation';
import { upgradeToken } from './upgrade-token';
import { mainStreamGet, mainStreamRange, mainStreamSet } from './main-stream';
import { ptzLinkageGet, ptzLinkageRange, ptzLinkageSet } from './ptz-linkage';
import { crossCountingGet, crossCountingRange, crossCountingSet } from './cross-counting';
import { developerModeGet, developerModeRange, developerModeSet } from './developer-mode';
import { voiceAlarmGet, voiceAlarmRange, voiceAlarmSet } from './voice-alarm';
import { audioGet, audioRange, audioSet } from './audio';
import { deterrenceGet, deterrenceRange, deterrenceSet } from './deterrence';
import { linkageManageGet, linkageManageRange, linkageManageSet } from './linkage-manage';
import { eventSettingsRange } from './event-settings';
import { systemInfoGet } from './system-info';
import { channelInfoGet } from './channel-info';

// Schema building blocks stay internal (optBool...); what callers need is re-exported.
export {
  AnyRequest, AnyResponse, ChannelMarker, GenericRange, META_KEYS, RangeChannelInfo, channelMap, channelSetMap, isChannelMarker,
} from './common';
export * from './upgrade-token';
export * from './main-stream';
export * from './ptz-linkage';
export * from './cross-counting';
export * from './developer-mode';
export * from './voice-alarm';
export * from './audio';
export * from './deterrence';
export * from './linkage-manage';
export * from './event-settings';
export * from './system-info';
export * from './channel-info';

export interface PageInfo {
  /** Path between `/API/` and the operation: `AlarmConfig/Deterrence`. */
  name: string;
  title: string;
  operations: Readonly<Record<string, OperationDef>>;
}

/** Every typed page, for the bridge and the Node-RED editor. Other pages work through generic range/get/set. */
export const pages: readonly PageInfo[] = [
  { name: 'AlarmConfig/Deterrence', title: 'Deterrence (floodlight)', operations: { Range: deterrenceRange, Get: deterrenceGet, Set: deterrenceSet } },
  { name: 'AlarmConfig/VoiceAlarm', title: 'Voice alarm (siren)', operations: { Range: voiceAlarmRange, Get: voiceAlarmGet, Set: voiceAlarmSet } },
  { name: 'LinkageConfig/LinkageManage', title: 'Disarming (linkage manage)', operations: { Range: linkageManageRange, Get: linkageManageGet, Set: linkageManageSet } },
  { name: 'DeviceConfig/Audio', title: 'Audio', operations: { Range: audioRange, Get: audioGet, Set: audioSet } },
  { name: 'StreamConfig/MainStream', title: 'Main stream encoding', operations: { Range: mainStreamRange, Get: mainStreamGet, Set: mainStreamSet } },
  { name: 'AlarmConfig/PTZLinkage', title: 'PTZ linkage', operations: { Range: ptzLinkageRange, Get: ptzLinkageGet, Set: ptzLinkageSet } },
  { name: 'AlarmConfig/Intelligent/CC', title: 'Cross counting', operations: { Range: crossCountingRange, Get: crossCountingGet, Set: crossCountingSet } },
  { name: 'Maintenance/DeveloperMode', title: 'Developer mode', operations: { Range: developerModeRange, Get: developerModeGet, Set: developerModeSet } },
  { name: 'Event/SettingConfig', title: 'Smart event settings', operations: { Range: eventSettingsRange } },
  { name: 'SystemInfo/Base', title: 'System information', operations: { Get: systemInfoGet } },
  { name: 'Login/ChannelInfo', title: 'Channel list', operations: { Get: channelInfoGet } },
  { name: 'Maintenance/SystemUpgrade', title: 'System upgrade', operations: { Token: upgradeToken } },
];

const byName = new Map(pages.map((p) => [p.name, p]));

/** A page name in any spelling users write it: `/API/AlarmConfig/Deterrence/` -> `AlarmConfig/Deterrence`. */
export function pageName(page: string): string {
  return page.replace(/^\/?(API\/)?/, '').replace(/\/+$/, '');
}

/** A page by name; leading `/API/` and surrounding slashes are ignored. */
export function findPage(name: string): PageInfo | undefined {
  return byName.get(pageName(name));
}

/** An operation of a page, e.g. `findOperation('AlarmConfig/Deterrence', 'Set')`. */
export function findOperation(page: string, operation: string): OperationDef | undefined {
  const ops = findPage(page)?.operations;
  return ops && Object.hasOwn(ops, operation) ? ops[operation] : undefined;
}
