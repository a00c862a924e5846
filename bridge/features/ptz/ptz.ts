/**
 * PTZ of one device, for every channel whose channel list reports a PTZ ability (`Ptz`, `NewPtz`, `HkPtz`) and whose
 * `PreviewChannel/PTZ/Get` answers (R2: nothing else gets PTZ entities):
 *
 * - `<base>/<dev>/<ch>/ptz` (retained): `{"presets": [{"no", "name"}], "preset": <name last called or null>,
 *   "moves": [...], "speed": {"min", "max"}}`: what the camera offers, for MQTT users and Home Assistant's select.
 * - `<base>/<dev>/<ch>/set/ptz`: `{"preset": 1}` (or a name), `{"move": "left", "duration": 0.5, "speed": 50}`,
 *   `{"stop": true}`, or a bare `left` / `zoom_in` / `stop`; `<base>/<dev>/<ch>/set/ptz_preset`: a preset's name or
 *   number (Home Assistant's select). Checked by core (ptz-control.ts: stored presets, the device's speed range,
 *   duration 0.1-10 s) before anything is sent; a move is Start, the duration, Stop. Only the latest command on a
 *   channel matters (core's PtzMotion): one arriving while another is carried out replaces one already waiting (a
 *   flood of presets calls the first and the last; the replaced ones are superseded like any command on one field),
 *   a new command ends the running move, `stop` ends it and drops what waits at once, and so does the bridge's stop.
 * - Home Assistant: a `select` "Preset" (stored presets by name) and a `button` per direction and zoom the camera
 *   offers (each a move of the default duration and speed).
 *
 * Budget: the presets are read when the channels change (structure) and then every `PRESET_REFRESH_MS` at priority
 * `poll` (never on every poll); a preset asked for that is not known is read once more at once (someone stored it
 * on the device meanwhile), at most once per `MISS_REREAD_MS`.
 */
import { channelSlug, DeviceError, findPreset, hasPtzAbility, planPtz, PTZ_MOVES, violationText, type PtzInfo } from '../../../core';
import { isPlainObject } from '../../../core/json';
import { Refusal } from '../../device/refusal';
import type { Device } from '../../device/device';
import { errorText, type Logger } from '../../base/log';
import type { MqttLink } from '../../mqtt/link';
import { channelOnline, type Json } from '../../device/state';
import type { Topics } from '../../mqtt/topics';

/** How often the presets are read again (the slow schedule: the Range cache's lifetime). */
export const PRESET_REFRESH_MS = 300_000;
/** A preset that is not known is read again at once, at most this often per channel. */
const MISS_REREAD_MS = 10_000;
export const PTZ_KEYS = ['ptz', 'ptz_preset'] as const;
export type PtzKey = (typeof PTZ_KEYS)[number];
export const isPtzKey = (k: string): k is PtzKey => (PTZ_KEYS as readonly string[]).includes(k);

const ZOOM_MOVES: ReadonlySet<string> = new Set(['zoom_in', 'zoom_out']);

/** Home Assistant components of a PTZ channel: the preset select (where it has stored presets), its move buttons and Stop. */
export function ptzComponents(topics: Topics, device: string, slug: string, node: string, info: PtzInfo): Json {
  const out: Json = {};
  if (info.presets.length)
    out.ptz_preset = {
      p: 'select',
      name: 'Preset',
      unique_id: `${node}_ptz_preset`,
      state_topic: topics.ptz(device, slug),
      value_template: "{{ value_json.preset if value_json.preset else 'None' }}",
      command_topic: topics.set(device, slug, 'ptz_preset'),
      options: info.presets.map((p) => p.name),
      icon: 'mdi:cctv',
    };
  for (const move of info.moves) {
    const button = PTZ_MOVES[move] as { button?: { name: string; icon: string } };
    if (!button.button) continue;
    out[`ptz_${move}`] = {
      p: 'button',
      name: button.button.name,
      unique_id: `${node}_ptz_${move}`,
      command_topic: topics.set(device, slug, 'ptz'),
      payload_press: JSON.stringify({ move }),
      icon: button.button.icon,
      // Zooming is rarely wanted from a dashboard (Reolink announces its zoom buttons disabled).
      ...(ZOOM_MOVES.has(move) ? { enabled_by_default: false } : {}),
    };
  }
  // Stop: whatever the camera does (a move, a patrol it runs by itself) ends.
  if (info.moves.length)
    out.ptz_stop = {
      p: 'button',
      name: 'PTZ stop',
      unique_id: `${node}_ptz_stop`,
      command_topic: topics.set(device, slug, 'ptz'),
      payload_press: JSON.stringify({ stop: true }),
      icon: 'mdi:stop',
    };
  return out;
}

/** `set/ptz` and `set/ptz_preset` payloads as core's command object. */
function commandOf(key: PtzKey, raw: unknown): unknown {
  if (key === 'ptz_preset') return { preset: raw };
  if (typeof raw === 'string') {
    const word = raw.trim().toLowerCase();
    if (word === 'stop') return { stop: true };
    if (Object.hasOwn(PTZ_MOVES, word)) return { move: word };
  }
  return raw;
}

