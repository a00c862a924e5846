/**
 * `<base>/bridge/request/clip` `{device, channel, from, to}`: the range recorded from the device's RTSP playback to an
 * MP4 under `clips.folder` (`<folder>/<device>/<channel>/<YYYY-MM-DD>/<HHMMSS>_clip.mp4`, the device's local date and
 * time), without re-encoding (core/clip.ts); answered with its path, size and duration. One playback at a time per
 * device (some recorders play back in one place only), the others wait their turn; a refused or failed playback is
 * reported on `bridge/event` (`clip_failed`) with the device's reason and leaves no file. Checked before anything
 * starts: clips configured, a channel of the device, times readable, in order, at most an hour (the request API's
 * answer waits for the clip).
 */
import { resolve, sep } from 'node:path';
import {
  DeviceError,
  channelFromSlug,
  channelSlug,
  exportClip,
  hostZone,
  isChannelId,
  isoInZone,
  playbackPlaces,
  playbackUrl,
  recordTableOf,
  timeMs,
  type PlaybackPlace,
} from '../../../core';
import type { Quoter } from '../../../core/quote';
import { Refusal } from '../../device/refusal';
import type { DeviceRuntime } from '../../device/runtime';
import type { Json } from '../../device/state';

const MAX_CLIP_MS = 3600_000;

export class ClipRequests {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly places = new Map<string, Promise<Map<string, PlaybackPlace>>>();

  constructor(
    private readonly o: {
      quoter: Quoter;
      clips?: { folder: string; ffmpeg?: string };
      event: (type: string, data: Record<string, unknown>) => void;
    },
  ) {}

  forget(device: string): void {
    this.places.delete(device);
  }

  async run(rt: DeviceRuntime, msg: Json): Promise<unknown> {
    const device = rt.device.id;
    const clips = this.o.clips;
    if (!clips) throw new Refusal('clips are off: set clips.folder in the configuration', { device });
    const raw = msg.channel;
    const channel = typeof raw === 'string' ? (isChannelId(raw) ? raw : channelFromSlug(raw)) : undefined;
    if (!channel || !rt.device.channels().includes(channel))
      throw new Refusal(`unknown channel "${this.o.quoter.quote(String(raw))}" on device ${device}`, { device });
    const zone = rt.cfg.time_zone ?? hostZone();
    const from = timeMs(msg.from, zone);
    const to = timeMs(msg.to, zone);
    if (from === undefined || to === undefined) throw new Refusal('"from" and "to" must be ISO 8601 times', { device, channel });
    if (to <= from) throw new Refusal('"to" must be after "from" (the times are reversed or equal)', { device, channel });
    if (to - from > MAX_CLIP_MS) throw new Refusal('a clip is at most an hour long', { device, channel });
    const local = isoInZone(from, zone);
    const folder = resolve(clips.folder);
    const out = resolve(folder, device, channelSlug(channel), local.slice(0, 10), `${local.slice(11, 19).replace(/:/g, '')}_clip.mp4`);
    // Built from the device id, a channel slug and digits: inside the folder; checked all the same.
    if (!out.startsWith(folder + sep)) throw new Refusal('the clip path would be outside clips.folder', { device, channel });
    // One playback at a time per device: this clip waits for the one before.
    const before = this.queues.get(device) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.record(rt, channel, from, to, zone, out, clips.ffmpeg));
    this.queues.set(device, mine);
    try {
      return await mine;
    } finally {
      if (this.queues.get(device) === mine) this.queues.delete(device);
    }
  }

  private async record(rt: DeviceRuntime, channel: string, from: number, to: number, zone: string, out: string, ffmpeg?: string) {
    const device = rt.device.id;
    let place = this.places.get(device);
    if (!place) {
      place = playbackPlaces(rt.device.client, rt.cfg.url, rt.device.facts.channelSlots, { priority: 'request' });
      this.places.set(device, place);
      place.catch(() => this.places.delete(device));
    }
    const where = (await place).get(channel);
    if (!where) throw new Refusal(`${channel} of ${device} has no playback address`, { device, channel });
    const form = recordTableOf(rt.device.facts.channelSlots) === 'ipc' ? 'ipc' : 'nvr';
    const url = playbackUrl({ ...where, form, from, to, zone });
    try {
      const clip = await exportClip({
        url,
        username: rt.cfg.username,
        password: rt.cfg.password,
        seconds: (to - from) / 1000,
        out,
        ffmpeg,
      });
      return { device, channel, from: isoInZone(from, zone), to: isoInZone(to, zone), ...clip };
    } catch (err) {
      const reason = err instanceof DeviceError ? err.reason : String(err);
      this.o.event('clip_failed', { device, channel, reason: this.o.quoter.redact(reason) });
      throw err;
    }
  }
}
