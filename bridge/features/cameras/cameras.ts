/**
 * Cameras of one device: for every channel with video (the channels the device's Snapshot Range lists, kept once
 * seen, so a camera that goes offline keeps its entity), the picture as JPEG bytes on `<dev>/<ch>/snapshot`
 * (retained) and the stream addresses as `{"main", "sub", "mobile"}` on `<dev>/<ch>/streams` (retained, never
 * with credentials: the camera entity's attributes).
 *
 * Alarm pictures: the picture of each alarm start goes to `<dev>/<ch>/alarm_picture` (retained JPEG; the "Last
 * alarm" image entity) with `{type, time, source, target}` on `.../attributes` before it, and to the camera's
 * `snapshot`. Where the device sent the picture with the alarm (`alarm_snap_data`, `ai_snap_picture`) it is used as
 * is, with the AI picture's object cut-out on `.../object`; only without one is the picture read (Snapshot/Get).
 *
 * Budget: one picture in flight per device; pictures asked for meanwhile wait as a set of channels, so a storm of
 * alarm starts on one channel costs at most one more picture; every read goes at priority `poll` (commands
 * overtake it); nothing is read at idle unless `snapshot_interval` is set. Alarm starts of a channel that arrive
 * together (one answer: `vehicle` and `motor_vehicle`, several edges) make one alarm picture, published after
 * their state (setImmediate): the one the device sent, or one read.
 */
import { channelSlug, DeviceError, readSnapshot, snapshotRange, type AlarmPicture, type AlarmType, type NvrClient } from '../../../core';
import { isPlainObject } from '../../../core/json';
import type { Device } from '../../device/device';
import { errorText, type Logger } from '../../base/log';
import type { MqttLink } from '../../mqtt/link';
import { channelOnline, type Json } from '../../device/state';
import type { Topics } from '../../mqtt/topics';

const POLL = { priority: 'poll' } as const;
/** The default picture: the largest the device offers that is not above this (pixels). */
const DEFAULT_MAX = { w: 1280, h: 720 };

const size = (r: string) => r.split('x').map((n) => Number(n.trim())) as [number, number];

/**
 * The resolution to ask for out of those a channel offers (the device's own spelling): `wanted` when offered,
 * otherwise the largest not above 1280x720 (the smallest offered when all are larger); undefined when none.
 */
export function pickResolution(offered: readonly string[], wanted?: string): string | undefined {
  const norm = (r: string) => r.replace(/\s+/g, '');
  if (wanted !== undefined) return offered.find((r) => norm(r) === norm(wanted));
  const valid = offered.filter((r) => /^\d+ ?x ?\d+$/.test(r));
  const area = (r: string) => size(r)[0] * size(r)[1];
  const fit = valid.filter((r) => size(r)[0] <= DEFAULT_MAX.w && size(r)[1] <= DEFAULT_MAX.h).sort((a, b) => area(b) - area(a));
  return fit[0] ?? valid.sort((a, b) => area(a) - area(b))[0];
}

/** Channels and their resolutions from a Snapshot Range (`channel_info.items[]` of `{channel, snapshot_resolution}`). */
export function snapshotChannels(range: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const info = isPlainObject(range) ? range.channel_info : undefined;
  const items = isPlainObject(info) && Array.isArray(info.items) ? info.items : [];
  for (const it of items) {
    if (!isPlainObject(it) || typeof it.channel !== 'string') continue;
    const res = isPlainObject(it.snapshot_resolution) && Array.isArray(it.snapshot_resolution.items) ? it.snapshot_resolution.items : [];
    out.set(
      it.channel,
      res.filter((r): r is string => typeof r === 'string'),
    );
  }
  return out;
}

/** What an alarm picture shows (the attributes of the "Last alarm" image entity). */
export interface AlarmPictureInfo {
  /** The alarm type key whose start it shows. */
  type: AlarmType;
  /** The alarm's time as the device gave it (else when the bridge saw it). */
  time: string;
  /** `alarm`/`ai`: sent by the device with the alarm; `snapshot`: read from the camera for it. */
  source: 'alarm' | 'ai' | 'snapshot';
  /** AI pictures: what was detected (`human`, `vehicle`, `face`, `plate`, `non_vehicle`). */
  target?: string;
}

