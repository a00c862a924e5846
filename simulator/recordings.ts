/**
 * What the recorder recorded (vendor-facts-next §1): a recording log per channel, consistent with the alarms raised
 * (each alarm edge closes the running segment and opens one of the alarm's type, as the vendor's SearchRecord sample
 * shows: one `record_id` per file, `disk_event_id` counting the segments inside it), the pictures taken at alarm
 * starts, bookmarks (Record Tag) and the "recording now" state. Served in the vendor's shapes:
 * `Playback/SearchMonth/Get`, `Playback/SearchRecord/Search`, `Playback/Picture/Get` (both phases),
 * `Playback/Tag/Get|Set`, `SystemInfo/Record/Get`. Times are the device's local time (`timeZone` option).
 */
import type { AlarmRequest, AlarmType } from './alarms';
import type { Device } from './device';
import { Reply, failure, paramError, success } from './envelope';
import { deviceDate, localParts, localToMs, parseDeviceTime, pictureTime } from './local-time';
import { channelPicture } from './pictures';
import type { Route } from './route';

/** `record_type` bits of the vendor's two tables (SearchRecord/Search page): NVR and IPC numbering. */
export const RECORD_BITS = {
  nvr: { normal: 0x1, motion: 0x4, io: 0x8, intelligent: 0x80, fd: 0x2000, pir: 0x10000, sound: 0x20000, person: 0x200000 },
  ipc: { normal: 0x1, motion: 0x2, io: 0x4, pea_line: 0x8, pea: 0x40, fd: 0x100, pir: 0x400, sound: 0x1000, smart: 0x80000 },
} as const;

/** Picture/Get's `record_type` (its own table): Normal 0x1, Motion 0x4, IO 0x8, PIR 0x10000, Manual 0x40000. */
const PICTURE_BITS: Partial<Record<AlarmType, number>> = { motion: 0x4, io: 0x8, pir: 0x10000 };
const PICTURE_OTHER = 0x1;

/** The bit a recording of each alarm carries, per table. */
function recordBit(profile: 'nvr' | 'ipc', type: AlarmType): number {
  if (profile === 'nvr') {
    const b = RECORD_BITS.nvr;
    const t: Partial<Record<AlarmType, number>> = { motion: b.motion, io: b.io, pir: b.pir, face: b.fd, sound: b.sound, person: b.person };
    return t[type] ?? b.intelligent;
  }
  const b = RECORD_BITS.ipc;
  const t: Partial<Record<AlarmType, number>> = {
    motion: b.motion,
    io: b.io,
    pir: b.pir,
    face: b.fd,
    sound: b.sound,
    line_crossing: b.pea_line,
    intrusion: b.pea,
  };
  return t[type] ?? b.smart;
}

interface Segment {
  start: number;
  /** undefined: recording now. */
  end?: number;
  type: number;
  record_id: number;
  disk_event_id: number;
}

interface Picture {
  channel: string;
  at: number;
  type: number;
  label: string;
}

interface Tag {
  channel: string;
  label_id: number;
  record_id: number;
  at: number;
  name: string;
}

/** Bytes a second of recording takes: main stream 2 Mbps, sub stream 1024 Kbps (SystemInfo/Record sample). */
const BYTES_PER_S = { Mainstream: 256_000, Substream: 128_000 } as const;
/** Normal recording is written in files of this length (the vendor's sample: about 30 minutes each). */
const FILE_MS = 30 * 60_000;
const UINT32_MAX = 4294967295;

export interface RecordingOptions {
  zone: string;
  /** How far back the log starts (default 26 h: yesterday has footage too). */
  historyMs?: number;
  now?: () => number;
}

export class Recordings {
  private readonly log = new Map<string, Segment[]>();
  private readonly alarms = new Map<string, Set<AlarmType>>();
  private readonly pictures: Picture[] = [];
  private readonly tags: Tag[] = [];
  private readonly off = new Set<string>();
  private nextRecordId = 500;
  readonly zone: string;
  private readonly now: () => number;

  constructor(
    private readonly device: Device,
    o: RecordingOptions,
  ) {
    this.zone = o.zone;
    this.now = o.now ?? Date.now;
    localParts(0, this.zone); // throws RangeError on an unknown zone, at start
    const now = this.now();
    const from = now - (o.historyMs ?? 26 * 3600_000);
    for (const ch of device.profile.channels.filter((c) => c.configured)) {
      const segs: Segment[] = [];
      for (let t = from; t < now; t += FILE_MS)
        segs.push({
          start: t,
          end: t + FILE_MS < now ? t + FILE_MS : undefined,
          type: 1,
          record_id: this.nextRecordId++,
          disk_event_id: 0,
        });
      this.log.set(ch.id, segs);
    }
  }

