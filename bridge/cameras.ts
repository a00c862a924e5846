/**
 * Cameras of one device: for every channel with video (the channels the device's Snapshot Range lists, kept once
 * seen, so a camera that goes offline keeps its entity), the picture as JPEG bytes on `<dev>/<ch>/snapshot`
 * (retained) and the stream addresses as `{"main", "sub", "mobile"}` on `<dev>/<ch>/streams` (retained, never
 * with credentials: the camera entity's attributes).
 *
 * Budget: one picture in flight per device; pictures asked for meanwhile wait as a set of channels, so a storm of
 * alarm starts on one channel costs at most one more picture; every read goes at priority `poll` (commands
 * overtake it); nothing is read at idle unless `snapshot_interval` is set.
 */
import { channelSlug, DeviceError, readSnapshot, readStreamUrls, snapshotRange, type NvrClient } from '../core';
import { isPlainObject } from '../core/json';
import type { Device } from './device';
import { errorText, type Logger } from './log';
import type { MqttLink } from './mqtt';
import { channelOnline, type Json } from './state';
import type { Topics } from './topics';

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

/** Home Assistant components of a channel's camera: the picture (stream addresses as attributes) and its button. */
export function cameraComponents(topics: Topics, device: string, slug: string, node: string): Json {
  return {
    camera: {
      p: 'camera',
      name: 'Camera',
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

export class DeviceCameras {
  /** Channels with video, with the resolution to ask for (undefined: the device's default). */
  private readonly video = new Map<string, string | undefined>();
  private readonly waiting = new Set<string>();
  private running = false;
  private loading?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Pictures published (figures). */
  pictures = 0;

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
    this.waiting.clear();
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
      const urls = await readStreamUrls(this.client, POLL);
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

  /** Take a picture of `channel` soon (coalesced: a channel already waiting is not queued twice); else why not. */
  take(channel: string): string | undefined {
    if (this.stopped) return 'the bridge is stopping';
    if (!this.video.has(channel)) return `${this.device.id} reports no camera ${channel} with pictures`;
    if (!channelOnline(this.device.model, channel)) return `${channel} of ${this.device.id} is offline`;
    this.waiting.add(channel);
    if (!this.running) void this.drain();
    return undefined;
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let ch = first(this.waiting); ch !== undefined && !this.stopped; ch = first(this.waiting)) {
        this.waiting.delete(ch);
        try {
          const shot = await readSnapshot(this.client, ch, { resolution: this.video.get(ch), priority: 'poll' });
          if (this.stopped) return;
          this.opts.link.publish(this.opts.topics.snapshot(this.device.id, channelSlug(ch)), shot.jpeg, { retain: true, qos: 1 });
          this.pictures++;
          this.opts.onPicture?.(ch, shot.jpeg.length);
        } catch (err) {
          this.opts.log.warn(`snapshot of ${ch}: ${errorText(err)}`);
        }
      }
    } finally {
      this.running = false;
    }
  }
}

const first = (s: Set<string>): string | undefined => s.values().next().value;
