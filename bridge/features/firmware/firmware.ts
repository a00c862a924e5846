/**
 * Firmware of one recorder (core/firmware.ts has the device rules):
 *
 * - `<base>/<dev>/firmware` (retained JSON): `{"installed_version", "latest_version", "in_progress",
 *   "update_percentage", "title", "release_summary"?}`, the state of Home Assistant's `update` entity "Firmware".
 *   Installed is SystemInfo's `software_version`; latest is what the device's own online check
 *   (`FtpUpgrade/Check`) found (`unknown` when it reports newer firmware without its version), else the installed one.
 * - `<base>/<dev>/set/firmware`: `install` runs the device's online upgrade (`FtpUpgrade/Upgrade`, `Progress`
 *   published as `update_percentage` while it runs); `check` asks the device's online check now.
 * - The check runs on its own slow schedule (`firmware_check_interval`, default every 6 h, never more often than
 *   hourly) at poll priority, and on demand at most once per 10 s. A device that does not answer Check (R2) keeps
 *   latest = installed and refuses `install`.
 * - Refused, with nothing sent: `install` while an alarm is active on the recorder (alarm-critical: the recorder
 *   would reboot in the middle of it), while an upgrade runs, or when the check found nothing newer.
 * - Cameras behind an NVR (vendor-facts-more §m.4): `IPCMaintaint/IPCUpgrade/Get` gives each online camera's
 *   installed version; each channel whose camera reports one gets an `update` entity on its HA device, state on
 *   `<dev>/<ch>/firmware` with latest = installed (the vendor gives no newer-version string for an IPC) and no install.
 *   Read with each check and when the channels change; a device without the page (a camera, R2) has none.
 */
import {
  channelSlug,
  DeviceError,
  firmwareCheck,
  firmwareVersions,
  ipcUpgradeGet,
  ipcVersions,
  UNKNOWN_VERSION,
  type FirmwareVersions,
} from '../../../core';
import { Refusal } from '../../device/refusal';
import type { Device } from '../../device/device';
import { alarmActive } from '../../device/event-state';
import { errorText, type Logger } from '../../base/log';
import type { MqttLink } from '../../mqtt/link';
import type { Json } from '../../device/state';
import type { Topics } from '../../mqtt/topics';

export const FIRMWARE_KEY = 'firmware';
/** The update entity's id on the recorder's device (`firmware` is the diagnostic version sensor's). */
export const FIRMWARE_COMPONENT = 'firmware_update';
export const DEFAULT_CHECK_MS = 6 * 3600_000;
export const MIN_CHECK_MS = 3600_000;
/** On-demand checks closer than this share the last answer (default). */
export const ON_DEMAND_GAP_MS = 10_000;

export interface FirmwareOptions {
  link: MqttLink;
  topics: Topics;
  log: Logger;
  /** Between scheduled checks (at least MIN_CHECK_MS). */
  checkMs?: number;
  /** false: no scheduled check (on demand only). Default true. */
  scheduled?: boolean;
  /** On-demand checks closer than this to the last one share its answer (default ON_DEMAND_GAP_MS). */
  onDemandGapMs?: number;
  /** Between Progress reads of an install (default 2000). */
  progressMs?: number;
  /** The device gained or lost its firmware entity: discovery is due. */
  onChange: () => void;
}

/** The Home Assistant `update` entity both levels share (one unique id per device node). */
const updateEntity = (node: string, stateTopic: string) => ({
  p: 'update',
  name: 'Firmware',
  unique_id: `${node}_${FIRMWARE_COMPONENT}`,
  device_class: 'firmware',
  state_topic: stateTopic,
});

/** Home Assistant `update` entity of the recorder. */
export function firmwareComponent(topics: Topics, device: string, node: string): Json {
  return {
    ...updateEntity(node, topics.firmware(device)),
    entity_category: 'config',
    command_topic: topics.set(device, undefined, FIRMWARE_KEY),
    payload_install: 'install',
  };
}

