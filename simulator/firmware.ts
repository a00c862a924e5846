/**
 * Firmware of the simulated device, in the vendor's shapes (Maintenance > SystemUpgrade, Maintenance > FtpUpgrade;
 * vendor-facts-more §m):
 *
 * - Local upload: `SystemUpgrade/Token` `{file_name, file_size, upgrade_head, base_secondary_authentication}` answers
 *   `{upgrade_token, upgrade_timeout, resume_timeout}` and the same token in the `X-Upgrade-Token` response header;
 *   `SystemUpgrade/Upgrade` takes the raw file as its body with the token in the `X-Upgrade-Token` request header
 *   (newer pages; the older pages name no header: without it the session's last token is used). The answer `{}` is
 *   the only signal; then the device reboots. A file whose size or first 3 KB differ from what the token was asked
 *   for, or that is no firmware image of the simulator (it starts with `SIMFW:<version>`), answers `file_error`; an
 *   unknown or used token `token_invalid`.
 * - Online: `FtpUpgrade/Check` `{}` answers `{has_new_firmware, cur_version, new_version, Upgrade_button, lang_strs}`
 *   (the sample's member names); a newer version is found only after `publish()` put one on the "server".
 *   `FtpUpgrade/Upgrade` `{}` starts download and install (refused `no_need_upgrade` when Check found nothing);
 *   `FtpUpgrade/Progress` `{}` answers `{upgrade_percent, upgrade_state, upgrade_result}` with the vendor's states.
 * - Secondary authentication: a Token whose `base_secondary_authentication.seq` names a salt the device handed out
 *   (TransKey, maintenance.ts) must carry that salt's cipher of the password, else `current_pwd_error`; a salt serves
 *   once. A `seq` never handed out is taken as given (the vendor's samples; how a client got it is not checked).
 * - While an upgrade runs, Token and both Upgrades answer `updating`. At the end the device reboots: the hook `reboot`
 *   (shared with the reboot of `Maintenance/DeviceReboot`) drops every session, and until it is back every request
 *   answers `device_reboot`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Auth, Session } from './auth';
import type { Device } from './device';
import { Reply, failure, paramError, success } from './envelope';
import { isPlainObject } from './descriptors';
import type { Route } from './route';
import { Timers } from './timers';

const MIB = 1 << 20;
export const UPGRADE_HEAD_SIZE = 3 * 1024;
export const UPGRADE_TIMEOUT = 600;
const RESUME_TIMEOUT = 180;
/** A simulated firmware image starts with this marker and its version: `SIMFW:8.3.0\n`. */
const IMAGE_MARKER = 'SIMFW:';

export interface FirmwareOptions {
  /** Time of one step of an online upgrade's progress (default 200 ms; 10 steps of download, then install). */
  stepMs?: number;
  /** How long a reboot keeps the device away (default 3000 ms). */
  rebootMs?: number;
}

interface ProgressView {
  upgrade_percent: number;
  upgrade_state: string;
  upgrade_result: string;
}

interface Token {
  session: string;
  file_size: number;
  head: number[];
}

/** Firmware state and the reboot window of one simulated device. */
export class SimFirmware {
  /** Newest version on the upgrade server (undefined: the installed one is the newest). */
  available?: string;
  /** What the last Check found (what FtpUpgrade/Upgrade installs). */
  private found?: string;
  private progress: ProgressView = { upgrade_percent: 0, upgrade_state: 'start', upgrade_result: 'ok' };
  private running = false;
  private rebootUntil = 0;
  private readonly tokens = new Map<string, Token>();
  private readonly lastToken = new Map<string, string>();
  private readonly timers = new Timers();
  /** Checks a secondary authentication against the salts handed out (maintenance.ts); undefined: accepted. */
  verifyAuth?: (auth: { seq: number; cipher: string }) => Reply | undefined;
  /** Upgrades installed (local and online), for tests. */
  readonly installs: string[] = [];

