/**
 * test/devices/vendor-samples.json: a capture of the vendor's own answer samples (test/conformance/vendor.ts: the
 * shapes of "HTTP API Protocol For IP Media Device", our values) put together as one 16-channel recorder, written
 * through the capture's own recording and redaction (`recorded`), as `nvr2mqtt capture` writes a device. Pages the
 * samples do not show are absent: the replay answers them `not_found`, as a device without the page does.
 *
 *   node dist/test/devices/vendor-capture.js    rewrites the file (after npm run build)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WireHeaders } from '../../core';
import { CAPTURE_FORMAT, recorded, type CaptureFile } from '../../core/capture';
import { Redactor } from '../../core/redaction';
import { VERSION } from '../../bridge/base/version';
import * as vendor from '../conformance/vendor';
import { DEVICES_DIR } from './device-table';

const ok = (data: unknown) => JSON.stringify({ result: 'success', data });

/** path, request data, answer text: in the order a capture reads them. */
const ANSWERS: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  ['/API/Login/DeviceInfo/Get', {}, vendor.deviceInfoText],
  ['/API/SystemInfo/Base/Get', {}, ok(vendor.systemInfo)],
  ['/API/Login/ChannelInfo/Get', {}, ok(vendor.channelInfoWrapped)],
  ['/API/AlarmConfig/Deterrence/Range', { page_type: 'ChannelConfig' }, ok(vendor.deterrenceRange)],
  ['/API/AlarmConfig/Deterrence/Get', { page_type: 'ChannelConfig' }, ok(vendor.deterrenceGet)],
  ['/API/AlarmConfig/VoiceAlarm/Range', {}, ok(vendor.voiceAlarmRange)],
  ['/API/AlarmConfig/VoiceAlarm/Get', {}, ok(vendor.voiceAlarmGet)],
  ['/API/AlarmConfig/Disarming/Range', {}, ok(vendor.disarmingRange)],
  ['/API/AlarmConfig/Disarming/Get', {}, ok(vendor.disarmingGet())],
  ['/API/PreviewChannel/ManualAlarm/Get', {}, ok(vendor.manualAlarm)],
  ['/API/Preview/StreamUrl/Get', {}, ok(vendor.streamUrls)],
  ['/API/StorageConfig/Disk/Get', {}, ok(vendor.diskGet)],
  ['/API/PreviewChannel/Floodlight2AudioAlarm/Get', { channel: 'CH1', command_flag: false }, ok(vendor.liveFull)],
  ['/API/PreviewChannel/Floodlight2AudioAlarm/Get', { channel: 'CH2', command_flag: false }, ok(vendor.liveSirenOnly)],
  ['/API/Snapshot/Get', { channel: 'CH1', reset_session_timeout: false }, ok(vendor.snapshotTable)],
  ['/API/Snapshot/Get', { channel: 'CH2', reset_session_timeout: false }, ok(vendor.snapshotSample)],
  ['/API/PreviewChannel/PTZ/Get', { channel: 'CH2' }, ok({ ...vendor.ptzGetSample({ 1: 'Gate' }), channel: 'CH2' })],
  // Event/Check: the subscription, a person on CH1 (the vendor's int_alarm form) and its end, then the keep-alive.
  ['/API/Event/Check', {}, ok({ reader_id: 1, sequence: 0, lap_number: 0, heat_alarm: 'HeatAlarm' })],
  [
    '/API/Event/Check',
    { reader_id: 1, sequence: 0, lap_number: 0 },
    ok({
      reader_id: 1,
      sequence: 1,
      lap_number: 0,
      alarm_list: [
        {
          time: '2023-08-25T08:38:58Z+08:00',
          channel_alarm: [{ channel: 'CH1', motion_alarm: true, int_alarm: { alarm_val: true, int_subtype: 'pd' } }],
        },
      ],
    }),
  ],
  [
    '/API/Event/Check',
    { reader_id: 1, sequence: 1, lap_number: 0 },
    ok({
      reader_id: 1,
      sequence: 2,
      lap_number: 0,
      alarm_list: [
        {
          time: '2023-08-25T08:39:08Z+08:00',
          channel_alarm: [{ channel: 'CH1', motion_alarm: false, int_alarm: { alarm_val: false, int_subtype: 'pd' } }],
        },
      ],
    }),
  ],
];

export function vendorCapture(): CaptureFile {
  const redactor = new Redactor();
  const json = new WireHeaders({ 'content-type': 'application/json' });
  return {
    format: CAPTURE_FORMAT,
    version: 1,
    product: `nvr2mqtt ${VERSION}`,
    time: '2026-12-06T00:00:00.000Z',
    device: { model: vendor.systemInfo.device_type, firmware: vendor.systemInfo.software_version, kind: 'recorder', channels: 6 },
    events: 0,
    exchanges: ANSWERS.map(([path, data, text]) =>
      recorded({ path, request: { version: '1.0', data }, status: 200, headers: json, text }, redactor),
    ),
  };
}

if (require.main === module) {
  const file = join(DEVICES_DIR, 'vendor-samples.json');
  writeFileSync(file, `${JSON.stringify(vendorCapture(), null, 1)}\n`);
  process.stdout.write(`${file}\n`);
}
