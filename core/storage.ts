/**
 * What a recorder's disks say, in one place: per disk its status, sizes (MB as the device gives them), recording time
 * left, and whether it is a problem (the rule both the bridge and Node-RED use).
 */
import type { Invoker } from './operation';
import { diskGet, type DiskInfo } from './pages/storage';

/** Statuses that always need the user: no disk, unformatted, failing or broken. */
const PROBLEM_STATUSES = new Set(['NoHdd', 'Unformat', 'HddError', 'Broken']);

export interface Disk {
  /** The device's disk number (`id`, used by Format). */
  id: number;
  /** `Sd` for a memory card, `Normal` for a hard disk... */
  type?: string;
  model?: string;
  status?: string;
  /** MB. */
  totalMb?: number;
  freeMb?: number;
  /** total - free (the device has no used member). */
  usedMb?: number;
  /** Seconds of recording left (`free_time`). */
  timeLeftS?: number;
  problem: boolean;
}

export interface Storage {
  disks: Disk[];
  /** Off, Auto, 1Day ... 90Days. */
  overwrite?: string;
}

/** Whether a disk needs attention: failing or missing, or full while the recorder does not overwrite. */
export function diskProblem(status: string | undefined, overwrite: string | undefined): boolean {
  if (status === undefined) return false;
  return PROBLEM_STATUSES.has(status) || (status === 'Full' && overwrite === 'Off');
}

export function storageOf(data: { disk_info?: DiskInfo[]; over_write?: string }): Storage {
  const overwrite = data.over_write;
  const disks = (data.disk_info ?? []).map((d): Disk => {
    const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
    const total = num(d.total_size);
    const free = num(d.free_size);
    return {
      id: d.id,
      type: d.device_type,
      model: d.model,
      status: d.status,
      totalMb: total,
      freeMb: free,
      usedMb: total !== undefined && free !== undefined ? Math.max(0, total - free) : undefined,
      timeLeftS: num(d.free_time),
      problem: diskProblem(d.status, overwrite),
    };
  });
  return { disks, overwrite };
}

/** `StorageConfig/Disk/Get`, typed. */
export async function readStorage(c: Invoker, opts: Parameters<Invoker['invoke']>[2] = {}): Promise<Storage> {
  return storageOf(await c.invoke(diskGet, {}, opts));
}
