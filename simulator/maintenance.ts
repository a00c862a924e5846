/**
 * Maintenance pages of the simulator (vendor-facts b, vendor-facts-more i): TransKey (the salts secondary
 * authentication is built from), DeviceReboot (both request shapes the vendor shows) and, on an NVR, IPCMaintaint >
 * IPCReboot. A reboot drops every session and answers `device_reboot` to everything, login included, for `rebootMs`;
 * then the device answers again, with no session (clients log in afresh). A camera restarted through the NVR is
 * offline for `rebootMs` and then back.
 *
 * The cipher the simulator expects: base64 of PBKDF2-HMAC-SHA256(the device password, the salt string as handed out
 * (UTF-8), iter, 32 bytes). The vendor does not state the input or the salt's encoding; this is the reading that
 * vendor-facts-more i gives. Each salt (`seq`) serves one operation.
 */
import { pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Device } from './device';
import { bool, list, obj, ro, text } from './descriptors';
import { Reply, failure, paramError, success } from './envelope';
import { isPlainObject } from './descriptors';
import type { Route } from './route';
import { Timers } from './timers';

const SALT_ITER = 1000;
const SALTS_KEPT = 16;

interface MaintenanceOptions {
  device: Device;
  password: string;
  /** Cameras' own passwords by channel; a camera not listed has the recorder's. */
  cameraPasswords: Readonly<Record<string, string>>;
  /** How long a reboot lasts (device and cameras). */
  rebootMs: number;
  /** The device's reboot: sessions dropped, `device_reboot` answered for `rebootMs` (firmware.ts, shared). */
  reboot: () => void;
}

export class Maintenance {
  /** Reboots done (tests, figures). */
  reboots = 0;
  private nextSeq = 1;
  private readonly salts = new Map<number, { key: string; iter: number }>();
  private readonly timers = new Timers();

  constructor(private readonly o: MaintenanceOptions) {}

  stop(): void {
    this.timers.clear();
  }

  routes(): Array<[string, Route]> {
    const transKey: Route['handler'] = ({ data }) => this.transKey(data);
    const out: Array<[string, Route]> = [
      ['/API/Login/TransKey/Get', { auth: 'none', handler: transKey }],
      ['/API/Maintenance/TransKey/Get', { auth: 'session', handler: transKey }],
      ['/API/Maintenance/DeviceReboot/Set', { auth: 'session', handler: ({ data }) => this.reboot(data) }],
    ];
    if (this.o.device.profile.name === 'nvr') {
      out.push(
        ['/API/IPCMaintaint/IPCReboot/Range', { auth: 'session', handler: () => success(this.ipcRange()) }],
        ['/API/IPCMaintaint/IPCReboot/Get', { auth: 'session', handler: () => success(this.ipcGet()) }],
        ['/API/IPCMaintaint/IPCReboot/Set', { auth: 'session', handler: ({ data }) => this.ipcReboot(data) }],
      );
    }
    return out;
  }

  private transKey(data: Record<string, unknown>): Reply {
    const types = data.type;
    if (!Array.isArray(types) || !types.every((t) => t === 'base_salt' || t === 'base_x_public'))
      return paramError('type: must be an array of "base_salt", "base_x_public"');
    const list = (types as Array<'base_salt' | 'base_x_public'>).map((type) => {
      const seq = this.nextSeq++;
      // Keys carry a leading 0 before the base64 (vendor samples).
      const key = `0${randomBytes(type === 'base_salt' ? 24 : 32).toString('base64')}`;
      if (type !== 'base_salt') return { type, key, seq };
      this.salts.set(seq, { key, iter: SALT_ITER });
      if (this.salts.size > SALTS_KEPT) this.salts.delete(this.salts.keys().next().value!);
      return { type, key, iter: SALT_ITER, seq };
    });
    return success({ Key_lists: list });
  }

  /**
   * For pages whose vendor samples carry a `seq` of their own (SystemUpgrade/Token): a seq this device handed out is
   * checked (and spent) like any; one it never handed out is taken as given (undefined).
   */
  verifyIssued(auth: { seq: number; cipher: string }, where: string): Reply | undefined {
    return Number.isInteger(auth.seq) && auth.seq >= 1 && auth.seq < this.nextSeq ? this.verify(auth, where) : undefined;
  }