  private get table(): 'nvr' | 'ipc' {
    return this.device.profile.name === 'ipc' ? 'ipc' : 'nvr';
  }

  /** Whether a channel records now: configured, online and not switched off with setRecording(). */
  recording(id: string): boolean {
    return this.log.has(id) && this.device.isOnline(id) && !this.off.has(id);
  }

  /** Switch a channel's recording off or on (a schedule, the user). */
  setRecording(id: string, on: boolean): void {
    const segs = this.log.get(id);
    if (!segs) throw new Error(`setRecording: ${id} is not a configured channel`);
    const now = this.now();
    if (!on) {
      this.off.add(id);
      const open = segs.at(-1);
      if (open && open.end === undefined) open.end = now;
    } else if (this.off.delete(id)) this.open(id, now, false);
  }

  /** An alarm edge: the running segment ends, one of the channel's active alarms' types starts (Normal when none). */
  alarm(a: AlarmRequest): void {
    if (a.type === 'video_loss') return;
    const active = this.alarms.get(a.channel) ?? new Set<AlarmType>();
    this.alarms.set(a.channel, active);
    if (a.active === active.has(a.type)) return;
    if (a.active) active.add(a.type);
    else active.delete(a.type);
    const now = this.now();
    if (a.active) this.pictures.push({ channel: a.channel, at: now, type: PICTURE_BITS[a.type] ?? PICTURE_OTHER, label: a.type });
    if (this.recording(a.channel)) this.open(a.channel, now, true);
  }

  /** Close the running segment at `now` and open the next: in the same file after an alarm edge, else a new file. */
  private open(id: string, now: number, sameFile: boolean): void {
    const segs = this.log.get(id)!;
    const last = segs.at(-1);
    if (last && last.end === undefined) {
      if (last.start === now) segs.pop();
      else last.end = now;
    }
    const prev = segs.at(-1);
    const type = [...(this.alarms.get(id) ?? [])].reduce((m, t) => m | recordBit(this.table, t), 0) || 1;
    const keep = sameFile && prev !== undefined && prev.end === now;
    segs.push({
      start: now,
      type,
      record_id: keep ? prev.record_id : this.nextRecordId++,
      disk_event_id: keep ? prev.disk_event_id + 1 : 0,
    });
  }

  private channels(v: unknown, emptyIsAll: boolean): string[] | string {
    if (!Array.isArray(v) || v.some((c) => typeof c !== 'string')) return 'channel: must be an array of channel names';
    const known = [...this.log.keys()];
    if (v.length === 0) return emptyIsAll ? known : 'channel: give at least one channel';
    // Any channel of the device may be asked for (the vendor's samples list CH1-CH16); an empty slot has no footage.
    const bad = (v as string[]).find((c) => !this.device.channel(c));
    return bad !== undefined ? `channel: unknown channel ${JSON.stringify(bad)}` : (v as string[]);
  }

  private range(data: Record<string, unknown>): { from: number; to: number } | string {
    const from = parseDeviceTime(data.start_date, data.start_time, this.zone, 'start');
    if (typeof from === 'string') return from;
    const to = parseDeviceTime(data.end_date, data.end_time, this.zone, 'end');
    if (typeof to === 'string') return to;
    return to < from ? 'end before start' : { from, to: to + 999 };
  }

  /** `Playback/SearchMonth/Get`: per day of the month of `start_date`, whether it has footage and its types. */
  searchMonth(data: Record<string, unknown>): Reply {
    const chans = this.channels(data.channel ?? [], true);
    if (typeof chans === 'string') return paramError(chans);
    const kinds = ['Record', 'Picture', 'FD', 'PVD', 'PidLcd', 'Repeat', 'FaceAttendance'];
    if (data.search_type !== undefined && !kinds.includes(data.search_type as string))
      return paramError(`search_type: one of ${kinds.join(', ')}`);
    if (data.stream_type !== undefined && !(data.stream_type === 'Mainstream' || data.stream_type === 'Substream'))
      return paramError('stream_type: Mainstream or Substream');
    const at = parseDeviceTime(data.start_date, '00:00:00', this.zone, 'start');
    if (typeof at === 'string') return paramError(at);
    const { year, month } = localParts(at, this.zone);
    const is_has_rec = new Array<number>(31).fill(0);
    const record_type = new Array<number>(31).fill(0);
    const mark = (ms: number, type: number) => {
      const p = localParts(ms, this.zone);
      if (p.year !== year || p.month !== month) return;
      is_has_rec[p.day - 1] = 1;
      record_type[p.day - 1] |= type;
    };
    const search = data.search_type ?? 'Record';
    if (search === 'Record') {
      const monthStart = localToMs({ year, month, day: 1, hour: 0, minute: 0, second: 0 }, this.zone);
      for (const id of chans)
        for (const s of this.log.get(id) ?? []) {
          const end = s.end ?? this.now();
          // every day the segment touches
          for (let t = Math.max(s.start, monthStart); t < end; t += 3600_000) mark(t, s.type);
          mark(end - 1, s.type);
        }
    } else if (search === 'Picture') {
      for (const p of this.pictures) if (chans.includes(p.channel)) mark(p.at, p.type);
    }
    return success({ is_has_rec, record_type });
  }