/** Home Assistant components of a channel's camera: the picture (stream addresses as attributes) and its button. */
export function cameraComponents(topics: Topics, device: string, slug: string, node: string): Json {
  return {
    camera: {
      p: 'camera',
      // The device's main feature is named by the device alone ("Front door", not "Front door Camera").
      name: null,
      unique_id: `${node}_camera`,
      topic: topics.snapshot(device, slug),
      json_attributes_topic: topics.streams(device, slug),
    },
    snapshot: {
      p: 'button',
      name: 'Snapshot',
      unique_id: `${node}_snapshot`,
      command_topic: topics.snapshotGet(device, slug),
      payload_press: 'PRESS',
      icon: 'mdi:camera',
    },
    last_alarm: {
      p: 'image',
      name: 'Last alarm',
      unique_id: `${node}_last_alarm`,
      image_topic: topics.alarmPicture(device, slug),
      content_type: 'image/jpeg',
      json_attributes_topic: topics.alarmPictureAttributes(device, slug),
      icon: 'mdi:cctv',
    },
  };
}

export interface CameraOptions {
  link: MqttLink;
  topics: Topics;
  log: Logger;
  /** `snapshot_interval` in milliseconds; undefined: no pictures at idle. */
  intervalMs?: number;
  /** `snapshot_resolution` as configured. */
  resolution?: string;
  /** The channels with video changed: discovery is due. */
  onChange: () => void;
  /** A picture was published (tests, figures): channel and bytes. */
  onPicture?: (channel: string, bytes: number) => void;
}

/** An alarm start waiting for its picture (one per channel until published). */
interface AlarmDue {
  info: AlarmPictureInfo;
  picture?: AlarmPicture;
}

export class DeviceCameras {
  /** Channels with video, with the resolution to ask for (undefined: the device's default). */
  private readonly video = new Map<string, string | undefined>();
  /** Channels whose picture is to be read; with the alarm it is for, if any. */
  private readonly waiting = new Map<string, AlarmPictureInfo | undefined>();
  /** Alarm starts of this tick per channel, published together (setImmediate). */
  private readonly alarms = new Map<string, AlarmDue>();
  private alarmFlush?: NodeJS.Immediate;
  /** The latest alarm picture's info per channel (a lone AI picture that follows its alarm takes its type). */
  private readonly lastAlarm = new Map<string, AlarmPictureInfo>();
  private running = false;
  private loading?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Pictures published (figures). */
  pictures = 0;
  /** Alarm pictures published, and how many of them the device sent with the alarm (no Snapshot/Get). */
  alarmPictures = 0;
  sentPictures = 0;

  constructor(
    private readonly device: Device,
    private readonly opts: CameraOptions,
  ) {}

  get client(): NvrClient {
    return this.device.client;
  }

  hasVideo(channel: string): boolean {
    return this.video.has(channel);
  }

