/** PTZ as a DeviceFeature: `set/ptz`, `set/ptz_preset` on a channel; its buttons and preset select. */
import { Refusal } from '../../device/refusal';
import { perDevice, reloadedPerDevice, type DeviceFeature, type FeatureOptions } from '../feature';
import { DevicePtz, isPtzKey, ptzComponents } from './ptz';

export function ptzFeature(o: FeatureOptions): DeviceFeature {
  const { link, topics } = o;
  const ptz = perDevice(o, (rt, log, onChange) => new DevicePtz(rt.device, { link, topics, log, onChange }));
  return {
    channelComponents(device, ch, slug, node) {
      const info = ptz.get(device.id)?.info(ch);
      return info ? ptzComponents(topics, device.id, slug, node, info) : undefined;
    },
    owns: isPtzKey,
    plan(rt, channel, key, raw) {
      if (!channel || !isPtzKey(key)) throw new Refusal(`${key} is a channel key: use the <device>/<channel>/set/${key} topic`, { key });
      return ptz.get(rt.id)!.plan(channel, key, raw);
    },
    ...reloadedPerDevice(ptz),
  };
}