  /** `Playback/SearchRecord/Search`: the segments overlapping the range whose type has a bit of `record_type`, one array per channel. */
  search(data: Record<string, unknown>): Reply {
    const chans = this.channels(data.channel, false);
    if (typeof chans === 'string') return paramError(chans);
    const r = this.range(data);
    if (typeof r === 'string') return paramError(r);
    const mask = data.record_type;
    if (typeof mask !== 'number' || !Number.isInteger(mask) || mask < 0 || mask > UINT32_MAX)
      return paramError('record_type: an int mask 0-4294967295');
    if (data.record_type_ex !== undefined && !(Array.isArray(data.record_type_ex) && data.record_type_ex.every(Number.isInteger)))
      return paramError('record_type_ex: an int array');
    const mode = data.stream_mode ?? 'Mainstream';
    if (mode !== 'Mainstream' && mode !== 'Substream') return paramError('stream_mode: Mainstream or Substream');
    if (this.table === 'ipc' && mode !== 'Mainstream') return success({ record: chans.map(() => []) }); // IPC records the main stream only
    if (data.smart_region !== undefined && !Array.isArray(data.smart_region)) return paramError('smart_region: an int array');
    const now = this.now();
    const record = chans.map((id) =>
      (this.log.get(id) ?? [])
        .filter((s) => (s.type & mask) !== 0 && s.start <= r.to && (s.end ?? now) > r.from)
        .map((s) => {
          const end = s.end ?? now;
          const a = deviceDate(s.start, this.zone);
          const b = deviceDate(end, this.zone);
          return {
            channel: id,
            stream_mode: mode,
            record_type: s.type,
            start_date: a.date,
            start_time: a.time,
            end_date: b.date,
            end_time: b.time,
            record_id: s.record_id,
            disk_event_id: s.disk_event_id,
            size: Math.round(((end - s.start) / 1000) * BYTES_PER_S[mode]),
            lock: false,
            new_record_type: s.type === 1 ? 'IN' : 'IMN',
          };
        }),
    );
    return success({ record });
  }

  /** `Playback/Picture/Get`: the first call lists the pictures as opaque tokens, a call with one token answers that picture. */
  picture(data: Record<string, unknown>): Reply {
    const echo = data.msg_type !== undefined ? { msg_type: data.msg_type } : {};
    if (data.pic_info !== undefined) {
      const p = typeof data.pic_info === 'string' ? this.pictureOf(data.pic_info) : undefined;
      if (!p) return paramError('pic_info: not a picture of this device');
      const size = [Number(data.pic_width) || 640, Number(data.pic_height) || 480] as [number, number];
      const image = channelPicture(size, {
        channel: p.channel,
        name: this.device.channelName(p.channel),
        now: new Date(p.at),
        shows: `Alarm: ${p.label}`,
        comment: `recorded ${p.channel} ${p.label} ${p.at}`,
      });
      return success({ ...echo, picture: { channel: p.channel, time: pictureTime(p.at, this.zone), image: image.toString('base64') } });
    }
    const chans = this.channels(data.channel, false);
    if (typeof chans === 'string') return paramError(chans);
    const r = this.range(data);
    if (typeof r === 'string') return paramError(r);
    // The table types record_type and pic_sort as strings, the sample sends ints: both are the device's words.
    const mask = Number(data.record_type ?? 0x7ffff);
    if (!Number.isInteger(mask) || mask < 0 || mask > UINT32_MAX) return paramError('record_type: an int mask');
    const sort = Number(data.pic_sort ?? 0);
    if (sort !== 0 && sort !== 1) return paramError('pic_sort: 0 (oldest first) or 1 (newest first)');
    const found = this.pictures
      .map((p, i) => ({ p, i }))
      .filter(({ p }) => chans.includes(p.channel) && (p.type & mask) !== 0 && p.at >= r.from && p.at <= r.to);
    if (sort === 1) found.reverse();
    const listed = found.slice(0, 5000);
    return success({
      ...echo,
      overload: found.length > 5000,
      all_pic_num: listed.length,
      all_pic_info: listed.map(({ i }) => ({ pic_info: this.tokenOf(i) })),
    });
  }

  private tokenOf(i: number): string {
    const b = Buffer.alloc(16);
    b.writeUInt8(1, 0);
    b.writeUInt32LE(i, 4);
    b.writeUInt32LE(Math.floor(this.pictures[i].at / 1000), 8);
    return b.toString('base64');
  }

