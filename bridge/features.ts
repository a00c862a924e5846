/**
 * The per-device features outside the settings table (cameras, PTZ, storage, firmware, restarts, alarm outputs), each
 * in one shape, in the manner of zigbee2mqtt's extensions: what it adds to a device's Home Assistant discovery, which
 * command keys it owns and how it plans them, which MQTT messages it answers, what it does when a device's structure
 * changes or the device comes online or goes offline, and its stop. startBridge lists them once; discovery, commands,
 * the message router and the device events read the list (in its order).
 */
import { channelFromSlug } from '../core';
import type { Quoter } from '../core/quote';
import type { KeyedCommands } from './api/commands';
import type { DiscoveryOptions } from './homeassistant/discovery';
import type { Logger } from './base/log';
import { isAlarmOutputKey } from './device/alarm-output-names';
import { channelAlarmOutputComponents, deviceAlarmOutputComponents, planAlarmOutput } from './device/alarm-outputs';
import { cameraComponents, DeviceCameras } from './device/cameras';
import type { Device } from './device/device';
import { cameraFirmwareComponent, DeviceFirmware, FIRMWARE_COMPONENT, FIRMWARE_KEY, firmwareComponent } from './device/firmware';
import { DevicePtz, isPtzKey, ptzComponents } from './device/ptz';
import { Refusal } from './device/refusal';
import { Restarts, type RestartOptions } from './device/restart';
import type { DeviceRuntime } from './device/runtime';
import type { Json } from './device/state';
import { StorageReader, storageComponents } from './device/storage';
import type { MqttLink } from './mqtt/link';
import type { Topics } from './mqtt/topics';
import type { BridgeOptions } from './options';
import type { Part } from './part';

export interface DeviceFeature extends Part {
  /** Home Assistant components on a channel's discovery config. */
  channelComponents?(device: Device, channel: string, slug: string, node: string): Json | undefined;
  /** Home Assistant components on the recorder's discovery config. */
  deviceComponents?(device: Device, node: string): Json | undefined;
  /** A command key it owns outside the table; `plan` checks the value now (a Refusal: nothing sent) and returns the work. */
  owns?(key: string): boolean;
  plan?(rt: DeviceRuntime, channel: string | undefined, key: string, raw: unknown): () => Promise<void>;
  /** Handles a message on MQTT; false when the topic is not one of its own. */
  handle?(topic: string, retained: boolean): boolean;
  /** The device's structure (Range, channels) changed: (re)load and start. */
  restructured?(rt: DeviceRuntime): void;
  /** The device answered (again). */
  online?(rt: DeviceRuntime): void;
  /** The device stopped answering. */
  offline?(rt: DeviceRuntime): void;
}

export interface FeatureOptions extends Pick<BridgeOptions, 'onPicture' | 'firmwareCheckGapMs' | 'firmwareProgressMs'> {
  link: MqttLink;
  topics: Topics;
  log: Logger;
  quoter: Quoter;
  runtimes: ReadonlyMap<string, DeviceRuntime>;
  /** Publish `{"type", "data"}` on `<base>/bridge/event`. */
  event: RestartOptions['event'];
  /** A feature's entities of this device changed: its discovery is published again. */
  changed: (device: Device) => void;
}

/** The features, in the order their discovery components, structure changes and stops (reversed) go. */
export function deviceFeatures(o: FeatureOptions): { features: DeviceFeature[]; cameras: ReadonlyMap<string, DeviceCameras> } {
  const { link, topics } = o;
  const restarts = new Restarts({
    topics,
    runtimes: o.runtimes,
    log: o.log.child('restart'),
    quoter: o.quoter,
    event: o.event,
    onChange: o.changed,
  });
  const cameras = new Map<string, DeviceCameras>();
  const firmware = new Map<string, DeviceFirmware>();
  const ptz = new Map<string, DevicePtz>();
  for (const rt of o.runtimes.values()) {
    const onChange = () => o.changed(rt.device);
    const log = o.log.child(rt.id);
    const [intervalMs, resolution, fwInterval] = [rt.cfg.snapshot_interval, rt.cfg.snapshot_resolution, rt.cfg.firmware_check_interval];
    const onPicture = (ch: string, bytes: number) => o.onPicture?.(rt.id, ch, bytes);
    cameras.set(rt.id, new DeviceCameras(rt.device, { link, topics, log, intervalMs, resolution, onChange, onPicture }));
    const checkMs = fwInterval === false ? undefined : fwInterval;
    const [onDemandGapMs, progressMs] = [o.firmwareCheckGapMs, o.firmwareProgressMs];
    firmware.set(
      rt.id,
      new DeviceFirmware(rt.device, { link, topics, log, checkMs, scheduled: fwInterval !== false, onDemandGapMs, progressMs, onChange }),
    );
    ptz.set(rt.id, new DevicePtz(rt.device, { link, topics, log, onChange }));
  }
  // Storage before firmware: the recorder's disk entities come before its update entity in its discovery config.
  const features = [
    cameraFeature(cameras, o),
    ptzFeature(ptz, topics),
    storageFeature(o),
    firmwareFeature(firmware, topics),
    restartFeature(restarts),
    alarmOutputFeature(topics),
  ];
  return { features, cameras };
}

