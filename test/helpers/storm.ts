/**
 * An alarm storm at the simulator and what reached MQTT (issue 17): `rate` alarm edges a second for `seconds`,
 * motion switched on and off in turn on each of `channels` (every raise is an edge), then a wait until every edge
 * arrived or none came for `quietMs`. Edges of a channel arrive in order, so the k-th edge on `<ch>/event` is the
 * k-th raised on that channel: its lag is the time from the raise to its arrival. Used by the bridge test (asserted)
 * and the bench (printed).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Simulator } from '../../simulator';
import type { Recorder } from './mqtt-broker';

export interface StormResult {
  sent: number;
  delivered: number;
  lost: number;
  lag_p50_ms: number;
  lag_p95_ms: number;
  lag_max_ms: number;
  /** Channel state messages of the storm's channels during the storm and its wait. */
  state_messages: number;
}

export function percentile(xs: readonly number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export async function alarmStorm(o: {
  sim: Simulator;
  recorder: Recorder;
  /** `<base>/<device>`: where the channel topics are. */
  deviceTopic: string;
  rate: number;
  seconds: number;
  channels: readonly string[];
  quietMs?: number;
}): Promise<StormResult> {
  const r = o.recorder;
  const since = r.count;
  const raised = new Map<string, number[]>(o.channels.map((c) => [c, []]));
  const active = new Map<string, boolean>(o.channels.map((c) => [c, false]));
  const total = Math.round(o.rate * o.seconds);
  const t0 = Date.now();
  for (let i = 0; i < total;) {
    // Every edge due by now (timers are coarse: a tick raises what fell due since the last one).
    const due = Math.min(total, Math.floor(((Date.now() - t0) * o.rate) / 1000) + 1);
    for (; i < due; i++) {
      const channel = o.channels[i % o.channels.length];
      const on = !active.get(channel);
      active.set(channel, on);
      o.sim.raiseAlarm({ channel, type: 'motion', active: on });
      raised.get(channel)!.push(Date.now());
    }
    await sleep(5);
  }
  const topicOf = (c: string) => `${o.deviceTopic}/${c.toLowerCase()}`;
  const edgesOf = (c: string) => r.messages.slice(since).filter((m) => m.topic === `${topicOf(c)}/event`);
  const delivered = () => o.channels.reduce((n, c) => n + edgesOf(c).length, 0);
  let last = delivered();
  let lastChange = Date.now();
  while (delivered() < total && Date.now() - lastChange < (o.quietMs ?? 5000)) {
    await sleep(50);
    if (delivered() !== last) {
      last = delivered();
      lastChange = Date.now();
    }
  }
  const lags: number[] = [];
  for (const c of o.channels) {
    const times = raised.get(c)!;
    edgesOf(c).forEach((m, k) => {
      if (k < times.length) lags.push(m.at - times[k]);
    });
  }
  const stateTopics = new Set(o.channels.map(topicOf));
  return {
    sent: total,
    delivered: delivered(),
    lost: total - delivered(),
    lag_p50_ms: percentile(lags, 50),
    lag_p95_ms: percentile(lags, 95),
    lag_max_ms: lags.length ? Math.max(...lags) : NaN,
    state_messages: r.messages.slice(since).filter((m) => stateTopics.has(m.topic)).length,
  };
}
