/**
 * Event/Check calls per device per second at idle (goal <= 1.0): devices that answer at once with the
 * keep-alive (`heat_alarm`), the worst case for a client that calls again as soon as an answer arrives.
 * Each device is a simulator with no hold; one NvrClient streams its events with the default interval.
 * BENCH_EVENTS_SECONDS sets the run (default 10 s).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { NvrClient } from '../core/client';
import { startSimulator } from '../simulator';

const PASSWORD = 'Bench-ev-2718';
const DEVICES = 3;

export async function benchEvents(): Promise<Record<string, number>> {
  const seconds = Number(process.env.BENCH_EVENTS_SECONDS ?? 10);
  const sims = await Promise.all(
    Array.from({ length: DEVICES }, () => startSimulator({ password: PASSWORD, eventHoldMs: 0, quiet: true })),
  );
  const clients = sims.map((s) => new NvrClient({ url: s.url, username: 'admin', password: PASSWORD }));
  const stop = new AbortController();
  let events = 0;
  const streams = clients.map(async (c) => {
    for await (const e of c.events({ signal: stop.signal })) if (e) events++;
  });
  try {
    await sleep(500); // logged in and subscribed
    const t0 = Date.now();
    await sleep(seconds * 1000);
    const t1 = Date.now();
    // Rate between the first and the last call of the window: (calls - 1) / span, per device; the worst device.
    const rates = sims.map((s) => {
      const at = s.log.filter((e) => e.path === '/API/Event/Check' && e.time >= t0 && e.time <= t1).map((e) => e.time);
      return at.length < 2 ? 0 : ((at.length - 1) * 1000) / (at[at.length - 1] - at[0]);
    });
    const failed = sims.reduce((sum, s) => sum + s.log.filter((e) => e.path === '/API/Event/Check' && e.status !== 200).length, 0);
    return {
      event_checks_per_device_per_s: Math.max(...rates),
      event_checks_per_device_per_s_goal: 1.0,
      event_check_failures: failed,
      events_at_idle: events,
      seconds: (t1 - t0) / 1000,
    };
  } finally {
    stop.abort();
    await Promise.all(streams);
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(sims.map((s) => s.stop()));
  }
}