  constructor(
    private readonly device: Device,
    private readonly auth: () => Auth,
    private readonly opts: FirmwareOptions = {},
  ) {}

  get installed(): string {
    return this.device.profile.softwareVersion;
  }

  get busy(): boolean {
    return this.running || this.rebooting;
  }

  get rebooting(): boolean {
    return Date.now() < this.rebootUntil;
  }

  /** A newer firmware appears on the upgrade server: the next Check finds it. */
  publish(version: string): void {
    this.available = version;
  }

  /**
   * The reboot hook: every session is dropped now, every request answers `device_reboot` for `ms`, then the device
   * takes logins again.
   */
  reboot(ms = this.opts.rebootMs ?? 3000): void {
    this.rebootUntil = Date.now() + ms;
    this.auth().expireAll();
  }

  /** What the front answers instead of the route while the device reboots. */
  gate(): Reply | undefined {
    return this.rebooting ? failure(400, 'device_reboot', 'The device is rebooting') : undefined;
  }

  stop(): void {
    this.timers.clear();
  }

  private install(version: string): void {
    this.device.profile.softwareVersion = version;
    this.installs.push(version);
    if (this.available === version) this.available = undefined;
    this.found = undefined;
    this.reboot();
  }

  private busyReply(): Reply {
    return failure(400, 'updating', 'An upgrade is already running');
  }

  /** Upgrade token (spec 2.1), judged field by field. */
  token(session: Session, data: Record<string, unknown>): Reply {
    const problems: string[] = [];
    const allowed = new Set(['file_name', 'file_size', 'upgrade_head', 'base_secondary_authentication']);
    for (const key of Object.keys(data)) if (!allowed.has(key)) problems.push(`${key}: unsupported field`);
    const { file_name, file_size, upgrade_head, base_secondary_authentication: auth } = data;
    if (typeof file_name !== 'string') problems.push('file_name: must be a string');
    else {
      const length = [...file_name].length;
      if (length > 256) problems.push(`file_name: length ${length} characters is above 256`);
    }
    const maxSize = (this.device.profile.largeCapacity ? 200 : 100) * MIB;
    if (typeof file_size !== 'number' || !Number.isInteger(file_size) || file_size < 0)
      problems.push('file_size: must be a non-negative integer');
    else if (file_size > maxSize) problems.push(`file_size: ${file_size} is above the maximum ${maxSize}`);
    if (!Array.isArray(upgrade_head)) problems.push('upgrade_head: must be an array');
    else if (upgrade_head.length !== UPGRADE_HEAD_SIZE)
      problems.push(`upgrade_head: array size ${upgrade_head.length}, must be exactly ${UPGRADE_HEAD_SIZE}`);
    else {
      const bad = upgrade_head.findIndex((b) => !Number.isInteger(b) || b < 0 || b > 255);
      if (bad !== -1) problems.push(`upgrade_head.${bad}: must be an integer 0-255`);
    }
    if (!isPlainObject(auth)) problems.push('base_secondary_authentication: required object {seq, cipher}');
    else {
      if (!Number.isInteger(auth.seq)) problems.push('base_secondary_authentication.seq: must be an integer');
      if (typeof auth.cipher !== 'string' || auth.cipher === '')
        problems.push('base_secondary_authentication.cipher: must be a non-empty string');
    }
    if (problems.length) return paramError(problems.join('; '));
    if (this.running) return this.busyReply();
    const wrong = this.verifyAuth?.(auth as { seq: number; cipher: string });
    if (wrong) return wrong;
    const upgrade_token = randomBytes(16).toString('hex');
    this.tokens.set(upgrade_token, { session: session.id, file_size: file_size as number, head: upgrade_head as number[] });
    this.lastToken.set(session.id, upgrade_token);
    return success(
      { upgrade_token, upgrade_timeout: UPGRADE_TIMEOUT, resume_timeout: RESUME_TIMEOUT },
      { 'X-Upgrade-Token': upgrade_token },
    );
  }

