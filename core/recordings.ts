/**
 * Recordings, typed (vendor-facts-next §1): what a recorder recorded, found over HTTP and played over RTSP. The device's
 * local dates and times become ISO times with the device zone's offset; `record_type` masks become names by the
 * device's table (NVR or IPC); a refused search or playback (`search_failed`, `device_play_locked`) is a `busy`
 * DeviceError saying so and when to retry. Requests are checked before anything is sent: times readable, start
 * before end, at most a day, channel ids.
 */
import { isChannelId, type ChannelId } from './channels';
import { deviceDateTime, deviceTimeMs, isoInZone, monthBounds, pictureTimeMs, playbackTime } from './device-time';
import { DeviceError } from './errors';
import type { CallOptions, Invoker } from './operation';
import { readStreamUrls } from './media';
import type { ChannelSlot } from './channel-slots';
import {
  TAG_OPERATE,
  recordInfoGet,
  recordTagGet,
  recordTagSet,
  recordedPictureGet,
  searchMonthGet,
  searchRecordSearch,
  type RecordSegment,
} from './pages/recordings';
import { RECORD_TYPES, recordTypeMask, recordTypeNames, type RecordTable } from './record-types';

export { RECORD_TYPES, recordTypeMask, recordTypeNames, type RecordTable } from './record-types';
export { hostZone, isTimeZone, isoInZone } from './device-time';

/** The device's zone (IANA) and `record_type` table. */
export interface RecordingContext {
  zone: string;
  table: RecordTable;
}

/** A time as a caller gives it: ISO with an offset (`...Z`, `+01:00`), ISO without one (the device's wall clock), epoch ms or a Date. */
export type TimeInput = string | number | Date;

export interface Recording {
  channel: string;
  /** ISO with the device zone's offset. */
  start: string;
  end: string;
  /** Seconds. */
  duration: number;
  types: string[];
  /** The device's mask, as it gave it. */
  record_type: number;
  size?: number;
  record_id?: number;
  disk_event_id?: number;
  locked?: boolean;
  stream?: string;
}

/** Searches span at most a day (a day with a clock change may have 25 hours). */
const DAY_MS = 24 * 3600_000;

const refuse = (reason: string, operation = 'Search', page = 'Playback/SearchRecord') =>
  new DeviceError({ kind: 'invalid_request', error_code: 'invalid_request', reason, page, operation });

/** A caller's time as an epoch ms, or undefined. ISO without an offset is the device's wall clock. */
export function timeMs(t: unknown, zone: string): number | undefined {
  if (t instanceof Date) return Number.isFinite(t.getTime()) ? t.getTime() : undefined;
  if (typeof t === 'number') return Number.isFinite(t) ? t : undefined;
  if (typeof t !== 'string') return undefined;
  const wall = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(t.trim());
  if (wall) return deviceTimeMs(`${wall[2]}/${wall[3]}/${wall[1]}`, `${wall[4]}:${wall[5]}:${wall[6] ?? '00'}`, zone);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(t.trim())) return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A whole local day `YYYY-MM-DD` of the device: its first and last second. */
export function dayRange(date: string, zone: string): { from: number; to: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const from = m ? deviceTimeMs(`${m[2]}/${m[3]}/${m[1]}`, '00:00:00', zone) : undefined;
  const to = m ? deviceTimeMs(`${m[2]}/${m[3]}/${m[1]}`, '23:59:59', zone) : undefined;
  if (from === undefined || to === undefined || deviceDateTime(from, zone).date !== `${m![2]}/${m![3]}/${m![1]}`) return undefined;
  return { from, to };
}

/** `from`-`to` checked: both readable, start before end, at most a day (or that day's length). */
export function searchSpan(
  from: unknown,
  to: unknown,
  zone: string,
  where?: { page: string; operation: string },
): { from: number; to: number } {
  const bad = (reason: string) => refuse(reason, where?.operation, where?.page);
  const a = timeMs(from, zone);
  const b = timeMs(to, zone);
  if (a === undefined) throw bad(`from: not a time (${JSON.stringify(from)}); give ISO 8601, e.g. 2026-12-06T08:00:00+01:00`);
  if (b === undefined) throw bad(`to: not a time (${JSON.stringify(to)}); give ISO 8601, e.g. 2026-12-06T09:00:00+01:00`);
  if (b <= a) throw bad('to must be after from (the times are reversed or equal)');
  const day = dayRange(isoInZone(a, zone).slice(0, 10), zone);
  const limit = Math.max(DAY_MS, day ? day.to + 1000 - day.from : DAY_MS);
  if (b - a > limit) throw bad(`the range spans ${Math.round((b - a) / 3600_000)} h: at most a day per search`);
  return { from: a, to: b };
}

