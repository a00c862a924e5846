/**
 * Bridge figures (printed by bench/run.ts, never asserted):
 * 1. scale: N simulated devices x C channels (simulators and broker in a child process, so that the bridge's
 *    CPU and memory are measured alone), 1 s poll interval, events on (1 s checks), BENCH_SECONDS (default 60):
 *    bridge CPU in % of one core, peak RSS, polls completed vs due;
 * 2. command latency: MQTT `set` published -> Set received by the simulator (its log time) -> confirmed state
 *    on MQTT, p50 and p99 over ~200 commands, each also as a ratio to a bare HTTP Set+Get round-trip (raw
 *    fetch with the session cookie and CSRF token) measured in the same run; for a config key (`siren_volume`,
 *    AlarmConfig/VoiceAlarm) and for the live floodlight (`floodlight` ON/OFF, the live page). Goal: p50 <= 2x bare;
 * 3. idle traffic: MQTT messages per poll when nothing changed (from the scale run).
 * BENCH_MQTT_URL: use that broker (e.g. the local Mosquitto) instead of an aedes in the child process.
 * BENCH_BRIDGE_ONLY=latency skips the scale run; BENCH_COMMANDS sets the number of commands (default 200).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startBridge, type Bridge } from '../bridge/bridge';
import { startEmbeddedBroker } from '../bridge/mqtt/broker';
import { parseConfig } from '../bridge/base/config';
import { createLogger } from '../bridge/base/log';
import { digestAuthorization, pickDigestChallenge } from '../core';
import { startSimulator, type Simulator } from '../simulator';
import { clearRetained, Recorder } from '../test/helpers/mqtt-broker';
import { percentile } from '../test/helpers/storm';
import { bridgeNodeFlags } from './scale-run';

export interface BenchBridgeOptions {
  devices?: number;
  channels?: number;
  seconds?: number;
  /** Commands in the latency run. Default 200. */
  commands?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const quietLog = (counter: { warn: number }) =>
  createLogger({
    level: 'warn',
    sink: (level) => {
      if (level === 'warn' || level === 'error') counter.warn++;
    },
  });

async function startFarm(
  devices: number,
  channels: number,
  password: string,
  broker: boolean,
): Promise<{ child: ChildProcess; urls: string[]; broker?: string }> {
  const script = join(__dirname, 'sim-farm.js');
  const child = spawn(
    process.execPath,
    [script, '--devices', String(devices), '--channels', String(channels), ...(broker ? ['--broker'] : [])],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, NVR2MQTT_BENCH_PASSWORD: password },
    },
  );
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('sim-farm did not start within 60 s')), 60_000);
    lines.once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`sim-farm exited (${code})`)));
  });
  const parsed = JSON.parse(first) as { urls: string[]; broker?: string };
  return { child, ...parsed };
}