  /** A `{seq, cipher}` built from a salt this device handed out (used up either way), or the refusal. */
  private verify(auth: unknown, where: string): Reply | undefined {
    if (!isPlainObject(auth) || !Number.isInteger(auth.seq) || typeof auth.cipher !== 'string' || !auth.cipher)
      return paramError(`${where}: required {seq: integer, cipher: string}`);
    const salt = this.salts.get(auth.seq as number);
    this.salts.delete(auth.seq as number);
    const expected = salt ? pbkdf2Sync(this.o.password, salt.key, salt.iter, 32, 'sha256') : undefined;
    const given = Buffer.from(auth.cipher, 'base64');
    if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected))
      return failure(400, 'current_pwd_error', `${where}: secondary authentication failed (unknown seq or wrong cipher)`);
    return undefined;
  }

  private reboot(data: Record<string, unknown>): Reply {
    // Flat {cipher, seq} (the page's table and sample) or wrapped {base_secondary_authentication} (sibling pages).
    const wrapped = data.base_secondary_authentication !== undefined;
    const extra = Object.keys(data).filter((k) => (wrapped ? k !== 'base_secondary_authentication' : k !== 'cipher' && k !== 'seq'));
    if (extra.length) return paramError(`${extra.join(', ')}: unsupported field`);
    const refused = this.verify(wrapped ? data.base_secondary_authentication : data, wrapped ? 'base_secondary_authentication' : 'data');
    if (refused) return refused;
    // The answer goes out first; then the device is gone for a while.
    this.timers.later(0, () => {
      this.reboots++;
      this.o.reboot();
    });
    return success({});
  }

  private ipcs() {
    return this.o.device.profile.channels.filter((c) => c.configured && c.kind === 'digital');
  }

  private ipcRange() {
    const items = Object.fromEntries(
      this.ipcs().map((c) => [
        c.id,
        obj({
          status: ro(list(['Offline', 'Online'])),
          ip_address: ro(text(0, 63)),
          software_version: ro(text(0, 40)),
          reboot_switch: bool(),
        }),
      ]),
    );
    return { channel_max: this.o.device.profile.channels.length, password: text(0, 16), channel_info: obj(items) };
  }

  private ipcGet() {
    return {
      channel_info: Object.fromEntries(
        this.ipcs().map((c) => [
          c.id,
          {
            status: this.o.device.isOnline(c.id) ? 'Online' : 'Offline',
            ip_address: `192.168.1.${100 + c.index}`,
            software_version: 'V21.45.8.2.2_220705',
          },
        ]),
      ),
    };
  }

  private ipcReboot(data: Record<string, unknown>): Reply {
    const { password, channel_info: ci, base_secondary_authentication: auth, ...rest } = data;
    if (Object.keys(rest).length) return paramError(`${Object.keys(rest).join(', ')}: unsupported field`);
    if (typeof password !== 'string' || [...password].length > 16) return paramError('password: required string of up to 16 characters');
    if (!isPlainObject(ci) || !Object.keys(ci).length) return paramError('channel_info: required object of channels');
    const known = new Set(this.ipcs().map((c) => c.id));
    for (const [ch, block] of Object.entries(ci)) {
      if (!known.has(ch)) return paramError(`channel_info.${ch}: not a camera of this recorder`);
      if (!isPlainObject(block) || typeof block.reboot_switch !== 'boolean' || Object.keys(block).length !== 1)
        return paramError(`channel_info.${ch}: required {reboot_switch: bool}`);
    }
    const refused = this.verify(auth, 'base_secondary_authentication');
    if (refused) return refused;
    // The page's `password` is the camera's own admin password (vendor), the recorder's where the camera has that.
    for (const [ch, block] of Object.entries(ci))
      if ((block as { reboot_switch: boolean }).reboot_switch && password !== (this.o.cameraPasswords[ch] ?? this.o.password))
        return failure(400, 'current_pwd_error', `password: not the admin password of the camera on ${ch}`);
    const out: Record<string, { state: string }> = {};
    for (const [ch, block] of Object.entries(ci)) {
      const on = (block as { reboot_switch: boolean }).reboot_switch;
      if (!on) continue;
      const online = this.o.device.isOnline(ch);
      out[ch] = { state: online ? 'Success' : 'Failed' };
      if (online) {
        this.o.device.setOnline(ch, false);
        this.timers.later(this.o.rebootMs, () => this.o.device.setOnline(ch, true));
      }
    }
    return success({ channel_info: out });
  }
}
