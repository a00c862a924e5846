/**
 * No secret (broker password, device passwords) in any MQTT message or log line, even on errors, and even when a
 * secret is what a command or request sends: every command path (each key of the table on its `set/<key>`, the JSON
 * `set`, each live control's JSON members, the alarm panel, the request API, the Node-RED nodes) gets every secret.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import { startBridge } from '../../bridge/bridge';
import { parseConfig } from '../../bridge/base/config';
import { createLogger } from '../../bridge/base/log';
import { alarmOutputKey } from '../../bridge/device/alarm-output-names';
import { FIRMWARE_KEY } from '../../bridge/features/firmware/firmware';
import { PTZ_KEYS } from '../../bridge/features/ptz/ptz';
import { isLiveRow, TABLE } from '../../bridge/device/table';
import { REQUEST_OPS } from '../../bridge/mqtt/topics';
import { CONTROL_MODES } from '../../nodes/shared/control-modes';
import { startSimulator } from '../../simulator';
import { clearRetained } from '../helpers/mqtt-broker';
import { credentials, DEV, exchange, flowWith, helper, load, newPassword, simulator } from '../nodes/harness';
import { assertNoSecrets, settle, setup } from './fixture';

const test = suite('bridge secrets');

test('all MQTT traffic and logs of a run with errors: zero hits for any password', async () => {
  const mqttPassword = `mq-${randomBytes(9).toString('base64url')}`;
  const fx = await setup({
    label: 'sec',
    mqttPassword,
    devices: [
      { id: 'nvr', poll: 0.2 },
      { id: 'cam', sim: { profile: 'ipc' } },
    ],
  });
  // A device configured with a wrong password (login refused) and one that is unreachable.
  const wrongSim = await startSimulator({ password: `right-${randomBytes(6).toString('hex')}` });
  const wrongPw = `wrong-${randomBytes(9).toString('base64url')}`;
  const unreachablePw = `gone-${randomBytes(9).toString('base64url')}`;
  const logs: string[] = [];
  const { config } = parseConfig(
    {
      mqtt: { url: fx.broker.url, base_topic: `${fx.base}_2`, username: 'bridge', password: mqttPassword },
      homeassistant: { discovery_prefix: `${fx.prefix}_2` },
      devices: [
        { id: 'wrong', url: wrongSim.url, username: 'admin', password: wrongPw, poll_interval: 0.2 },
        { id: 'gone', url: 'http://127.0.0.1:9', username: 'admin', password: unreachablePw, poll_interval: 0.2 },
      ],
      log_level: 'debug',
    },
    { env: {} },
  );
  let bridge2: Awaited<ReturnType<typeof startBridge>> | undefined;
  try {
    bridge2 = await startBridge(config, {
      log: createLogger({ level: 'debug', sink: (l, line) => logs.push(`${l} ${line}`) }),
      backoff: { minMs: 50, maxMs: 200 },
    });
    await fx.recorder.waitTopic(`${fx.base}_2/wrong/availability`, (j) => j.state === 'offline', 8000);
    await fx.recorder.waitTopic(`${fx.base}_2/gone/availability`, (j) => j.state === 'offline', 8000);
    // Requests that echo device pages, commands carrying a password (!), a refresh.
    const r = fx.recorder;
    await r.publish(`${fx.base}/bridge/request/get`, JSON.stringify({ device: 'cam', page: 'Maintenance/DeveloperMode', transaction: 1 }));
    await r.publish(
      `${fx.base}/bridge/request/range`,
      JSON.stringify({ device: 'cam', page: 'Maintenance/DeveloperMode', transaction: 2 }),
    );
    await r.publish(`${fx.base}/nvr/ch1/set/siren_tone`, fx.passwords[0]);
    await r.publish(`${fx.base}/nvr/ch1/set`, JSON.stringify({ [fx.passwords[0]]: mqttPassword }));
    await r.publish(`${fx.base}/bridge/request/refresh`, JSON.stringify({ transaction: 3 }));
    await r.publish(
      `${fx.base}/bridge/request/set`,
      JSON.stringify({
        device: 'nvr',
        page: 'AlarmConfig/VoiceAlarm',
        data: { channel_info: { CH1: { siren_file_name: fx.passwords[0] } } },
        transaction: 4,
      }),
    );
    await r.waitTopic(`${fx.base}/bridge/response/refresh`, () => true, 5000);
    await r.waitTopic(`${fx.base}/bridge/response/set`, (j) => j.transaction === 4, 5000);
    await r.waitTopic(`${fx.base}/bridge/response/get`, (j) => j.transaction === 1, 5000);
    await r.waitTopic(`${fx.base}/bridge/response/range`, (j) => j.transaction === 2, 5000);
    await settle(fx);
    await bridge2.stop();
    const secrets = [mqttPassword, wrongPw, unreachablePw, ...fx.passwords];
    assert.ok(
      logs.some((l) => /login|refused|connection refused/i.test(l)),
      'the errors were logged',
    );
    for (const line of logs) for (const s of secrets) assert.ok(!line.includes(s), `secret in log: ${line.slice(0, 100)}`);
    assert.ok(fx.recorder.count > 50);
    assertNoSecrets(fx, secrets);
    const withheld = fx.recorder
      .on(`${fx.base}/bridge/event`)
      .filter((m) => m.payload.includes('(withheld: contains a configured password)'));
    assert.ok(withheld.length >= 1, 'the refused key (a password) was not quoted in the event');
  } finally {
    await bridge2?.stop();
    await wrongSim.stop();
    await clearRetained(fx.broker.url, [`${fx.base}_2`, `${fx.prefix}_2`]);
    await fx.stop();
  }
});

test('every secret sent to every command path: refused, and never quoted back or logged', async () => {
  const mqttPassword = `mq-${randomBytes(9).toString('base64url')}`;
  const fx = await setup({
    label: 'secall',
    mqttPassword,
    devices: [
      { id: 'nvr', poll: 0.5 },
      { id: 'cam', sim: { profile: 'ipc' } },
    ],
  });
  try {
    const secrets = [mqttPassword, ...fx.passwords];
    const r = fx.recorder;
    let commands = 0;
    const command = async (topic: string, payload: string) => {
      commands++;
      await r.publish(`${fx.base}/${topic}`, payload);
    };
    for (const secret of secrets) {
      for (const row of TABLE) {
        for (const dev of ['nvr', 'cam']) {
          const at = row.level === 'channel' ? `${dev}/ch1` : dev;
          await command(`${at}/set/${row.key}`, secret);
          await command(`${at}/set`, JSON.stringify({ [row.key]: secret }));
          // Live controls also take JSON objects (Home Assistant's light and siren schemas): every member a secret.
          if (isLiveRow(row)) {
            for (const member of ['state', 'brightness', 'duration', 'volume_level', secret]) {
              await command(`${at}/set/${row.key}`, JSON.stringify({ [member]: secret }));
            }
          }
        }
      }
      // The keys the features own outside the table: PTZ on a channel, firmware and an alarm output on the recorder.
      for (const key of PTZ_KEYS) {
        await command(`nvr/ch1/set/${key}`, secret);
        await command('nvr/ch1/set', JSON.stringify({ [key]: secret }));
      }
      for (const member of ['preset', 'move', 'duration', 'speed', secret]) {
        await command('nvr/ch1/set/ptz', JSON.stringify({ [member]: secret }));
      }
      for (const key of [FIRMWARE_KEY, alarmOutputKey('Local->1')]) {
        await command(`nvr/set/${key}`, secret);
        await command('nvr/set', JSON.stringify({ [key]: secret }));
      }
      await command('nvr/ch1/set', JSON.stringify({ [secret]: secret }));
      await command('nvr/set', JSON.stringify({ [secret]: true }));
      const pages = ['AlarmConfig/Deterrence', 'AlarmConfig/VoiceAlarm', secret];
      for (const op of [...REQUEST_OPS, secret]) {
        for (const page of pages) {
          const bodies = [
            { device: 'nvr', page, transaction: secret },
            { device: secret, page, transaction: 1 },
            { device: 'nvr', page, data: { [secret]: secret }, transaction: 2 },
            { device: 'nvr', page, data: { page_type: secret, channel_info: { CH1: { chn_index: secret, siren_file_name: secret } } } },
          ];
          for (const body of bodies) await r.publish(`${fx.base}/bridge/request/${op}`, JSON.stringify(body));
        }
      }
    }
    await settle(fx);
    const refused = r.on(`${fx.base}/bridge/event`).filter((m) => /"command_(refused|failed)"/.test(m.payload));
    assert.ok(refused.length >= commands, `every command refused (${refused.length} events for ${commands} commands)`);
    // Named by the command that leaked, before the general check (which names only the topic published on).
    const leaked = refused.filter((m) => secrets.some((x) => m.payload.includes(x)));
    assert.deepEqual(
      [...new Set(leaked.map((m) => String((JSON.parse(m.payload) as { data: { topic?: string } }).data.topic).replace(/^[^/]+\//, '')))],
      [],
      'commands whose refusal repeated a secret',
    );
    assertNoSecrets(fx, [mqttPassword]);
    assert.ok(
      refused.some((m) => m.payload.includes('(withheld: contains a configured password)')),
      'the refusals say a value was withheld',
    );
  } catch (err) {
    // fx.stop() checks for secrets too: it must not hide which command leaked.
    await fx.stop().catch(() => undefined);
    throw err;
  }
  await fx.stop();
});

test('Node-RED: every secret sent to every node and mode reaches a Catch node without it', async () => {
  const password = newPassword();
  const other = newPassword();
  const sim = await simulator({ password });
  await helper.startServer();
  try {
    const modes = Object.keys(CONTROL_MODES);
    const requestTypes = ['nvr-range', 'nvr-get', 'nvr-set'];
    const nodes = [
      ...modes.map((mode) => ({
        id: `c-${mode}`,
        type: 'nvr-control',
        mode,
        channel: 'CH1',
        output: 'Local->1',
        device: DEV,
        wires: [['out']],
      })),
      ...requestTypes.map((type) => ({ id: `r-${type}`, type, page: 'AlarmConfig/Deterrence', device: DEV, wires: [['out']] })),
      // A second device node: its password is just as secret.
      { id: 'dev2', type: 'nvr-device', name: 'other', url: sim.url, heartbeat: '25', tls_ca: '', tls_fingerprint: '' },
      { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
      { id: 'out', type: 'helper' },
    ];
    await load(flowWith(sim.url, nodes), { ...credentials(password), dev2: { username: 'admin', password: other } });
    const seen: string[] = [];
    for (const secret of [password, other]) {
      const messages = [
        { payload: secret },
        { payload: { on: secret } },
        { payload: { on: true, [secret]: 1 } },
        { payload: { on: true, brightness: secret, volume: secret, duration: secret } },
        { payload: true, channel: secret },
        { payload: true, output: secret },
      ];
      const requests = [{ page: secret }, { channel: secret }, { payload: { [secret]: secret } }, { payload: secret }];
      // What the node adds: its answer, or its error (the rest of the message is the sender's own, passed on).
      const added = (r: Awaited<ReturnType<typeof exchange>>) => JSON.stringify({ answer: r.out?.payload, error: r.caught?.error });
      for (const mode of modes) for (const msg of messages) seen.push(added(await exchange(`c-${mode}`, msg)));
      for (const type of requestTypes) for (const msg of requests) seen.push(added(await exchange(`r-${type}`, msg)));
    }
    const logged = JSON.stringify(helper.log().args);
    for (const secret of [password, other]) {
      for (const line of seen) assert.ok(!line.includes(secret), `secret in a node's answer: ${line.slice(0, 200)}`);
      assert.ok(!logged.includes(secret), 'secret in the Node-RED log');
    }
    assert.ok(
      seen.some((line) => line.includes('(withheld: contains a configured password)')),
      'the refusals say a value was withheld',
    );
  } finally {
    await helper.unload();
    await helper.stopServer();
    await sim.stop();
  }
});

test.run();
