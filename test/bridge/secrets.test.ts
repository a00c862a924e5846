/** No secret (broker password, device passwords) in any MQTT message or log line, even on errors. */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import { startBridge } from '../../bridge/bridge';
import { parseConfig } from '../../bridge/config';
import { createLogger } from '../../bridge/log';
import { startSimulator } from '../../simulator';
import { clearRetained } from '../helpers/mqtt-broker';
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
      discoveryCleanupWindowMs: 100,
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

test.run();