function channelList(channels: unknown, where: { page: string; operation: string }): ChannelId[] {
  const list: unknown[] = Array.isArray(channels) ? channels : [channels];
  if (list.length === 0) throw refuse('name at least one channel', where.operation, where.page);
  const bad = list.find((c) => !isChannelId(c));
  if (bad !== undefined)
    throw refuse(`not a channel id: ${JSON.stringify(bad)} (CH<n>, IP_CH<n> or WIFI_CH<n>)`, where.operation, where.page);
  return list as ChannelId[];
}

/** `search_failed` / `device_play_locked` said plainly, still `busy` with the device's wait; other errors unchanged. */
function plainRefusal(err: unknown): unknown {
  if (!(err instanceof DeviceError) || (err.error_code !== 'search_failed' && err.error_code !== 'device_play_locked')) return err;
  const wait = err.retryAfterMs !== undefined ? `; retry in ${Math.ceil(err.retryAfterMs / 1000)} s` : '; retry later';
  const why =
    err.error_code === 'search_failed'
      ? `the device refused the search (${err.reason})${wait}`
      : `the device is busy playing back elsewhere and refuses web playback (${err.reason})${wait}`;
  return new DeviceError({
    kind: 'busy',
    error_code: err.error_code,
    reason: why,
    status: err.status,
    page: err.page,
    operation: err.operation,
    retryAfterMs: err.retryAfterMs,
    cause: err,
  });
}

async function call<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw plainRefusal(err);
  }
}

const span = (from: number, to: number, zone: string) => {
  const a = deviceDateTime(from, zone);
  const b = deviceDateTime(to, zone);
  return { start_date: a.date, start_time: a.time, end_date: b.date, end_time: b.time };
};

export interface RecordingSearch {
  channels: string | string[];
  from: TimeInput;
  to: TimeInput;
  /** Type names of the device's table (`motion`, `person`...); none or `all`: every type. */
  types?: string[];
  stream?: 'Mainstream' | 'Substream';
}

/** The segment, typed: ISO times, type names. Undefined when its times are not the device's forms. */
export function recordingOf(s: RecordSegment, ctx: RecordingContext): Recording | undefined {
  const a = deviceTimeMs(s.start_date, s.start_time, ctx.zone);
  const b = deviceTimeMs(s.end_date, s.end_time, ctx.zone);
  if (a === undefined || b === undefined) return undefined;
  const size = s.size ?? s.Size;
  return {
    channel: s.channel,
    start: isoInZone(a, ctx.zone),
    end: isoInZone(b, ctx.zone),
    duration: Math.max(0, Math.round((b - a) / 1000)),
    types: recordTypeNames(s.record_type, ctx.table),
    record_type: s.record_type,
    ...(size !== undefined ? { size } : {}),
    ...(s.record_id !== undefined ? { record_id: s.record_id } : {}),
    ...(s.disk_event_id !== undefined ? { disk_event_id: s.disk_event_id } : {}),
    ...(s.lock !== undefined ? { locked: s.lock } : {}),
    ...(s.stream_mode !== undefined ? { stream: s.stream_mode } : {}),
  };
}

/** `Playback/SearchRecord/Search`: the segments of channels in a range (at most a day), oldest first per channel. */
export async function searchRecordings(c: Invoker, q: RecordingSearch, ctx: RecordingContext, opts?: CallOptions): Promise<Recording[]> {
  const where = { page: 'Playback/SearchRecord', operation: 'Search' };
  const channels = channelList(q.channels, where);
  const { from, to } = searchSpan(q.from, q.to, ctx.zone, where);
  const mask = recordTypeMask(q.types, ctx.table);
  if ('unknown' in mask)
    throw refuse(
      `unknown recording type ${mask.unknown.join(', ')} (${ctx.table.toUpperCase()} types: all, ${Object.keys(RECORD_TYPES[ctx.table]).join(', ')})`,
    );
  const answer = await call(() =>
    c.invoke(
      searchRecordSearch,
      { channel: channels, ...span(from, to, ctx.zone), record_type: mask.mask, stream_mode: q.stream ?? 'Mainstream' },
      opts,
    ),
  );
  return answer.record.flat().flatMap((s) => recordingOf(s, ctx) ?? []);
}

export interface RecordingDay {
  /** `YYYY-MM-DD`, the device's calendar. */
  date: string;
  types: string[];
}

