/**
 * The disks' state keys on `<base>/<dev>` (`disk_<id>_status`, `_total`, `_free`, `_used`, `_time_left`, `_problem`,
 * `overwrite`), from the facts the storage reader fills (features/storage/): no I/O, read by the device's state (sources.ts).
 */
import type { Storage } from '../../core';
import type { Json } from './state';

/** State keys of the disks (flat, beside the device's other keys). */
export function storageState(s: Storage): Json {
  const out: Json = {};
  if (s.overwrite !== undefined) out.overwrite = s.overwrite;
  for (const d of s.disks) {
    const k = `disk_${d.id}`;
    const values: Json = {
      status: d.status,
      type: d.type,
      total: d.totalMb,
      free: d.freeMb,
      used: d.usedMb,
      time_left: d.timeLeftS,
      problem: d.problem,
    };
    for (const [name, v] of Object.entries(values)) if (v !== undefined) out[`${k}_${name}`] = v;
  }
  return out;
}
