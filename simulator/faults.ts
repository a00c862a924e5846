/**
 * Fault injection for tests. A fault matches every request (or those whose path equals or contains `path`, or
 * matches the RegExp) until it has fired `times` times (unlimited when absent) or clearFaults() is called.
 * Latency faults add up and delay the normal answer; of the other kinds the first matching one shapes the answer.
 */

export type FaultKind = 'latency' | 'http500' | 'html' | 'truncated' | 'reset' | 'expire_session' | 'device_busy' | 'not_found';

export interface FaultSpec {
  path?: string | RegExp;
  kind: FaultKind;
  /** latency: delay in milliseconds. */
  ms?: number;
  times?: number;
}

export const FAULT_KINDS: readonly FaultKind[] = ['latency', 'http500', 'html', 'truncated', 'reset', 'expire_session', 'device_busy', 'not_found'];

interface Armed extends FaultSpec {
  left: number;
}

/** Fault answers that do not depend on the request. */
export const HTML_500 = '<html><head><title>500 Internal Server Error</title></head><body><h1>500 Internal Server Error</h1></body></html>';
export const HTML_PAGE = '<!DOCTYPE html><html><head><title>Web Client</title></head><body><div id="login">Please log in</div></body></html>';
export const TRUNCATED_JSON = '{"result":"success","data":{"channel_info":{"CH1":{"siren_sw';

export class Faults {
  private armed: Armed[] = [];

  add(f: FaultSpec): void {
    if (!FAULT_KINDS.includes(f.kind)) throw new Error(`unknown fault kind ${JSON.stringify(f.kind)} (one of ${FAULT_KINDS.join(', ')})`);
    if (f.kind === 'latency' && !(typeof f.ms === 'number' && f.ms >= 0)) throw new Error('a latency fault needs ms >= 0');
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
  take(path: string, sessionCall: () => boolean): { latencyMs: number; fault?: FaultKind } {
    if (this.armed.length === 0) return { latencyMs: 0 };
    let latencyMs = 0;
    let fault: FaultKind | undefined;
    for (const f of this.armed) {
      if (!Faults.matches(f, path)) continue;
      if (f.kind === 'latency') {
        latencyMs += f.ms ?? 0;
        f.left--;
      } else if (fault === undefined && (f.kind !== 'expire_session' || sessionCall())) {
        fault = f.kind;
        f.left--;
      }
    }
    this.armed = this.armed.filter((f) => f.left > 0);
    return { latencyMs, fault };
  }
}
