/**
 * Cameras as a DeviceFeature: pictures on `<ch>/snapshot`, taken on `<ch>/snapshot/get`; the camera and Snapshot
 * button components.
 */
import { channelFromSlug } from '../../../core';
import { perDevice, reloadedPerDevice, type DeviceFeature, type FeatureOptions } from '../feature';
import { cameraComponents, DeviceCameras } from './cameras';

/** Each device's cameras (DeviceCameras), by device id. */
export function deviceCameras(o: FeatureOptions): Map<string, DeviceCameras> {
  const { link, topics } = o;
  return perDevice(o, (rt, log, onChange) => {
    const [intervalMs, resolution] = [rt.cfg.snapshot_interval, rt.cfg.snapshot_resolution];
    const onPicture = (ch: string, bytes: number) => o.onPicture?.(rt.id, ch, bytes);
    return new DeviceCameras(rt.device, { link, topics, log, intervalMs, resolution, onChange, onPicture });
  });
}

export function cameraFeature(cameras: ReadonlyMap<string, DeviceCameras>, o: FeatureOptions): DeviceFeature {
  return {
    channelComponents: (device, ch, slug, node) =>
      cameras.get(device.id)?.hasVideo(ch) ? cameraComponents(o.topics, device.id, slug, node) : undefined,
    handle(topic, retained) {
      const shot = o.topics.parseSnapshotGet(topic);
      if (!shot) return false;
      const channel = channelFromSlug(shot.slug);
      const camera = cameras.get(shot.device);
      const refused = retained
        ? 'retained request ignored (it would take a picture on every restart)'
        : !camera || !channel
          ? 'no such device or channel'
          : camera.take(channel);
      if (!refused) return true;
      o.event('command_refused', { topic: o.quoter.quote(topic, 256), reason: refused });
      if (camera && o.runtimes.has(shot.device))
        o.commandError(shot.device, { event_type: 'refused', key: 'snapshot', channel: channel ?? null, reason: refused });
      return true;
    },
    ...reloadedPerDevice(cameras),
  };
}
