/**
 * Recognition as a DeviceFeature: faces and plates recognised, with their identity, on MQTT and in Home Assistant
 * (the "Recognition" event entity, sensors "Last face" / "Last plate", their picture entities), on the channels the
 * device says recognise faces (FD) or plates (LPD). It reads the pictures of each device's events as they come.
 */
import type { EventChange } from '../../device/event-state';
import { perDevice, type DeviceFeature, type FeatureOptions } from '../feature';
import { DeviceRecognition, recognitionComponents } from './recognition';

export function recognitionFeature(o: FeatureOptions): { feature: DeviceFeature; recognition: ReadonlyMap<string, DeviceRecognition> } {
  const { link, topics } = o;
  const recognition = perDevice(o, (rt, log) => {
    const r = new DeviceRecognition(rt.device, { link, topics, log, onRecognition: o.onRecognition });
    rt.on('events', (change: EventChange) => {
      if (change.channel && change.picture) r.picture(change.channel, change.picture, change.edge?.time);
    });
    return r;
  });
  const feature: DeviceFeature = {
    channelComponents(device, ch, slug, node) {
      const r = recognition.get(device.id);
      return r ? recognitionComponents(topics, device.id, slug, node, r.kinds(ch)) : undefined;
    },
    async stop() {
      await Promise.all([...recognition.values()].map((r) => r.stop()));
    },
  };
  return { feature, recognition };
}
