/**
 * Bridge event figures (printed by bench/run.ts, never asserted), one simulated recorder, the bridge with its
 * defaults, three times side by side (at the same time, each with its own recorder, broker and bridge): paced checks (events on, 1 s event checks, polls every 15 s) on a recorder that
 * answers Event/Check at once; the same on a recorder that holds the call until something happens (up to 30 s, a
 * long poll), keys `hold_*`; and `events: push` (the device pushes its alarms to the bridge, AlarmConfig/EventPush;
 * checks and polls 60 s apart), keys `push_*`:
 * 1. alarm latency: `sim.raiseAlarm(motion)` -> `motion: true` on MQTT, p50 and p95 (goal p50 <= 1.2 s; on a
 *    holding recorder milliseconds, as before: p50 5-9 ms); each alarm is raised at a random moment of the check
 *    interval, as a real alarm would be;
 * 2. device requests per second at idle, polls and event checks together (goal <= 1.5; with push well under
 *    0.2), counted at the simulator between two poll starts after the alarms (so that the window holds exactly one
 *    poll and no alarm).
 * BENCH_ALARMS sets the number of alarms (default 30). BENCH_MQTT_URL: use that broker instead of an aedes.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBridge, type Bridge } from '../bridge/bridge';
import { startEmbeddedBroker } from '../bridge/mqtt/broker';
import { parseConfig } from '../bridge/base/config';
import { createLogger } from '../bridge/base/log';
import { startSimulator } from '../simulator';
import { clearRetained, Recorder } from '../test/helpers/mqtt-broker';
import { percentile } from '../test/helpers/storm';

const CHANNELS = ['CH1', 'CH2', 'CH3', 'CH4'];

const prefixed = (prefix: string, figures: Record<string, number>) =>
  Object.fromEntries(Object.entries(figures).map(([k, v]) => [`${prefix}_${k}`, v]));

export async function benchBridgeEvents(): Promise<Record<string, number>> {
  // Side by side: each is one idle recorder and its own bridge and broker, and most of the time goes to waiting for
  // the polls that bound the idle window (60 s apart with push).
  const [checks, hold, push] = await Promise.all([measure('checks'), measure('hold'), measure('push')]);
  return {
    ...checks,
    ...prefixed('hold', hold),
    hold_alarm_to_mqtt_goal_p50_ms: 9,
    ...prefixed('push', push),
    push_idle_device_requests_per_s_goal: 0.2,
  };
}

/** `checks`: a recorder that answers Event/Check at once; `hold`: one that holds it; `push`: alarms pushed. */
async function measure(mode: 'checks' | 'hold' | 'push'): Promise<Record<string, number>> {
  const alarms = Number(process.env.BENCH_ALARMS ?? 30);
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels: 8, logLimit: 100_000, quiet: true, eventHold: mode === 'hold' });
  const broker = process.env.BENCH_MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? broker!.url;
  const base = `nvr2mqtt_ev_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_ev_${randomBytes(3).toString('hex')}`;
  let warnings = 0;
  let bridge: Bridge | undefined;
  let rec: Recorder | undefined;
  try {
    const { config } = parseConfig(
      {
        mqtt: { url: brokerUrl, base_topic: base },
        homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
        ...(mode === 'push' ? { push: { address: '127.0.0.1', port: 0, listen: '127.0.0.1' } } : {}),
        devices: [{ id: 'nvr', url: sim.url, username: 'admin', password, ...(mode === 'push' ? { events: 'push' } : {}) }],
        log_level: 'warn',
      },
      { env: {} },
    );
    rec = await Recorder.start(brokerUrl, [`${base}/nvr/+`]);
    bridge = await startBridge(config, {
      log: createLogger({ level: 'warn', sink: () => warnings++ }),
    });
    await rec.waitTopic(`${base}/nvr/ch1`, (j) => j.motion === false, 20_000);
    if (mode === 'push') while (!sim.pushSettings.enable) await sleep(100);
    // What follows a first poll (the storage read, the firmware check) is done before the first alarm.
    await sleep(2000);

    // (1) latency: raise, wait for `motion: true`, end it, wait for `false`; a random pause first.
    const pollStarts = () => sim.log.filter((e) => e.path.endsWith('/ChannelInfo/Get')).map((e) => e.time);
    const latency: number[] = [];
    for (let i = 0; i < alarms; i++) {
      const channel = CHANNELS[i % CHANNELS.length];
      const topic = `${base}/nvr/${channel.toLowerCase()}`;
      await sleep(Math.random() * 1000);
      let since = rec.count;
      const raised = Date.now();
      sim.raiseAlarm({ channel, type: 'motion', active: true });
      const on = await rec.waitTopic(topic, (j) => j.motion === true, 10_000, since);
      latency.push(on.at - raised);
      since = rec.count;
      sim.raiseAlarm({ channel, type: 'motion', active: false });
      await rec.waitTopic(topic, (j) => j.motion === false, 10_000, since);
    }

    // (2) idle: between the starts of the next two polls after the alarms (the window holds one poll, no alarm).
    const known = pollStarts().length;
    while (pollStarts().length < known + 2) await sleep(100);
    const [t0, t1] = pollStarts().slice(known, known + 2);
    const window = sim.log.filter((e) => e.time >= t0 && e.time < t1);
    const checks = window.filter((e) => e.path === '/API/Event/Check').length;
    return {
      alarm_to_mqtt_p50_ms: percentile(latency, 50),
      alarm_to_mqtt_p95_ms: percentile(latency, 95),
      alarm_to_mqtt_max_ms: Math.max(...latency),
      alarm_to_mqtt_goal_p50_ms: 1200,
      alarms_measured: latency.length,
      idle_device_requests_per_s: (window.length * 1000) / (t1 - t0),
      idle_device_requests_per_s_goal: 1.5,
      idle_event_checks_per_s: (checks * 1000) / (t1 - t0),
      idle_poll_interval_s: (t1 - t0) / 1000,
      events_warnings_logged: warnings,
    };
  } finally {
    await bridge?.stop();
    await rec?.stop();
    await sim.stop();
    await broker?.stop();
    if (!broker) await clearRetained(brokerUrl, [base, prefix]);
  }
}
