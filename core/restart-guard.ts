/**
 * The one rule for restart requests, shared by the bridge's restart buttons and Node-RED's restart mode: a recorder
 * is not restarted again within `RESTART_QUIET_MS` of its last restart (a double press, an automation loop, a
 * duplicated message), and one restart per target (the recorder, a camera) is under way at a time. One guard per
 * device.
 */

/** A recorder is not restarted again within this time of its last restart. */
export const RESTART_QUIET_MS = 60_000;

export class RestartGuard {
  private lastRecorder = -Infinity;

  /** When the recorder was last restarted (epoch ms); undefined when never. */
  get lastRestart(): number | undefined {
    return Number.isFinite(this.lastRecorder) ? this.lastRecorder : undefined;
  }
  private readonly busy = new Set<string>();

  /** `lastRestart`: when the recorder was last restarted (epoch ms), as kept across a bridge restart. */
  constructor(
    private readonly quietMs = RESTART_QUIET_MS,
    lastRestart?: number,
  ) {
    if (lastRestart !== undefined && Number.isFinite(lastRestart)) this.lastRecorder = lastRestart;
  }

  /**
   * Claims a restart of the recorder (no channel) or of a camera: undefined when it may start (then `end` must
   * follow), else why not.
   */
  begin(channel?: string): string | undefined {
    const key = channel ?? '';
    const since = Date.now() - this.lastRecorder;
    if (this.busy.has(key) || since < this.quietMs)
      return `${channel ? `${channel} is` : 'the recorder is'} already restarting (one restart per ${Math.round(this.quietMs / 1000)} s)`;
    this.busy.add(key);
    return undefined;
  }

  /** The restart asked for in `begin` was sent (`sent`: the device accepted it) or failed. */
  end(channel: string | undefined, sent: boolean): void {
    this.busy.delete(channel ?? '');
    if (sent && channel === undefined) this.lastRecorder = Date.now();
  }
}
