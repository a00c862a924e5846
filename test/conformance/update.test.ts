import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientRig, rejection } from '../client/harness';
import type { Handler } from '../client/fake-device';
import * as V from './vendor';

/** `client.update()` on the alarm configuration pages, vendor-shaped Range/Get answers, exact Set bodies. */

const test = suite('conformance: update');
const { setup, closeAll } = clientRig('Upd4te-pw');
test.after.each(closeAll);

const DET = '/API/AlarmConfig/Deterrence';
const VA = '/API/AlarmConfig/VoiceAlarm';
const DIS = '/API/AlarmConfig/Disarming';
const LM = '/API/LinkageConfig/LinkageManage';

type Data = Record<string, unknown>;

/** A page that answers Range and Get and applies a Set by deep-merging what it receives. */
function pageHandlers(
  base: string,
  range: unknown,
  initial: Data,
  strip: string[] = [],
): { handlers: Record<string, Handler>; state: Data } {
  const state = structuredClone(initial);
  const merge = (into: Data, from: Data) => {
    for (const [k, v] of Object.entries(from)) {
      if (strip.includes(k)) continue;
      if (v && typeof v === 'object' && !Array.isArray(v) && into[k] && typeof into[k] === 'object') merge(into[k] as Data, v as Data);
      else into[k] = v;
    }
  };
  return {
    state,
    handlers: {
      [`${base}/Range`]: () => range,
      [`${base}/Get`]: () => state,
      [`${base}/Set`]: (d) => {
        merge(state, d);
        return {};
      },
    },
  };
}

test('Deterrence: Get carries page_type; Set is the vendor shape (block, chn_index, page, page_type), read-only left out', async () => {
  const { handlers, state } = pageHandlers(DET, V.deterrenceRange, V.deterrenceGet, ['chn_index', 'page', 'page_type']);
  const { dev, c } = await setup({ handlers });
  const after = await c.update('AlarmConfig/Deterrence', { channel_info: { CH1: { siren_switch: true, flood_light_value: 60 } } });
  assert.equal(dev.bodies(`${DET}/Get`), [{ page_type: 'ChannelConfig' }, { page_type: 'ChannelConfig' }]);
  const { flood_light_disable: _r1, warning_light_disable: _r2, param_video: _pv, ...writable } = V.deterrenceGet.channel_info.CH1;
  assert.equal(dev.bodies(`${DET}/Set`), [
    {
      channel_info: { CH1: { ...writable, siren_switch: true, flood_light_value: 60, chn_index: 'CH1', page: 'chn_floodlight' } },
      page_type: 'ChannelConfig',
    },
  ]);
  assert.equal((after.channel_info as Data).CH1, (state.channel_info as Data).CH1, 'returns the data read back');
  assert.is(((state.channel_info as Data).CH1 as Data).siren_switch, true);
});

test('Deterrence: concurrent updates of one block both hold (each reads what the other wrote)', async () => {
  const { handlers, state } = pageHandlers(DET, V.deterrenceRange, V.deterrenceGet, ['chn_index', 'page', 'page_type']);
  const { dev, c } = await setup({ handlers });
  await Promise.all([
    c.update('AlarmConfig/Deterrence', { channel_info: { CH1: { siren_switch: true } } }),
    c.update('AlarmConfig/Deterrence', { channel_info: { CH1: { bright_time: 90 } } }),
  ]);
  const ch1 = (state.channel_info as Data).CH1 as Data;
  assert.equal([ch1.siren_switch, ch1.bright_time], [true, 90]);
  const [first, second] = dev.bodies(`${DET}/Set`).map((b) => (b!.channel_info as Data).CH1 as Data);
  assert.equal([first.siren_switch, first.bright_time, second.siren_switch, second.bright_time], [true, 60, true, 90]);
});