async function stopFarm(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** (1) and (3): many devices; the bridge runs in a child process of its own and measures itself. */
async function scale(devices: number, channels: number, seconds: number): Promise<Record<string, number>> {
  const password = randomBytes(12).toString('base64url');
  const external = process.env.BENCH_MQTT_URL;
  const farm = await startFarm(devices, channels, password, !external);
  const child = spawn(process.execPath, [...bridgeNodeFlags(), join(__dirname, 'bridge-scale.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const job = {
    urls: farm.urls,
    password,
    broker: external ?? farm.broker!,
    seconds,
    base: `nvr2mqtt_bench_${randomBytes(3).toString('hex')}`,
    prefix: `ha_bench_${randomBytes(3).toString('hex')}`,
  };
  try {
    child.stdin.write(`${JSON.stringify(job)}\n`);
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bridge-scale exited (${code})`)));
    });
    return { scale_channels_per_device: channels, ...(JSON.parse(line) as Record<string, number>) };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await stopFarm(farm.child);
    if (external) await clearRetained(external, [job.base, job.prefix], 1000); // a shared broker keeps them
  }
}

/** A bare session: Digest login, then Set+Get with cookie and CSRF token (what the bridge's write costs at least). */
async function rawSession(url: string, password: string) {
  const login = '/API/Web/Login';
  const body = JSON.stringify({ version: '1.0', data: {} });
  const first = await fetch(url + login, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  await first.arrayBuffer();
  const ch = pickDigestChallenge(first.headers.get('www-authenticate'));
  if (!ch) throw new Error('no Digest challenge');
  const auth = digestAuthorization(ch, { method: 'POST', uri: login, username: 'admin', password });
  const res = await fetch(url + login, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: auth } });
  const json = (await res.json()) as { data?: { token?: string } };
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  let token = res.headers.get('x-csrftoken') ?? json.data?.token ?? '';
  const post = async (path: string, data: unknown) => {
    const r = await fetch(url + path, {
      method: 'POST',
      body: JSON.stringify({ version: '1.0', data }),
      headers: { 'content-type': 'application/json', cookie, 'x-csrftoken': token },
    });
    const fresh = r.headers.get('x-csrftoken');
    if (fresh) token = fresh;
    const out = (await r.json()) as { result?: string };
    if (out.result !== 'success') throw new Error(`raw ${path}: ${JSON.stringify(out).slice(0, 200)}`);
    return out;
  };
  return { post };
}

interface Measured {
  toDevice: number[];
  confirmed: number[];
  bare: number[];
}

/** One command kind: MQTT command -> Set at the simulator -> confirmed state, then the bare round-trip, `n` times. */
async function measure(
  n: number,
  sim: Simulator,
  rec: Recorder,
  kind: {
    command: (i: number) => { topic: string; payload: string; confirmed: (j: Record<string, unknown>) => boolean };
    devicePath: string;
    bare: (i: number) => Promise<void>;
  },
): Promise<Measured> {
  const out: Measured = { toDevice: [], confirmed: [], bare: [] };
  const stateTopic = (t: string) => t.slice(0, t.lastIndexOf('/set/'));
  for (let i = 0; i < n; i++) {
    const { topic, payload, confirmed } = kind.command(i);
    const logIndex = sim.log.length;
    const since = rec.count;
    const t0 = Date.now();
    const p0 = performance.now();
    await rec.publish(topic, payload, { qos: 0 });
    await rec.waitTopic(stateTopic(topic), confirmed, 10_000, since);
    out.confirmed.push(performance.now() - p0);
    const set = sim.log.slice(logIndex).find((e) => e.path.endsWith(kind.devicePath));
    if (set) out.toDevice.push(set.time - t0);
    const p1 = performance.now();
    await kind.bare(i);
    out.bare.push(performance.now() - p1);
    await sleep(5);
  }
  return out;
}

/** (2): command latency against one simulator, and the bare HTTP round-trip in the same run. */
async function latency(commands: number, channels: number): Promise<Record<string, number>> {
  const password = randomBytes(12).toString('base64url');
  const sim = await startSimulator({ password, channels, logLimit: 100_000 });
  const broker = process.env.BENCH_MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const brokerUrl = process.env.BENCH_MQTT_URL ?? broker!.url;
  const base = `nvr2mqtt_lat_${randomBytes(3).toString('hex')}`;
  const prefix = `ha_lat_${randomBytes(3).toString('hex')}`;
  const counter = { warn: 0 };
  let bridge: Bridge | undefined;
  let rec: Recorder | undefined;
  try {
    const { config } = parseConfig(
      {
        mqtt: { url: brokerUrl, base_topic: base },
        homeassistant: { discovery_prefix: prefix, status_topic: `${prefix}/status` },
        // The request budget at its highest: back-to-back commands (3 requests each) at the default 8 requests a
        // second measure the budget (about 370 ms a command), not the bridge's own cost.
        devices: [{ id: 'nvr', url: sim.url, username: 'admin', password, poll_interval: 1, request_rate: 50 }],
        log_level: 'warn',
      },
      { env: {} },
    );
    rec = await Recorder.start(brokerUrl, [`${base}/nvr/ch1`]);
    bridge = await startBridge(config, { log: quietLog(counter) });
    // A first state within a minute even on a machine busy with the scale run's leftovers (CI).
    const started = performance.now();
    await rec.waitTopic(`${base}/nvr/ch1`, () => true, 60_000);
    const firstState = performance.now() - started;
    const raw = await rawSession(sim.url, password);
    // Config key: a new siren volume on CH1 each time (so the confirmed state always changes); bare: Set+Get of CH2.
    let volume = (rec.lastJson(`${base}/nvr/ch1`)?.siren_volume as number) ?? 5;
    const cfgKey = await measure(commands, sim, rec, {
      command: () => {
        volume = (volume % 10) + 1;
        const v = volume;
        return { topic: `${base}/nvr/ch1/set/siren_volume`, payload: String(v), confirmed: (j) => j.siren_volume === v };
      },
      devicePath: '/VoiceAlarm/Set',
      bare: async (i) => {
        await raw.post('/API/AlarmConfig/VoiceAlarm/Set', { channel_info: { CH2: { siren_value: (i % 10) + 1 } } });
        await raw.post('/API/AlarmConfig/VoiceAlarm/Get', {});
      },
    });
    // Live floodlight: CH1 on, off, on...; bare: the live Set (operation_type Floodlight) and Get of CH2.
    const live = await measure(commands, sim, rec, {
      command: (i) => {
        const on = i % 2 === 0;
        return { topic: `${base}/nvr/ch1/set/floodlight`, payload: on ? 'ON' : 'OFF', confirmed: (j) => j.floodlight === on };
      },
      devicePath: '/Floodlight2AudioAlarm/Set',
      bare: async (i) => {
        await raw.post('/API/PreviewChannel/Floodlight2AudioAlarm/Set', {
          channel: 'CH2',
          floodlight_switch: i % 2 === 0,
          operation_type: 'Floodlight',
        });
        await raw.post('/API/PreviewChannel/Floodlight2AudioAlarm/Get', { channel: 'CH2', command_flag: false });
      },
    });
    const p50 = (xs: number[]) => percentile(xs, 50);
    const p99 = (xs: number[]) => percentile(xs, 99);
    return {
      latency_commands: commands,
      latency_request_rate: 50,
      latency_first_state_ms: firstState,
      latency_set_to_device_p50_ms: p50(cfgKey.toDevice),
      latency_set_to_device_p99_ms: p99(cfgKey.toDevice),
      latency_confirmed_p50_ms: p50(cfgKey.confirmed),
      latency_confirmed_p99_ms: p99(cfgKey.confirmed),
      bare_http_set_get_p50_ms: p50(cfgKey.bare),
      bare_http_set_get_p99_ms: p99(cfgKey.bare),
      latency_set_to_device_p50_ratio_to_bare: p50(cfgKey.toDevice) / p50(cfgKey.bare),
      latency_set_to_device_p99_ratio_to_bare: p99(cfgKey.toDevice) / p99(cfgKey.bare),
      latency_confirmed_p50_ratio_to_bare: p50(cfgKey.confirmed) / p50(cfgKey.bare),
      latency_confirmed_p99_ratio_to_bare: p99(cfgKey.confirmed) / p99(cfgKey.bare),
      live_floodlight_confirmed_p50_ms: p50(live.confirmed),
      live_floodlight_confirmed_p99_ms: p99(live.confirmed),
      bare_http_live_set_get_p50_ms: p50(live.bare),
      bare_http_live_set_get_p99_ms: p99(live.bare),
      live_floodlight_confirmed_p50_ratio_to_bare: p50(live.confirmed) / p50(live.bare),
      live_floodlight_confirmed_p99_ratio_to_bare: p99(live.confirmed) / p99(live.bare),
      latency_warnings_logged: counter.warn,
    };
  } finally {
    await bridge?.stop();
    await rec?.stop();
    await sim.stop();
    await broker?.stop();
    if (!broker) await clearRetained(brokerUrl, [base, prefix]);
  }
}

export async function benchBridge(opts: BenchBridgeOptions = {}): Promise<Record<string, number>> {
  const devices = opts.devices ?? 100;
  const channels = opts.channels ?? 16;
  const seconds = opts.seconds ?? Number(process.env.BENCH_SECONDS ?? 60);
  // Scale first: its peak RSS must not include the latency run's leftovers.
  const sc = process.env.BENCH_BRIDGE_ONLY === 'latency' ? {} : await scale(devices, channels, seconds);
  const lat = await latency(opts.commands ?? Number(process.env.BENCH_COMMANDS ?? 200), 8);
  return { ...sc, ...lat };
}

if (require.main === module) {
  benchBridge().then(
    (r) => {
      for (const [k, v] of Object.entries(r)) console.log(`  ${k.padEnd(44)} ${+v.toFixed(3)}`);
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
