import type { ChannelSlot } from '../../core/channel-slots';
import type { NvrClient } from '../../core/client';
import type { DeviceError } from '../../core/errors';
import { LIVE_CONTROLS, LIVE_SWITCHES, type LiveHardware, type LiveSetting, type LiveSwitch } from '../../core/live';
import { isPlainObject } from '../../core/json';
import { hasPtzAbility, PTZ_MOVES } from '../../core/ptz-control';
import { MAX_DURATION_S } from '../../core/switch-off';
import { switchValue } from '../../core/words';
import { statusWords } from './channel-state';
import { invalidRequest } from './errors';
import { nodeQuoter } from './secrets';

/**
 * What `nvr-control` does in each mode: one row per mode (the only place that knows which core call and
 * which payload members). The live modes are core's live switches (core/live.ts LIVE_CONTROLS: hardware,
 * setting, label); the node (nvr-control.ts) reads the message, finds the row, checks the target and calls `run`.
 */

export type ControlMode = LiveSwitch | 'alarmOutput' | 'disarm' | 'ptz' | 'restart';

/** A switch command after parsing: on/off plus the optional settings the mode accepts. */
export interface Command extends Partial<Record<LiveSetting, number>> {
  on: boolean;
  /** Seconds until the part is switched off again (0 or absent: stays on). */
  duration?: number;
  /** PTZ mode: core's command object (`{preset}`, `{move, duration?, speed?}`, `{stop: true}`), checked by core. */
  ptz?: unknown;
  /** PTZ mode: the device's channel slots (one: a camera, speed 0-10). */
  slots?: number;
}

/** The node's own settings, used where the payload does not give them. */
export interface ControlDefaults {
  brightness?: unknown;
  volume?: unknown;
  duration?: unknown;
  /** PTZ mode: the command picked in the dialog (a preset's number, a move, `stop`), run on a message that names none. */
  ptz?: unknown;
}

type Setting = LiveSetting | 'duration';

/** What a channel mode needs of the camera: a live part's hardware, or PTZ (its `Ptz` ability). */
type ChannelPart = LiveHardware | 'ptz';
const hasPart = (ch: ChannelSlot, part: ChannelPart) => (part === 'ptz' ? hasPtzAbility(ch) : ch.hardware[part]);

interface ModeRow {
  /**
   * What the target is: a channel with this hardware, an alarm output name, or the whole recorder (`channel:
   * 'optional'`: or a camera behind it, where a channel is given).
   */
  target: { kind: 'channel'; hardware: ChannelPart; label: string } | { kind: 'output' } | { kind: 'device'; channel?: 'optional' };
  /** Settings a payload object (or the node) may give besides `on`. */
  settings: readonly Setting[];
  /** Words that mean on / off besides true / false (disarm: "disarm" / "arm"); absent: core's ON/OFF words. */
  words?: { on: readonly string[]; off: readonly string[] };
  /** Sends the command and answers the state read back. */
  run(client: NvrClient, target: string, cmd: Command): Promise<unknown>;
}

/** A live switch of core's table: the change sent through `client.setLive`, its setting only when switching on. */
function live(control: LiveSwitch): ModeRow {
  const { hardware, switch: sw } = LIVE_CONTROLS[control];
  const setting: LiveSetting | undefined = 'setting' in sw ? sw.setting : undefined;
  return {
    target: { kind: 'channel', hardware, label: sw.label },
    settings: [...(setting ? [setting] : []), ...(sw.timed ? ['duration' as const] : [])],
    run: (client, channel, cmd) =>
      client.setLive(channel, {
        [control]: cmd.on,
        ...(cmd.on && setting && cmd[setting] !== undefined ? { [setting]: cmd[setting] } : {}),
      }),
  };
}

