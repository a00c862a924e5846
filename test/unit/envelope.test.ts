import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as v from 'valibot';
import { describeIssues, parseAnswer } from '../../core/envelope';
import { DeviceError } from '../../core/errors';

const test = suite('envelope');

const ctx = { page: 'AlarmConfig/VoiceAlarm', operation: 'Get' };

function failure(fn: () => unknown): DeviceError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, DeviceError);
    return err as DeviceError;
  }
  throw new Error('expected a DeviceError');
}

test('success returns data; missing data is an empty object', () => {
  assert.equal(parseAnswer(200, '{"result":"success","data":{"a":1}}', 'application/json', ctx), { a: 1 });
  assert.equal(parseAnswer(200, '{"result":"success"}', 'application/json', ctx), {});
});

test('version envelope only where the operation says so (or raw calls)', () => {
  const body = '{"version":"1.0","data":{"page_type":"AlarmConfig"}}';
  assert.equal(parseAnswer(200, body, null, { ...ctx, envelope: 'version' }), { page_type: 'AlarmConfig' });
  assert.equal(parseAnswer(200, body, null, { envelope: 'any' }), { page_type: 'AlarmConfig' });
  const e = failure(() => parseAnswer(200, body, null, ctx));
  assert.is(e.kind, 'invalid_answer');
  assert.match(e.message, 'no result field');
});

test('failed envelope: code, reason, status, channel errors, page and operation', () => {
  const body = JSON.stringify({
    result: 'failed',
    reason: 'some channels failed',
    error_code: 'part_failed',
    data: {},
    ch_error_code: [{ error_code: 'no_support', channel: 'IP_CH1' }],
  });
  const e = failure(() => parseAnswer(400, body, 'application/json', ctx));
  assert.is(e.error_code, 'part_failed');
  assert.is(e.reason, 'some channels failed');
  assert.is(e.status, 400);
  assert.is(e.kind, 'rejected');
  assert.equal(e.channel_errors, [{ channel: 'IP_CH1', error_code: 'no_support' }]);
  assert.is(e.page, 'AlarmConfig/VoiceAlarm');
  assert.is(e.operation, 'Get');
  assert.is(e.message, 'AlarmConfig/VoiceAlarm/Get: part_failed (some channels failed)');
});

test('judged by result, not status: session error with HTTP 200', () => {
  const e = failure(() => parseAnswer(200, '{"result":"failed","error_code":"no_login","data":{}}', null, ctx));
  assert.is(e.kind, 'session');
  assert.is(e.status, 200);
});

test('error kinds from codes', () => {
  const kind = (code: string, status = 400) =>
    failure(() => parseAnswer(status, JSON.stringify({ result: 'failed', error_code: code }), null, ctx)).kind;
  assert.is(kind('device_busy'), 'busy');
  assert.is(kind('not_found', 404), 'unsupported');
  assert.is(kind('login_failed_or_block', 401), 'lockout');
  assert.is(kind('expired'), 'session');
  assert.is(kind('param_error'), 'rejected');
  assert.is(kind('service_unavailable_error', 503), 'busy');
});

test("a refused login's data: how long the device blocks (int, or its digits as text) and its failed-login count", () => {
  const login = { page: 'Web', operation: 'Login' };
  const wrong = failure(() =>
    parseAnswer(400, '{"result":"failed","error_code":"verify_failed","reason":"x","data":{"fail_login_count":2}}', null, login),
  );
  assert.is(wrong.failedLogins, 2);
  assert.is(wrong.retryAfterMs, undefined);
  const blocked = failure(() =>
    parseAnswer(
      400,
      '{"result":"failed","error_code":"login_failed_or_block","reason":"x","data":{"block_remain_time":"180"}}',
      null,
      login,
    ),
  );
  assert.is(blocked.retryAfterMs, 180_000);
  const nonsense = failure(() =>
    parseAnswer(
      400,
      '{"result":"failed","error_code":"verify_failed","reason":"x","data":{"fail_login_count":"two","block_remain_time":-1}}',
      null,
      login,
    ),
  );
  assert.equal([nonsense.failedLogins, nonsense.retryAfterMs], [undefined, undefined]);
});

test('HTML, 5xx, empty and truncated answers give clear errors', () => {
  const html = failure(() => parseAnswer(500, '<html><body>oops</body></html>', 'text/html', ctx));
  assert.is(html.kind, 'transport');
  assert.is(html.reason, 'device answered HTML, not JSON (HTTP 500)');
  const html200 = failure(() => parseAnswer(200, '<!DOCTYPE html><html></html>', 'text/html', ctx));
  assert.is(html200.kind, 'invalid_answer');
  assert.match(html200.message, 'HTML, not JSON (HTTP 200)');
  const truncated = failure(() => parseAnswer(200, '{"result":"success","da', 'application/json', ctx));
  assert.is(truncated.kind, 'invalid_answer');
  assert.is(truncated.reason, 'device answered truncated or malformed JSON (HTTP 200)');
  const empty = failure(() => parseAnswer(502, '', null, ctx));
  assert.is(empty.kind, 'transport');
  assert.is(empty.reason, 'device answered an empty body (HTTP 502)');
  const notFound = failure(() => parseAnswer(404, 'Not Found', 'text/plain', ctx));
  assert.is(notFound.kind, 'unsupported');
  assert.is(notFound.error_code, 'not_found');
  const array = failure(() => parseAnswer(200, '[1,2]', null, ctx));
  assert.is(array.kind, 'invalid_answer');
});

test('schema issues name the path, descending into channel unions', () => {
  const schema = v.looseObject({
    channel_info: v.record(v.string(), v.union([v.looseObject({ siren_time: v.number() }), v.object({ reason: v.string() })])),
  });
  const r = v.safeParse(schema, { channel_info: { CH1: { siren_time: 'x' } } });
  assert.not.ok(r.success);
  assert.is(describeIssues(r.issues!), 'data.channel_info.CH1.siren_time: expected number, got "x"');
  const e = new DeviceError({ kind: 'invalid_answer', error_code: 'invalid_answer', reason: describeIssues(r.issues!), ...ctx });
  assert.is(e.message, 'AlarmConfig/VoiceAlarm/Get: invalid_answer (data.channel_info.CH1.siren_time: expected number, got "x")');
});

test.run();
