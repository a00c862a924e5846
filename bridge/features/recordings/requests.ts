/**
 * `<base>/bridge/request/recordings`: what a device recorded, by `action` (the request API's rules: transaction,
 * response on `bridge/response/recordings`, refusals on `bridge/event`, reads open, writes only where
 * `request_api` allows writing `Playback/Tag`):
 *
 * - `days` `{month?: "YYYY-MM", channels?, kind?: "record" | "picture"}`: the days with footage and their types;
 * - `list` `{channel | channels, date? | from + to, types?, stream?: "main" | "sub"}`: segments, each with its
 *   RTSP playback URL (no credentials) and a clip request handle `{device, channel, from, to}`;
 * - `pictures` `{channel | channels, date? | from + to}`: stored pictures as references; `{picture}`: one (base64 JPEG);
 * - `tags` `{channel | channels, date? | from + to, keyword?}`; `tag_add` `{channel, time, name}`;
 *   `tag_remove` `{channel, id, time}` (as `tags` lists them).
 *
 * Every check happens before anything is sent: a channel the device does not have, times reversed or over a day,
 * an unknown type or action is refused with the reason.
 */
import {
  channelFromSlug,
  dayRange,
  DeviceError,
  hostZone,
  isChannelId,
  isoInZone,
  playbackUrl,
  playbackPlaces,
  recordTableOf,
  type PlaybackPlace,
  recordedPicture,
  recordedPictures,
  recordingDays,
  recordTags,
  searchRecordings,
  writeRecordTag,
  type RecordingContext,
} from '../../../core';
import type { Quoter } from '../../../core/quote';
import { Refusal } from '../../device/refusal';
import type { DeviceRuntime } from '../../device/runtime';
import type { Json } from '../../device/state';

export const RECORDING_ACTIONS = ['days', 'list', 'pictures', 'tags', 'tag_add', 'tag_remove'] as const;
type Action = (typeof RECORDING_ACTIONS)[number];
/** The page tag writes go to: `request_api` must allow writing it. */
export const TAG_PAGE = 'Playback/Tag';

export class RecordingRequests {
  /** Playback places per device, read from its live stream addresses once (again after a restructure). */
  private readonly places = new Map<string, Promise<Map<string, PlaybackPlace>>>();

  constructor(private readonly quoter: Quoter) {}

  forget(device: string): void {
    this.places.delete(device);
  }

  async run(rt: DeviceRuntime, msg: Json, mayWrite: (page: string) => string | undefined): Promise<unknown> {
    const device = rt.device.id;
    const action = msg.action;
    if (typeof action !== 'string' || !(RECORDING_ACTIONS as readonly string[]).includes(action))
      throw new Refusal(`"action" must be one of ${RECORDING_ACTIONS.join(', ')}`, { device });
    const ctx: RecordingContext = { zone: rt.cfg.time_zone ?? hostZone(), table: recordTableOf(rt.device.facts.channelSlots) };
    if (action === 'tag_add' || action === 'tag_remove') {
      const why = mayWrite(TAG_PAGE);
      if (why) throw new Refusal(why, { device, action });
    }
    try {
      return await this.act(rt, action as Action, msg, ctx);
    } catch (err) {
      // Core refuses bad input before sending: a refusal like the bridge's own.
      if (err instanceof DeviceError && err.kind === 'invalid_request') throw new Refusal(err.reason, { device, action });
      throw err;
    }
  }