export const CONTROL_MODES: Readonly<Record<ControlMode, ModeRow>> = {
  ...(Object.fromEntries(LIVE_SWITCHES.map((c) => [c, live(c)])) as Record<LiveSwitch, ModeRow>),
  alarmOutput: {
    target: { kind: 'output' },
    settings: ['duration'],
    run: async (client, output, cmd) => {
      const outputs = await client.setManualAlarm({ [output]: cmd.on });
      return { output, on: outputs[output] };
    },
  },
  ptz: {
    target: { kind: 'channel', hardware: 'ptz', label: 'PTZ' },
    settings: [],
    run: async (client, channel, cmd) => client.ptz(await client.ptzInfo(channel, cmd.slots ?? 0), cmd.ptz),
  },
  disarm: {
    target: { kind: 'device' },
    settings: [],
    words: { on: ['disarm'], off: ['arm'] },
    run: async (client, _target, cmd) => {
      const s = await client.setDisarmed(cmd.on);
      return { disarmed: s.disarmed, page: s.page };
    },
  },
  restart: {
    target: { kind: 'device', channel: 'optional' },
    settings: [],
    words: { on: ['restart'], off: [] },
    // Resolves once the device accepted the restart (it goes away then; the session logs in once it is back).
    run: async (client, channel) => {
      if (!channel) {
        await client.restart();
        return { restarting: true };
      }
      const state = await client.restartCamera(channel);
      return { channel, restarting: true, ...(state !== undefined ? { state } : {}) };
    },
  },
};

/** The channel parts of the table, for "it has: siren, red/blue light". */
const CHANNEL_PARTS = Object.values(CONTROL_MODES).flatMap((m) => (m.target.kind === 'channel' ? [m.target] : []));

export const isControlMode = (x: unknown): x is ControlMode => typeof x === 'string' && Object.hasOwn(CONTROL_MODES, x);

/** A setting typed in the dialog: empty means "not set"; a number as such; anything else kept, to be refused in words. */
export function settingOf(raw: unknown): unknown {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : raw;
}

function onOff(mode: ControlMode, value: unknown, where: string): boolean {
  const { words } = CONTROL_MODES[mode];
  if (!words) {
    // core's ON/OFF words, as MQTT takes them (no TOGGLE: the node does not know the current state)
    const on = switchValue(value);
    if (on !== undefined) return on;
  } else if (typeof value === 'boolean') return value;
  else if (typeof value === 'string') {
    const w = value.trim().toLowerCase();
    if (words.on.includes(w)) return true;
    if (words.off.includes(w)) return false;
  }
  const allowed = ['true', 'false', ...(words ? [...words.on, ...words.off] : ['on', 'off']).map((w) => `"${w}"`)];
  throw invalidRequest('bad_payload', `${where} must be ${allowed.join(', ')} (got ${nodeQuoter.describe(value)})`);
}

/** What restart mode takes (the dialog says it too, from the rules route): `true`, `"restart"`, an inject's timestamp. */
export const RESTART_PAYLOAD = {
  words: 'true, "restart" or a timestamp (an inject as it comes)',
  accepts: (payload: unknown): boolean =>
    payload === true ||
    (typeof payload === 'string' && payload.trim().toLowerCase() === 'restart') ||
    (typeof payload === 'number' && Number.isInteger(payload) && payload > 0),
};

/**
 * `msg.payload` -> a command: true/false, "on"/"off" ("disarm"/"arm" for disarm), or an object
 * `{on, brightness?, volume?, duration?}` (the settings the mode has); the node's settings fill the gaps.
 */
