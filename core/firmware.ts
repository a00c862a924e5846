/**
 * Firmware of a device (vendor-facts-more §m), the one place its rules live:
 *
 * - Installed vs latest: installed is SystemInfo `software_version`; latest is what the device's own online check
 *   (`FtpUpgrade/Check`) found (`new_version` with `has_new_firmware`; `unknown` when it says there is one but names
 *   none, as the vendor's sample does), else the installed one.
 * - Online upgrade: `FtpUpgrade/Upgrade`, then `FtpUpgrade/Progress` until it succeeds, fails, or the device goes
 *   away to reboot (`device_reboot`, a broken connection: the install is done).
 * - Local upgrade: limits checked first (prepareUpgrade: name, size, head; secondary authentication present), then
 *   the token (`SystemUpgrade/Token`), then the raw file with the token in `X-Upgrade-Token`; the answer is the only
 *   signal. Nothing is sent when a limit is not met.
 */
import { createReadStream } from 'node:fs';
import { DeviceError } from './errors';
import type { Invoker } from './operation';
import { firmwareCheck, firmwareOnlineUpgrade, firmwareProgress, type FirmwareCheckResponse } from './pages/online-upgrade';
import { upgradeToken, UPGRADE_TOKEN_HEADER, type UpgradeTokenRequest } from './pages/upgrade-token';
import { prepareUpgrade, type UpgradeInput } from './upgrade';

/** `latest` when the check found newer firmware but gave no version (the vendor's own sample): never the installed one. */
export const UNKNOWN_VERSION = 'unknown';

export interface FirmwareVersions {
  installed?: string;
  /** What the device's online check found (UNKNOWN_VERSION when it named none), else the installed version. */
  latest?: string;
  /** The check found a newer version the device can install. */
  available: boolean;
  /** Package notes, where the device gives any as text. */
  notes?: string;
}

/** Installed and latest from SystemInfo's version and a Check answer (either spelling of the current version). */
export function firmwareVersions(installed: string | undefined, check: FirmwareCheckResponse): FirmwareVersions {
  const current = installed ?? check.cur_version ?? check.current_ver;
  // The vendor's sample says `has_new_firmware: true` with an empty `new_version`: an update whose version is unknown.
  const found = check.new_version?.trim() || (check.has_new_firmware === true ? UNKNOWN_VERSION : undefined);
  const available = check.has_new_firmware === true && !!found && found !== current;
  const notes = typeof check.lang_strs === 'string' && check.lang_strs.trim() ? check.lang_strs.trim() : undefined;
  return { installed: current || undefined, latest: available ? found : current || undefined, available, ...(notes ? { notes } : {}) };
}

export interface FirmwareProgress {
  percent: number;
  state: string;
  result?: string;
}

/** Progress states that end an online upgrade: success, or the download failed. */
const SUCCEEDED = new Set(['upgrade_upgrade_succeed']);
const FAILED = new Set(['downloadFailure']);

/** The device went away to install and reboot: a broken connection or `device_reboot` ends the watch as done. */
function rebooting(err: unknown): boolean {
  return err instanceof DeviceError && (err.error_code === 'device_reboot' || err.kind === 'transport' || err.error_code === 'timeout');
}