/** Home Assistant `update` entity of the camera on a channel: installed only, no install (the vendor gives no latest). */
export function cameraFirmwareComponent(topics: Topics, device: string, slug: string, node: string): Json {
  return {
    ...updateEntity(node, topics.firmware(device, slug)),
    entity_category: 'diagnostic',
    enabled_by_default: false, // a version to look up, one per camera: no flood
  };
}

export class DeviceFirmware {
  private versions?: FirmwareVersions;
  private supported?: boolean;
  private progress?: number;
  private installing = false;
  private lastCheck = 0;
  private checking?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Installed version of each camera behind the recorder that reports one (IPCUpgrade/Get). */
  private cameras = new Map<string, string>();
  private camerasUnsupported = false;
  private readingCameras?: Promise<void>;
  /** The channel list the cameras were last read for (start). */
  private camerasOf?: ReadonlyMap<string, boolean>;

  constructor(
    private readonly device: Device,
    private readonly opts: FirmwareOptions,
  ) {}

  /** Whether the entity exists: the installed version is known. */
  get known(): boolean {
    return !!this.installed();
  }

  private installed(): string | undefined {
    const fw = this.device.facts.info?.firmware;
    return typeof fw === 'string' && fw ? fw : undefined;
  }

  private checkMs(): number {
    return Math.max(MIN_CHECK_MS, this.opts.checkMs ?? DEFAULT_CHECK_MS);
  }

  /** Whether the camera on `channel` has a firmware entity (it reports a version). */
  cameraKnown(channel: string): boolean {
    return this.cameras.has(channel);
  }

  /** The cameras' versions (IPCUpgrade/Get, NVR only), published; discovery is due when the set changed. */
  readCameras(): Promise<void> {
    this.readingCameras ??= this.doReadCameras().finally(() => (this.readingCameras = undefined));
    return this.readingCameras;
  }

  private async doReadCameras(): Promise<void> {
    if (this.stopped || this.camerasUnsupported || this.device.channels().length < 2) return;
    let found: Map<string, string>;
    try {
      const answer = await this.device.client.invoke(ipcUpgradeGet, {}, { priority: 'poll' });
      found = ipcVersions(answer);
      // A camera gone offline keeps the version it last reported (its entity does not come and go with it).
      for (const [ch, info] of Object.entries(answer.channel_info ?? {}))
        if (info.state === 'Off-line' && this.cameras.has(ch)) found.set(ch, this.cameras.get(ch)!);
    } catch (err) {
      if (err instanceof DeviceError && (err.kind === 'unsupported' || err.status === 404)) this.camerasUnsupported = true;
      else this.opts.log.warn(`camera firmware: ${errorText(err)}`);
      return;
    }
    const channels = new Set(this.device.channels());
    for (const ch of found.keys()) if (!channels.has(ch)) found.delete(ch);
    const changed = found.size !== this.cameras.size || [...found.keys()].some((ch) => !this.cameras.has(ch));
    this.cameras = found;
    this.publishCameras();
    if (changed) this.opts.onChange();
  }

  private publishCameras(): void {
    for (const [ch, installed] of this.cameras) {
      const body: Json = {
        installed_version: installed,
        latest_version: installed,
        in_progress: false,
        update_percentage: null,
        title: 'Camera firmware',
      };
      const topic = this.opts.topics.firmware(this.device.id, channelSlug(ch));
      this.opts.link.publish(topic, JSON.stringify(body), { retain: true, qos: 1, queue: true });
    }
  }