const findPresetOk = (info: PtzInfo, raw: unknown) => typeof findPreset(info, raw) !== 'string';

/** Core's refusal in the words of its violations, as a command refusal (nothing was sent). */
function refusal(key: PtzKey, err: unknown): unknown {
  if (!(err instanceof DeviceError) || err.kind !== 'invalid_request') return err;
  const words = err.violations?.length ? err.violations.map(violationText).join('; ') : err.reason;
  return new Refusal(`${key}: ${words}`, { key });
}

export interface PtzOptions {
  link: MqttLink;
  topics: Topics;
  log: Logger;
  /** The PTZ channels or their presets changed: discovery is due. */
  onChange: () => void;
  refreshMs?: number;
}

export class DevicePtz {
  private readonly infos = new Map<string, PtzInfo>();
  /** The preset last called per channel (shown by the select). */
  private readonly called = new Map<string, string>();
  private readonly lastMiss = new Map<string, number>();
  private loading?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly device: Device,
    private readonly opts: PtzOptions,
  ) {}

  info(channel: string): PtzInfo | undefined {
    return this.infos.get(channel);
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.load(), this.opts.refreshMs ?? PRESET_REFRESH_MS);
    this.timer.unref?.();
  }

  /** The bridge stops: a running move gets its Stop at once, nothing waiting starts (the logout comes later). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    void this.device.client.stopPtz();
  }

  /** Channels that report a PTZ ability, online. */
  private ptzChannels(): string[] {
    const models = this.device.facts.channelSlots ?? [];
    return this.device.channels().filter((ch) => {
      const m = models.find((x) => x.id === ch);
      return !!m && hasPtzAbility(m) && channelOnline(this.device.facts, ch);
    });
  }

  /** Read the PTZ offer of every PTZ channel (coalesced); publish and announce what changed. */
  load(): Promise<void> {
    this.loading ??= this.doLoad().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async doLoad(): Promise<void> {
    if (this.stopped) return;
    let changed = false;
    for (const ch of this.ptzChannels()) changed = (await this.read(ch)) || changed;
    if (changed) this.opts.onChange();
  }

  /** One channel's offer; true when it changed (an offline or failing channel keeps what it had). */
  private async read(channel: string): Promise<boolean> {
    const slots = this.device.facts.channelSlots?.length ?? this.device.channels().length;
    try {
      const info = await this.device.client.ptzInfo(channel, slots, { priority: 'poll' });
      const before = this.infos.get(channel);
      this.infos.set(channel, info);
      this.publish(channel);
      return JSON.stringify(before) !== JSON.stringify(info);
    } catch (err) {
      this.opts.log.warn(`PTZ of ${channel}: ${errorText(err)}`);
      return false;
    }
  }

  private publish(channel: string): void {
    const info = this.infos.get(channel);
    if (!info) return;
    const called = this.called.get(channel);
    const body = JSON.stringify({
      presets: info.presets,
      preset: called && info.presets.some((p) => p.name === called) ? called : null,
      moves: info.moves,
      speed: info.speed,
    });
    this.opts.link.publish(this.opts.topics.ptz(this.device.id, channelSlug(channel)), body, { retain: true, qos: 1, queue: true });
  }

  /**
   * A `set/ptz` or `set/ptz_preset` command: checked now by core (a refusal throws a Refusal, nothing is sent),
   * carried out by the returned function (resolves when the preset was called or the move's Stop was sent). A preset
   * not known is first read again (once per MISS_REREAD_MS): then the refusal, if any, comes from the function.
   */
  plan(channel: string, key: PtzKey, raw: unknown): () => Promise<void> {
    const info = this.infos.get(channel);
    if (!info) throw new Refusal(`${key}: ${channel} of ${this.device.id} has no PTZ`, { key });
    const command = commandOf(key, raw);
    const check = (i: PtzInfo) => {
      try {
        planPtz(i, command);
      } catch (err) {
        throw refusal(key, err);
      }
    };
    const unknownPreset =
      isPlainObject(command) && command.preset !== undefined && !findPresetOk(info, command.preset) && this.mayReread(channel);
    if (!unknownPreset) check(info);
    return async () => {
      let current = info;
      if (unknownPreset) {
        if (await this.read(channel)) this.opts.onChange();
        current = this.infos.get(channel) ?? info;
        check(current);
      }
      const done = await this.device.client.ptz(current, command);
      if ('preset' in done) {
        this.called.set(channel, done.name);
        this.publish(channel);
      }
    };
  }

  /** A miss may read again unless another miss did so lately (a flood of unknown presets costs one read). */
  private mayReread(channel: string): boolean {
    if (Date.now() - (this.lastMiss.get(channel) ?? 0) <= MISS_REREAD_MS) return false;
    this.lastMiss.set(channel, Date.now());
    return true;
  }
}
