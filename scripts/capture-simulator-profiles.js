#!/usr/bin/env node
'use strict';
/*
 * Writes test/devices/simulator-*.json: `nvr2mqtt capture` run against each simulator profile (after npm run build),
 * with a motion alarm and a person alarm raised while it follows events. test/devices/devices.test.ts replays them.
 *
 *   node scripts/capture-simulator-profiles.js
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const dist = join(__dirname, '..', 'dist');
const { startSimulator } = require(join(dist, 'simulator'));
const { captureDevice } = require(join(dist, 'core', 'capture'));
const { parseConfig } = require(join(dist, 'bridge', 'base', 'config'));
const { deviceClientOptions } = require(join(dist, 'bridge', 'device', 'device'));
const { VERSION } = require(join(dist, 'bridge', 'base', 'version'));

/** The profiles captured: file name -> simulator options and the channel that raises the alarms. */
const PROFILES = {
  'simulator-nvr-8ch': { sim: { profile: 'nvr', channels: 8 }, alarm: 'CH1' },
  'simulator-nvr-old-firmware': { sim: { profile: 'nvr', channels: 4, firmware: '8.2.3' }, alarm: 'CH1' },
  'simulator-ipc': { sim: { profile: 'ipc' }, alarm: 'CH1' },
};

async function main() {
  for (const [name, { sim: opts, alarm }] of Object.entries(PROFILES)) {
    const password = 'capture-profile';
    const sim = await startSimulator({ password, ...opts });
    const { devices } = parseConfig(
      { mqtt: {}, devices: [{ id: name, url: sim.url, username: 'admin', password, request_rate: 50 }] },
      { env: {} },
    ).config;
    const timers = [
      setTimeout(() => sim.raiseAlarm({ channel: alarm, type: 'motion', active: true }), 500),
      setTimeout(() => sim.raiseAlarm({ channel: alarm, type: 'person', active: true }), 700),
      setTimeout(() => sim.raiseAlarm({ channel: alarm, type: 'motion', active: false }), 1500),
      setTimeout(() => sim.raiseAlarm({ channel: alarm, type: 'person', active: false }), 1600),
    ];
    const started = Date.now();
    const { file } = await captureDevice({
      client: deviceClientOptions(devices[0]),
      product: `nvr2mqtt ${VERSION}`,
      events: 2.5,
      say: () => undefined,
    });
    timers.forEach(clearTimeout);
    await sim.stop();
    const text = `${JSON.stringify(file, null, 1)}\n`;
    writeFileSync(join(__dirname, '..', 'test', 'devices', `${name}.json`), text);
    console.log(`${name}: ${file.exchanges.length} answers, ${text.length} bytes, ${Date.now() - started} ms`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