export interface OnlineUpgradeOptions {
  onProgress?: (p: FirmwareProgress) => void;
  /** Between Progress reads (default 2000 ms). */
  pollMs?: number;
  /** Longest the whole upgrade may take (default 30 min). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** Start the device's online upgrade and follow its progress to the end (the device then reboots). */
export async function runOnlineUpgrade(c: Invoker, opts: OnlineUpgradeOptions = {}): Promise<FirmwareProgress> {
  await c.invoke(firmwareOnlineUpgrade, {});
  const end = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  let last: FirmwareProgress = { percent: 0, state: 'start' };
  while (!opts.signal?.aborted) {
    await sleep(opts.pollMs ?? 2000, opts.signal);
    if (opts.signal?.aborted) break;
    let p;
    try {
      p = await c.invoke(firmwareProgress, {});
    } catch (err) {
      if (rebooting(err) && last.state !== 'start') return { ...last, percent: 100, state: 'rebooting' };
      throw err;
    }
    last = { percent: p.upgrade_percent ?? last.percent, state: p.upgrade_state ?? last.state, result: p.upgrade_result };
    opts.onProgress?.(last);
    if (SUCCEEDED.has(last.state)) return last;
    if (FAILED.has(last.state)) {
      throw new DeviceError({
        kind: 'rejected',
        error_code: 'upgrade_failed',
        reason: `online upgrade failed: ${last.state}`,
        page: 'Maintenance/FtpUpgrade',
        operation: 'Progress',
      });
    }
    if (Date.now() > end) {
      throw new DeviceError({
        kind: 'transport',
        error_code: 'timeout',
        reason: `online upgrade not finished within ${opts.timeoutMs ?? 1_800_000} ms (last: ${last.state} ${last.percent}%)`,
        page: 'Maintenance/FtpUpgrade',
        operation: 'Progress',
      });
    }
  }
  throw new DeviceError({
    kind: 'transport',
    error_code: 'aborted',
    reason: 'online upgrade watch aborted',
    page: 'Maintenance/FtpUpgrade',
    operation: 'Progress',
  });
}

/** Ask the device's online check; installed from `installed` (SystemInfo). */
export async function checkFirmware(c: Invoker, installed: string | undefined): Promise<FirmwareVersions> {
  return firmwareVersions(installed, await c.invoke(firmwareCheck, {}));
}

export type UpgradeStep = 'checked' | 'token' | 'uploading' | 'done';

export interface LocalUpgradeInput extends UpgradeInput {
  /**
   * `base_secondary_authentication` `{seq, cipher}` as obtained from the user, or a function that builds it (from the
   * configured password: NvrClient.secondaryAuthentication), called once the limits hold: the device asks for it.
   */
  auth: UpgradeTokenRequest['base_secondary_authentication'] | (() => Promise<UpgradeTokenRequest['base_secondary_authentication']>);
  /** Each step as it is reached (`checked`: the limits hold, nothing sent yet). */
  onStep?: (step: UpgradeStep, detail: Record<string, unknown>) => void;
  /** Deadline of the upload (default 10 min). */
  uploadTimeoutMs?: number;
}

export interface UploadSender {
  invoke: Invoker['invoke'];
  /** Send raw data to `path` within the session, with extra headers; the answer's data. */
  upload(
    path: string,
    body: () => Uint8Array | NodeJS.ReadableStream,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<unknown>;
}

function badAuth(): DeviceError {
  return new DeviceError({
    kind: 'invalid_request',
    error_code: 'bad_auth',
    reason: 'a firmware upgrade needs the secondary authentication {seq: <integer>, cipher: <string>}',
    page: 'Maintenance/SystemUpgrade',
    operation: 'Token',
  });
}

/** The whole local upgrade; resolves when the device accepted the file (it then installs and reboots). */
export async function runLocalUpgrade(
  c: UploadSender,
  input: LocalUpgradeInput,
  opts: { largeCapacity?: boolean } = {},
): Promise<{ file_name: string; file_size: number }> {
  const valid = (a: UpgradeTokenRequest['base_secondary_authentication']) =>
    !!a && Number.isInteger(a.seq) && typeof a.cipher === 'string' && !!a.cipher;
  if (typeof input.auth !== 'function' && !valid(input.auth)) throw badAuth();
  const prepared = await prepareUpgrade(input, opts);
  input.onStep?.('checked', { file_name: prepared.file_name, file_size: prepared.file_size });
  const auth = typeof input.auth === 'function' ? await input.auth() : input.auth;
  if (!valid(auth)) throw badAuth();
  const token = await c.invoke(upgradeToken, { ...prepared, base_secondary_authentication: auth });
  input.onStep?.('token', { upgrade_timeout: token.upgrade_timeout });
  const { file } = input;
  const body = typeof file === 'string' ? () => createReadStream(file, { start: 0, end: prepared.file_size - 1 }) : () => file;
  input.onStep?.('uploading', { file_size: prepared.file_size });
  await c.upload(
    '/API/Maintenance/SystemUpgrade/Upgrade',
    body,
    { [UPGRADE_TOKEN_HEADER]: token.upgrade_token },
    input.uploadTimeoutMs ?? 600_000,
  );
  input.onStep?.('done', { file_name: prepared.file_name, file_size: prepared.file_size });
  return { file_name: prepared.file_name, file_size: prepared.file_size };
}
