/**
 * Alarm storms (issue 17): 100 alarm edges a second on four channels of one recorder, the bridge with the config's
 * defaults (1 s event checks, the default request budget). Every edge reaches MQTT, in order per channel, with a lag
 * under 2 s; channel state messages are coalesced (fewer than one per edge), edges never.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { alarmStorm } from '../helpers/storm';
import { setup, until } from './fixture';

const test = suite('bridge alarm storm');

test('100 alarms a second for 10 s: no edge lost, lag under 2 s, state coalesced', async () => {
  const fx = await setup({ label: 'storm', devices: [{ id: 'nvr', poll: 15, budget: { rate: 8, queue: 32 } }] });
  try {
    const sim = fx.sims.get('nvr')!;
    await fx.recorder.waitTopic(`${fx.base}/nvr/ch1`, (j) => j.motion === false, 5000);
    // The bridge has subscribed to the device's events (alarms raised before that are not its to deliver).
    await until(() => sim.log.some((e) => e.path === '/API/Event/Check' && e.status === 200), 'the event subscription');
    const res = await alarmStorm({
      sim,
      recorder: fx.recorder,
      deviceTopic: `${fx.base}/nvr`,
      rate: 100,
      seconds: 10,
      channels: ['CH1', 'CH2', 'CH3', 'CH4'],
    });
    console.log(`  storm: ${JSON.stringify(res)}`);
    assert.equal(res.lost, 0, `${res.lost} of ${res.sent} edges lost`);
    assert.ok(res.lag_max_ms < 2000, `lag up to ${res.lag_max_ms} ms`);
    assert.ok(res.state_messages < res.sent / 2, `${res.state_messages} state messages for ${res.sent} edges`);
    // The state after the storm is right (each channel's last edge was an end), at most a gap after the last edge.
    for (const ch of ['ch1', 'ch2', 'ch3', 'ch4']) {
      await until(() => fx.recorder.lastJson(`${fx.base}/nvr/${ch}`)?.motion === false, `${ch} motion off`, 1000);
    }
  } finally {
    await fx.stop();
  }
});

test.run();
