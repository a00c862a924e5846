/**
 * The device's clock: recordings, pictures and tags carry the device's local date and time ("MM/DD/YYYY",
 * "hh:mm:ss", pictures "yyyy/MM/dd hh:mm:ss") in its time zone (the `timeZone` option, an IANA name).
 */

export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, f);
  }
  return f;
}

/** The wall clock of `zone` at `ms`. */
export function localParts(ms: number, zone: string): LocalParts {
  const p = Object.fromEntries(
    format(zone)
      .formatToParts(ms)
      .map((x) => [x.type, Number(x.value)]),
  );
  return { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second };
}

/** The instant the wall clock of `zone` shows `p` (the later one twice a year, as most devices pick). */
export function localToMs(p: LocalParts, zone: string): number {
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const offsetAt = (ms: number) => {
    const l = localParts(ms, zone);
    return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second) - ms;
  };
  const first = wall - offsetAt(wall);
  return wall - offsetAt(first);
}

const two = (n: number) => String(n).padStart(2, '0');

/** `MM/DD/YYYY` and `hh:mm:ss`, the device's forms. */
export function deviceDate(ms: number, zone: string): { date: string; time: string } {
  const p = localParts(ms, zone);
  return { date: `${two(p.month)}/${two(p.day)}/${p.year}`, time: `${two(p.hour)}:${two(p.minute)}:${two(p.second)}` };
}

/** `yyyy/MM/dd hh:mm:ss` (Picture/Get's `time`). */
export function pictureTime(ms: number, zone: string): string {
  const p = localParts(ms, zone);
  return `${p.year}/${two(p.month)}/${two(p.day)} ${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}

/** A request's `MM/DD/YYYY` + `hh:mm:ss`, or why not. */
export function parseDeviceTime(date: unknown, time: unknown, zone: string, what: string): number | string {
  const d = typeof date === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(date) : null;
  if (!d) return `${what}_date: must be MM/DD/YYYY`;
  const t = typeof time === 'string' ? /^(\d{2}):(\d{2}):(\d{2})$/.exec(time) : null;
  if (!t) return `${what}_time: must be hh:mm:ss`;
  const [month, day, year, hour, minute, second] = [d[1], d[2], d[3], t[1], t[2], t[3]].map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31) return `${what}_date: no such date`;
  if (hour > 23 || minute > 59 || second > 59) return `${what}_time: no such time`;
  return localToMs({ year, month, day, hour, minute, second }, zone);
}