/** Pictures on `<ch>/snapshot`, taken on `<ch>/snapshot/get`; the camera and Snapshot button components. */
function cameraFeature(cameras: ReadonlyMap<string, DeviceCameras>, o: FeatureOptions): DeviceFeature {
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
      if (refused) o.event('command_refused', { topic: o.quoter.quote(topic, 256), reason: refused });
      return true;
    },
    ...reloadedPerDevice(cameras),
  };
}

/** `set/ptz`, `set/ptz_preset` on a channel; its buttons and preset select. */
function ptzFeature(ptz: ReadonlyMap<string, DevicePtz>, topics: Topics): DeviceFeature {
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

/** A per-device reader that loads again (then starts) when its device's structure changed, stopped with the bridge. */
function reloadedPerDevice(each: ReadonlyMap<string, { load(): Promise<unknown>; start(): void; stop(): void }>) {
  return {
    restructured(rt: DeviceRuntime) {
      const reader = each.get(rt.id)!;
      void reader.load().then(() => reader.start());
    },
    stop: () => each.forEach((r) => r.stop()),
  };
}

/** The disks (state and sensors of the recorder), each device's read on its own slow schedule while it is online. */
function storageFeature(o: FeatureOptions): DeviceFeature {
  const readers = new Map<string, StorageReader>();
  for (const rt of o.runtimes.values())
    readers.set(rt.id, new StorageReader(rt.device, { intervalMs: rt.cfg.storage_interval, log: o.log.child(rt.id) }));
  return {
    deviceComponents: (device, node) =>
      device.facts.storage ? storageComponents(device.facts.storage, o.topics.state(device.id), node) : undefined,
    online: (rt) => readers.get(rt.id)!.online(),
    offline: (rt) => readers.get(rt.id)!.offline(),
    // Reads under way finish before the devices are logged out.
    stop: () => Promise.all([...readers.values()].map((r) => r.stop())).then(() => undefined),
  };
}

/** Firmware versions and the online upgrade (`set/firmware`): the recorder's and its cameras' update entities. */
function firmwareFeature(firmware: ReadonlyMap<string, DeviceFirmware>, topics: Topics): DeviceFeature {
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
      fw.start();
      fw.publish();
    },
    stop: () => firmware.forEach((f) => f.stop()),
  };
}

/** Restart buttons of the recorder and of the cameras it can restart (learned each time it comes online). */
function restartFeature(restarts: Restarts): DeviceFeature {
  return {
    channelComponents: (device, ch, _slug, node) => restarts.channelComponents(device, ch, node),
    deviceComponents: (device, node) => restarts.deviceComponents(device, node),
    handle: (topic, retained) => restarts.handle(topic, retained),
    online: (rt) => void restarts.learn(rt),
  };
}

/** A switch per alarm output, `set/alarm_output_<slug>`. */
function alarmOutputFeature(topics: Topics): DeviceFeature {
  return {
    channelComponents: (device, ch, _slug, node) => channelAlarmOutputComponents(topics, device, ch, node),
    deviceComponents: (device, node) => deviceAlarmOutputComponents(topics, device, node),
    owns: isAlarmOutputKey,
    plan: (rt, channel, key, raw) => planAlarmOutput(rt.device, channel, key, raw),
  };
}

/** Discovery's extra components: every feature's, in the list's order. */
export function featureComponents(features: readonly DeviceFeature[]): Pick<DiscoveryOptions, 'channelExtras' | 'deviceExtras'> {
  return {
    channelExtras(device, ch, slug, node) {
      const all = merged(features.map((f) => f.channelComponents?.(device, ch, slug, node)));
      return Object.keys(all).length ? all : undefined;
    },
    deviceExtras: (device, node) => merged(features.map((f) => f.deviceComponents?.(device, node))),
  };
}

function merged(parts: readonly (Json | undefined)[]): Json {
  const all: Json = {};
  for (const part of parts) Object.assign(all, part);
  return all;
}

/** The command keys the features own, each planned by its owner. */
export function featureCommands(features: readonly DeviceFeature[]): KeyedCommands {
  const owner = (key: string) => features.find((f) => f.owns?.(key));
  return {
    owns: (key) => !!owner(key),
    plan: (rt, channel, key, raw) => owner(key)!.plan!(rt, channel, key, raw),
  };
}

/**
 * The features' part of the running bridge: each learns of its devices coming online and going offline, and stops in
 * reverse order (what a stop waits for, the bridge waits for before it goes on stopping).
 */
export function featurePart(features: readonly DeviceFeature[], runtimes: ReadonlyMap<string, DeviceRuntime>): Part {
  return {
    start: () =>
      runtimes.forEach((rt) =>
        rt.on('availability', (online) => {
          for (const f of features)
            if (online) f.online?.(rt);
            else f.offline?.(rt);
        }),
      ),
    async stop() {
      const waits: Promise<void>[] = [];
      for (const f of [...features].reverse()) {
        const stopped = f.stop?.();
        if (stopped) waits.push(stopped);
      }
      await Promise.all(waits);
    },
  };
}