test('VoiceAlarm: a stale siren_time the device holds out of Range does not block a siren_value change; Set carries the change only', async () => {
  const { handlers } = pageHandlers(VA, V.voiceAlarmRange, V.voiceAlarmGet);
  const { dev, c } = await setup({ handlers });
  const after = await c.update('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_value: 3, siren_time: 300 } } });
  assert.equal(dev.bodies(`${VA}/Set`), [{ channel_info: { CH1: { siren_value: 3 } } }]);
  assert.is(((after.channel_info as Data).CH1 as Data).siren_value, 3);
  assert.is(dev.count(`${VA}/Get`), 2);
});

test('VoiceAlarm: out-of-Range and unsupported changes are refused with clear errors; nothing is sent', async () => {
  const { handlers } = pageHandlers(VA, V.voiceAlarmRange, V.voiceAlarmGet);
  const { dev, c } = await setup({ handlers });
  const high = await rejection(c.update('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_value: 11 } } }));
  assert.equal(
    high.violations?.map((x) => [x.path, x.problem]),
    [['channel_info.CH1.siren_value', 'max']],
  );
  const typo = await rejection(c.update('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_volume: 3 } } }));
  assert.equal(
    typo.violations?.map((x) => x.path),
    ['channel_info.CH1.siren_volume'],
  );
  assert.match(typo.violations[0].message, /did you mean siren_value\?/);
  const offline = await rejection(c.update('AlarmConfig/VoiceAlarm', { channel_info: { IP_CH1: { siren_value: 3 } } }));
  assert.match(offline.violations[0].message, /^has no settings here: the device answers Offline, "Not support"/);
  const absent = await rejection(
    c.update('AlarmConfig/VoiceAlarm', { channel_info: { CH9: { siren_value: 3 }, ch1: { siren_value: 3 } } }),
  );
  assert.equal(
    absent.violations?.map((x) => x.problem),
    ['channel', 'channel'],
  );
  const readOnly = await rejection(c.update('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_support_format: ['.mp3'] } } }));
  assert.equal(
    readOnly.violations?.map((x) => x.problem),
    ['read_only'],
  );
  const notObject = await rejection(c.update('AlarmConfig/VoiceAlarm', 'loud' as never));
  assert.is(notObject.kind, 'invalid_request');
  const notWritable = await rejection(c.update('SystemInfo/Base', { device_name: 'x' }));
  assert.is(notWritable.error_code, 'read_only_page');
  assert.is(dev.count(`${VA}/Set`), 0, 'nothing was sent');
});

test('update: nothing changes, nothing is sent', async () => {
  const { handlers } = pageHandlers(VA, V.voiceAlarmRange, V.voiceAlarmGet);
  const { dev, c } = await setup({ handlers });
  const same = await c.update('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_value: 5, siren_switch: true } } });
  assert.equal(same, V.voiceAlarmGet);
  assert.is(dev.count(`${VA}/Set`), 0);
  assert.is(dev.count(`${VA}/Range`), 0, 'no Range needed either');
});

test('Disarming: {disarming: true} sends the device-level fields and the channel schedules (vendor Range shape)', async () => {
  const { handlers, state } = pageHandlers(DIS, V.disarmingRange, V.disarmingGet());
  const { dev, c } = await setup({ handlers });
  const after = await c.update('AlarmConfig/Disarming', { disarming: true });
  assert.is(after.disarming, true);
  assert.is(state.disarming, true);
  assert.equal(dev.bodies(`${DIS}/Set`), [{ ...V.disarmingGet(), disarming: true }]);
});

test("Disarming: schedules and channels are checked against the vendor's nested Range (element shapes without type)", async () => {
  const { handlers } = pageHandlers(DIS, V.disarmingRange, V.disarmingGet());
  const { dev, c } = await setup({ handlers });
  const schedule = V.nightSchedule();
  schedule[0].week[1].time[20] = 1;
  await c.update('AlarmConfig/Disarming', { channel_info: { CH2: { disarming_schedule: schedule } }, disarming_channel: ['CH1', 'CH2'] });
  assert.is(dev.count(`${DIS}/Set`), 1);
  const bad = V.nightSchedule();
  bad[0].week[2].time[3] = 2;
  const err = await rejection(
    c.update('AlarmConfig/Disarming', {
      channel_info: { CH1: { disarming_schedule: bad } },
      disarming_channel: ['CH3'],
      action: { buzzer: 'no' },
    }),
  );
  assert.equal(err.violations?.map((x) => [x.path, x.problem]).sort(), [
    ['action.buzzer', 'type'],
    ['channel_info.CH1.disarming_schedule.0.week.2.time.3', 'enum'],
    ['disarming_channel.0', 'enum'],
  ]);
  assert.is(dev.count(`${DIS}/Set`), 1, 'the refused change sent nothing');
});

test('LinkageManage: update writes the whole writable page inside data', async () => {
  const range = {
    enable: { type: 'bool' },
    linkage_info: { type: 'object', items: { linkage_siren: { type: 'bool' }, linkage_floodlight: { type: 'bool' } } },
    channel_info: { type: 'object', items: { CH1: { type: 'object', items: { enable: { type: 'bool' } } } } },
  };
  const get = {
    enable: false,
    linkage_info: { linkage_siren: true, linkage_floodlight: false },
    channel_info: { CH1: { enable: true }, CH2: { reason: 'Not configured' } },
  };
  const { handlers } = pageHandlers(LM, range, get);
  const { dev, c } = await setup({ handlers });
  await c.update('LinkageConfig/LinkageManage', { enable: true });
  assert.equal(dev.bodies(`${LM}/Set`), [{ enable: true, linkage_info: get.linkage_info, channel_info: { CH1: { enable: true } } }]);
});

test('setDisarmed: through AlarmConfig/Disarming where the device has it, LinkageManage enable otherwise', async () => {
  const withPage = pageHandlers(DIS, V.disarmingRange, V.disarmingGet());
  const { dev, c } = await setup({ handlers: withPage.handlers });
  assert.equal(await c.setDisarmed(true), { page: 'AlarmConfig/Disarming', disarmed: true });
  assert.is(withPage.state.disarming, true);
  assert.is(dev.count(`${LM}/Get`), 0);

  const range = { enable: { type: 'bool' }, linkage_info: { type: 'object', items: { linkage_siren: { type: 'bool' } } } };
  const legacy = pageHandlers(LM, range, { enable: false, linkage_info: { linkage_siren: true } });
  const { dev: old, c: oldClient } = await setup({ handlers: legacy.handlers });
  assert.equal(await oldClient.disarmState(), { page: 'LinkageConfig/LinkageManage', disarmed: false });
  assert.equal(await oldClient.setDisarmed(true), { page: 'LinkageConfig/LinkageManage', disarmed: true });
  assert.equal(old.bodies(`${LM}/Set`), [{ enable: true, linkage_info: { linkage_siren: true } }]);
  assert.is(old.count(`${DIS}/Get`), 1, 'the missing page is probed once');
  const bad = await rejection(oldClient.setDisarmed('yes' as never));
  assert.match(bad.message, /disarmed must be a boolean/);
  assert.is(old.count(`${LM}/Set`), 1, 'nothing sent for bad input');
});

test.run();
