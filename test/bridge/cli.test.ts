/** `nvr2mqtt` without a config: demo start, state flow, commands, clean shutdown on SIGINT. */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../bridge/base/config';
import { Recorder } from '../helpers/mqtt-broker';

const test = suite('bridge cli and demo');
const CLI = join(__dirname, '..', '..', 'bridge', 'app', 'cli.js');

function waitExit(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => reject(new Error('no exit')), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Runs the command to its end: exit code and everything it printed. */
function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NVR2MQTT_CONFIG: '', ...env } });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (out += d));
    c.on('exit', (code) => resolve({ code, out }));
  });
}

test('demo: broker line, state flows, a command works, SIGINT exits 0 with bridge/state offline', async () => {
  const child = spawn(process.execPath, [CLI], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NVR2MQTT_CONFIG: '' } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let rec: Recorder | undefined;
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no broker line in:\n${out}`)), 10_000);
      const check = () => {
        const m = /MQTT broker: (mqtt:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          child.stdout.off('data', check);
          resolve(m[1]);
        }
      };
      child.stdout.on('data', check);
      child.once('exit', (code) => reject(new Error(`demo exited (${code}):\n${out}`)));
    });
    rec = await Recorder.start(url, ['nvr2mqtt/#', 'homeassistant/#']);
    await rec.waitTopic('nvr2mqtt/bridge/state', (j) => j.state === 'online', 10_000);
    await rec.waitTopic('nvr2mqtt/demo_nvr/availability', (j) => j.state === 'online', 10_000);
    await rec.waitTopic('nvr2mqtt/demo_nvr/ch1', (j) => j.online === true, 10_000);
    await rec.waitFor((m) => m.topic === 'homeassistant/device/nvr2mqtt_demo_nvr/config', 10_000);
    const since = rec.count;
    await rec.publish('nvr2mqtt/demo_nvr/ch1/set/floodlight_on_alarm', 'ON');
    await rec.waitTopic('nvr2mqtt/demo_nvr/ch1', (j) => j.floodlight_on_alarm === true, 10_000, since);
    assert.match(out, /-> nvr2mqtt\/demo_nvr\/ch1/, 'prints what is published');
    // Its own fresh broker: no probe for another instance, MQTT 3.1.1 at once (no MQTT 5 attempt first).
    assert.doesNotMatch(out, /\[probe\]|does not speak MQTT 5/);
    const s2 = rec.count;
    child.kill('SIGINT');
    const code = await waitExit(child, 10_000);
    assert.equal(code, 0, out);
    assert.match(out, /\[demo_nvr\] logging out/);
    await rec
      .waitTopic('nvr2mqtt/bridge/state', (j) => j.state === 'offline', 2000, s2)
      .catch(() => {
        // the broker went down with the demo; the offline state was published before it (printed too)
        assert.match(out, /bridge\/state \(retained\) \{"state":"offline"\}/);
      });
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rec?.stop();
  }
});

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

test('demo with --host 0.0.0.0 --port <n>: the broker on every interface, exactly that port', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, '--host', '0.0.0.0', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NVR2MQTT_CONFIG: '' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let rec: Recorder | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start-up lines in:\n${out}`)), 10_000);
      child.stdout.on('data', () => {
        if (/Ctrl-C stops the demo/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`demo exited (${code}):\n${out}`)));
    });
    assert.match(out, new RegExp(`MQTT broker: mqtt://127\\.0\\.0\\.1:${port}\\b`));
    assert.match(out, new RegExp(`listening on 0\\.0\\.0\\.0:${port}`));
    // 127.0.0.2 is answered only by a socket bound to every interface (one on 127.0.0.1 refuses it).
    rec = await Recorder.start(`mqtt://127.0.0.2:${port}`, ['nvr2mqtt/#']);
    await rec.waitTopic('nvr2mqtt/demo_nvr/availability', (j) => j.state === 'online', 10_000);
  } finally {
    await rec?.stop();
    child.kill('SIGINT');
    await waitExit(child, 10_000).catch(() => child.kill('SIGKILL'));
  }
});

