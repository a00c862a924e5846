/**
 * Alarm outputs (relays) switched by hand (`PreviewChannel/ManualAlarm`; core/alarm-outputs.ts): the names come from
 * the device (`Local->1` the recorder's own, `IP_CH1->1` a camera's behind an NVR). Read by the poll (one Get): with
 * events on in turn with the settings pages (the idle budget: still one settings read per poll), without events with
 * every poll; a device without the page is not asked again (R2).
 *
 * - State: `<base>/<dev>` carries `alarm_output_<slug>` (true/false) per output the device lists: `Local->1` is
 *   `alarm_output_local_1`, `IP_CH1->1` is `alarm_output_ip_ch1_1` (the device's state, device/alarm-output-names.ts).
 * - Commands: `<base>/<dev>/set/alarm_output_<slug>` with an ON/OFF word (core/words.ts; TOGGLE flips the state
 *   known), or the key inside `<base>/<dev>/set`'s JSON. Core reads the outputs fresh, sends only what changes and
 *   reads back; the state read back is published, and a read-back that differs is reported unconfirmed.
 * - Home Assistant: a `switch` per output (`outputLabel`: "Alarm output 1", "Camera alarm output 1"): the recorder's
 *   outputs on the recorder's device, a camera's on that camera's channel device (its channel is published), otherwise
 *   on the recorder's.
 */
import { channelSlug, DeviceError } from '../../../core';
import { switchValue } from '../../../core/words';
import { alarmOutputKey, outputChannel } from '../../device/alarm-output-names';
import { Refusal } from '../../device/refusal';
import type { Device } from '../../device/device';
import { channelOnline, type Json } from '../../device/state';
import { onOffTemplate } from '../../homeassistant/templates';
import type { Topics } from '../../mqtt/topics';

/**
 * An output's entity name, as the device's own menu numbers them: the recorder's `Local->1` is "Alarm output 1", a
 * camera's `IP_CH1->1` on its channel device "Camera alarm output 1" (on the recorder's device, where the camera is not
 * published: "IP_CH1 alarm output 1"); a name of another form is shown as the device gives it.
 */
export function outputLabel(name: string, onChannelDevice: boolean): string {
  const m = /^(.+)->(\d+)$/.exec(name);
  if (!m) return `Alarm output ${name}`;
  const [, owner, n] = m;
  if (owner.toLowerCase() === 'local') return `Alarm output ${n}`;
  return onChannelDevice ? `Camera alarm output ${n}` : `${owner} alarm output ${n}`;
}

function outputSwitch(topics: Topics, device: string, node: string, name: string, onChannelDevice: boolean): Json {
  const key = alarmOutputKey(name);
  return {
    p: 'switch',
    name: outputLabel(name, onChannelDevice),
    unique_id: `${node}_${key}`,
    state_topic: topics.state(device),
    value_template: onOffTemplate(key),
    command_topic: topics.set(device, undefined, key),
    icon: 'mdi:electric-switch',
  };
}

/** Where each output's switch goes: `channel` (a published camera) or the recorder (undefined). */
function placeOf(device: Device, name: string): string | undefined {
  const ch = outputChannel(name);
  return ch && device.channels().includes(ch) ? ch : undefined;
}

/** Switches of the recorder's outputs (and of cameras' outputs whose camera is not published as a channel). */
export function deviceAlarmOutputComponents(topics: Topics, device: Device, node: string): Json {
  const out: Json = {};
  for (const name of device.facts.alarmOutputNames ?? [])
    if (placeOf(device, name) === undefined) out[alarmOutputKey(name)] = outputSwitch(topics, device.id, node, name, false);
  return out;
}

/** Switches of one camera's outputs, on its channel device. */
export function channelAlarmOutputComponents(topics: Topics, device: Device, channel: string, node: string): Json {
  const out: Json = {};
  for (const name of device.facts.alarmOutputNames ?? [])
    if (placeOf(device, name) === channel) out[alarmOutputKey(name)] = outputSwitch(topics, device.id, node, name, true);
  return out;
}

/**
 * A `set/alarm_output_<slug>` command: checked now (a device key, an output the device lists, an ON/OFF word),
 * carried out by the returned function (core writes and reads back; the read-back lands in the facts).
 */
export function planAlarmOutput(device: Device, channel: string | undefined, key: string, raw: unknown): () => Promise<void> {
  if (channel)
    throw new Refusal(`${key} is a device key: use the <device>/set/${key} topic (${channelSlug(channel)} is a channel)`, { key });
  const outputs = device.facts.alarmOutputs ?? {};
  const name = (device.facts.alarmOutputNames ?? []).find((n) => alarmOutputKey(n) === key);
  if (!name) {
    const has = (device.facts.alarmOutputNames ?? []).map(alarmOutputKey);
    throw new Refusal(`${device.id} has no alarm output ${key} (it has ${has.join(', ') || 'none'})`, { key });
  }
  const ch = outputChannel(name);
  if (!Object.hasOwn(outputs, name))
    throw new Refusal(
      `${device.id} does not list ${name} now${ch && !channelOnline(device.facts, ch) ? ` (camera ${ch} is offline)` : ''}`,
      {
        key,
      },
    );
  const on = switchValue(raw, outputs[name]);
  if (on === undefined) throw new Refusal(`${key} must be ON, OFF, TOGGLE, true or false`, { key });
  return async () => {
    const got = await device.writeAlarmOutput(name, on);
    if (got !== on)
      throw new DeviceError({
        kind: 'rejected',
        error_code: 'not_confirmed',
        page: 'PreviewChannel/ManualAlarm',
        operation: 'Set',
        reason: `asked for ${name} ${on ? 'on' : 'off'}, the device reports ${got === undefined ? 'nothing' : got ? 'on' : 'off'}`,
      });
  };
}