  start(): void {
    if (this.opts.intervalMs === undefined || this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      for (const ch of this.device.channels()) this.take(ch);
    }, this.opts.intervalMs);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearImmediate(this.alarmFlush);
    this.waiting.clear();
    this.alarms.clear();
  }

  /** The device (re)loaded its structure: read which channels have video, and the stream addresses. */
  load(): Promise<void> {
    this.loading ??= this.doLoad().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async doLoad(): Promise<void> {
    const { log } = this.opts;
    let changed = false;
    try {
      const range = await this.client.invoke(snapshotRange, { reset_session_timeout: false }, POLL);
      for (const [ch, offered] of snapshotChannels(range)) {
        const res = pickResolution(offered, this.opts.resolution);
        if (this.opts.resolution !== undefined && res === undefined && offered.length)
          log.warn(`snapshot_resolution ${this.opts.resolution} is not offered by ${ch} (${offered.join(', ')}): using its default`);
        if (!this.video.has(ch) || this.video.get(ch) !== res) changed = true;
        this.video.set(ch, res);
      }
    } catch (err) {
      if (!(err instanceof DeviceError && err.kind === 'unsupported')) log.warn(`snapshot range: ${errorText(err)}`);
    }
    if (changed) this.opts.onChange();
    try {
      const urls = await this.client.streamUrls(POLL);
      const { topics, link } = this.opts;
      for (const u of urls) {
        if (!this.device.channels().includes(u.channel)) continue;
        const body = JSON.stringify({ main: u.main ?? null, sub: u.sub ?? null, mobile: u.mobile ?? null });
        // Queued while the broker is away: the addresses are read again only when the channels change.
        link.publish(topics.streams(this.device.id, channelSlug(u.channel)), body, { retain: true, qos: 1, queue: true });
      }
    } catch (err) {
      if (!(err instanceof DeviceError && err.kind === 'unsupported')) log.warn(`stream addresses: ${errorText(err)}`);
    }
  }

  /**
   * Take a picture of `channel` soon (coalesced: a channel already waiting is not queued twice); else why not.
   * `forAlarm`: the picture is also that alarm's picture.
   */
  take(channel: string, forAlarm?: AlarmPictureInfo): string | undefined {
    if (this.stopped) return 'the bridge is stopping';
    if (!this.video.has(channel)) return `${this.device.id} reports no camera ${channel} with pictures`;
    if (!channelOnline(this.device.facts, channel)) return `${channel} of ${this.device.id} is offline`;
    this.waiting.set(channel, forAlarm ?? this.waiting.get(channel));
    if (!this.running) void this.drain();
    return undefined;
  }

  /**
   * An alarm started on `channel` (`picture`: the one the device sent with it), or a picture came alone (`type`
   * undefined: it belongs to the channel's latest alarm). The alarm picture goes out once the starts of this tick
   * are in: the device's picture if one of them (or a lone one) brought it, else one read.
   */
  alarm(channel: string, type: AlarmType | undefined, time: string | undefined, picture?: AlarmPicture): void {
    if (this.stopped) return;
    const due = this.alarms.get(channel);
    const info = (t: AlarmType): AlarmPictureInfo => ({
      type: t,
      time: time ?? new Date().toISOString(),
      source: picture?.source ?? 'snapshot',
      ...(picture?.target ? { target: picture.target } : {}),
    });
    if (!due) {
      const last = type ?? this.lastAlarm.get(channel)?.type;
      if (!last) return; // a lone picture of no alarm the bridge knows
      this.alarms.set(channel, { info: info(last), ...(picture ? { picture } : {}) });
    } else if (picture && (!due.picture || (picture.source === 'ai' && due.picture.source !== 'ai'))) {
      // The start that brought the (richer) picture names it.
      due.info = info(type ?? due.info.type);
      due.picture = picture;
    }
    this.alarmFlush ??= setImmediate(() => this.flushAlarms());
  }

  private flushAlarms(): void {
    this.alarmFlush = undefined;
    if (this.stopped) return;
    for (const [ch, due] of this.alarms) {
      this.alarms.delete(ch);
      this.lastAlarm.set(ch, due.info);
      if (due.picture) {
        // The device's own picture: no request, and a read still waiting for this channel is not needed.
        this.waiting.delete(ch);
        if (!this.video.has(ch)) {
          this.video.set(ch, undefined);
          this.opts.onChange();
        }
        this.sentPictures++;
        this.publishAlarm(ch, due.info, due.picture.jpeg, due.picture.object);
      } else {
        this.take(ch, due.info);
      }
    }
  }

  /** The alarm picture with its attributes (first), and the camera's latest picture. */
  private publishAlarm(ch: string, info: AlarmPictureInfo, jpeg: Buffer, object?: Buffer): void {
    const { link, topics } = this.opts;
    const slug = channelSlug(ch);
    const retained = { retain: true, qos: 1 } as const;
    link.publish(topics.alarmPictureAttributes(this.device.id, slug), JSON.stringify(info), retained);
    link.publish(topics.alarmPicture(this.device.id, slug), jpeg, retained);
    if (object) link.publish(topics.alarmPictureObject(this.device.id, slug), object, retained);
    this.alarmPictures++;
    if (info.source !== 'snapshot') this.publishSnapshot(ch, jpeg);
  }

  private publishSnapshot(ch: string, jpeg: Buffer): void {
    this.opts.link.publish(this.opts.topics.snapshot(this.device.id, channelSlug(ch)), jpeg, { retain: true, qos: 1 });
    this.pictures++;
    this.opts.onPicture?.(ch, jpeg.length);
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let ch = first(this.waiting); ch !== undefined && !this.stopped; ch = first(this.waiting)) {
        const forAlarm = this.waiting.get(ch);
        this.waiting.delete(ch);
        try {
          const shot = await readSnapshot(this.client, ch, { resolution: this.video.get(ch), priority: 'poll' });
          if (this.stopped) return;
          this.publishSnapshot(ch, shot.jpeg);
          if (forAlarm) this.publishAlarm(ch, forAlarm, shot.jpeg);
        } catch (err) {
          this.opts.log.warn(`snapshot of ${ch}: ${errorText(err)}`);
        }
      }
    } finally {
      this.running = false;
    }
  }
}

const first = (s: Map<string, unknown>): string | undefined => s.keys().next().value;
