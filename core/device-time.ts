/**
 * The device's clock: recordings, stored pictures and bookmarks carry the device's local date and time
 * (`MM/DD/YYYY` + `hh:mm:ss`, pictures `yyyy/MM/dd hh:mm:ss`), with no zone. The caller names the device's zone
 * (IANA, e.g. `Europe/Berlin`; default the host's); these turn those forms into ISO times with the zone's offset and
 * back.
 */

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function wallOf(ms: number, zone: string): Wall {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      ...{ year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' },
    });
    formats.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, Number(x.value)]));
  return { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second };
}

const wallMs = (w: Wall) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
const two = (n: number) => String(n).padStart(2, '0');

/** The host's zone: the default when a device's zone is not configured. */
export const hostZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Whether `zone` is a time zone this runtime knows. */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone === '') return false;
  try {
    wallOf(0, zone);
    return true;
  } catch {
    return false;
  }
}

/** The instant the wall clock of `zone` shows `w`. */
function instantOf(w: Wall, zone: string): number {
  const wall = wallMs(w);
  const offsetAt = (ms: number) => wallMs(wallOf(ms, zone)) - ms;
  return wall - offsetAt(wall - offsetAt(wall));
}

/** `2026-12-06T06:10:31+01:00`: the instant with the zone's offset at that time. */
export function isoInZone(ms: number, zone: string): string {
  const w = wallOf(ms, zone);
  const off = Math.round((wallMs(w) - Math.floor(ms / 1000) * 1000) / 60_000);
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${w.year}-${two(w.month)}-${two(w.day)}T${two(w.hour)}:${two(w.minute)}:${two(w.second)}${sign}${two(Math.floor(a / 60))}:${two(a % 60)}`;
}

/** The device's `MM/DD/YYYY` and `hh:mm:ss` as an epoch ms; undefined when they are not those forms. */
export function deviceTimeMs(date: unknown, time: unknown, zone: string): number | undefined {
  const d = typeof date === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(date.trim()) : null;
  const t = typeof time === 'string' ? /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(time.trim()) : null;
  if (!d || !t) return undefined;
  return instantOf({ month: +d[1], day: +d[2], year: +d[3], hour: +t[1], minute: +t[2], second: +t[3] }, zone);
}

/** Picture/Get's `yyyy/MM/dd hh:mm:ss` as an epoch ms. */
export function pictureTimeMs(text: unknown, zone: string): number | undefined {
  const m = typeof text === 'string' ? /^(\d{4})\/(\d{2})\/(\d{2}) (\d{1,2}):(\d{2}):(\d{2})$/.exec(text.trim()) : null;
  return m ? instantOf({ year: +m[1], month: +m[2], day: +m[3], hour: +m[4], minute: +m[5], second: +m[6] }, zone) : undefined;
}

/** An instant as the device's `MM/DD/YYYY` + `hh:mm:ss`. */
export function deviceDateTime(ms: number, zone: string): { date: string; time: string } {
  const w = wallOf(ms, zone);
  return { date: `${two(w.month)}/${two(w.day)}/${w.year}`, time: `${two(w.hour)}:${two(w.minute)}:${two(w.second)}` };
}

/** The RTSP playback form `YYYY-MM-DDTHH:MM:SSZ` of an instant: the zone's wall clock (`localtime=true`) or UTC. */
export function playbackTime(ms: number, zone: string): string {
  const w = wallOf(ms, zone);
  return `${w.year}-${two(w.month)}-${two(w.day)}T${two(w.hour)}:${two(w.minute)}:${two(w.second)}Z`;
}

/** The first instant of a month (`2026-12`) in `zone`, and of the next. */
export function monthBounds(month: string, zone: string): { from: number; to: number } | undefined {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m || +m[2] < 1 || +m[2] > 12) return undefined;
  const [year, mon] = [+m[1], +m[2]];
  const first = { year, month: mon, day: 1, hour: 0, minute: 0, second: 0 };
  const next = mon === 12 ? { ...first, year: year + 1, month: 1 } : { ...first, month: mon + 1 };
  return { from: instantOf(first, zone), to: instantOf(next, zone) };
}
