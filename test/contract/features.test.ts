/**
 * Contract: behaviour that depends on simulator options or on the device changing under the client: events end
 * to end (alarms, disk, live changes, both AI alarm forms), the disarm page fall-back, the channel slots of every
 * profile and both `channel_param` forms.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { NvrClient } from '../../core/client';
import type { DeviceEvent } from '../../core/events';
import { entries, obj, rejection, until, withRig } from './harness';

const CHECK = '/API/Event/Check';

/** Collects the client's events in the background until `stop()`. */
function collect(client: NvrClient) {
  const ctl = new AbortController();
  const seen: DeviceEvent[] = [];
  const done = (async () => {
    for await (const e of client.events({ signal: ctl.signal, intervalMs: 100 })) seen.push(e);
  })();
  return {
    seen,
    /** The first event (from `from` on) that has every member of `want`. */
    async next(want: Record<string, unknown>, from = 0): Promise<DeviceEvent> {
      const match = (e: DeviceEvent) => Object.entries(want).every(([k, v]) => (e as Record<string, unknown>)[k] === v);
      await until(() => seen.slice(from).some(match), `event ${JSON.stringify(want)}`, 4_000);
      return seen.slice(from).find(match)!;
    },
    async stop() {
      ctl.abort();
      await done;
    },
  };
}

const events = suite('contract: events end to end');

events('raiseAlarm reaches client.events() typed; its end too; a type the channel cannot raise is refused', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const run = collect(client);
    try {
      await until(() => entries(sim, CHECK).length >= 1, 'subscription', 4_000);
      sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true });
      const { time, ...start } = (await run.next({ kind: 'alarm', channel: 'CH1', type: 'person' })) as Extract<
        DeviceEvent,
        { kind: 'alarm' }
      >;
      assert.equal(start, { kind: 'alarm', channel: 'CH1', type: 'person', active: true, subtype: 'pd' });
      assert.match(time!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/, 'the device time, as ISO 8601');
      const n = run.seen.length;
      sim.raiseAlarm({ channel: 'CH1', type: 'person', active: false });
      await run.next({ kind: 'alarm', channel: 'CH1', type: 'person', active: false }, n);
      assert.equal(
        run.seen
          .slice(n)
          .filter((e) => e.kind === 'alarm')
          .map((e) => e.kind === 'alarm' && [e.type, e.active]),
        [['person', false]],
      );
      // Plain members too: motion on any online channel, the PIR sensor, the camera's alarm input.
      for (const [channel, type] of [
        ['CH2', 'motion'],
        ['IP_CH1', 'pir'],
        ['IP_CH1', 'io'],
        ['IP_CH1', 'line_crossing'],
      ] as const) {
        const from = run.seen.length;
        sim.raiseAlarm({ channel, type, active: true });
        const e = await run.next({ kind: 'alarm', channel, type }, from);
        assert.is(e.kind === 'alarm' && e.active, true, `${channel} ${type}`);
      }
      // The simulator refuses what the channel cannot raise (CH2: no AI, CH4: no PIR) and silent channels.
      assert.throws(() => sim.raiseAlarm({ channel: 'CH2', type: 'person', active: true }), /CH2/);
      assert.throws(() => sim.raiseAlarm({ channel: 'CH4', type: 'pir', active: true }), /CH4/);
      assert.throws(() => sim.raiseAlarm({ channel: 'IP_CH2', type: 'motion', active: true }), /Offline/);
      assert.throws(() => sim.raiseAlarm({ channel: 'IP_CH3', type: 'motion', active: true }), /NotConfigured/);
      // A disk alarm is a system alarm: {kind:'disk'}.
      const from = run.seen.length;
      sim.raiseDiskAlarm({ ok: false, info: 'NoDisk' });
      const disk = await run.next({ kind: 'disk' }, from);
      assert.equal([disk.kind === 'disk' && disk.ok, disk.kind === 'disk' && disk.info], [false, 'NoDisk']);
      assert.ok(
        run.seen.every((e) => !(e.kind === 'alarm' && e.channel === 'CH2' && e.type === 'person')),
        'nothing from the refused alarms',
      );
    } finally {
      await run.stop();
    }
    assert.ok(
      entries(sim, CHECK).every((e) => e.status === 200),
      'no Event/Check refused',
    );
  }),
);

