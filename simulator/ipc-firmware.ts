/**
 * Firmware of the IP cameras behind a simulated NVR, in the vendor's shapes (IPCMaintaint > IPCUpgrade,
 * vendor-facts-more §m.4; note the path spelling `IPCMaintaint` and `state` "On-line"/"Off-line"):
 *
 * - `IPCUpgrade/Range` `{}`: `channel_max`, `password {type string, min_len 0, max_len 16}`, and per IP channel
 *   `channel_info.<CH>` `{state, ip_address, software_version, ipc_upgrade, file_type}` descriptors.
 * - `IPCUpgrade/Get` `{}`: `channel_info.<CH>` = `{state, ip_address, software_version, file_type: "sw"}` for each
 *   configured IP channel (only channels that hold an IPC appear); an offline camera answers `state: "Off-line"` and
 *   an empty version. Analog channels are not listed. A camera (one channel) has no such page (404 `not_found`).
 * - `setIpcVersion(ch, v)` changes a camera's version (what a camera upgraded by other means reports next).
 *
 * No newer-version query for an IPC gives a version string (FtpIpcUpgrade gives only a boolean after a check that may
 * contact a server): not simulated.
 */
import type { Device } from './device';
import { Reply, failure, paramError, success } from './envelope';
import type { Route } from './route';

/** The vendor sample's IPC version. */
const IPC_VERSION = 'V21.45.8.2.2_220705';

export class SimIpcFirmware {
  private readonly versions = new Map<string, string>();

  constructor(private readonly device: Device) {}

  private cameras() {
    const p = this.device.profile;
    return p.channels.length > 1 ? p.channels.filter((c) => c.configured && c.kind !== 'analog') : [];
  }

  version(ch: string): string {
    return this.versions.get(ch) ?? IPC_VERSION;
  }

  setIpcVersion(ch: string, version: string): void {
    this.versions.set(ch, version);
  }

  private unsupported(): Reply {
    return failure(404, 'not_found', 'Not found');
  }

  get(data: Record<string, unknown>): Reply {
    const extra = Object.keys(data);
    if (extra.length) return paramError(`${extra.join(', ')}: unsupported field`);
    const cams = this.cameras();
    if (!cams.length) return this.unsupported();
    const channel_info: Record<string, unknown> = {};
    for (const c of cams) {
      const online = this.device.isOnline(c.id);
      channel_info[c.id] = {
        state: online ? 'On-line' : 'Off-line',
        ip_address: `192.168.1.${100 + c.index}`,
        software_version: online ? this.version(c.id) : '',
        file_type: 'sw',
      };
    }
    return success({ channel_info });
  }

  range(data: Record<string, unknown>): Reply {
    const extra = Object.keys(data);
    if (extra.length) return paramError(`${extra.join(', ')}: unsupported field`);
    const cams = this.cameras();
    if (!cams.length) return this.unsupported();
    const item = {
      type: 'object',
      items: {
        state: { type: 'enum', mode: 'r', items: ['Off-line', 'On-line'] },
        ip_address: { type: 'string', mode: 'r', min_len: 0, max_len: 63 },
        software_version: { type: 'string', mode: 'r', min_len: 0, max_len: 40 },
        ipc_upgrade: { type: 'bool' },
        file_type: { type: 'string', mode: 'r', min_len: 0, max_len: 64 },
      },
    };
    return success({
      channel_max: this.device.profile.channels.length,
      password: { type: 'string', min_len: 0, max_len: 16 },
      channel_info: { type: 'object', items: Object.fromEntries(cams.map((c) => [c.id, item])) },
    });
  }

  routes(): Array<[string, Route]> {
    return [
      ['/API/IPCMaintaint/IPCUpgrade/Range', { auth: 'session', handler: ({ data }) => this.range(data) }],
      ['/API/IPCMaintaint/IPCUpgrade/Get', { auth: 'session', handler: ({ data }) => this.get(data) }],
    ];
  }
}
