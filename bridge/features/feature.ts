/**
 * The shape of a per-device feature outside the settings table (each in its folder beside this file; index.ts lists
 * them), in the manner of zigbee2mqtt's extensions: what it adds to a device's Home Assistant discovery, which command
 * keys it owns and how it plans them, which MQTT messages it answers, what it does when a device's structure changes
 * or the device comes online or goes offline, and its stop. startBridge lists them once; discovery, commands, the
 * message router and the device events read the list (in its order). Nothing here knows a feature by name.
 */
import type { Quoter } from '../../core/quote';
import type { CommandError } from '../homeassistant/command-error';
import type { DiscoveryOptions } from '../homeassistant/discovery';
import type { Logger } from '../base/log';
import type { Part } from '../base/part';
import type { StateFile } from '../base/state-file';
import type { Device } from '../device/device';
import type { DeviceRuntime } from '../device/runtime';
import type { Json } from '../device/state';
import type { MqttLink } from '../mqtt/link';
import type { Topics } from '../mqtt/topics';

export interface DeviceFeature extends Part {
  /** Home Assistant components on a channel's discovery config. */
  channelComponents?(device: Device, channel: string, slug: string, node: string): Json | undefined;
  /** Home Assistant components on the recorder's discovery config. */
  deviceComponents?(device: Device, node: string): Json | undefined;
  /** A command key it owns outside the table; `plan` checks the value now (a Refusal: nothing sent) and returns the work. */
  owns?(key: string): boolean;
  plan?(rt: DeviceRuntime, channel: string | undefined, key: string, raw: unknown): () => Promise<void>;
  /**
   * Request API operations it answers (`<base>/bridge/request/<op>`, e.g. `recordings`): the request API checks the
   * request's shape, device and availability and answers; `mayWrite(page)` is undefined where `request_api` allows
   * writing that page, else the refusal.
   */
  requests?: Readonly<Record<string, FeatureRequest>>;
  /** Handles a message on MQTT; false when the topic is not one of its own. */
  handle?(topic: string, retained: boolean): boolean;
  /**
   * The device's structure (Range, channels) changed: (re)load and start. Its reads that may change the entities are
   * returned: the device's discovery waits for them (so it goes out once at start-up, not again seconds later).
   */
  restructured?(rt: DeviceRuntime): Promise<unknown> | void;
  /** The device answered (again). */
  online?(rt: DeviceRuntime): void;
  /** The device stopped answering. */
  offline?(rt: DeviceRuntime): void;
}

export type FeatureRequest = (rt: DeviceRuntime, msg: Json, mayWrite: (page: string) => string | undefined) => Promise<unknown>;

/** Every feature's request operations, by name. */
export function featureRequests(features: readonly DeviceFeature[]): ReadonlyMap<string, FeatureRequest> {
  return new Map(features.flatMap((f) => Object.entries(f.requests ?? {})));
}

/** What the features are built with (startBridge's parts, and the knobs of BridgeOptions that are theirs). */
export interface FeatureOptions {
  link: MqttLink;
  topics: Topics;
  log: Logger;
  quoter: Quoter;
  runtimes: ReadonlyMap<string, DeviceRuntime>;
  /** Publish `{"type", "data"}` on `<base>/bridge/event`. */
  event: (type: string, data: Record<string, unknown>) => void;
  /** Publish on `<base>/<dev>/command_error` (a refused or failed command, where Home Assistant users look). */
  commandError: (device: string, error: CommandError) => void;
  /** A feature's entities of this device changed: its discovery is published again. */
  changed: (device: Device) => void;
  /** What the bridge keeps across its own restarts (bridge/base/state-file.ts). */
  state?: StateFile;
  /** On-demand firmware checks closer than this share the last answer (default 10 s; tests 0). */
  firmwareCheckGapMs?: number;
  /** Between Progress reads of a firmware install (default 2000 ms). */
  firmwareProgressMs?: number;
  /** Config `clips`: where clips are written and the ffmpeg program. */
  clips?: { folder: string; ffmpeg?: string };
  /** Called for every picture published (tests, figures): device, channel, JPEG bytes. */
  onPicture?: (device: string, channel: string, bytes: number) => void;
  /** Called for every face or plate recognition published (tests, figures): device, the payload. */
  onRecognition?: (device: string, payload: Record<string, unknown>) => void;
}

/** A feature's part for each device, by id: `log` prefixed with the device's id, `onChange` when its entities changed. */
export function perDevice<T>(o: FeatureOptions, build: (rt: DeviceRuntime, log: Logger, onChange: () => void) => T): Map<string, T> {
  return new Map([...o.runtimes.values()].map((rt) => [rt.id, build(rt, o.log.child(rt.id), () => o.changed(rt.device))]));
}

/** A per-device reader that loads again (then starts) when its device's structure changed, stopped with the bridge. */
export function reloadedPerDevice(each: ReadonlyMap<string, { load(): Promise<unknown>; start(): void; stop(): void }>) {
  return {
    restructured(rt: DeviceRuntime) {
      const reader = each.get(rt.id)!;
      return reader.load().then(() => reader.start());
    },
    stop: () => each.forEach((r) => r.stop()),
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

/** The command keys the features own, each planned by its owner (what Commands takes as its KeyedCommands). */
export function featureCommands(features: readonly DeviceFeature[]): Required<Pick<DeviceFeature, 'owns' | 'plan'>> {
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