events('an alarm already active when the client subscribes is reported by the first answer', () =>
  withRig({}, {}, async ({ sim, client }) => {
    sim.raiseAlarm({ channel: 'IP_CH1', type: 'vehicle', active: true });
    const run = collect(client);
    try {
      const e = await run.next({ kind: 'alarm', channel: 'IP_CH1', type: 'vehicle' });
      assert.is(e.kind === 'alarm' && e.active, true);
      assert.not.ok('reader_id' in obj(entries(sim, CHECK)[0].data, 'first Event/Check'), 'first call: no cursor');
    } finally {
      await run.stop();
    }
  }),
);

for (const form of ['int_alarm', 'alarm_state', 'both'] as const) {
  events(`AI alarms in the ${form} form: one typed event per change`, () =>
    withRig({ aiAlarmForm: form }, {}, async ({ sim, client }) => {
      const run = collect(client);
      try {
        await until(() => entries(sim, CHECK).length >= 1, 'subscription', 4_000);
        sim.raiseAlarm({ channel: 'CH1', type: 'line_crossing', active: true });
        await run.next({ kind: 'alarm', channel: 'CH1', type: 'line_crossing', active: true });
        sim.raiseAlarm({ channel: 'CH1', type: 'line_crossing', active: false });
        await run.next({ kind: 'alarm', channel: 'CH1', type: 'line_crossing', active: false });
        const seen = run.seen.filter((e) => e.kind === 'alarm' && e.type === 'line_crossing').map((e) => e.kind === 'alarm' && e.active);
        // `both` carries the same alarm twice in one entry: still one event per change.
        assert.equal(seen, [true, false]);
      } finally {
        await run.stop();
      }
    }),
  );
}

events('setLive switches the device floodlight, and the change comes back as a live event', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const run = collect(client);
    try {
      await until(() => entries(sim, CHECK).length >= 1, 'subscription', 4_000);
      const after = await client.setLive('CH1', { floodlight: true, brightness: 70 });
      assert.equal([after.floodlight, after.brightness], [true, 70]);
      const live = sim.state['PreviewChannel/Floodlight2AudioAlarm'].channel_info!.CH1;
      assert.equal([live.floodlight_switch, live.floodlight_value], [true, 70]);
      // Event/Check `Floodlight_AudioAlarm` (vendor spelling flood_light_value) -> {kind:'live'}.
      const e = await run.next({ kind: 'live', channel: 'CH1', floodlight: true });
      assert.is(e.kind === 'live' && e.brightness, 70);
      // The device switching by itself (an alarm reaction) is reported the same way.
      const from = run.seen.length;
      sim.setLive('CH1', { audioAlarm_switch: true });
      const siren = await run.next({ kind: 'live', channel: 'CH1', siren: true }, from);
      assert.is(siren.kind, 'live');
      assert.is((await client.live('CH1')).siren, true);
    } finally {
      await run.stop();
    }
  }),
);

events('types filter: only the alarms asked for (live and disk events always pass)', () =>
  withRig({}, {}, async ({ sim, client }) => {
    const ctl = new AbortController();
    const seen: DeviceEvent[] = [];
    const done = (async () => {
      for await (const e of client.events({ signal: ctl.signal, intervalMs: 100, types: ['person'] })) seen.push(e);
    })();
    try {
      await until(() => entries(sim, CHECK).length >= 1, 'subscription', 4_000);
      sim.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
      sim.raiseAlarm({ channel: 'CH1', type: 'person', active: true });
      sim.raiseDiskAlarm({ ok: false, info: 'Full' });
      await until(() => seen.some((e) => e.kind === 'disk'), 'disk event', 4_000);
      await until(() => seen.some((e) => e.kind === 'alarm'), 'person event', 4_000);
      assert.equal(
        seen.filter((e) => e.kind === 'alarm').map((e) => e.kind === 'alarm' && e.type),
        ['person'],
      );
    } finally {
      ctl.abort();
      await done;
    }
  }),
);

events.run();

// --- disarming: whichever page the device has ----------------------------------------------------------------------

const disarm = suite('contract: disarm page fall-back');

disarm('a new firmware without the Disarming page disarms through LinkageManage', () =>
  withRig({ firmware: '8.2.4', disarming: false }, {}, async ({ sim, client }) => {
    const before = await client.disarmState();
    assert.is(before.page, 'LinkageConfig/LinkageManage');
    const after = await client.setDisarmed(!before.disarmed);
    assert.equal(after, { page: 'LinkageConfig/LinkageManage', disarmed: !before.disarmed });
    assert.is((sim.state['LinkageConfig/LinkageManage'] as { enable?: boolean }).enable, !before.disarmed);
    assert.is(entries(sim, '/API/AlarmConfig/Disarming/Get').length, 1, 'one probe only');
    assert.is(entries(sim, '/API/AlarmConfig/Disarming/Set').length, 0);
  }),
);

