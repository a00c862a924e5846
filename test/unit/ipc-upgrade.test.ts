/** Versions of the cameras behind an NVR from IPCUpgrade/Get answers in the vendor's shapes (vendor-facts-more §m.4). */
import * as v from 'valibot';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ipcUpgradeGet, ipcVersions } from '../../core/pages/ipc-upgrade';

const test = suite('IPCUpgrade/Get');

test('online cameras with a version; Off-line, "Not support" and empty versions have none', () => {
  const answer = v.parse(ipcUpgradeGet.response, {
    channel_info: {
      CH14: { state: 'On-line', ip_address: '172.16.3.93', software_version: 'V21.45.8.2.2_220705', file_type: 'sw' },
      CH15: { state: 'Off-line', ip_address: '172.16.3.94', software_version: 'V20.1', file_type: 'sw' },
      CH16: { reason: 'Not support' },
      CH2: { state: 'On-line', ip_address: '', software_version: ' ', file_type: 'sw' },
    },
  });
  assert.equal([...ipcVersions(answer)], [['CH14', 'V21.45.8.2.2_220705']]);
  assert.equal(ipcVersions(v.parse(ipcUpgradeGet.response, {})).size, 0);
});

test('an answer out of the page limits (version above 40 characters) is refused', () => {
  assert.not.ok(v.safeParse(ipcUpgradeGet.response, { channel_info: { CH1: { software_version: 'V'.repeat(41) } } }).success);
});

test.run();
