/**
 * Restart buttons (vendor-facts-more i): `<base>/<dev>/restart` restarts the recorder (Maintenance/DeviceReboot),
 * `<base>/<dev>/<ch>/restart` a camera behind an NVR (IPCMaintaint/IPCReboot; only channels the NVR lists there get a
 * button). Home Assistant shows them as `button` entities (device_class restart), disabled by default: a restart is
 * rare and interrupts recording.
 *
 * The secondary authentication is core's (built from a fresh TransKey salt); the password never leaves core. After a
 * recorder restart the client drops its session and waits before logging in: the bridge's polls fail while the
 * device is away (it shows offline) and the first one after it is back logs in once. A retained press is ignored (it
 * would restart the device on every bridge restart); a second press while one restart is under way is refused, and
 * the recorder is not restarted again within the guard's quiet time, also across a bridge restart (the state file).
 */
import { channelFromSlug, channelSlug, DeviceError, rebootableChannels, RESTART_QUIET_MS, RestartGuard } from '../../../core';
import type { StateFile } from '../../base/state-file';
import type { Quoter } from '../../../core/quote';
import type { Device } from '../../device/device';
import { errorText, type Logger } from '../../base/log';
import type { DeviceRuntime } from '../../device/runtime';
import type { Json } from '../../device/state';
import type { Topics } from '../../mqtt/topics';

export interface RestartOptions {
  topics: Topics;
  runtimes: ReadonlyMap<string, DeviceRuntime>;
  log: Logger;
  quoter: Quoter;
  /** `bridge/event` (refused or failed presses, restarts under way). */
  event: (type: string, data: Record<string, unknown>) => void;
  /** The channels a device can restart were learned or changed: its discovery changes. */
  onChange: (device: Device) => void;
  /** Keeps the recorder's last restart across a bridge restart (the quiet time holds then too). */
  state?: StateFile;
}

export class Restarts {
  /** Channels each NVR can restart (IPCReboot Range), learned once the device answers. */
  private readonly cameras = new Map<string, readonly string[]>();
  /** Core's rule per device: one restart per target at a time, the recorder not again within a minute. */
  private readonly guards = new Map<string, RestartGuard>();

  constructor(private readonly o: RestartOptions) {}

  /** The device answered (again): learn which cameras it can restart. */
  async learn(rt: DeviceRuntime): Promise<void> {
    try {
      const list = await rebootableChannels({
        invoke: (op, data, opts) => rt.device.client.invoke(op, data, { ...opts, priority: 'poll' }),
      });
      const before = this.cameras.get(rt.id);
      this.cameras.set(rt.id, list);
      if (before?.join() !== list.join()) this.o.onChange(rt.device);
    } catch (err) {
      this.o.log.debug(`${rt.id}: cameras it can restart: ${errorText(err)}`);
    }
  }

  /** The recorder's restart button. */
  deviceComponents(device: Device, node: string): Json {
    return { restart: this.button(`${node}_restart`, this.o.topics.restart(device.id)) };
  }

  /** A camera's restart button, where its NVR can restart it. */
  channelComponents(device: Device, channel: string, node: string): Json | undefined {
    if (!this.cameras.get(device.id)?.includes(channel)) return undefined;
    return { restart: this.button(`${node}_restart`, this.o.topics.restart(device.id, channelSlug(channel))) };
  }

  private button(uniqueId: string, commandTopic: string): Json {
    return {
      p: 'button',
      name: 'Restart',
      unique_id: uniqueId,
      command_topic: commandTopic,
      payload_press: 'PRESS',
      device_class: 'restart',
      entity_category: 'config',
      enabled_by_default: false,
    };
  }

  /** Handles a message on a restart topic; false when the topic is not one. */
  handle(topic: string, retained: boolean): boolean {
    const parsed = this.o.topics.parseRestart(topic);
    if (!parsed) return false;
    const refuse = (reason: string) => this.o.event('command_refused', { topic: this.o.quoter.quote(topic, 256), reason });
    const rt = this.o.runtimes.get(parsed.device);
    const channel = parsed.slug === undefined ? undefined : channelFromSlug(parsed.slug);
    if (retained) refuse('retained restart ignored (it would restart the device on every bridge start)');
    else if (!rt || (parsed.slug !== undefined && !channel)) refuse('no such device or channel');
    else if (channel && !this.cameras.get(rt.id)?.includes(channel))
      refuse(`${rt.id} cannot restart ${channel} (IPCReboot does not list it)`);
    else {
      let guard = this.guards.get(rt.id);
      if (!guard) this.guards.set(rt.id, (guard = new RestartGuard(RESTART_QUIET_MS, this.o.state?.device(rt.id).last_restart)));
      const why = guard.begin(channel);
      if (why) refuse(`${rt.id}: ${why}`);
      else void this.restart(rt, guard, channel, topic);
    }
    return true;
  }

  private async restart(rt: DeviceRuntime, guard: RestartGuard, channel: string | undefined, topic: string): Promise<void> {
    let sent = false;
    const what = channel ? `${rt.id} ${channel}` : rt.id;
    this.o.log.info(`restarting ${what} (asked on MQTT)`);
    try {
      if (channel) await rt.device.client.restartCamera(channel);
      else await rt.device.client.restart();
      sent = true;
      this.o.event('device_restarting', { device: rt.id, ...(channel ? { channel } : {}) });
    } catch (err) {
      this.o.log.warn(`restarting ${what} failed: ${errorText(err)}`);
      this.o.event('command_failed', {
        topic: this.o.quoter.quote(topic, 256),
        reason: errorText(err),
        ...(err instanceof DeviceError ? { error_code: err.error_code } : {}),
      });
    } finally {
      guard.end(channel, sent);
    }
    const last = guard.lastRestart;
    if (sent && !channel && last !== undefined) await this.o.state?.update(rt.id, (s) => ({ ...s, last_restart: last }));
  }
}