  /** Starts the checks; resolves once the cameras' versions (which add entities) are read. */
  start(): Promise<void> | undefined {
    // Called on every change of entities; the cameras change only with the channel list (or their online flags).
    let reading: Promise<void> | undefined;
    if (this.camerasOf !== this.device.facts.channelList) {
      this.camerasOf = this.device.facts.channelList;
      reading = this.readCameras();
    }
    if (this.timer || this.stopped || this.opts.scheduled === false) return reading;
    void this.check();
    // Never while an alarm is active: the check may make the recorder busy with its upgrade server.
    this.timer = setInterval(() => void (alarmActive(this.device.facts.events) ? undefined : this.check()), this.checkMs());
    this.timer.unref?.();
    return reading;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** The device's online check (coalesced); publishes what it found. */
  check(): Promise<void> {
    this.checking ??= this.doCheck().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async doCheck(): Promise<void> {
    if (this.stopped || this.installing) return;
    void this.readCameras();
    this.lastCheck = Date.now();
    const before = this.supported;
    try {
      const installed = this.installed();
      this.versions = firmwareVersions(installed, await this.device.client.invoke(firmwareCheck, {}, { priority: 'poll' }));
      this.supported = true;
    } catch (err) {
      if (err instanceof DeviceError && (err.kind === 'unsupported' || err.status === 404)) this.supported = false;
      else this.opts.log.warn(`firmware check: ${errorText(err)}`);
    }
    this.publish();
    if (before === undefined && this.supported !== undefined) this.opts.onChange();
  }

  publish(): void {
    const installed = this.installed();
    if (!installed) return;
    const v = this.versions;
    const latest = v?.available ? v.latest : installed;
    const body: Json = {
      installed_version: installed,
      latest_version: latest ?? installed,
      in_progress: this.installing,
      update_percentage: this.installing ? (this.progress ?? null) : null,
      title: this.device.facts.info?.model ?? 'Firmware',
      ...(v?.notes
        ? { release_summary: v.notes.slice(0, 255) }
        : latest === UNKNOWN_VERSION
          ? { release_summary: 'The device found newer firmware but did not say which version.' }
          : {}),
    };
    this.opts.link.publish(this.opts.topics.firmware(this.device.id), JSON.stringify(body), { retain: true, qos: 1, queue: true });
  }

  /** `set/firmware`: `install` or `check`; refusals are thrown now (nothing sent), the work is returned. */
  plan(raw: unknown): () => Promise<void> {
    const word = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (word === 'check') {
      return async () => {
        if (Date.now() - this.lastCheck < (this.opts.onDemandGapMs ?? ON_DEMAND_GAP_MS)) return this.publish();
        await this.check();
      };
    }
    if (word !== 'install') throw new Refusal(`${FIRMWARE_KEY}: send "install" or "check"`, { key: FIRMWARE_KEY });
    if (this.installing) throw new Refusal(`${FIRMWARE_KEY}: an upgrade is already running`, { key: FIRMWARE_KEY });
    if (this.supported === false) throw new Refusal(`${FIRMWARE_KEY}: the device has no online upgrade`, { key: FIRMWARE_KEY });
    if (!this.versions?.available) {
      // Right after a check, asking for one again would not help: say what the check found, and when.
      const checked = this.versions
        ? `no newer firmware than ${this.installed() ?? 'the installed one'} was found (checked at ${new Date(this.lastCheck).toISOString()})`
        : 'no newer firmware is known yet: send "check" to ask the device';
      throw new Refusal(`${FIRMWARE_KEY}: ${checked}`, { key: FIRMWARE_KEY });
    }
    if (alarmActive(this.device.facts.events))
      throw new Refusal(`${FIRMWARE_KEY}: refused while an alarm is active on ${this.device.id}`, { key: FIRMWARE_KEY });
    return () => this.install();
  }

  private async install(): Promise<void> {
    this.installing = true;
    this.progress = 0;
    this.publish();
    try {
      await this.device.client.onlineUpgrade({
        pollMs: this.opts.progressMs,
        onProgress: (p) => {
          this.progress = p.percent;
          this.publish();
        },
      });
      this.versions = undefined; // what is installed now comes with the next SystemInfo read after the reboot
    } finally {
      this.installing = false;
      this.progress = undefined;
      this.publish();
    }
  }
}