/** `Playback/SearchMonth/Get`: the days of a month (`YYYY-MM`) with footage (`Record`) or pictures (`Picture`). */
export async function recordingDays(
  c: Invoker,
  q: { month: string; channels?: string[]; kind?: 'Record' | 'Picture'; stream?: 'Mainstream' | 'Substream' },
  ctx: RecordingContext,
  opts?: CallOptions,
): Promise<RecordingDay[]> {
  const where = { page: 'Playback/SearchMonth', operation: 'Get' };
  const bounds = typeof q.month === 'string' ? monthBounds(q.month, ctx.zone) : undefined;
  if (!bounds) throw refuse(`month: ${JSON.stringify(q.month)} is not YYYY-MM`, where.operation, where.page);
  const channels = q.channels === undefined || q.channels.length === 0 ? [] : channelList(q.channels, where);
  const [year, month] = q.month.split('-');
  const answer = await call(() =>
    c.invoke(
      searchMonthGet,
      { channel: channels, search_type: q.kind ?? 'Record', start_date: `${month}/01/${year}`, stream_type: q.stream ?? 'Mainstream' },
      opts,
    ),
  );
  const days = new Date(Date.UTC(+year, +month, 0)).getUTCDate();
  return answer.is_has_rec.flatMap((has, i) =>
    has === 1 && i < days
      ? [{ date: `${q.month}-${String(i + 1).padStart(2, '0')}`, types: recordTypeNames(answer.record_type?.[i] ?? 0, ctx.table) }]
      : [],
  );
}

export interface RecordedPictures {
  /** More than the device lists (5000). */
  overload: boolean;
  /** Opaque tokens, one per picture, in the order asked for. */
  tokens: string[];
}

/** `Playback/Picture/Get`, first phase: the stored pictures of channels in a range (at most a day). */
export async function recordedPictures(
  c: Invoker,
  q: { channels: string | string[]; from: TimeInput; to: TimeInput; newestFirst?: boolean },
  ctx: RecordingContext,
  opts?: CallOptions,
): Promise<RecordedPictures> {
  const where = { page: 'Playback/Picture', operation: 'Get' };
  const channels = channelList(q.channels, where);
  const { from, to } = searchSpan(q.from, q.to, ctx.zone, where);
  const answer = await call(() =>
    c.invoke(
      recordedPictureGet,
      { channel: channels, ...span(from, to, ctx.zone), record_type: 0x7ffff, pic_sort: q.newestFirst ? 1 : 0 },
      opts,
    ),
  );
  return { overload: answer.overload ?? false, tokens: (answer.all_pic_info ?? []).map((p) => p.pic_info) };
}

/** `Playback/Picture/Get`, second phase: one stored picture by its token. */
export async function recordedPicture(
  c: Invoker,
  token: string,
  ctx: RecordingContext,
  opts?: CallOptions,
): Promise<{ channel: string; time?: string; jpeg: Buffer }> {
  if (typeof token !== 'string' || token === '')
    throw refuse('a picture token (from the picture list) is required', 'Get', 'Playback/Picture');
  const answer = await call(() => c.invoke(recordedPictureGet, { pic_info: token }, opts));
  const p = answer.picture;
  if (!p)
    throw new DeviceError({
      kind: 'invalid_answer',
      error_code: 'no_picture',
      reason: 'the device answered no picture',
      page: 'Playback/Picture',
      operation: 'Get',
    });
  const ms = pictureTimeMs(p.time, ctx.zone);
  return { channel: p.channel, ...(ms !== undefined ? { time: isoInZone(ms, ctx.zone) } : {}), jpeg: Buffer.from(p.image, 'base64') };
}

export interface RecordTag {
  channel: string;
  /** The device's `label_id`: with the channel and time, what names a tag to rename or remove it. */
  id: number;
  time: string;
  name: string;
  record_id?: number;
}

/** `Playback/Tag/Get`: bookmarks of channels in a range (at most a day), optionally those whose name holds `keyword`. */
export async function recordTags(
  c: Invoker,
  q: { channels: string | string[]; from: TimeInput; to: TimeInput; keyword?: string },
  ctx: RecordingContext,
  opts?: CallOptions,
): Promise<RecordTag[]> {
  const where = { page: 'Playback/Tag', operation: 'Get' };
  const channels = channelList(q.channels, where);
  const { from, to } = searchSpan(q.from, q.to, ctx.zone, where);
  const answer = await call(() =>
    c.invoke(recordTagGet, { ...span(from, to, ctx.zone), channel: channels, Keyword: q.keyword ?? '' }, opts),
  );
  return answer.all_tag_info.flatMap(({ tag_info: t }) => {
    const ms = deviceTimeMs(t.Tag_date, t.Tag_time, ctx.zone);
    if (ms === undefined) return [];
    return [
      {
        channel: t.channel,
        id: t.label_id,
        time: isoInZone(ms, ctx.zone),
        name: t.Tag_name,
        ...(t.record_id !== undefined ? { record_id: t.record_id } : {}),
      },
    ];
  });
}

