/**
 * Channel numbering is the device's business: a recorder that names its first IP camera `IP_CH1` (the vendor's
 * pages) and one that names it after its slot (`IP_CH5` after 4 analog channels) both get their topics and
 * entities from the ids they report, and take commands on them. Nothing in the bridge assumes either.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { settle, setup, type Fixture } from './fixture';

const test = suite<{ fx: Fixture }>('bridge channel numbering');
const LIVE = 'PreviewChannel/Floodlight2AudioAlarm';

test.before(async (ctx) => {
  ctx.fx = await setup({
    label: 'numbering',
    devices: [
      { id: 'vendor', poll: 0.3, events: false },
      { id: 'slot', poll: 0.3, events: false, sim: { channelNumbering: 'slot' } },
    ],
  });
  await settle(ctx.fx);
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

for (const [dev, digital, offline, wifi] of [
  ['vendor', 'ip_ch1', 'ip_ch2', 'wifi_ch1'],
  ['slot', 'ip_ch5', 'ip_ch6', 'wifi_ch8'],
] as const) {
  test(`${dev} numbering: state and entities on the reported ids (${digital}, ${offline}, ${wifi}); a command reaches ${digital}`, async ({
    fx,
  }) => {
    const r = fx.recorder;
    await r.waitTopic(`${fx.base}/${dev}/${digital}`, (j) => j.online === true && typeof j.floodlight === 'boolean', 5000);
    await r.waitTopic(`${fx.base}/${dev}/${offline}`, (j) => j.online === false, 5000);
    await r.waitTopic(`${fx.base}/${dev}/${wifi}`, (j) => j.online === true, 5000);
    const cfg = r.lastJson<{ cmps: Record<string, unknown> }>(`${fx.prefix}/device/${fx.base}_${dev}_${digital}/config`);
    assert.ok(cfg && 'floodlight' in cfg.cmps, `${dev}: ${digital} has its floodlight entity`);
    const since = r.count;
    await r.publish(`${fx.base}/${dev}/${digital}/set/floodlight`, 'ON');
    await r.waitTopic(`${fx.base}/${dev}/${digital}`, (j) => j.floodlight === true, 3000, since);
    const sim = fx.sims.get(dev)!;
    assert.equal((sim.state[LIVE].channel_info![digital.toUpperCase()] as Record<string, unknown>).floodlight_switch, true);
  });
}

test.run();