disarm('a device with Disarming but no LinkageManage never touches LinkageManage', () =>
  withRig({ linkageManage: false }, {}, async ({ sim, client }) => {
    assert.equal(await client.setDisarmed(true), { page: 'AlarmConfig/Disarming', disarmed: true });
    assert.equal(await client.disarmState(), { page: 'AlarmConfig/Disarming', disarmed: true });
    assert.is(sim.log.filter((e) => e.path.startsWith('/API/LinkageConfig/')).length, 0);
  }),
);

disarm('a device with neither page: unsupported, named, nothing written', () =>
  withRig({ disarming: false, linkageManage: false }, {}, async ({ sim, client }) => {
    const err = await rejection(client.setDisarmed(true));
    assert.is(err.kind, 'unsupported');
    assert.match(err.message, /LinkageConfig\/LinkageManage/);
    assert.equal(
      sim.log.filter((e) => e.path.endsWith('/Set')),
      [],
    );
  }),
);

disarm.run();

// --- channel slots -------------------------------------------------------------------------------------------------

const model = suite('contract: channel slots');

model('NVR: every slot with its status, hardware and AI; the battery camera sleeps, the IP camera comes back', () =>
  withRig({ profile: 'nvr' }, {}, async ({ sim, client }) => {
    const m = await client.channelSlots();
    assert.equal(
      m.map((c) => [c.id, c.status, c.online, c.configured]),
      [
        ['CH1', 'Online', true, true],
        ['CH2', 'Online', true, true],
        ['CH3', 'Online', true, true],
        ['CH4', 'Online', true, true],
        ['IP_CH1', 'Online', true, true],
        ['IP_CH2', 'Offline', false, true],
        ['IP_CH3', 'NotConfigured', false, false],
        ['WIFI_CH1', 'Online', true, true],
      ],
    );
    const ch1 = m[0];
    assert.equal(ch1.hardware, { floodlight: true, siren: true, redBlueLight: true, pir: true, alarmIn: 1, alarmOut: 1 });
    assert.equal(ch1.ai, ['PVD', 'LCD', 'PID', 'FD', 'CrossCount']);
    assert.equal(m[3].hardware, { floodlight: true, siren: false, redBlueLight: false, pir: false, alarmIn: 0, alarmOut: 0 });
    assert.equal(m[7].hardware, { floodlight: false, siren: true, redBlueLight: false, pir: true, alarmIn: 0, alarmOut: 0 });
    // The empty slot has no name (channel_name ""): shown by its id; no abilities.
    assert.equal([m[6].name, m[6].abilities, m[6].ai], ['IP_CH3', [], []]);

    sim.setOnline('WIFI_CH1', false);
    sim.setOnline('IP_CH2', true);
    const again = await client.channelSlots();
    const wifi = again.find((c) => c.id === 'WIFI_CH1')!;
    assert.equal([wifi.status, wifi.online, wifi.configured], ['Sleep', false, true], 'asleep: not online, still configured');
    const ip6 = again.find((c) => c.id === 'IP_CH2')!;
    assert.equal([ip6.status, ip6.online], ['Online', true]);
    assert.equal([ip6.hardware.floodlight, ip6.hardware.siren], [true, true], 'hardware listed once online');
    assert.is(entries(sim, '/API/Login/ChannelInfo/Get').length, 2, 'each model read is one fresh ChannelInfo call');
  }),
);

model('IPC: one channel with every piece of hardware', () =>
  withRig({ profile: 'ipc' }, {}, async ({ client }) => {
    const [cam, ...rest] = await client.channelSlots();
    assert.equal(rest, []);
    assert.equal([cam.id, cam.status, cam.online, cam.configured], ['CH1', 'Online', true, true]);
    assert.equal(cam.hardware, { floodlight: true, siren: true, redBlueLight: true, pir: true, alarmIn: 1, alarmOut: 1 });
    assert.ok(cam.abilities.includes('Ptz'));
    assert.ok(cam.ai.includes('SOD'));
  }),
);

model('both channel_param forms (plain array, {type:"array", items}) give the same model', async () => {
  const models: unknown[] = [];
  for (const channelParamForm of ['array', 'wrapped'] as const) {
    await withRig({ channelParamForm }, {}, async ({ client }) => {
      const raw = (await client.call('/API/Login/ChannelInfo/Get')) as { channel_param: unknown };
      assert.is(Array.isArray(raw.channel_param), channelParamForm === 'array');
      models.push(await client.channelSlots());
    });
  }
  assert.equal(models[0], models[1]);
  assert.is((models[0] as unknown[]).length, 8);
});

model.run();
