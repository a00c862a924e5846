/**
 * CPU time of the whole machine and of chosen processes, read from /proc (Linux): what else ran beside a measured
 * bridge. A bench figure is only as good as the machine was quiet; these say how quiet it was.
 */
import { readFileSync } from 'node:fs';

/** Linux counts CPU time in ticks of 1/100 s (USER_HZ). */
const TICK_MS = 10;

export interface LoadMark {
  at: number;
  /** Busy CPU time of all cores together (ms); NaN without /proc. */
  machineMs: number;
  /** CPU time (user + system) of the processes, together (ms). */
  processesMs: number;
}

function machineBusyMs(): number {
  // cpu  user nice system idle iowait irq softirq steal ...
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) * TICK_MS;
}

function processMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

export function loadMark(pids: readonly number[]): LoadMark {
  try {
    return { at: Date.now(), machineMs: machineBusyMs(), processesMs: pids.reduce((sum, pid) => sum + processMs(pid), 0) };
  } catch {
    return { at: Date.now(), machineMs: NaN, processesMs: NaN };
  }
}

/** Between two marks, in % of one core: the whole machine, and the marked processes. */
export function loadBetween(a: LoadMark, b: LoadMark): { machine: number; processes: number } {
  const wall = b.at - a.at;
  return { machine: (100 * (b.machineMs - a.machineMs)) / wall, processes: (100 * (b.processesMs - a.processesMs)) / wall };
}