export function parseCommand(mode: ControlMode, payload: unknown, defaults: ControlDefaults): Command {
  if (mode === 'ptz') return { on: true, ptz: ptzCommand(payload, defaults.ptz) };
  if (mode === 'restart') {
    // A clear ask restarts, and so does an inject as it comes (its timestamp); not false, other text or an object.
    if (RESTART_PAYLOAD.accepts(payload)) return { on: true };
    throw invalidRequest('bad_payload', `msg.payload must be ${RESTART_PAYLOAD.words} to restart (got ${nodeQuoter.describe(payload)})`);
  }
  const row = CONTROL_MODES[mode];
  const cmd: Command = { on: false };
  const given: Partial<Record<Setting, unknown>> = {};
  if (isPlainObject(payload) && !(payload instanceof Uint8Array)) {
    const allowed = ['on', ...row.settings];
    const unknown = Object.keys(payload).filter((k) => !allowed.includes(k));
    if (unknown.length) {
      throw invalidRequest(
        'bad_payload',
        `msg.payload has ${unknown.map((k) => nodeQuoter.describe(k)).join(', ')}; in ${mode} mode it takes ${allowed.join(', ')}`,
      );
    }
    if (!('on' in payload)) throw invalidRequest('bad_payload', `msg.payload.on is missing (true or false)`);
    cmd.on = onOff(mode, payload.on, 'msg.payload.on');
    for (const s of row.settings) if (payload[s] !== undefined) given[s] = payload[s];
  } else {
    cmd.on = onOff(mode, payload, 'msg.payload');
  }
  for (const s of row.settings) {
    const value = given[s] ?? defaults[s];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw invalidRequest(
        'bad_payload',
        `${s} must be a whole number${s === 'duration' ? ' of seconds' : ''} (got ${nodeQuoter.describe(value)})`,
      );
    }
    if (s === 'duration' && value > MAX_DURATION_S)
      throw invalidRequest('bad_payload', `duration must be at most ${MAX_DURATION_S} seconds (a day; got ${value})`);
    cmd[s] = value;
  }
  return cmd;
}

/** A preset number as PTZ mode reads it in a payload (larger numbers are an inject's timestamp, no preset). */
const PRESET_NUMBER_MAX = 255;

/**
 * PTZ mode's `msg.payload`: core's command object as it is (core checks it), or a word: a move (`left`, `zoom_in`),
 * `stop`, a preset's name; a number 1-255: a preset. A message that names none (an inject's timestamp, `true`, empty)
 * runs the node's own command (`fallback`, picked in the dialog), where it has one.
 */
function ptzCommand(payload: unknown, fallback: unknown): unknown {
  const named =
    isPlainObject(payload) ||
    (typeof payload === 'string' && payload.trim() !== '') ||
    (typeof payload === 'number' && payload <= PRESET_NUMBER_MAX);
  const own = typeof fallback === 'string' && fallback.trim() ? fallback.trim() : undefined;
  const given = named || !own ? payload : own;
  if (typeof given === 'number') return { preset: given };
  if (typeof given !== 'string') return given;
  const word = given.trim().toLowerCase();
  if (word === 'stop') return { stop: true };
  if (Object.hasOwn(PTZ_MOVES, word)) return { move: word };
  return { preset: given };
}

/**
 * Refuses a channel that lacks the mode's hardware, before anything is sent: the device's channel
 * model says which parts each channel has.
 */
export function checkChannel(mode: ControlMode, channel: string, model: readonly ChannelSlot[]): DeviceError | undefined {
  const { target } = CONTROL_MODES[mode];
  if (target.kind !== 'channel') return undefined;
  const ch = model.find((c) => c.id === channel);
  if (!ch || !ch.configured) {
    return invalidRequest('unknown_channel', `${channel} is not a configured channel of this device`);
  }
  if (hasPart(ch, target.hardware)) return undefined;
  // An offline camera lists no abilities: say it is offline rather than that it lacks the part.
  if (!ch.online) return invalidRequest('channel_offline', `${channel} is ${statusWords(ch)}: its camera lists no parts now`);
  const has = CHANNEL_PARTS.filter((m) => hasPart(ch, m.hardware)).map((m) => m.label);
  return invalidRequest('no_hardware', `${channel} has no ${target.label}${has.length ? ` (it has: ${has.join(', ')})` : ''}`);
}

/** Channels the editor offers for a mode: those whose hardware has the part. */
export function channelsFor(mode: ControlMode, model: readonly ChannelSlot[]): ChannelSlot[] {
  const { target } = CONTROL_MODES[mode];
  return target.kind === 'channel' ? model.filter((c) => c.configured && hasPart(c, target.hardware)) : [];
}
