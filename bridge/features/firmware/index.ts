/**
 * Firmware as a DeviceFeature: versions and the online upgrade (`set/firmware`), the recorder's and its cameras'
 * update entities.
 */
import { Refusal } from '../../device/refusal';
import { perDevice, type DeviceFeature, type FeatureOptions } from '../feature';
import { cameraFirmwareComponent, DeviceFirmware, FIRMWARE_COMPONENT, FIRMWARE_KEY, firmwareComponent } from './firmware';

export function firmwareFeature(o: FeatureOptions): DeviceFeature {
  const { link, topics } = o;
  const [onDemandGapMs, progressMs] = [o.firmwareCheckGapMs, o.firmwareProgressMs];
  const firmware = perDevice(o, (rt, log, onChange) => {
    const fwInterval = rt.cfg.firmware_check_interval;
    const checkMs = fwInterval === false ? undefined : fwInterval;
    return new DeviceFirmware(rt.device, {
      link,
      topics,
      log,
      checkMs,
      scheduled: fwInterval !== false,
      onDemandGapMs,
      progressMs,
      onChange,
    });
  });
  return {
    channelComponents: (device, ch, slug, node) =>
      firmware.get(device.id)?.cameraKnown(ch)
        ? { [FIRMWARE_COMPONENT]: cameraFirmwareComponent(topics, device.id, slug, node) }
        : undefined,
    deviceComponents: (device, node) =>
      firmware.get(device.id)?.known ? { [FIRMWARE_COMPONENT]: firmwareComponent(topics, device.id, node) } : undefined,
    owns: (key) => key === FIRMWARE_KEY,
    plan(rt, channel, key, raw) {
      if (channel) throw new Refusal(`${key} is a device key: use the <device>/set/${key} topic`, { key });
      return firmware.get(rt.id)!.plan(raw);
    },
    restructured(rt) {
      const fw = firmware.get(rt.id)!;
      const reading = fw.start();
      fw.publish();
      return reading;
    },
    stop: () => firmware.forEach((f) => f.stop()),
  };
}