  private pictureOf(token: string): Picture | undefined {
    const b = Buffer.from(token, 'base64');
    if (b.length !== 16 || b[0] !== 1) return undefined;
    const p = this.pictures[b.readUInt32LE(4)];
    return p && Math.floor(p.at / 1000) === b.readUInt32LE(8) ? p : undefined;
  }

  /** `Playback/Tag/Get`: the bookmarks of the channels in the range whose name holds `Keyword`. */
  tagGet(data: Record<string, unknown>): Reply {
    const chans = this.channels(data.channel, true);
    if (typeof chans === 'string') return paramError(chans);
    const r = this.range(data);
    if (typeof r === 'string') return paramError(r);
    const key = data.Keyword ?? '';
    if (typeof key !== 'string') return paramError('Keyword: a string');
    const found = this.tags.filter((t) => chans.includes(t.channel) && t.at >= r.from && t.at <= r.to && t.name.includes(key));
    return success({
      'Pre-play': '30s',
      'Post-play': '30s',
      all_tag_num: found.length,
      all_tag_info: found.map((t) => {
        const d = deviceDate(t.at, this.zone);
        return {
          tag_info: {
            Tag_date: d.date,
            Tag_time: d.time,
            channel: t.channel,
            chNum: this.device.channel(t.channel)!.index - 1,
            label_id: t.label_id,
            record_id: t.record_id,
            Tag_name: t.name,
          },
        };
      }),
    });
  }

  /** `Playback/Tag/Set`: `operate` 0 adds, 1 deletes, 2 renames (the page lists no values; a hardware client's notes). */
  tagSet(data: Record<string, unknown>): Reply {
    const chans = this.channels(data.channel, false);
    if (typeof chans === 'string') return paramError(chans);
    if (chans.length !== 1) return paramError('channel: one channel per tag');
    const [channel] = chans;
    const op = data.operate;
    if (op !== 0 && op !== 1 && op !== 2) return paramError('operate: 0 add, 1 delete, 2 rename');
    const name = data.Tag_name;
    if (op !== 1 && (typeof name !== 'string' || name.length < 1 || name.length > 39)) return paramError('Tag_name: 1-39 characters');
    if (!Number.isInteger(data.label_id) || !Number.isInteger(data.record_id)) return paramError('label_id, record_id: ints');
    if (op === 0) {
      const at = parseDeviceTime(data.Tag_date, data.Tag_time, this.zone, 'Tag');
      if (typeof at === 'string') return paramError(at);
      const label_id = Math.max(-1, ...this.tags.filter((t) => t.channel === channel).map((t) => t.label_id)) + 1;
      const seg = (this.log.get(channel) ?? []).find((s) => s.start <= at && (s.end ?? this.now()) >= at);
      this.tags.push({ channel, label_id, record_id: seg?.record_id ?? (data.record_id as number), at, name: name as string });
      return success({});
    }
    const i = this.tags.findIndex((t) => t.channel === channel && t.label_id === data.label_id);
    if (i < 0) return failure(400, 'operation_failed', `no tag ${String(data.label_id)} on ${channel}`);
    if (op === 1) this.tags.splice(i, 1);
    else this.tags[i].name = name as string;
    return success({});
  }

  /** `SystemInfo/Record/Get`: per configured channel whether it records now; a recording channel also its streams. */
  recordInfo(): Reply {
    const channel_info: Record<string, Record<string, unknown>> = {};
    for (const id of this.log.keys()) {
      const on = this.recording(id);
      channel_info[id] = {
        record_state: on ? 'On' : 'Off',
        record_switch: this.off.has(id) ? 'Disable' : 'Enable',
        ...(on ? { stream_type: 'DualStream', resolution: '1920x1080 | 1280x720', fps: '25Fps | 25Fps', bitrate: '2Mbps | 1024Kbps' } : {}),
      };
    }
    return success({ channel_info, channel_max: this.device.profile.channels.length });
  }

  routes(): Array<[string, Route]> {
    const r = (handler: Route['handler']): Route => ({ auth: 'session', handler });
    return [
      ['/API/Playback/SearchMonth/Get', r(({ data }) => this.searchMonth(data))],
      ['/API/Playback/SearchRecord/Search', r(({ data }) => this.search(data))],
      ['/API/Playback/Picture/Get', r(({ data }) => this.picture(data))],
      ['/API/Playback/Tag/Get', r(({ data }) => this.tagGet(data))],
      ['/API/Playback/Tag/Set', r(({ data }) => this.tagSet(data))],
      ['/API/SystemInfo/Record/Get', r(() => this.recordInfo())],
    ];
  }
}
