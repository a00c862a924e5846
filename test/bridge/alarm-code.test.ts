/**
 * The panel code: with `alarm_code` set for a recorder, Home Assistant's alarm panel asks for a code and sends it
 * with the action (the command template of its discovery); the bridge checks it before arming or disarming. A
 * wrong or missing code is refused on the Command error entity, nothing is sent to the device, and the code
 * appears in no MQTT message the bridge sends and no log line (real broker, real simulator).
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import { ConfigError, parseConfig } from '../../bridge/base/config';
import { json, settle, setsOf, setup, type Fixture } from './fixture';
import { deviceDiscoveryProblems } from './homeassistant';

const CODE = '4711';
const test = suite<{ fx: Fixture }>('bridge alarm code');

test.before(async (ctx) => {
  ctx.fx = await setup({ label: 'code', devices: [{ id: 'nvr', poll: 600, alarmCode: CODE }] });
  await ctx.fx.recorder.waitTopic(`${ctx.fx.base}/nvr`, (j) => typeof j.disarmed === 'boolean', 5000);
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  if (!fx) return;
  // Commands are the test's own input; everything the bridge sent or logged is checked for the code.
  const output = fx.recorder.messages.filter((m) => !/\/set(\/[^/]+)?$/.test(m.topic));
  assert.ok(output.length > 0);
  for (const m of output) assert.ok(!m.payload.includes(CODE), `the code in a message on ${m.topic}`);
  for (const line of fx.logs) assert.ok(!line.includes(CODE), `the code in a log line: ${line}`);
  await fx.stop();
});

test('discovery: the panel asks for a code and sends it with the action; the code itself is not in it', ({ fx }) => {
  const config = json(fx.recorder.last(`${fx.prefix}/device/${fx.base}_nvr/config`));
  assert.deepEqual(deviceDiscoveryProblems(config), []);
  const panel = (config.cmps as Record<string, Record<string, unknown>>).disarmed;
  assert.equal(panel.p, 'alarm_control_panel');
  assert.equal(panel.code, 'REMOTE_CODE');
  assert.equal(panel.code_arm_required, true);
  assert.equal(panel.code_disarm_required, true);
  assert.match(String(panel.command_template), /code/);
});

/** What Home Assistant publishes for a panel action with the code typed in (its command template, rendered). */
const haPayload = (action: string, code: string | null) => JSON.stringify({ action, code });

test('the right code disarms and arms', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  const since = r.count;
  await r.publish(`${fx.base}/nvr/set/disarmed`, haPayload('DISARM', CODE));
  await r.waitTopic(`${fx.base}/nvr`, (j) => j.disarmed === true, 3000, since);
  assert.equal(sim.state['AlarmConfig/Disarming'].disarming, true);
  await r.publish(`${fx.base}/nvr/set/disarmed`, haPayload('ARM_AWAY', CODE));
  await r.waitTopic(`${fx.base}/nvr`, (j) => j.disarmed === false, 3000, since);
  assert.equal(sim.state['AlarmConfig/Disarming'].disarming, false);
});

test('a wrong or missing code: refused on Command error, nothing sent to the device', async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const r = fx.recorder;
  for (const [payload, reason] of [
    [haPayload('DISARM', '0000'), /wrong code/],
    [haPayload('DISARM', `${CODE}1`), /wrong code/],
    [haPayload('DISARM', null), /asks for its code/],
    ['DISARM', /asks for its code/],
  ] as const) {
    const since = r.count;
    const log = sim.log.length;
    await r.publish(`${fx.base}/nvr/set/disarmed`, payload);
    const e = json(await r.waitTopic(`${fx.base}/nvr/command_error`, () => true, 3000, since));
    assert.deepEqual([e.event_type, e.key, e.channel], ['refused', 'disarmed', null], payload);
    assert.match(String(e.reason), reason);
    await settle(fx);
    assert.deepEqual(setsOf(sim, log), [], `${payload}: nothing sent`);
    assert.equal(sim.state['AlarmConfig/Disarming'].disarming, false);
  }
});

test('config: alarm_code or alarm_code_file (not both), text only; a device without one needs no code', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-code-'));
  try {
    const device = { id: 'nvr', url: 'http://192.0.2.1', username: 'admin', password: 'pw' };
    writeFileSync(join(dir, 'code'), '2580\n');
    const fromFile = parseConfig({ devices: [{ ...device, alarm_code_file: 'code' }] }, { env: {}, baseDir: dir }).config;
    assert.equal(fromFile.devices[0].alarm_code, '2580');
    assert.equal(parseConfig({ devices: [device] }, { env: {} }).config.devices[0].alarm_code, undefined);
    const problems = (input: unknown) => {
      try {
        parseConfig(input, { env: {}, baseDir: dir });
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return err.message;
      }
      return '';
    };
    assert.match(
      problems({ devices: [{ ...device, alarm_code: 1234 }] }),
      /devices\[0\]\.alarm_code: expected text; put a code made of digits in quotes/,
    );
    assert.match(
      problems({ devices: [{ ...device, alarm_code: '1', alarm_code_file: 'code' }] }),
      /give either alarm_code or alarm_code_file/,
    );
    assert.doesNotMatch(problems({ devices: [{ ...device, alarm_code: 1234 }] }), /1234/, 'the value is not repeated');
    const env = parseConfig({ devices: [device] }, { env: { NVR2MQTT_DEVICES_0_ALARM_CODE: '9999' } }).config;
    assert.equal(env.devices[0].alarm_code, '9999');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