  /** The raw file of a local upgrade: its size, its first 3 KB (all a device needs to judge it here). */
  upload(session: Session, req: IncomingMessage, size: number, head: Buffer): Reply {
    const header = req.headers['x-upgrade-token'];
    const name = typeof header === 'string' ? header : this.lastToken.get(session.id);
    const token = name === undefined ? undefined : this.tokens.get(name);
    if (!name || !token || token.session !== session.id) return failure(400, 'token_invalid', 'Upgrade token invalid or missing');
    this.tokens.delete(name);
    if (this.lastToken.get(session.id) === name) this.lastToken.delete(session.id);
    if (this.running) return this.busyReply();
    if (size !== token.file_size) return failure(400, 'file_error', `File is ${size} bytes; the token was asked for ${token.file_size}`);
    const sent = head.subarray(0, UPGRADE_HEAD_SIZE);
    if (token.head.some((b, i) => b !== sent[i])) return failure(400, 'file_error', 'File head differs from upgrade_head');
    const text = head.toString('latin1');
    const m = new RegExp(`^${IMAGE_MARKER}([\\w.-]{1,40})\\n`).exec(text);
    if (!m) return failure(400, 'file_error', 'Not a firmware image for this device');
    if (m[1] === this.installed) return failure(400, 'no_need_upgrade', 'This version is installed already');
    this.running = true;
    // The answer first, then the device installs and reboots.
    this.timers.later(50, () => {
      this.running = false;
      this.install(m[1]);
    });
    return success({});
  }

  check(): Reply {
    if (this.running) return this.busyReply();
    this.found = this.available;
    return success({
      Upgrade_button: this.found !== undefined,
      lang_strs: {},
      has_new_firmware: this.found !== undefined,
      cur_version: this.installed,
      new_version: this.found ?? '',
    });
  }

  onlineUpgrade(): Reply {
    if (this.running) return this.busyReply();
    const version = this.found;
    if (version === undefined) return failure(400, 'no_need_upgrade', 'No newer firmware found (run Check first)');
    this.running = true;
    const step = this.opts.stepMs ?? 200;
    this.progress = { upgrade_percent: 0, upgrade_state: 'downloadStart', upgrade_result: 'ok' };
    for (let i = 1; i <= 10; i++)
      this.timers.later(
        i * step,
        () => (this.progress = { upgrade_percent: i * 10, upgrade_state: 'upgrade_download', upgrade_result: 'ok' }),
      );
    this.timers.later(
      11 * step,
      () => (this.progress = { upgrade_percent: 100, upgrade_state: 'upgrade_upgrading', upgrade_result: 'ok' }),
    );
    this.timers.later(12 * step, () => {
      this.progress = { upgrade_percent: 100, upgrade_state: 'upgrade_upgrade_succeed', upgrade_result: 'finish' };
      this.running = false;
      this.install(version);
    });
    return success({});
  }

  progressReply(): Reply {
    return success(this.progress);
  }

  /** Routes of the JSON pages; the raw upload is `uploadRoute`. */
  routes(): Array<[string, Route]> {
    const empty = (data: Record<string, unknown>): string | undefined => {
      const extra = Object.keys(data);
      return extra.length ? `${extra.join(', ')}: unsupported field` : undefined;
    };
    const plain = (fn: () => Reply): Route => ({
      auth: 'session',
      handler: ({ data }) => {
        const bad = empty(data);
        return bad ? paramError(bad) : fn();
      },
    });
    return [
      ['/API/Maintenance/SystemUpgrade/Token', { auth: 'session', handler: ({ session, data }) => this.token(session!, data) }],
      ['/API/Maintenance/FtpUpgrade/Check', plain(() => this.check())],
      ['/API/Maintenance/FtpUpgrade/Upgrade', plain(() => this.onlineUpgrade())],
      ['/API/Maintenance/FtpUpgrade/Progress', plain(() => this.progressReply())],
    ];
  }
}

export const UPLOAD_PATH = '/API/Maintenance/SystemUpgrade/Upgrade';
