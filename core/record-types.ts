/**
 * The vendor's two `record_type` tables (SearchRecord/Search page 53269952863 prints both): which bit means which kind
 * of recording on a recorder (NVR/DVR) and on a camera (IPC). One row per bit; composite values (all, alarm assemble)
 * are named on their own. Names are the API's words (`motion`, `person`...).
 */

export type RecordTable = 'nvr' | 'ipc';

export const RECORD_TYPES: Readonly<Record<RecordTable, Readonly<Record<string, number>>>> = {
  nvr: {
    normal: 0x1,
    alarm: 0x2,
    motion: 0x4,
    io: 0x8,
    line_crossing: 0x10, // PEA / PEA line
    avd: 0x20,
    object: 0x40, // OSC
    intelligent: 0x80,
    sensor: 0x100,
    intrusion: 0x200, // PEA area
    privacy: 0x400, // OCC
    net_break: 0x800,
    human: 0x1000, // HD
    face: 0x2000,
    cross_count: 0x4000, // PCC
    motion_io: 0x8000,
    pir: 0x10000,
    sound: 0x20000,
    manual: 0x40000,
    smart: 0x80000,
    occlusion: 0x100000,
    person: 0x200000,
    face_attribute: 0x400000,
  },
  ipc: {
    normal: 0x1,
    alarm: 0x1c06, // the alarm group: motion, IO, PIR, net break, sound
    motion: 0x2,
    io: 0x4,
    line_crossing: 0x8, // PEA line
    intrusion: 0x40, // PEA
    human: 0x80, // HD
    face: 0x100,
    pir: 0x400,
    net_break: 0x800,
    sound: 0x1000,
    cross_count: 0x4000,
    smart: 0x80000,
    occlusion: 0x100000,
  },
};

const ALL = 0xffffffff;
const ALARM_ASSEMBLE = 0x7fffffff;

/** The names of a segment's `record_type`: `all` / `alarm` for the two composites, else one name per known bit. */
export function recordTypeNames(mask: number, table: RecordTable): string[] {
  if (mask === ALL) return ['all'];
  if (mask === ALARM_ASSEMBLE) return ['alarm'];
  const names = Object.entries(RECORD_TYPES[table])
    .filter(([, bit]) => (mask & bit) === bit && mask >= 0)
    .map(([name]) => name);
  const known = Object.values(RECORD_TYPES[table]).reduce((m, b) => m | b, 0);
  return (mask & ~known) !== 0 ? [...names, `0x${(mask >>> 0).toString(16)}`] : names;
}

/** The mask of type names (`all`: every type); a name the table lacks is returned as unknown. */
export function recordTypeMask(names: readonly string[] | undefined, table: RecordTable): { mask: number } | { unknown: string[] } {
  if (!names || names.length === 0 || names.includes('all')) return { mask: ALL };
  const t = RECORD_TYPES[table];
  const unknown = names.filter((n) => !Object.hasOwn(t, n));
  if (unknown.length) return { unknown };
  return { mask: names.reduce((m, n) => (m | t[n]) >>> 0, 0) };
}
