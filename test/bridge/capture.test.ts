/**
 * `nvr2mqtt capture` against a real simulator: it reads every page the bridge and the nodes read, follows events,
 * never writes, says what it read and what was refused, and the file it writes holds none of the device's secrets.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import { NvrClient } from '../../core';
import { parseConfig } from '../../bridge/base/config';
import { deviceClientOptions } from '../../bridge/device/device';
import { CAPTURE_FORMAT, captureDevice, captureReads, type CaptureFile } from '../../core/capture';
import { startSimulator, type Simulator } from '../../simulator';

const test = suite('nvr2mqtt capture');
const CLI = join(__dirname, '..', '..', 'bridge', 'app', 'cli.js');
const PASSWORD = 'Capture-s3cret!';
let sim: Simulator;
let dir: string;

const deviceOf = (url: string) =>
  parseConfig({ mqtt: {}, devices: [{ id: 'nvr', url, username: 'admin', password: PASSWORD, request_rate: 50 }] }).config;

test.before(async () => {
  sim = await startSimulator({ password: PASSWORD, profile: 'nvr' });
  dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-capture-'));
});
test.after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What the simulated device would give away: its serial number, MAC, address, P2P id. */
async function deviceSecrets(): Promise<string[]> {
  const client = new NvrClient({ url: sim.url, username: 'admin', password: PASSWORD, heartbeatMs: 0 });
  try {
    const info = (await client.call('/API/SystemInfo/Base/Get')) as Record<string, string>;
    return [PASSWORD, info.serialNum, info.mac_address, info.ip_address, info.p2p_id];
  } finally {
    await client.close();
  }
}

test('reads every reading page once, follows events, sends no write, and leaves no secret in the file', async () => {
  const secrets = await deviceSecrets();
  assert.equal(secrets.filter((s) => !s).length, 0, 'the simulator reports every secret');
  sim.clearLog();
  const lines: string[] = [];
  // The alarm starts once the capture follows events (a loaded machine reads the pages slower).
  const alarm = setInterval(() => {
    if (!sim.log.some((e) => e.path === '/API/Event/Check')) return;
    clearInterval(alarm);
    sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  }, 20);
  const { file } = await captureDevice({
    client: deviceClientOptions(deviceOf(sim.url).devices[0]),
    product: 'nvr2mqtt test',
    events: 1.5,
    say: (l) => lines.push(l),
  });
  clearInterval(alarm);
  const sent = sim.log.map((e) => e.path);
  const writes = sent.filter((p) => !/\/(Range|Get|Check|Login|Logout|Heartbeat)$/.test(p));
  assert.deepEqual(writes, []);
  const answered = new Set(file.exchanges.map((x) => x.path));
  assert.deepEqual(
    captureReads().filter((r) => !answered.has(r.path)),
    [],
  );
  // Every read is on a line of its own: read, or refused with the device's reason.
  for (const r of captureReads())
    assert.ok(
      lines.some((l) => l.endsWith(r.path) || l.includes(`${r.path}:`)),
      r.path,
    );
  assert.ok(file.exchanges.some((x) => x.path === '/API/Snapshot/Get'));
  const checks = file.exchanges.filter((x) => x.path === '/API/Event/Check');
  assert.ok(
    checks.some((x) => JSON.stringify(x.body).includes('motion_alarm')),
    'the alarm raised while following events',
  );
  assert.equal(file.format, CAPTURE_FORMAT);
  assert.deepEqual(file.device, { model: sim.profile.deviceType, firmware: file.device.firmware, kind: 'recorder', channels: 7 });
  const written = JSON.stringify(file);
  assert.deepEqual(
    secrets.filter((s) => written.includes(s)),
    [],
  );
});

function runCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NVR2MQTT_CONFIG: '' } });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('the command writes the file and says what it read, what was refused and what it redacted', async () => {
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `devices:\n  - id: nvr\n    url: ${sim.url}\n    username: admin\n    password: ${PASSWORD}\n    request_rate: 50\n`,
  );
  const out = join(dir, 'nvr.json');
  const r = await runCli(['capture', '--config', config, '--events', '0', '--out', out]);
  assert.equal(r.code, 0, r.err);
  const file = JSON.parse(readFileSync(out, 'utf8')) as CaptureFile;
  assert.match(r.out, /^read {4}\/API\/Login\/DeviceInfo\/Get$/m);
  assert.match(r.out, new RegExp(`wrote .*nvr\\.json: ${file.exchanges.length} answers \\(0 refused\\)`));
  assert.match(r.out, /redacted: .*\d+ serial.*\d+ pictures/);
  assert.ok(!readFileSync(out, 'utf8').includes(PASSWORD));
  const bad = await runCli(['capture', '--config', config]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--out <file.json> is required/);
});

test.run();
