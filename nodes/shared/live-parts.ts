import type { DeviceEvent } from '../../core/events';
import type { LiveState } from '../../core/live';

/**
 * What each live part of a channel is now, as the device last said it: its `Floodlight_AudioAlarm`
 * events and the states read back after nvr-control switched something. One per config node, so
 * every nvr-event node of the device hears a part change once, whoever made it (a dashboard, the
 * device's alarm reaction, its web page, Home Assistant).
 */

export type LivePart = 'floodlight' | 'siren' | 'redBlueLight';

/** One row per part: its on/off member and its level member in core's LiveState (one table). */
export const LIVE_PARTS: ReadonlyArray<{ part: LivePart; on: 'floodlight' | 'siren' | 'redBlueLight'; level?: 'brightness' | 'volume' }> = [
  { part: 'floodlight', on: 'floodlight', level: 'brightness' },
  { part: 'siren', on: 'siren', level: 'volume' },
  { part: 'redBlueLight', on: 'redBlueLight' },
];

export const isLivePart = (x: unknown): x is LivePart => LIVE_PARTS.some((p) => p.part === x);

/** Where a change was seen: the device's own event, or the state read back after a command. */
export type LiveSource = 'device' | 'read-back';

/** A part that changed: `state` has the part's members only (`{floodlight: true, brightness: 80}`). */
export interface PartChange {
  channel: string;
  part: LivePart;
  state: Partial<Pick<LiveState, 'floodlight' | 'brightness' | 'siren' | 'volume' | 'redBlueLight'>>;
  source: LiveSource;
}

type Known = Partial<Record<'floodlight' | 'brightness' | 'siren' | 'volume' | 'redBlueLight', boolean | number>>;

/** A live event of core's stream as a partial live state; undefined for other events. */
export function liveStateOf(event: DeviceEvent): (Partial<LiveState> & { channel: string }) | undefined {
  return event.kind === 'live' ? event : undefined;
}

/**
 * An event that contradicts a read-back younger than this may be older than the read-back (events
 * queue on the device and arrive with the next check): the part is read again instead of trusted.
 */
export const READ_BACK_TRUST_MS = 5_000;

export class LiveParts {
  private readonly known = new Map<string, Known>();
  private readonly listeners = new Map<string, (c: PartChange) => void>();
  /** When each channel was last read back (epoch ms). */
  private readonly readBackAt = new Map<string, number>();
  /** Re-reads in flight, one per channel. */
  private readonly rereads = new Map<string, Promise<void>>();

  /** `read`: the channel's live state now (core's `client.live`), to settle an event that contradicts a read-back. */
  constructor(private readonly read?: (channel: string) => Promise<LiveState> | undefined) {}

  listen(id: string, fn: (c: PartChange) => void): void {
    this.listeners.set(id, fn);
  }

  unlisten(id: string): void {
    this.listeners.delete(id);
  }

  /** Takes what the device said about a channel; tells the listeners about each part that changed. */
  update(state: Partial<LiveState> & { channel: string }, source: LiveSource): void {
    const known = this.known.get(state.channel) ?? {};
    this.known.set(state.channel, known);
    if (source === 'read-back') this.readBackAt.set(state.channel, Date.now());
    else if (this.read && this.contradictsRecentReadBack(state, known)) return this.reread(state.channel);
    for (const row of LIVE_PARTS) {
      const on = state[row.on];
      if (typeof on !== 'boolean') continue;
      const level = row.level ? state[row.level] : undefined;
      const changed = known[row.on] !== on || (typeof level === 'number' && row.level && known[row.level] !== level);
      if (!changed) continue;
      known[row.on] = on;
      const partState: PartChange['state'] = { [row.on]: on };
      if (row.level && typeof level === 'number') known[row.level] = partState[row.level] = level;
      else if (row.level && typeof known[row.level] === 'number') partState[row.level] = known[row.level] as number;
      const change: PartChange = { channel: state.channel, part: row.part, state: partState, source };
      this.notify(change);
    }
  }

  private contradictsRecentReadBack(state: Partial<LiveState> & { channel: string }, known: Known): boolean {
    const at = this.readBackAt.get(state.channel);
    if (at === undefined || Date.now() - at > READ_BACK_TRUST_MS) return false;
    return LIVE_PARTS.some((row) => typeof state[row.on] === 'boolean' && known[row.on] !== undefined && known[row.on] !== state[row.on]);
  }

  /** Reads the channel again and reports what it is now; one read per channel at a time, failures ignored (the next event tells). */
  private reread(channel: string): void {
    if (this.rereads.has(channel)) return;
    const done = Promise.resolve()
      .then(() => this.read?.(channel))
      .then((now) => {
        if (now) this.update({ ...now, channel }, 'read-back');
      })
      .catch(() => undefined)
      .finally(() => this.rereads.delete(channel));
    this.rereads.set(channel, done);
  }

  private notify(change: PartChange): void {
    for (const fn of [...this.listeners.values()]) {
      try {
        fn(change);
      } catch {
        // one node's failure must not keep the change from the others
      }
    }
  }
}