  private async act(rt: DeviceRuntime, action: Action, msg: Json, ctx: RecordingContext): Promise<unknown> {
    const c = rt.device.client;
    const call = { priority: 'request' } as const;
    const device = rt.device.id;
    switch (action) {
      case 'days': {
        const month = msg.month ?? isoInZone(Date.now(), ctx.zone).slice(0, 7);
        const kind = msg.kind === undefined || msg.kind === 'record' ? 'Record' : msg.kind === 'picture' ? 'Picture' : undefined;
        if (!kind) throw new Refusal('"kind" must be record or picture', { device, action });
        const channels = msg.channel === undefined && msg.channels === undefined ? [] : this.channels(rt, msg);
        return { device, month, days: await recordingDays(c, { month: month as string, channels, kind }, ctx, call) };
      }
      case 'list': {
        const channels = this.channels(rt, msg);
        const types = this.types(msg, device);
        const stream = msg.stream === undefined || msg.stream === 'main' ? 'Mainstream' : msg.stream === 'sub' ? 'Substream' : undefined;
        if (!stream) throw new Refusal('"stream" must be main or sub', { device, action });
        const found = await searchRecordings(c, { channels, ...this.span(msg, ctx), types, stream }, ctx, call);
        const places = await this.placesOf(rt);
        return {
          device,
          recordings: found.map((r) => {
            const place = places.get(r.channel);
            const [from, to] = [Date.parse(r.start), Date.parse(r.end)];
            const form = ctx.table === 'ipc' ? 'ipc' : 'nvr';
            return {
              ...r,
              ...(place
                ? {
                    playback_url: playbackUrl({
                      ...place,
                      form,
                      from,
                      to,
                      zone: ctx.zone,
                      substream: stream === 'Substream',
                    }),
                  }
                : {}),
              clip: { device, channel: r.channel, from: r.start, to: r.end },
            };
          }),
        };
      }
      case 'pictures': {
        // A picture is named by the device's opaque reference, as the list gives it (the request API masks "token" keys).
        if (msg.picture !== undefined) {
          if (typeof msg.picture !== 'string') throw new Refusal('"picture" must be a picture reference from the list', { device, action });
          const p = await recordedPicture(c, msg.picture, ctx, call);
          return { device, channel: p.channel, time: p.time, image: p.jpeg.toString('base64') };
        }
        const list = await recordedPictures(c, { channels: this.channels(rt, msg), ...this.span(msg, ctx) }, ctx, call);
        return { device, overload: list.overload, pictures: list.tokens };
      }
      case 'tags': {
        if (msg.keyword !== undefined && typeof msg.keyword !== 'string') throw new Refusal('"keyword" must be text', { device, action });
        const tags = await recordTags(c, { channels: this.channels(rt, msg), ...this.span(msg, ctx), keyword: msg.keyword }, ctx, call);
        return { device, tags };
      }
      case 'tag_add':
      case 'tag_remove': {
        const [channel] = this.channels(rt, msg, true);
        if (action === 'tag_add' && typeof msg.name !== 'string')
          throw new Refusal('"name" (1-39 characters) is required', { device, action });
        if (action === 'tag_remove' && !Number.isInteger(msg.id))
          throw new Refusal('"id" (the tag id as tags lists it) is required', { device, action });
        const time = msg.time;
        if (typeof time !== 'string' && typeof time !== 'number') throw new Refusal('"time" (ISO 8601) is required', { device, action });
        const name = typeof msg.name === 'string' ? msg.name : 'tag';
        await writeRecordTag(
          c,
          action === 'tag_add' ? 'add' : 'remove',
          { channel, time, name, id: msg.id as number | undefined },
          ctx,
          call,
        );
        return { device, channel, done: action === 'tag_add' ? 'added' : 'removed' };
      }
    }
  }

  /** `channel` or `channels` (ids or slugs), each a channel this device publishes. */
  private channels(rt: DeviceRuntime, msg: Json, one = false): string[] {
    const device = rt.device.id;
    const raw = msg.channels ?? msg.channel;
    const list: unknown[] = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    if (list.length === 0) throw new Refusal('"channel" (or "channels") is required', { device });
    if (one && list.length !== 1) throw new Refusal('"channel": one channel', { device });
    const mine = rt.device.channels();
    return list.map((x) => {
      const id = typeof x === 'string' ? (isChannelId(x) ? x : channelFromSlug(x)) : undefined;
      if (!id || !mine.includes(id))
        throw new Refusal(`unknown channel "${this.quoter.quote(String(x))}" on device ${device}`, {
          device,
          channel: this.quoter.quote(String(x)),
        });
      return id;
    });
  }

  /** `date` (a whole local day), or `from` and `to`; neither: today on the device's clock. */
  private span(msg: Json, ctx: RecordingContext): { from: string | number; to: string | number } {
    if (msg.from !== undefined || msg.to !== undefined) {
      const ok = (t: unknown): t is string | number => typeof t === 'string' || typeof t === 'number';
      if (!ok(msg.from) || !ok(msg.to)) throw new Refusal('"from" and "to" go together (ISO 8601 times)');
      return { from: msg.from, to: msg.to };
    }
    const date = msg.date ?? isoInZone(Date.now(), ctx.zone).slice(0, 10);
    const day = typeof date === 'string' ? dayRange(date, ctx.zone) : undefined;
    if (!day) throw new Refusal(`"date" must be YYYY-MM-DD, got ${this.quoter.quote(JSON.stringify(date))}`);
    return day;
  }

  private types(msg: Json, device: string): string[] | undefined {
    const t = msg.types;
    if (t === undefined) return undefined;
    const list: unknown[] = Array.isArray(t) ? t : [t];
    if (!list.every((x) => typeof x === 'string')) throw new Refusal('"types" must be type names such as motion, person', { device });
    return list;
  }

  private placesOf(rt: DeviceRuntime): Promise<Map<string, PlaybackPlace>> {
    let p = this.places.get(rt.device.id);
    if (!p) {
      p = playbackPlaces(rt.device.client, rt.cfg.url, rt.device.facts.channelSlots, { priority: 'request' });
      this.places.set(rt.device.id, p);
      p.catch(() => this.places.delete(rt.device.id));
    }
    return p;
  }
}
