import { DeviceError } from './errors';
import type { Invoker } from './operation';
import { deviceInfoGet, type DeviceInfo } from './pages/device-info';
import { systemInfoGet, type SystemInfo } from './pages/system-info';

/** Who the device is, from `SystemInfo/Base/Get` and `Login/DeviceInfo/Get` (either may be missing). */
export interface DeviceIdentity {
  /** `device_type`, e.g. N7516. */
  model?: string;
  /** `software_version`, e.g. V8.2.3-20221014. */
  firmware?: string;
  hardware?: string;
  /** `serialNum` (vendor) or `serial_number`. */
  serial?: string;
  /** As the device writes it: dash-separated upper-case (`88-26-1D-AA-8E-E0`). */
  mac?: string;
  name?: string;
  /** DeviceInfo `dev_type`, a u64: its decimal digits, never rounded. */
  devType?: string;
  /** DeviceInfo `support_speaker`: the device has a speaker of its own (absent when it does not say). */
  speaker?: boolean;
}

const text = (x: unknown): string | undefined => (typeof x === 'string' && x.trim() !== '' ? x.trim() : undefined);

export function identityFrom(sys: SystemInfo | undefined, dev: DeviceInfo | undefined): DeviceIdentity {
  const id: DeviceIdentity = {};
  const put = <K extends keyof DeviceIdentity>(k: K, v: DeviceIdentity[K] | undefined) => {
    if (v !== undefined) id[k] = v;
  };
  put('model', text(sys?.device_type) ?? text(dev?.device_type));
  put('firmware', text(sys?.software_version) ?? text(dev?.software_version));
  put('hardware', text(sys?.hardware_version));
  put('serial', text(sys?.serialNum) ?? text(sys?.serial_number));
  put('mac', text(sys?.mac_address) ?? text(dev?.mac_addr));
  put('name', text(sys?.device_name));
  const devType = dev?.dev_type;
  // A number here is below 2^53 (longer digit runs arrive as strings), so String() is exact.
  put('devType', typeof devType === 'number' && Number.isSafeInteger(devType) ? String(devType) : text(devType));
  if (typeof dev?.support_speaker === 'boolean') id.speaker = dev.support_speaker;
  return id;
}

/** `88-26-1D-AA-8E-E0` / `88:26:1d:aa:8e:e0` -> `88:26:1d:aa:8e:e0` (Home Assistant's form); undefined if not a MAC. */
export function macColon(mac: string | undefined): string | undefined {
  const hex = (mac ?? '').replace(/[-:.\s]/g, '').toLowerCase();
  return /^[0-9a-f]{12}$/.test(hex) ? hex.match(/../g)!.join(':') : undefined;
}

/** Both pages' answers; a page the device lacks is left out, both missing is the first page's error. */
export async function readIdentityPages(c: Invoker): Promise<{ sys?: SystemInfo; dev?: DeviceInfo }> {
  const [sys, dev] = await Promise.allSettled([c.invoke(systemInfoGet), c.invoke(deviceInfoGet)]);
  const value = <T>(r: PromiseSettledResult<T>): T | undefined => {
    if (r.status === 'fulfilled') return r.value;
    if (r.reason instanceof DeviceError && r.reason.kind === 'unsupported') return undefined;
    throw r.reason;
  };
  const s = value(sys);
  const d = value(dev);
  if (!s && !d) throw (sys as PromiseRejectedResult).reason;
  return { sys: s, dev: d };
}

/** Identity from both pages (`readIdentityPages`). */
export async function readIdentity(c: Invoker): Promise<DeviceIdentity> {
  const { sys, dev } = await readIdentityPages(c);
  return identityFrom(sys, dev);
}
