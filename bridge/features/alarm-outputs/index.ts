/** Alarm outputs as a DeviceFeature: a switch per alarm output, `set/alarm_output_<slug>`. */
import { isAlarmOutputKey } from '../../device/alarm-output-names';
import type { DeviceFeature, FeatureOptions } from '../feature';
import { channelAlarmOutputComponents, deviceAlarmOutputComponents, planAlarmOutput } from './alarm-outputs';

export function alarmOutputFeature({ topics }: FeatureOptions): DeviceFeature {
  return {
    channelComponents: (device, ch, _slug, node) => channelAlarmOutputComponents(topics, device, ch, node),
    deviceComponents: (device, node) => deviceAlarmOutputComponents(topics, device, node),
    owns: isAlarmOutputKey,
    plan: (rt, channel, key, raw) => planAlarmOutput(rt.device, channel, key, raw),
  };
}