test('demo: --port of a port in use is an error naming it, not another port; bad --host/--port values', async () => {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    const taken = await runCli(['--port', String(port)]);
    assert.equal(taken.code, 1, taken.out);
    assert.match(taken.out, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}\\b`));
  } finally {
    await new Promise((r) => server.close(r));
  }
  for (const args of [['--port', 'http'], ['--port', '70000'], ['--port'], ['--host']]) {
    const bad = await runCli(args);
    assert.equal(bad.code, 2, args.join(' '));
    assert.match(bad.out, /--(port|host) needs/);
  }
  const help = await runCli(['--help']);
  assert.match(help.out, /--host <addr>/);
  assert.match(help.out, /--port <n>/);
});

test('demo: the floodlight it says it switches is the live floodlight (the light entity), not an alarm setting', async () => {
  const { runDemo } = await import('../../bridge/app/demo');
  const lines: string[] = [];
  const demo = await runDemo({ port: 0, changeEveryMs: 300, alarmEveryMs: 0, out: (l) => lines.push(l), logLevel: 'warn' });
  const rec = await Recorder.start(demo.brokerUrl, ['nvr2mqtt/demo_nvr/ch1']);
  try {
    const on = await rec.waitTopic('nvr2mqtt/demo_nvr/ch1', (j) => j.floodlight === true, 8000);
    assert.equal(JSON.parse(on.payload).floodlight_on_alarm, JSON.parse(rec.messages[0].payload).floodlight_on_alarm);
    await rec.waitTopic('nvr2mqtt/demo_nvr/ch1', (j) => j.floodlight === false, 8000, rec.messages.indexOf(on));
    assert.ok(lines.some((l) => /demo: floodlight of CH1 switched on/.test(l)));
    assert.ok(
      lines.some((l) => /set\/floodlight -m ON/.test(l)),
      'the printed command switches the light',
    );
  } finally {
    await rec.stop();
    await demo.stop();
  }
});

test('--help, --version, bad arguments, bad config', async () => {
  const run = runCli;
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /--config/);
  const version = await run(['--version']);
  assert.match(version.out.trim(), /^\d+\.\d+\.\d+/);
  const bad = await run(['--frobnicate']);
  assert.equal(bad.code, 2);
  const missing = await run(['--config', '/nonexistent/config.yaml']);
  assert.equal(missing.code, 1);
  assert.match(missing.out, /cannot read/);
});

test('--check: reports broker and devices, exit 0; a failing device: exit 1; no password printed', async () => {
  const { startSimulator } = await import('../../simulator');
  const { startTestBroker } = await import('../helpers/mqtt-broker');
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-check-'));
  const password = `chk-${Date.now().toString(36)}-pw`;
  const sim = await startSimulator({ password });
  const broker = await startTestBroker();
  try {
    writeFileSync(join(dir, 'nvr.pw'), `${password}\n`);
    writeFileSync(join(dir, 'wrong.pw'), 'not-the-password\n');
    const yaml = (pwFile: string) =>
      [
        'mqtt:',
        `  url: ${broker.url}`,
        'devices:',
        '  - id: nvr',
        `    url: ${sim.url}`,
        '    username: admin',
        `    password_file: ${pwFile}`,
      ].join('\n');
    writeFileSync(join(dir, 'ok.yaml'), yaml('nvr.pw'));
    writeFileSync(join(dir, 'bad.yaml'), yaml('wrong.pw'));
    const run = (file: string) => runCli(['--config', join(dir, file), '--check']);
    const ok = await run('ok.yaml');
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /mqtt: OK/);
    assert.match(ok.out, /device nvr: OK.*model N7508/);
    assert.match(ok.out, /AlarmConfig\/VoiceAlarm: Range OK/);
    const bad = await run('bad.yaml');
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /device nvr: FAILED/);
    assert.ok(!ok.out.includes(password) && !bad.out.includes('not-the-password'));
  } finally {
    await sim.stop();
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("DEBUG=*: MQTT.js's own log is there, without the MQTT password; without DEBUG it is silent", async () => {
  const { startSimulator } = await import('../../simulator');
  const { startTestBroker } = await import('../helpers/mqtt-broker');
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-debug-'));
  const mqttPassword = `mq-${Date.now().toString(36)}-secret`;
  const sim = await startSimulator({ password: 'nvr-pass-1' });
  const broker = await startTestBroker();
  try {
    const file = join(dir, 'c.yaml');
    writeFileSync(
      file,
      [
        'mqtt:',
        `  url: ${broker.url}`,
        '  username: bridge',
        `  password: ${mqttPassword}`,
        'devices:',
        '  - id: nvr',
        `    url: ${sim.url}`,
        '    username: admin',
        '    password: nvr-pass-1',
      ].join('\n'),
    );
    const debugged = await runCli(['--config', file, '--check'], { DEBUG: '*' });
    assert.equal(debugged.code, 0, debugged.out);
    assert.match(debugged.out, /mqttjs:client MqttClient :: version/); // the log asked for is there
    assert.match(debugged.out, /_writePacket :: packet/); // packets too, the CONNECT among them
    for (const form of [mqttPassword, Buffer.from(mqttPassword).toString('hex'), Buffer.from(mqttPassword).toString('base64')])
      assert.ok(!debugged.out.includes(form), `the MQTT password appears in the debug output (${form})`);
    const quiet = await runCli(['--config', file, '--check']);
    assert.equal(quiet.code, 0, quiet.out);
    assert.doesNotMatch(quiet.out, /mqttjs|MqttClient ::/);
  } finally {
    await sim.stop();
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--check: a bad config lists every problem by path and exits 1; an unreachable device fails the check', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-check-'));
  try {
    writeFileSync(
      join(dir, 'bad.yaml'),
      ['mqtt:', '  url: http://broker', '  password: 123456', 'devices:', '  - id: Bad', '    url: ftp://x', '    username: admin'].join(
        '\n',
      ),
    );
    const bad = await runCli(['--config', join(dir, 'bad.yaml'), '--check']);
    assert.equal(bad.code, 1, bad.out);
    for (const re of [
      /mqtt\.url: /,
      /mqtt\.password: expected text/,
      /devices\[0\]\.id: /,
      /devices\[0\]\.url: /,
      /devices\[0\]\.password: required/,
    ]) {
      assert.match(bad.out, re);
    }
    assert.ok(!bad.out.includes('123456'), 'the password is not printed');
    writeFileSync(
      join(dir, 'gone.yaml'),
      'devices:\n  - id: gone\n    url: http://127.0.0.1:9\n    username: admin\n    password: gone-pw-1\n',
    );
    const gone = await runCli(['--config', join(dir, 'gone.yaml'), '--check']);
    assert.equal(gone.code, 1, gone.out);
    assert.match(gone.out, /device gone: FAILED http:\/\/127\.0\.0\.1:9/);
    assert.match(gone.out, /check: problems found/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('examples/config.yaml is a valid configuration', () => {
  const doc = parseYaml(readFileSync(join(__dirname, '..', '..', '..', 'examples', 'config.yaml'), 'utf8')) as {
    mqtt: Record<string, unknown>;
    devices: Array<Record<string, unknown>>;
  };
  // Its secrets live in files of the target machine: give them inline here.
  delete doc.mqtt.password_file;
  doc.mqtt.password = 'x';
  for (const d of doc.devices) {
    delete d.password_file;
    d.password = 'x';
  }
  const { config } = parseConfig(doc, { env: {} });
  assert.equal(config.devices.length, 2);
  assert.equal(config.devices[1].tls?.fingerprint?.length, 64);
});

test.run();
