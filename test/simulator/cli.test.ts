import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_LOGIN, parseSimulatorArgs } from '../../simulator/cli';
import { startSimulator } from '../../simulator';
import { PASSWORD, RawClient } from './raw-client';
import { missingTool, testIf } from '../helpers/missing';

const CLI = path.join(__dirname, '..', '..', 'simulator', 'cli.js');

const test = suite('simulator CLI and TLS');

test('parseSimulatorArgs: options, env password, defaults, errors', () => {
  const p = parseSimulatorArgs(
    ['simulate', '--port', '0', '--profile', 'ipc', '--firmware=8.2.3', '--username', 'op', '--digest', 'sha-256', '--token-in-body'],
    {
      NVR2MQTT_SIM_PASSWORD: 'from-env',
    },
  );
  assert.equal(
    [p.opts.port, p.opts.profile, p.opts.firmware, p.opts.username, p.opts.password, p.opts.digestAlgorithm, p.opts.tokenInBody],
    [0, 'ipc', '8.2.3', 'op', 'from-env', 'SHA-256', true],
  );
  const d = parseSimulatorArgs(['--password', 'x', '--channels', '16', '--event-hold', '2'], {});
  assert.equal(
    [d.opts.port, d.opts.host, d.opts.profile, d.opts.channels, d.opts.eventHoldMs, d.opts.password],
    [8080, '127.0.0.1', 'nvr', 16, 2000, 'x'],
  );
  const h = parseSimulatorArgs(['--password', 'x', '--heartbeat-timeout', '60', '--session-timeout', '120'], {});
  assert.equal([h.opts.heartbeatTimeoutMs, h.opts.sessionTimeoutMs], [60_000, 120_000]);
  assert.is(d.opts.heartbeatTimeoutMs, undefined, 'heartbeat not required unless asked');
  assert.equal([d.opts.eventHold, d.opts.alarmEveryMs], [true, undefined]);
  const v = parseSimulatorArgs(
    ['--password', 'x', '--alarm-every', '5', '--channel-param', 'array', '--no-disarming', '--no-linkage-manage', '--event-hold', '0'],
    {},
  );
  assert.equal(
    [v.opts.alarmEveryMs, v.opts.channelParamForm, v.opts.disarming, v.opts.linkageManage, v.opts.eventHold],
    [5000, 'array', false, false, false],
  );
  const plain = parseSimulatorArgs([], {});
  assert.equal([plain.opts.username, plain.opts.password, plain.demo], ['admin', DEMO_LOGIN.password, true]);
  assert.is(d.demo, false);
  assert.is(p.demo, false, 'a password from the environment is no demo password');
  assert.throws(() => parseSimulatorArgs(['--channel-param', 'list'], {}), /array or wrapped/);
  assert.throws(() => parseSimulatorArgs(['--bogus', '1'], {}), /unknown option/);
  assert.throws(() => parseSimulatorArgs(['--profile', 'dvr'], {}), /profile/);
  assert.throws(() => parseSimulatorArgs(['--port'], {}), /needs a value/);
});

function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  probe?: (c: RawClient) => Promise<void>,
): Promise<{ code: number | null; out: string; err: string; url?: string }> {
  return runCliAs(args, env, PASSWORD, probe);
}

/** Runs the CLI; once it listens, logs in with `password`, runs `probe`, stops it with SIGTERM. */
function runCliAs(
  args: string[],
  env: Record<string, string | undefined>,
  password: string,
  probe?: (c: RawClient) => Promise<void>,
): Promise<{ code: number | null; out: string; err: string; url?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, NVR2MQTT_SIM_PASSWORD: undefined, ...env },
      stdio: 'pipe',
    });
    let out = '';
    let err = '';
    let url: string | undefined;
    child.stdout.on(
      'data',
      (b: Buffer) =>
        void (async () => {
          out += b.toString();
          const m = /listening on (http\S+)/.exec(out);
          if (m && !url) {
            url = m[1];
            try {
              const c = new RawClient(url, 'admin', password);
              const res = await c.login();
              assert.is(res.status, 200);
              await probe?.(c);
            } catch (e) {
              err += String(e);
            }
            child.kill('SIGTERM');
          }
        })(),
    );
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err, url }));
  });
}

test('CLI: starts, prints the URL but never the password, stops cleanly on SIGTERM', async () => {
  const r = await runCli(['simulate', '--port', '0'], { NVR2MQTT_SIM_PASSWORD: PASSWORD });
  assert.is(r.err, '');
  assert.is(r.code, 0);
  assert.ok(r.url);
  assert.match(r.out, 'simulator stopped');
  assert.not.ok(r.out.includes(PASSWORD));
});

test('CLI --alarm-every: random alarms reach an Event/Check reader', async () => {
  let alarms = 0;
  const r = await runCli(['--port', '0', '--quiet', '--alarm-every', '0.05'], { NVR2MQTT_SIM_PASSWORD: PASSWORD }, async (c) => {
    let cur = (await c.post('/API/Event/Check', { plus_eventchk: 'eventAiPushPic', ext_data: { subscribe_type: [{ event: ['all'] }] } }))
      .json.data;
    const until = Date.now() + 5000;
    while (alarms < 2 && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 100));
      cur = (await c.post('/API/Event/Check', { reader_id: cur.reader_id, sequence: cur.sequence, lap_number: cur.lap_number })).json.data;
      alarms += cur.alarm_list?.length ?? 0;
    }
  });
  assert.is(r.err, '');
  assert.ok(alarms >= 2, `alarms seen: ${alarms}`);
});

test('CLI without a password: the documented demo password, printed with the URL; one given is never printed', async () => {
  let loggedIn = 0;
  const r = await runCliAs(['--port', '0', '--quiet'], {}, DEMO_LOGIN.password, async () => {
    loggedIn++;
  });
  assert.is(r.err, '');
  assert.is(r.code, 0);
  assert.is(loggedIn, 1, 'logged in with the demo password');
  assert.match(r.out, `(user admin, demo password "${DEMO_LOGIN.password}")`);
  const empty = await runCli(['--port', '0', '--password', ''], {});
  assert.is(empty.code, 2);
  assert.match(empty.err, 'the password must not be empty');
  assert.is(empty.url, undefined);
});

testIf(test, missingTool('openssl'), 'HTTPS when tls is given', async () => {
  let dir: string | undefined;
  try {
    dir = mkdtempSync(path.join(tmpdir(), 'sim-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
  } catch (err) {
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const { readFileSync } = await import('node:fs');
  const key = readFileSync(path.join(dir, 'key.pem'));
  const cert = readFileSync(path.join(dir, 'cert.pem'));
  rmSync(dir, { recursive: true, force: true });
  const sim = await startSimulator({ password: PASSWORD, tls: { key, cert } });
  try {
    assert.match(sim.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const c = new RawClient(sim.url, 'admin', PASSWORD, cert);
    assert.is((await c.login()).status, 200);
    assert.is((await c.post('/API/SystemInfo/Base/Get')).json.result, 'success');
  } finally {
    await sim.stop();
  }
});

test.run();
