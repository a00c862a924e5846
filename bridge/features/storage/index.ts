/**
 * Storage as a DeviceFeature: the disks (state and sensors of the recorder), each device's read on its own slow
 * schedule while it is online.
 */
import { perDevice, type DeviceFeature, type FeatureOptions } from '../feature';
import { storageComponents, StorageReader } from './storage';

export function storageFeature(o: FeatureOptions): DeviceFeature {
  const readers = perDevice(o, (rt, log) => new StorageReader(rt.device, { intervalMs: rt.cfg.storage_interval, log }));
  return {
    deviceComponents: (device, node) =>
      device.facts.storage ? storageComponents(device.facts.storage, o.topics.state(device.id), node) : undefined,
    online: (rt) => readers.get(rt.id)!.online(),
    offline: (rt) => readers.get(rt.id)!.offline(),
    // Reads under way finish before the devices are logged out.
    stop: () => Promise.all([...readers.values()].map((r) => r.stop())).then(() => undefined),
  };
}
