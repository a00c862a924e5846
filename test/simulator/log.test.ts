import { once } from 'node:events';
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimulator } from '../../simulator';
import { PASSWORD, RawClient, until } from './raw-client';

const test = suite('simulator request log');

test('every request logged with time, path, data, status, error_code; no password anywhere', async () => {
  const sim = await startSimulator({ password: PASSWORD, profile: 'ipc' });
  try {
    const t0 = Date.now();
    const c = new RawClient(sim.url);
    await c.login();
    await new RawClient(sim.url, 'admin', 'Wrong-Secret-2').login();
    await c.post('/API/AlarmConfig/VoiceAlarm/Set', { channel_info: { CH1: { siren_time: 500 } } });
    await c.post('/API/Maintenance/DeveloperMode/Set', {
      channel_info: { CH1: { remote_server: { username: 'ftpuser', password: 'Ftp-Secret-3', server_address: 'ftp.example' } } },
    });
    await c.post('/API/Maintenance/SystemUpgrade/Token', {
      file_name: 'fw.bin',
      file_size: 10,
      upgrade_head: new Array(3072).fill(0),
      base_secondary_authentication: { seq: 3, cipher: 'Cipher-Secret-4' },
    });
    await c.post('/API/Nope', {}, { method: 'PUT' });

    const log = sim.log;
    assert.equal(
      log.map((e) => [e.path, e.status, e.error_code]),
      [
        ['/API/Web/Login', 401, 'no_login'],
        ['/API/Web/Login', 200, undefined],
        ['/API/Web/Login', 401, 'no_login'],
        ['/API/Web/Login', 401, 'verify_failed'],
        ['/API/AlarmConfig/VoiceAlarm/Set', 400, 'param_error'],
        ['/API/Maintenance/DeveloperMode/Set', 200, undefined],
        ['/API/Maintenance/SystemUpgrade/Token', 200, undefined],
        ['/API/Nope', 405, 'method_not_allowed'],
      ],
    );
    assert.ok(log.every((e) => e.time >= t0 && e.time <= Date.now()));
    assert.equal(log[4].data, { channel_info: { CH1: { siren_time: 500 } } });
    assert.equal((log[5].data as any).channel_info.CH1.remote_server, {
      username: 'ftpuser',
      password: '***',
      server_address: 'ftp.example',
    });
    assert.is(log[7].method, 'PUT');

    const dump = JSON.stringify(log);
    for (const secret of [PASSWORD, 'Wrong-Secret-2', 'Ftp-Secret-3', 'Cipher-Secret-4', 'Digest', 'response=']) {
      assert.not.ok(dump.includes(secret), `log must not contain ${secret}`);
    }
    // The stored password is still used (and never echoed by Get).
    const get = await c.post('/API/Maintenance/DeveloperMode/Get');
    assert.not.ok(get.text.includes('Ftp-Secret-3'));

    sim.clearLog();
    assert.is(sim.log.length, 0, 'cleared in place (the same array)');
    await c.post('/API/Login/Heartbeat', { keep_alive: true });
    assert.is(sim.log.length, 1);
  } finally {
    await sim.stop();
  }
});

test('the log keeps at most about twice logLimit entries', async () => {
  const sim = await startSimulator({ password: PASSWORD, logLimit: 5 });
  try {
    const c = new RawClient(sim.url);
    for (let i = 0; i < 30; i++) await c.post('/API/Nope');
    assert.ok(sim.log.length <= 10 && sim.log.length >= 5);
  } finally {
    await sim.stop();
  }
});

test('connects: when each TCP connection was opened, kept as the log is kept', async () => {
  const sim = await startSimulator({ password: PASSWORD, logLimit: 5 });
  const open = async () => {
    const socket = connect(sim.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.destroy();
  };
  try {
    const t0 = Date.now();
    for (let i = 0; i < 3; i++) await open();
    await until(() => sim.connects.length === 3, 'three connects');
    assert.ok(sim.connects.every((t, i) => t >= t0 && t <= Date.now() && (i === 0 || t >= sim.connects[i - 1])));
    // A request without keep-alive (RawClient: agent false) is a connection of its own.
    await new RawClient(sim.url).post('/API/Nope');
    assert.is(sim.connects.length, 4);
    for (let i = 0; i < 20; i++) await open();
    const last = Date.now();
    await open();
    await until(() => sim.connects[sim.connects.length - 1] >= last, 'the last connect');
    assert.ok(sim.connects.length >= 5 && sim.connects.length <= 10, `${sim.connects.length} kept`);
  } finally {
    await sim.stop();
  }
});

test.run();
