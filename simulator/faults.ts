/**
 * Fault injection for tests. A fault matches every request (or those whose path equals or contains `path`, or
 * matches the RegExp) until it has fired `times` times (unlimited when absent) or clearFaults() is called.
 * Latency faults add up and delay the normal answer; `late_answer` faults add up too and delay the answer after the
 * request was carried out (a device that applies a Set, then answers after the client's deadline); of the other kinds
 * the first matching one shapes the answer.
 */

import { Reply, failure } from './envelope';

const FAULT_KINDS = [
  'latency',
  'late_answer',
  'http500',
  'html',
  'truncated',
  'reset',
  'expire_session',
  'device_busy',
  'not_found',
  'one_IE',
  'search_failed',
  'device_play_locked',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  path?: string | RegExp;
  kind: FaultKind;
  /** latency, late_answer: delay in milliseconds. */
  ms?: number;
  times?: number;
}

interface Armed extends FaultSpec {
  left: number;
}

/**
 * The answer of each fault that replaces the device's answer outright. The others act elsewhere: latency delays the
 * normal answer, reset drops the connection, expire_session ends the session before the normal handling.
 */
export const FAULT_REPLIES: Readonly<Partial<Record<FaultKind, Reply>>> = {
  http500: {
    status: 500,
    contentType: 'text/html',
    body: '<html><head><title>500 Internal Server Error</title></head><body><h1>500 Internal Server Error</h1></body></html>',
  },
  html: {
    status: 200,
    contentType: 'text/html',
    body: '<!DOCTYPE html><html><head><title>Web Client</title></head><body><div id="login">Please log in</div></body></html>',
  },
  truncated: { status: 200, body: '{"result":"success","data":{"channel_info":{"CH1":{"siren_sw' },
  device_busy: failure(400, 'device_busy', 'Device is busy, try again later'),
  not_found: failure(404, 'not_found', 'Not found'),
  // Another login from the caller's address (a browser there) took the session (vendor's session code list).
  one_IE: failure(400, 'one_IE', 'Another login from this address took the session'),
  // Search / playback refusals (common error list): the search is locked for `remain_locked_time` seconds; the
  // device plays back elsewhere (some recorders play back in one place only).
  search_failed: failure(400, 'search_failed', 'Search failed', undefined, { remain_locked_time: 30 }),
  device_play_locked: failure(400, 'device_play_locked', 'The device is playing back; web playback refused'),
};

export class Faults {
  private armed: Armed[] = [];

  add(f: FaultSpec): void {
    if (!(FAULT_KINDS as readonly string[]).includes(f.kind))
      throw new Error(`unknown fault kind ${JSON.stringify(f.kind)} (one of ${FAULT_KINDS.join(', ')})`);
    if ((f.kind === 'latency' || f.kind === 'late_answer') && !(typeof f.ms === 'number' && f.ms >= 0))
      throw new Error(`a ${f.kind} fault needs ms >= 0`);
    if (f.times !== undefined && !(Number.isInteger(f.times) && f.times > 0)) throw new Error('times must be a positive integer');
    this.armed.push({ ...f, left: f.times ?? Infinity });
  }

  clear(): void {
    this.armed = [];
  }

  private static matches(f: FaultSpec, path: string): boolean {
    if (f.path === undefined) return true;
    if (typeof f.path === 'string') return path === f.path || path.includes(f.path);
    f.path.lastIndex = 0;
    return f.path.test(path);
  }

  /** Consumes the faults that apply to one request. `sessionCall`: expire_session only hits calls with a session. */
  take(path: string, sessionCall: () => boolean): { latencyMs: number; lateMs: number; fault?: FaultKind } {
    if (this.armed.length === 0) return { latencyMs: 0, lateMs: 0 };
    let latencyMs = 0;
    let lateMs = 0;
    let fault: FaultKind | undefined;
    for (const f of this.armed) {
      if (!Faults.matches(f, path)) continue;
      if (f.kind === 'latency') {
        latencyMs += f.ms ?? 0;
        f.left--;
      } else if (f.kind === 'late_answer') {
        lateMs += f.ms ?? 0;
        f.left--;
      } else if (fault === undefined && (f.kind !== 'expire_session' || sessionCall())) {
        fault = f.kind;
        f.left--;
      }
    }
    this.armed = this.armed.filter((f) => f.left > 0);
    return { latencyMs, lateMs, fault };
  }
}
