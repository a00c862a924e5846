/**
 * `<base>/bridge/request/upgrade` `{"device", "file", "transaction"?}`: the whole local firmware upgrade of a recorder
 * from a file the bridge can read (core runLocalUpgrade: limits, token, upload with `X-Upgrade-Token`). Off by
 * default: only files inside the directories the owner lists in `request_api.allow_upgrade_from` (real paths compared,
 * so a symlink leading out is refused). The secondary authentication the device asks for is built from the device's
 * configured password (core/secondary-auth.ts); it never travels over MQTT nor reaches the log.
 *
 * Each step is answered on `bridge/response/upgrade` as `{"status":"progress","step",...}` (checked, token,
 * uploading), the end as `{"status":"ok","data":{"file_name","file_size","accepted":true}}` or an error. Refused with
 * nothing sent: the option off, a path outside the directories or no regular file, the device offline, an alarm
 * active on it, another upgrade of it running, a file outside the device's limits.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, sep } from 'node:path';
import type { UpgradeStep } from '../../core';
import { lookupDevice, requireOnline } from './commands';
import type { BridgeContext } from './context';
import { Refusal } from '../device/refusal';
import { alarmActive } from '../device/event-state';
import type { RequestApiConfig } from './request-permission';
import type { Json } from '../device/state';

/** Whether `file` (a real path) lies inside `dir` (a real path). */
const inside = (file: string, dir: string) => file.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** What a file request reads: its kind of file, the request, the setting that lists its directories. */
export interface FileRule {
  what: string;
  request: string;
  setting: string;
}
const FIRMWARE: FileRule = { what: 'firmware', request: 'upgrade', setting: 'request_api.allow_upgrade_from' };

/** The real path of `file` when it is a regular file inside an allowed directory; a refusal otherwise. */
export async function allowedFilePath(
  file: unknown,
  dirs: readonly string[],
  ctx: BridgeContext,
  rule: FileRule = FIRMWARE,
): Promise<string> {
  const { what, setting } = rule;
  if (!dirs.length) {
    throw new Refusal(`${rule.request} through the request API is off: the owner may allow directories to read ${what} from in ${setting}`);
  }
  if (typeof file !== 'string' || !file || !isAbsolute(file)) throw new Refusal(`"file" must be the absolute path of a ${what} file`);
  const shown = ctx.quoter.quote(file, 256);
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    throw new Refusal(`${what} file ${shown} not found`);
  }
  const roots = await Promise.all(dirs.map((d) => realpath(d).catch(() => undefined)));
  if (!roots.some((d) => d !== undefined && inside(real, d))) {
    throw new Refusal(`${what} file ${shown} is outside the directories allowed in ${setting}`);
  }
  if (!(await stat(real)).isFile()) throw new Refusal(`${what} file ${shown} is not a regular file`);
  return real;
}

export class UpgradeRequests {
  /** Devices with an upgrade running through this API. */
  private readonly running = new Set<string>();

  constructor(
    private readonly ctx: BridgeContext,
    private readonly api: RequestApiConfig,
  ) {}

  /** Refusals are thrown before anything is sent; `progress` gets each step; resolves with the device's acceptance. */
  async run(msg: Json, progress: (step: UpgradeStep, detail: Json) => void): Promise<Json> {
    const dirs = this.api.allow_upgrade_from;
    if (!dirs.length) await allowedFilePath(undefined, dirs, this.ctx);
    if (typeof msg.device !== 'string') throw new Refusal('"device" (a device id) is required');
    const h = lookupDevice(this.ctx, msg.device);
    const device = h.device.id;
    const extra = Object.keys(msg).filter((k) => !['device', 'file', 'transaction'].includes(k));
    if (extra.length) throw new Refusal(`unknown member(s) ${extra.map((k) => this.ctx.quoter.quote(k, 32)).join(', ')}`, { device });
    const file = await allowedFilePath(msg.file, dirs, this.ctx);
    requireOnline(h);
    if (alarmActive(h.device.facts.events)) throw new Refusal(`upgrade refused while an alarm is active on ${device}`, { device });
    if (this.running.has(device)) throw new Refusal(`an upgrade of ${device} is already running`, { device });
    this.running.add(device);
    try {
      const client = h.device.client;
      const done = await client.upgradeFirmware({
        file,
        file_name: basename(typeof msg.file === 'string' ? msg.file : file),
        onStep: (step, detail) => {
          if (step !== 'done') progress(step, detail);
        },
      });
      this.ctx.log.info(`firmware ${this.ctx.quoter.quote(done.file_name)} accepted by ${device} (it installs and reboots)`);
      return { device, ...done, accepted: true };
    } finally {
      this.running.delete(device);
    }
  }
}
