import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientState } from '../../core/client';
import type { DeviceError } from '../../core/errors';
import type { NodeStatus } from './red';

/** The shared client's state, as the nodes show it. */
export type ConnectionState = ClientState;

type Catalogue = { status: Record<'connection' | 'code' | 'kind' | 'upgrade', Record<string, string>> };

/**
 * Status texts live in the message catalogue (nvr-device/locales/en-US/nvr-device.json, beside the
 * built nvr-device node). Node-RED's translator is used once a node file has handed it over (the user's language);
 * the English catalogue answers otherwise (and for keys a translation lacks).
 */
const english: Catalogue = JSON.parse(
  readFileSync(join(__dirname, '..', 'nvr-device', 'locales', 'en-US', 'nvr-device.json'), 'utf8'),
) as Catalogue;
let translate: ((key: string) => string) | undefined;

/** Called by nvr-device.ts with `RED._` (namespaced to this node set). */
export function useTranslator(fn: (key: string) => string): void {
  translate = fn;
}

function text(group: keyof Catalogue['status'], key: string, subs: Record<string, string> = {}): string | undefined {
  const full = `status.${group}.${key}`;
  let t: string | undefined;
  try {
    const out = translate?.(full);
    if (out && out !== full && !out.endsWith(full)) t = out;
  } catch {
    // a missing catalogue must never break a status
  }
  t ??= english.status[group][key];
  return t?.replace(/__(\w+)__/g, (_m, k: string) => subs[k] ?? '');
}

/** A status shape of `fill`: a ring while waiting or failed, a dot when there (the texts come from the catalogue). */
const ring = (fill: NodeStatus['fill']): NodeStatus => ({ fill, shape: 'ring' });
const dot = (fill: NodeStatus['fill']): NodeStatus => ({ fill, shape: 'dot' });

const FILL: Record<ConnectionState, NodeStatus> = {
  idle: ring('yellow'),
  connecting: ring('yellow'),
  connected: dot('green'),
  error: ring('red'),
  closed: ring('grey'),
};

const MAX_TEXT = 40;

/**
 * What a node shows for an error: a few words, never a credential (DeviceError reasons hold none),
 * never the library's wording: the code's own text, else the kind's, else the invalid option's reason.
 */
export function shortReason(err: Pick<DeviceError, 'error_code' | 'kind' | 'reason'> | undefined): string {
  if (!err) return text('connection', 'error') ?? 'error';
  const s =
    text('code', err.error_code) ??
    (err.error_code === 'bad_option' ? err.reason : undefined) ??
    text('kind', err.kind, { code: err.error_code }) ??
    err.error_code;
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}

/** "14:05:09" in the Node-RED host's local time: what a status has room for. */
export const clockTime = (at: number | Date): string => new Date(at).toTimeString().slice(0, 8);

/** `retryAt`: when held logins go out again (a lock-out), shown so the user knows when it retries. */
export function connectionStatus(state: ConnectionState, err?: DeviceError, retryAt?: number): NodeStatus {
  const base = FILL[state] ?? FILL.error;
  if (state !== 'error') return { ...base, text: text('connection', state) };
  return { ...base, text: shortReason(err) + (retryAt ? `; retry ${clockTime(retryAt)}` : '') };
}

export type UpgradeStep = 'reading' | 'requesting' | 'done' | 'failed' | 'checked' | 'uploading' | 'installed';

/** Progress of nvr-upgrade, shown instead of the connection while a request runs. */
const UPGRADE_FILL: Record<UpgradeStep, NodeStatus> = {
  reading: ring('blue'),
  requesting: ring('yellow'),
  done: dot('green'),
  checked: ring('blue'),
  uploading: dot('yellow'),
  installed: dot('green'),
  failed: ring('red'),
};

export function upgradeStatus(step: UpgradeStep, err?: DeviceError): NodeStatus {
  return { ...UPGRADE_FILL[step], text: text('upgrade', step, { reason: step === 'failed' ? shortReason(err) : '' }) };
}

/** Request failures are shown briefly on the node that failed; the connection status comes back later. */
export function failureStatus(err: DeviceError): NodeStatus {
  return { ...ring('red'), text: shortReason(err) };
}
