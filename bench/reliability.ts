/**
 * Reliability figures (issue 17; printed by bench/run.ts, never asserted), one simulated recorder, the bridge with
 * its defaults (request budget 8 a second, 32 waiting; events checked every second):
 * 1. a flood of 500 distinct `bridge/request/get`: device requests a second while it is answered (goal: the budget),
 *    and how many were refused "device busy";
 * 2. a broker outage of BENCH_OUTAGE_SECONDS (default 60): BENCH_OUTAGE_EDGES alarm edges (default 600, under the
 *    bridge's buffer of 1,000) raised meanwhile, how many reached MQTT after the broker was back (goal: all) and how
 *    long after its restart the last one came. Always an embedded aedes (stopped and started again on its port); the
 *    bridge reaches it through a door that opens once the recorder is subscribed again (no race between the two);
 * 3. an alarm storm of 100 edges a second on four channels for BENCH_STORM_SECONDS (default 30): edges lost (goal 0),
 *    their lag from the raise to MQTT, p50/p95/max (goal under 2 s), and the channel state messages it cost.
 * BENCH_MQTT_URL: use that broker instead of an aedes (1 and 3).
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBridge, type Bridge } from '../bridge/bridge';
import { startEmbeddedBroker } from '../bridge/mqtt/broker';
import { parseConfig } from '../bridge/base/config';
import { createLogger } from '../bridge/base/log';
import { EDGE_BUFFER } from '../bridge/api/publisher';
import { startSimulator, type Simulator } from '../simulator';
import { clearRetained, Recorder, startTestBroker } from '../test/helpers/mqtt-broker';
import { alarmStorm } from '../test/helpers/storm';
import { until } from '../test/helpers/until';

export async function benchReliability(): Promise<Record<string, number>> {
  return { ...(await flood()), ...(await outage()), ...(await storm()) };
}

/** The bridge's config with its defaults for one simulated recorder. */
function configFor(brokerUrl: string, sim: Simulator, password: string, label: string) {
  const base = `nvr2mqtt_${label}_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_${label}_${randomBytes(3).toString('hex')}`;
  const { config } = parseConfig(
    {
      mqtt: { url: brokerUrl, base_topic: base },
      homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
      devices: [{ id: 'nvr', url: sim.url, username: 'admin', password }],
      log_level: 'warn',
    },
    { env: {} },
  );
  return { config, base, prefix };
}

/**
 * A TCP door in front of the broker for the bridge alone: while shut, the bridge's connection attempts are refused
 * (dropped at once), so that after the broker's restart the recorder is subscribed again before the bridge is back.
 */