/** `Playback/Tag/Set`: add a bookmark at a time, rename or remove one (named by channel, id and time, as listed). */
export async function writeRecordTag(
  c: Invoker,
  op: keyof typeof TAG_OPERATE,
  t: { channel: string; time: TimeInput; name: string; id?: number; record_id?: number },
  ctx: RecordingContext,
  opts?: CallOptions,
): Promise<void> {
  const where = { page: 'Playback/Tag', operation: 'Set' };
  const [channel] = channelList(t.channel, where);
  const ms = timeMs(t.time, ctx.zone);
  if (ms === undefined) throw refuse(`time: not a time (${JSON.stringify(t.time)})`, where.operation, where.page);
  if (op !== 'add' && !Number.isInteger(t.id)) throw refuse('id: the tag id (label_id) as listed is required', where.operation, where.page);
  const at = deviceDateTime(ms, ctx.zone);
  await call(() =>
    c.invoke(
      recordTagSet,
      {
        Tag_name: t.name,
        Tag_date: at.date,
        Tag_time: at.time,
        label_id: t.id ?? 0,
        record_id: t.record_id ?? 0,
        operate: TAG_OPERATE[op],
        channel: [channel],
      },
      // The Range of this page is not in the vendor's pages; the request schema checks the name's length.
      { ...opts, skipRangeCheck: true },
    ),
  );
}

/** `SystemInfo/Record/Get`: per channel whether it records now. */
export async function recordingNow(c: Invoker, opts?: CallOptions): Promise<Record<string, boolean>> {
  const answer = await c.invoke(recordInfoGet, {}, opts);
  return Object.fromEntries(Object.entries(answer.channel_info).map(([ch, info]) => [ch, info.record_state === 'On']));
}

/**
 * The RTSP playback URL (53280177134), without credentials (the live stream addresses carry none either):
 * `nvr` `/rtsp/playback?...&localtime=true` with the device's wall clock; `ipc` the same path in UTC (327DE
 * platform); `ipc_cam` `/cam/playback` in UTC without `subtype`. `channel` is the stream channel number (from 1).
 */
export function playbackUrl(p: {
  host: string;
  port: number;
  channel: number;
  form: 'nvr' | 'ipc' | 'ipc_cam';
  from: number;
  to: number;
  zone: string;
  substream?: boolean;
}): string {
  const local = p.form === 'nvr';
  const time = (ms: number) => playbackTime(ms, local ? p.zone : 'UTC');
  const host = p.host.includes(':') && !p.host.startsWith('[') ? `[${p.host}]` : p.host;
  const q = [
    `channel=${p.channel}`,
    ...(p.form === 'ipc_cam' ? [] : [`subtype=${p.substream ? 1 : 0}`]),
    `starttime=${time(p.from)}`,
    `endtime=${time(p.to)}`,
  ];
  if (local) q.push('localtime=true');
  return `rtsp://${host}:${p.port}/${p.form === 'ipc_cam' ? 'cam' : 'rtsp'}/playback?${q.join('&')}`;
}

/** The vendor's record_type table of a device: a camera (one channel slot) has the IPC table, a recorder the NVR one. */
export function recordTableOf(slots: readonly ChannelSlot[] | undefined): RecordTable {
  return slots && slots.length === 1 ? 'ipc' : 'nvr';
}

/** Where a channel's playback is served: the RTSP host, port and stream channel number of its live stream. */
export interface PlaybackPlace {
  host: string;
  port: number;
  channel: number;
}

/**
 * Each channel's playback place, from the live addresses the device gives (`Preview/StreamUrl`); a device without
 * that page: `deviceUrl`'s host, the RTSP default port and the slot's number (1-based, the channel list's order).
 */
export async function playbackPlaces(
  c: Invoker,
  deviceUrl: string,
  slots: readonly ChannelSlot[] = [],
  opts?: CallOptions,
): Promise<Map<string, PlaybackPlace>> {
  const out = new Map<string, PlaybackPlace>();
  const bare = (h: string) => h.replace(/^\[|\]$/g, '');
  try {
    for (const u of await readStreamUrls(c, opts)) {
      const url = u.main && URL.canParse(u.main) ? new URL(u.main) : undefined;
      const channel = Number(url?.searchParams.get('channel'));
      if (url && Number.isInteger(channel) && channel > 0)
        out.set(u.channel, { host: bare(url.hostname), port: Number(url.port) || 554, channel });
    }
  } catch (err) {
    if (!(err instanceof DeviceError && err.kind === 'unsupported')) throw err;
  }
  const host = bare(new URL(deviceUrl).hostname);
  slots.forEach((s, i) => {
    if (!out.has(s.id)) out.set(s.id, { host, port: 554, channel: i + 1 });
  });
  return out;
}
