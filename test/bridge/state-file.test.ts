/**
 * The state file (bridge/base/state-file.ts): what the bridge keeps across its own end. A bridge killed with SIGKILL
 * (a real child process) while it holds a device's alarm push is followed by a run that gives the owner's own push
 * settings back, not `enable: false` at the bridge's address; the recorder's last restart holds the restart guard's
 * quiet time across a bridge restart. The file is written whole (temporary file, then rename) and never half.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import { StateFile } from '../../bridge/base/state-file';
import { createLogger } from '../../bridge/base/log';
import { startSimulator } from '../../simulator';
import { startTestBroker, uniqueTopics, clearRetained } from '../helpers/mqtt-broker';
import { setup, until, waitEvent } from './fixture';

const test = suite('bridge: state file');
const CLI = join(__dirname, '..', '..', 'bridge', 'app', 'cli.js');
const PASSWORD = 'St4te-file-pw';
/** The owner's own push settings (another server of theirs) before any bridge ran. */
const USER_PUSH = { addr: '10.1.2.3', port: 9000, url: 'their/hook', enable: true, method: 'POST', push_way: 'HTTP' };

function bridgeProcess(config: string): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [CLI, '--config', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NVR2MQTT_CONFIG: '' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return { child, output: () => out };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

test('SIGKILL while the bridge holds the push: the next run gives the owner their own settings back, not enable:false', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-state-'));
  const broker = await startTestBroker({ embedded: true });
  const sim = await startSimulator({ password: PASSWORD });
  const { base, prefix } = uniqueTopics('state');
  const running: ChildProcess[] = [];
  try {
    Object.assign(sim.pushSettings, USER_PUSH);
    writeFileSync(join(dir, 'nvr.pw'), PASSWORD);
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      [
        'mqtt:',
        `  url: ${broker.url}`,
        `  base_topic: ${base}`,
        'homeassistant:',
        `  discovery_prefix: ${prefix}`,
        'push:',
        '  address: 127.0.0.1',
        '  port: 0',
        '  listen: 127.0.0.1',
        'devices:',
        '  - id: nvr',
        `    url: ${sim.url}`,
        '    username: admin',
        '    password_file: nvr.pw',
        '    events: push',
        '    poll_interval: 1h',
        '    event_interval: 60',
      ].join('\n'),
    );
    const stateFile = join(dir, 'nvr2mqtt-state.json');
    const sets = () => sim.log.filter((e) => e.path === '/API/AlarmConfig/EventPush/Set').length;

    // Run 1: takes the push, keeps the owner's settings in the state file beside the config, then is killed.
    const first = bridgeProcess(config);
    running.push(first.child);
    await until(() => sim.pushSettings.addr === '127.0.0.1', 'run 1 took the push', 15_000);
    const kept = JSON.parse(readFileSync(stateFile, 'utf8')) as {
      devices: Record<string, { push_original?: { params: { table: object } } }>;
    };
    const keptTable = kept.devices.nvr.push_original?.params.table as Record<string, unknown>;
    for (const [k, v] of Object.entries(USER_PUSH)) assert.equal(keptTable[k], v, `${k} kept`);
    assert.ok(!('password' in keptTable), 'no password kept');
    first.child.kill('SIGKILL');
    assert.equal(await exited(first.child), null);
    assert.equal(sim.pushSettings.addr, '127.0.0.1', 'the device still pushes to the dead listener');

    // Run 2: finds its own leftover on the device and the owner's settings in the state file; a clean stop gives those.
    const before = sets();
    const second = bridgeProcess(config);
    running.push(second.child);
    await until(() => sets() === before + 1, 'run 2 took the push', 15_000);
    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0, second.output());
    for (const [k, v] of Object.entries(USER_PUSH)) assert.equal(sim.pushSettings[k], v, `${k}: the owner's, given back`);
    assert.deepEqual(JSON.parse(readFileSync(stateFile, 'utf8')), { version: 1, devices: {} }, 'nothing left to give back');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary file left',
    );
    assert.ok(!readFileSync(stateFile, 'utf8').includes(PASSWORD));
  } finally {
    for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await sim.stop();
    await clearRetained(broker.url, [base, prefix]).catch(() => undefined);
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the restart guard remembers across a bridge restart: a second reboot within its quiet time is refused with its reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-state-'));
  const fx = await setup({
    label: 'state-restart',
    devices: [{ id: 'nvr', sim: { rebootMs: 300 }, poll: 0.3 }],
    tweak: (c) => (c.state_file = join(dir, 'state.json')),
  });
  try {
    const sim = fx.sims.get('nvr')!;
    const topic = `${fx.base}/nvr/restart`;
    let since = fx.recorder.count;
    await fx.recorder.publish(topic, 'PRESS');
    await waitEvent(fx, 'device_restarting', (d) => d.device === 'nvr', since, 5000);
    await until(() => sim.reboots === 1, 'the reboot');
    // The bridge restarts (an update, a crash) while the recorder comes back; a second press follows.
    await fx.bridge.stop();
    await fx.restartBridge();
    await fx.recorder.waitTopic(`${fx.base}/bridge/state`, (j) => j.state === 'online', 5000, since);
    since = fx.recorder.count;
    await fx.recorder.publish(topic, 'PRESS');
    const refused = await waitEvent(fx, 'command_refused', (d) => d.topic === topic, since, 5000);
    assert.match(String(refused.reason), /restart/);
    assert.match(String(refused.reason), /60 s/, 'says the quiet time');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(sim.reboots, 1, 'not restarted again');
    assert.equal(sim.log.filter((e) => e.path === '/API/Maintenance/DeviceReboot/Set').length, 1);
  } finally {
    await fx.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the file: written whole by rename, read back; a file that is not a state file is set aside with a warning', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-state-'));
  try {
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', sink: (level, line) => lines.push(`${level} ${line}`) });
    const path = join(dir, 'sub', 'state.json');
    const a = StateFile.open(path, log);
    await Promise.all([
      a.update('nvr', (s) => ({ ...s, last_restart: 1 })),
      a.update('cam', (s) => ({ ...s, last_restart: 2 })),
      a.update('nvr', (s) => ({ ...s, last_restart: 3 })),
    ]);
    assert.deepEqual(StateFile.open(path, log).device('nvr'), { last_restart: 3 });
    assert.deepEqual(StateFile.open(path, log).device('cam'), { last_restart: 2 });
    await a.update('cam', () => ({}));
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { version: 1, devices: { nvr: { last_restart: 3 } } });
    writeFileSync(path, '{"version": 7');
    assert.deepEqual(StateFile.open(path, log).device('nvr'), {});
    assert.match(lines.join('\n'), /not a state file of this bridge; starting empty/);
    assert.ok(existsSync(path));
    // Memory only without a path: nothing written anywhere.
    const mem = StateFile.open(undefined, log);
    await mem.update('nvr', (s) => ({ ...s, last_restart: 9 }));
    assert.deepEqual(mem.device('nvr'), { last_restart: 9 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
