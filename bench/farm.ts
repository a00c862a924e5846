/**
 * The parent's handle on simulated devices in child processes of their own (bench/sim-farm.ts): one or more
 * farms, their device URLs in order, and the farm commands (request counts, a device's request log, alarms).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { FarmCommand } from './sim-farm';

export interface FarmOptions {
  devices: number;
  channels: number;
  password: string;
  /** Child processes the devices are spread over. Default 1. */
  processes?: number;
  /** An embedded MQTT broker in the first process. */
  broker?: boolean;
  /** Request log entries kept per device. Default 50. */
  logLimit?: number;
}

interface Counts {
  count: number;
  byPath: Record<string, number>;
  connects: number;
}

class FarmProcess {
  private readonly waiting: Array<(line: string) => void> = [];
  private constructor(
    readonly child: ChildProcess,
    private readonly lines: Interface,
  ) {
    lines.on('line', (l) => this.waiting.shift()?.(l));
  }

  static async start(args: string[], password: string): Promise<{ proc: FarmProcess; urls: string[]; broker?: string }> {
    const child = spawn(process.execPath, [join(__dirname, 'sim-farm.js'), ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, NVR2MQTT_BENCH_PASSWORD: password },
    });
    const lines = createInterface({ input: child.stdout });
    const proc = new FarmProcess(child, lines);
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('sim-farm did not start within 120 s')), 120_000);
      proc.waiting.push((l) => {
        clearTimeout(timer);
        resolve(l);
      });
      child.once('exit', (code) => reject(new Error(`sim-farm exited (${code})`)));
    });
    return { proc, ...(JSON.parse(first) as { urls: string[]; broker?: string }) };
  }

  command<T>(c: FarmCommand): Promise<T> {
    return new Promise<T>((resolve) => {
      this.waiting.push((l) => resolve(JSON.parse(l) as T));
      this.child.stdin!.write(`${JSON.stringify(c)}\n`);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

export class Farm {
  private constructor(
    /** Device processes: device d is the (d / n)-th device of process d % n. */
    private readonly procs: FarmProcess[],
    /** The broker's own process (with more than one device process), or none. */
    private readonly brokerProc: FarmProcess | undefined,
    readonly urls: string[],
    readonly broker?: string,
  ) {}

  /**
   * Devices are dealt out over the processes in turn, so that the devices a bridge starts together (the first ones
   * first) are spread over all of them like separate recorders, not all in one process; the embedded broker, with
   * more than one process, runs in a process of its own (it is not a device).
   */
  static async start(o: FarmOptions): Promise<Farm> {
    const n = Math.max(1, Math.min(o.processes ?? 1, o.devices));
    const devArgs = (count: number) => [
      '--devices',
      String(count),
      '--channels',
      String(o.channels),
      '--log-limit',
      String(o.logLimit ?? 50),
    ];
    const ownBroker = o.broker && n > 1;
    const [started, brokerStarted] = await Promise.all([
      Promise.all(
        Array.from({ length: n }, (_, i) => {
          const args = devArgs(Math.ceil((o.devices - i) / n));
          if (o.broker && !ownBroker) args.push('--broker');
          return FarmProcess.start(args, o.password);
        }),
      ),
      ownBroker ? FarmProcess.start([...devArgs(0), '--broker'], o.password) : undefined,
    ]);
    const urls = Array.from({ length: o.devices }, (_, d) => started[d % n].urls[Math.floor(d / n)]);
    return new Farm(
      started.map((s) => s.proc),
      brokerStarted?.proc,
      urls,
      (brokerStarted ?? started[0]).broker,
    );
  }

  /** Process ids of the devices' and the broker's processes (bench/machine-load.ts). */
  get pids(): number[] {
    return [...this.procs, ...(this.brokerProc ? [this.brokerProc] : [])].map((p) => p.child.pid!);
  }

  private owner(device: number): { proc: FarmProcess; index: number } {
    return { proc: this.procs[device % this.procs.length], index: Math.floor(device / this.procs.length) };
  }

  /** Requests (all, by path) and TCP connects of every device in [since, until). */
  async count(since: number, until: number): Promise<Counts> {
    const counts = await Promise.all(this.procs.map((p) => p.command<Counts>({ cmd: 'count', since, until })));
    const byPath: Record<string, number> = {};
    for (const c of counts) for (const [k, v] of Object.entries(c.byPath)) byPath[k] = (byPath[k] ?? 0) + v;
    const sum = (key: 'count' | 'connects') => counts.reduce((n, c) => n + c[key], 0);
    return { count: sum('count'), byPath, connects: sum('connects') };
  }

  async log(device: number, since: number): Promise<Array<{ time: number; path: string; data: unknown }>> {
    const { proc, index } = this.owner(device);
    return (await proc.command<{ log: Array<{ time: number; path: string; data: unknown }> }>({ cmd: 'log', device: index, since })).log;
  }

  /** Raise (or end) a motion alarm; resolves with the time the device raised it. */
  async alarm(device: number, channel: string, active: boolean): Promise<number> {
    const { proc, index } = this.owner(device);
    return (await proc.command<{ at: number }>({ cmd: 'alarm', device: index, channel, active })).at;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.procs, ...(this.brokerProc ? [this.brokerProc] : [])].map((p) => p.stop()));
  }
}