async function door(port: number): Promise<{ url: string; shut: boolean; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const d = {
    url: '',
    shut: false,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((inbound) => {
    if (d.shut) return inbound.destroy();
    const outbound = connect(port, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  d.url = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return d;
}

/** The bridge's event subscription at the simulator exists: alarms raised from now on are its to deliver. */
const subscribed = (sim: Simulator) =>
  until(() => sim.log.some((e) => e.path === '/API/Event/Check' && e.status === 200), 'events', 30_000);

async function outage(): Promise<Record<string, number>> {
  const seconds = Number(process.env.BENCH_OUTAGE_SECONDS ?? 60);
  const edges = Number(process.env.BENCH_OUTAGE_EDGES ?? 600);
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels: 8, logLimit: 100_000, quiet: true });
  const broker = await startTestBroker({ embedded: true });
  const gate = await door(broker.port);
  const { config, base } = configFor(gate.url, sim, password, 'out');
  let bridge: Bridge | undefined;
  let rec: Recorder | undefined;
  try {
    rec = await Recorder.start(broker.url, [`${base}/nvr/+`, `${base}/nvr/+/event`]);
    bridge = await startBridge(config, {
      log: createLogger({ level: 'error', sink: () => undefined }),
    });
    await rec.waitTopic(`${base}/nvr/ch1`, () => true, 30_000);
    await subscribed(sim);
    const events = bridge.devices.get('nvr')!.events!;
    const received = events.received;
    gate.shut = true;
    await broker.stop();
    const t0 = Date.now();
    const channels = ['CH1', 'CH2', 'CH3', 'CH4'];
    const on = new Map<string, boolean>();
    for (let i = 0; i < edges; i++) {
      await sleep(Math.max(0, t0 + ((i + 1) * seconds * 1000) / (edges + 1) - Date.now()));
      const channel = channels[i % channels.length];
      on.set(channel, !on.get(channel));
      sim.raiseAlarm({ channel, type: 'motion', active: on.get(channel)! });
    }
    await sleep(Math.max(0, t0 + seconds * 1000 - Date.now()));
    await until(() => events.received - received >= edges, 'the bridge to receive every edge', 30_000);
    const since = rec.count;
    const back = Date.now();
    await broker.restart();
    // The recorder first (it stands for Home Assistant, subscribed all along), then the bridge.
    await rec.subscribed();
    gate.shut = false;
    const delivered = () => rec!.messages.slice(since).filter((m) => m.topic.endsWith('/event')).length;
    let last = -1;
    let lastAt = Date.now();
    while (delivered() < edges && Date.now() - lastAt < 10_000) {
      if (delivered() !== last) [last, lastAt] = [delivered(), Date.now()];
      await sleep(100);
    }
    const arrivals = rec.messages.slice(since).filter((m) => m.topic.endsWith('/event'));
    return {
      outage_seconds: seconds,
      outage_edges_raised: edges,
      outage_edges_delivered: arrivals.length,
      outage_edges_goal: Math.min(edges, EDGE_BUFFER),
      outage_last_edge_after_restart_ms: arrivals.length ? arrivals.at(-1)!.at - back : NaN,
    };
  } finally {
    await bridge?.stop();
    await rec?.stop();
    await sim.stop();
    await gate.close();
    await broker.stop();
  }
}

async function storm(): Promise<Record<string, number>> {
  const seconds = Number(process.env.BENCH_STORM_SECONDS ?? 30);
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels: 8, logLimit: 100_000, quiet: true });
  const broker = process.env.BENCH_MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? broker!.url;
  const { config, base, prefix } = configFor(brokerUrl, sim, password, 'storm');
  let bridge: Bridge | undefined;
  let rec: Recorder | undefined;
  try {
    rec = await Recorder.start(brokerUrl, [`${base}/nvr/+`, `${base}/nvr/+/event`]);
    bridge = await startBridge(config, { log: createLogger({ level: 'error', sink: () => undefined }) });
    await rec.waitTopic(`${base}/nvr/ch1`, () => true, 30_000);
    await subscribed(sim);
    const r = await alarmStorm({
      sim,
      recorder: rec,
      deviceTopic: `${base}/nvr`,
      rate: 100,
      seconds,
      channels: ['CH1', 'CH2', 'CH3', 'CH4'],
    });
    return {
      storm_seconds: seconds,
      storm_edges_raised: r.sent,
      storm_edges_lost: r.lost,
      storm_lag_p50_ms: r.lag_p50_ms,
      storm_lag_p95_ms: r.lag_p95_ms,
      storm_lag_max_ms: r.lag_max_ms,
      storm_lag_goal_ms: 2000,
      storm_state_messages: r.state_messages,
    };
  } finally {
    await bridge?.stop();
    await rec?.stop();
    await clearRetained(brokerUrl, [base, prefix]).catch(() => undefined);
    await sim.stop();
    await broker?.stop();
  }
}

async function flood(): Promise<Record<string, number>> {
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels: 8, logLimit: 100_000, quiet: true });
  const broker = process.env.BENCH_MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? broker!.url;
  const base = `nvr2mqtt_rel_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_rel_${randomBytes(3).toString('hex')}`;
  let bridge: Bridge | undefined;
  let rec: Recorder | undefined;
  try {
    const { config } = parseConfig(
      {
        mqtt: { url: brokerUrl, base_topic: base },
        homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
        devices: [{ id: 'nvr', url: sim.url, username: 'admin', password }],
        log_level: 'warn',
      },
      { env: {} },
    );
    rec = await Recorder.start(brokerUrl, [`${base}/nvr/+`, `${base}/bridge/response/+`]);
    bridge = await startBridge(config, { log: createLogger({ level: 'error', sink: () => undefined }) });
    await rec.waitTopic(`${base}/nvr/ch1`, () => true, 20_000);
    const since = rec.count;
    const logFrom = sim.log.length;
    for (let i = 0; i < 500; i++) {
      void rec.publish(
        `${base}/bridge/request/get`,
        JSON.stringify({ device: 'nvr', page: 'AlarmConfig/VoiceAlarm', data: { nonce: i }, transaction: i }),
      );
    }
    const answers = () => rec!.messages.slice(since).filter((m) => m.topic === `${base}/bridge/response/get`);
    await until(() => answers().length >= 500, 'every answer', 120_000);
    const requests = sim.log.slice(logFrom);
    const seconds = Math.max(1, requests.at(-1)!.time - requests[0].time) / 1000;
    return {
      flood_500_get_device_requests: requests.length,
      flood_500_get_device_requests_per_s: requests.length / seconds,
      flood_500_get_refused_device_busy: answers().filter((m) => m.payload.includes('"device_busy"')).length,
    };
  } finally {
    await bridge?.stop();
    await rec?.stop();
    await clearRetained(brokerUrl, [base, prefix]).catch(() => undefined);
    await sim.stop();
    await broker?.stop();
  }
}
