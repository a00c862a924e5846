/**
 * Recordings in core without a device: the vendor's record_type tables decoded (its sample values), RTSP playback
 * URLs in the vendor's three forms without credentials, the device's times in its zone (summer and winter offsets, a
 * 25-hour day), and the range rules.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { playbackUrl, recordTypeMask, recordTypeNames, searchSpan, timeMs } from '../../core/recordings';
import { deviceDateTime, deviceTimeMs, isoInZone } from '../../core/device-time';
import { DeviceError } from '../../core/errors';

const test = suite('recordings (core)');
const ZONE = 'Europe/Berlin';

test("the vendor's sample masks decode by the device's table", () => {
  assert.equal(recordTypeNames(8, 'nvr'), ['io']);
  assert.equal(recordTypeNames(8, 'ipc'), ['line_crossing']);
  assert.equal(recordTypeNames(2147483647, 'nvr'), ['alarm']);
  assert.equal(recordTypeNames(4294967295, 'ipc'), ['all']);
  assert.equal(recordTypeNames(0x4 | 0x200000, 'nvr'), ['motion', 'person']);
  assert.equal(recordTypeNames(0x2, 'ipc'), ['motion']);
  assert.equal(recordTypeMask(['motion', 'pir'], 'nvr'), { mask: 0x10004 });
  assert.equal(recordTypeMask(['motion', 'pir'], 'ipc'), { mask: 0x402 });
  assert.equal(recordTypeMask(undefined, 'nvr'), { mask: 4294967295 });
  assert.equal(recordTypeMask(['person'], 'ipc'), { unknown: ['person'] });
});

test('the device clock: local forms to ISO with the offset of that date, and back', () => {
  const winter = deviceTimeMs('12/06/2026', '08:30:00', ZONE)!;
  assert.equal(isoInZone(winter, ZONE), '2026-12-06T08:30:00+01:00');
  assert.equal(new Date(winter).toISOString(), '2026-12-06T07:30:00.000Z');
  const summer = deviceTimeMs('06/28/2023', '13:02:03', ZONE)!;
  assert.equal(isoInZone(summer, ZONE), '2023-06-28T13:02:03+02:00');
  assert.equal(deviceDateTime(summer, ZONE), { date: '06/28/2023', time: '13:02:03' });
  assert.equal(timeMs('2026-12-06T08:30', ZONE), winter, 'ISO without an offset is the device wall clock');
  assert.equal(timeMs('2026-12-06T07:30:00Z', ZONE), winter);
  assert.equal(timeMs('tomorrow', ZONE), undefined);
});

test('a range: reversed refused, over a day refused, a whole 25-hour day accepted', () => {
  const refused = (f: () => unknown, re: RegExp) => {
    try {
      f();
    } catch (err) {
      assert.ok(err instanceof DeviceError && err.kind === 'invalid_request');
      assert.match(err.reason, re);
      return;
    }
    assert.unreachable('accepted');
  };
  refused(() => searchSpan('2026-12-06T10:00', '2026-12-06T09:00', ZONE), /reversed/);
  refused(() => searchSpan('2026-12-06T10:00', '2026-12-07T10:00:01', ZONE), /at most a day/);
  // The day summer time ends in Berlin has 25 hours: its whole day is one search.
  const s = searchSpan('2026-10-25T00:00:00', '2026-10-25T23:59:59', ZONE);
  assert.equal((s.to - s.from) / 1000, 25 * 3600 - 1);
});

test('playback URLs as the vendor documents them, never with credentials', () => {
  const from = deviceTimeMs('03/24/2021', '01:30:00', ZONE)!;
  const to = deviceTimeMs('03/24/2021', '07:30:59', ZONE)!;
  const base = { host: '192.168.1.100', port: 554, channel: 1, from, to, zone: ZONE };
  assert.equal(
    playbackUrl({ ...base, form: 'nvr' }),
    'rtsp://192.168.1.100:554/rtsp/playback?channel=1&subtype=0&starttime=2021-03-24T01:30:00Z&endtime=2021-03-24T07:30:59Z&localtime=true',
  );
  assert.equal(
    playbackUrl({ ...base, form: 'ipc', substream: true }),
    'rtsp://192.168.1.100:554/rtsp/playback?channel=1&subtype=1&starttime=2021-03-24T00:30:00Z&endtime=2021-03-24T06:30:59Z',
  );
  assert.equal(
    playbackUrl({ ...base, form: 'ipc_cam' }),
    'rtsp://192.168.1.100:554/cam/playback?channel=1&starttime=2021-03-24T00:30:00Z&endtime=2021-03-24T06:30:59Z',
  );
  assert.not.match(playbackUrl({ ...base, form: 'nvr' }), /@/);
  assert.match(playbackUrl({ ...base, host: 'fe80::1', form: 'nvr' }), /^rtsp:\/\/\[fe80::1\]:554\//);
});

test.run();
