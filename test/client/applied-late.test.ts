/**
 * A Set answered after the request deadline (core/late.ts): `update()` reads the page back once and counts the Set
 * as done when the read-back holds every changed value ("applied late", told through `onAppliedLate`); otherwise the
 * timeout stands, saying the read-back does not hold it. A Set that fails otherwise, or never left, is not read back.
 * The fake device answers in the vendor's VoiceAlarm shapes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceError } from '../../core/errors';
import { leftUnanswered } from '../../core/transport';
import { clientRig, rejection, VOICE_ALARM as VA, VOICE_RANGE } from './harness';

const PASSWORD = 'L4te-pw';

/** A device whose Set of VoiceAlarm applies `apply` (at once, or after `applyAfterMs`) and answers after `answerAfterMs`. */
function voiceDevice(o: { applyAfterMs?: number; answerAfterMs: number; fail?: string }) {
  const ch1 = { siren_switch: false, siren_time: 10, siren_value: 5 };
  const calls = { get: 0, set: 0 };
  const handlers = {
    [`${VA}/Range`]: () => VOICE_RANGE,
    [`${VA}/Get`]: () => {
      calls.get++;
      return { channel_info: { CH1: { ...ch1 }, CH2: { status: 'Offline', reason: 'Not support' } } };
    },
    [`${VA}/Set`]: async (data: Record<string, unknown>) => {
      calls.set++;
      if (o.fail) return { fail: o.fail };
      const apply = () => Object.assign(ch1, (data.channel_info as Record<string, object>).CH1);
      if (o.applyAfterMs === undefined) apply();
      else setTimeout(apply, o.applyAfterMs);
      await sleep(o.answerAfterMs);
      return {};
    },
  };
  return { handlers, calls, ch1 };
}

const test = suite('client applied late');
const { setup, closeAll } = clientRig(PASSWORD);
test.after.each(closeAll);

test('applied, answered after the deadline: update resolves with the read-back, onAppliedLate told; one Set, one read-back', async () => {
  const d = voiceDevice({ answerAfterMs: 600 });
  const { c } = await setup({ handlers: d.handlers }, { timeoutMs: 300 });
  const late: DeviceError[] = [];
  const after = await c.update(
    'AlarmConfig/VoiceAlarm',
    { channel_info: { CH1: { siren_value: 8 } } },
    { onAppliedLate: (e) => late.push(e) },
  );
  assert.equal((after.channel_info as Record<string, Record<string, unknown>>).CH1.siren_value, 8);
  assert.equal(late.length, 1);
  assert.equal(late[0].error_code, 'timeout');
  assert.equal(d.calls.set, 1, 'the Set is never repeated');
  assert.equal(d.calls.get, 2, 'the read before the Set, and one read-back');
});

test('not applied by the read-back: the timeout stands, saying so; onAppliedLate not told', async () => {
  const d = voiceDevice({ applyAfterMs: 1000, answerAfterMs: 1200 });
  const { c } = await setup({ handlers: d.handlers }, { timeoutMs: 300 });
  let told = false;
  const err = await rejection(
    c.update('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_value: 8 } } }, { onAppliedLate: () => (told = true) }),
  );
  assert.equal(err.error_code, 'timeout');
  assert.match(err.reason, /no answer within 300 ms; read back: not applied/);
  assert.not.ok(told);
  assert.equal(d.calls.get, 2);
});

test('a Set the device refused is not read back', async () => {
  const d = voiceDevice({ answerAfterMs: 0, fail: 'param_error' });
  const { c } = await setup({ handlers: d.handlers }, { timeoutMs: 300 });
  const err = await rejection(c.update('AlarmConfig/VoiceAlarm', { channel_info: { CH1: { siren_value: 8 } } }));
  assert.equal(err.error_code, 'param_error');
  assert.equal(d.calls.get, 1);
});

test('leftUnanswered: a timeout on the wire, not a call that never left', () => {
  const onWire = new DeviceError({ kind: 'transport', error_code: 'timeout', reason: 'no answer within 10000 ms' });
  const notSent = new DeviceError({
    kind: 'transport',
    error_code: 'timeout',
    reason: 'not sent: no free connection to the device within 40000 ms',
  });
  assert.ok(leftUnanswered(onWire));
  assert.not.ok(leftUnanswered(notSent));
  assert.not.ok(leftUnanswered(new DeviceError({ kind: 'busy', error_code: 'device_busy', reason: 'device busy' })));
});

test.run();
