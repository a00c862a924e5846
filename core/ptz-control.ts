import { requireChannel } from './channels';
import { DeviceError, type Violation } from './errors';
import { isPlainObject } from './json';
import { refused } from './live';
import type { Invoker } from './operation';
import { nearestField } from './validate';
import { ptzControl, ptzGet, type PtzAnswer, type PtzCmd, type PtzControlRequest } from './pages/ptz';

/**
 * PTZ control of one camera (`PreviewChannel/PTZ`): THE table of moves, the bounds of a command (speed by device kind,
 * duration, stored presets), the command's check, and the timed move. The bridge (buttons, select, `set/ptz`) and
 * nvr-control's PTZ mode both go through here; nothing else knows a PTZ cmd or bound.
 *
 * - A move is `cmd` with `state:"Start"`, a wait, then the same `cmd` with `state:"Stop"` (the vendor's way to end a
 *   continuous move; the device has no duration of its own). A later command on the channel ends a running move
 *   first (its Stop goes out at once); `stopAll()` ends every running move.
 * - A preset is called by number (`Ptz_Cmd_CallPreset`, `preset_point_no`); only presets the camera has stored
 *   (`preset_point_obj[].add`) are offered and accepted.
 */

export interface PtzMoveSpec {
  cmd: PtzCmd;
  /** The capability member that lists the cmd (`ptz_direction_control`, `zoom_minus_add`). */
  capability: 'ptz_direction_control' | 'zoom_minus_add';
  /** Offered as a Home Assistant button. */
  button?: { name: string; icon: string };
}

export const PTZ_MOVES = {
  up: { cmd: 'Ptz_Cmd_Up', capability: 'ptz_direction_control', button: { name: 'PTZ up', icon: 'mdi:arrow-up-bold' } },
  down: { cmd: 'Ptz_Cmd_Down', capability: 'ptz_direction_control', button: { name: 'PTZ down', icon: 'mdi:arrow-down-bold' } },
  left: { cmd: 'Ptz_Cmd_Left', capability: 'ptz_direction_control', button: { name: 'PTZ left', icon: 'mdi:arrow-left-bold' } },
  right: { cmd: 'Ptz_Cmd_Right', capability: 'ptz_direction_control', button: { name: 'PTZ right', icon: 'mdi:arrow-right-bold' } },
  up_left: { cmd: 'Ptz_Cmd_UpLeft', capability: 'ptz_direction_control' },
  up_right: { cmd: 'Ptz_Cmd_UpRight', capability: 'ptz_direction_control' },
  down_left: { cmd: 'Ptz_Cmd_DownLeft', capability: 'ptz_direction_control' },
  down_right: { cmd: 'Ptz_Cmd_DownRight', capability: 'ptz_direction_control' },
  zoom_in: { cmd: 'Ptz_Cmd_ZoomAdd', capability: 'zoom_minus_add', button: { name: 'Zoom in', icon: 'mdi:magnify-plus' } },
  zoom_out: { cmd: 'Ptz_Cmd_ZoomMinus', capability: 'zoom_minus_add', button: { name: 'Zoom out', icon: 'mdi:magnify-minus' } },
} as const satisfies Readonly<Record<string, PtzMoveSpec>>;
export type PtzMove = keyof typeof PTZ_MOVES;
const MOVES: Readonly<Record<PtzMove, PtzMoveSpec>> = PTZ_MOVES;
export const PTZ_MOVE_NAMES = Object.keys(PTZ_MOVES) as PtzMove[];

/** `ChannelInfo` abilities of a PTZ camera (vendor-facts c). */
export const PTZ_ABILITIES = ['Ptz', 'NewPtz', 'HkPtz'] as const;
export const hasPtzAbility = (m: { abilities: readonly string[] }): boolean => PTZ_ABILITIES.some((a) => m.abilities.includes(a));

/** Seconds a move runs: our bound (the device has no duration; a long move risks running into the end stops). */
export const PTZ_DURATION = { min: 0.1, max: 10, default: 0.5 } as const;

type Bounds = { min: number; max: number };

/** Table 2 `speed`: 0-10 on a camera (IPC), 0-100 on a DVR/NVR. A device with one channel slot is a camera. */
export function ptzSpeedRange(channelSlots: number): Bounds {
  return channelSlots === 1 ? { min: 0, max: 10 } : { min: 0, max: 100 };
}

export interface PtzPreset {
  no: number;
  name: string;
}

/** What a PTZ channel offers: stored presets, moves, the speed bounds. */
export interface PtzInfo {
  channel: string;
  presets: PtzPreset[];
  moves: PtzMove[];
  speed: Bounds;
}

/** Strings anywhere in a capability member (a descriptor's `items`, an object's keys or values, a list). */
function capabilityCmds(x: unknown, out = new Set<string>()): Set<string> {
  if (typeof x === 'string') out.add(x);
  else if (Array.isArray(x)) for (const e of x) capabilityCmds(e, out);
  else if (isPlainObject(x))
    for (const [k, e] of Object.entries(x)) {
      if (k.startsWith('Ptz_')) out.add(k);
      capabilityCmds(e, out);
    }
  return out;
}

/**
 * The channel's offer from a Get answer. Moves: where the answer carries capability members, the cmds they list;
 * where it carries none (the vendor's own sample), every move and zoom (the channel reported a PTZ ability).
 * Presets: stored slots (`add: true`) numbered 1-255, named as the device names them (`point N` when unnamed).
 */
export function ptzInfo(channel: string, a: PtzAnswer, speed: Bounds): PtzInfo {
  const caps = { ptz_direction_control: a.ptz_direction_control, zoom_minus_add: a.zoom_minus_add };
  const listed = Object.values(caps).some((c) => c !== undefined);
  const moves = PTZ_MOVE_NAMES.filter((m) => !listed || capabilityCmds(caps[MOVES[m].capability]).has(MOVES[m].cmd));
  const seen = new Set<number>();
  const presets: PtzPreset[] = [];
  for (const p of a.preset_point_obj ?? []) {
    const no = p.no;
    if (p.add !== true || typeof no !== 'number' || !Number.isInteger(no) || no < 1 || no > 255 || seen.has(no)) continue;
    seen.add(no);
    presets.push({ no, name: typeof p.name === 'string' && p.name.trim() ? p.name.trim() : `point ${no}` });
  }
  return { channel: a.channel ?? channel, presets: presets.sort((x, y) => x.no - y.no), moves, speed };
}

export async function readPtz(c: Invoker, channel: string, speed: Bounds, opts: { priority?: 'poll' | 'command' } = {}): Promise<PtzInfo> {
  requireChannel(channel, { page: ptzGet.page, operation: 'Get' });
  return ptzInfo(channel, await c.invoke(ptzGet, { channel }, { priority: opts.priority }), speed);
}

/** A checked PTZ command. */
export type PtzCommand =
  { kind: 'preset'; preset: PtzPreset } | { kind: 'move'; move: PtzMove; seconds: number; speed: number } | { kind: 'stop' };

const WHERE = { page: ptzControl.page, operation: 'Control' };
const MEMBERS = ['preset', 'move', 'duration', 'speed', 'stop'];

const show = (x: unknown) =>
  typeof x === 'string' ? JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x) : (JSON.stringify(x) ?? String(x));

/**
 * A command object checked against the channel's offer: `{preset: <number or name>}`, `{move, duration?, speed?}`
 * (duration in seconds, default 0.5; speed default the middle of the device's range) or `{stop: true}`. Refused
 * (DeviceError `out_of_range` with every violation; nothing was sent) when it is malformed or out of bounds.
 */
export function planPtz(info: PtzInfo, input: unknown): PtzCommand {
  const v: Violation[] = [];
  const bad = (path: string, problem: Violation['problem'], message: string) => v.push({ path, problem, message });
  if (!isPlainObject(input))
    throw refused(WHERE, [
      {
        path: '',
        problem: 'type',
        message: `a PTZ command must be an object such as {"preset": 1} or {"move": "left"} (got ${show(input)})`,
      },
    ]);
  for (const k of Object.keys(input)) {
    if (MEMBERS.includes(k)) continue;
    const near = nearestField(k, MEMBERS);
    bad(k, 'unsupported', `is not part of a PTZ command (it takes ${MEMBERS.join(', ')})${near ? `; did you mean ${near}?` : ''}`);
  }
  const actions = ['preset', 'move', 'stop'].filter((k) => input[k] !== undefined);
  if (actions.length !== 1)
    bad('', 'type', `a PTZ command gives one of preset, move or stop (${actions.length ? `got ${actions.join(' and ')}` : 'got none'})`);
  if (v.length) throw refused(WHERE, v);
  if (input.stop !== undefined) {
    if (input.stop !== true) bad('stop', 'type', `must be true (got ${show(input.stop)})`);
    for (const k of ['duration', 'speed']) if (input[k] !== undefined) bad(k, 'unsupported', 'is taken by a move only');
    if (v.length) throw refused(WHERE, v);
    return { kind: 'stop' };
  }
  if (input.preset !== undefined) {
    for (const k of ['duration', 'speed']) if (input[k] !== undefined) bad(k, 'unsupported', 'is taken by a move only');
    const preset = findPreset(info, input.preset);
    if (typeof preset === 'string') bad('preset', 'enum', preset);
    if (v.length) throw refused(WHERE, v);
    return { kind: 'preset', preset: preset as PtzPreset };
  }
  const move = input.move;
  if (typeof move !== 'string' || !Object.hasOwn(PTZ_MOVES, move)) {
    bad('move', 'enum', `must be one of ${info.moves.join(', ')} (got ${show(move)})`);
  } else if (!info.moves.includes(move as PtzMove)) {
    bad('move', 'unsupported', `must be a move ${info.channel} can make: ${info.moves.join(', ') || 'it makes none'} (got ${show(move)})`);
  }
  const seconds = input.duration ?? PTZ_DURATION.default;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds))
    bad('duration', 'type', `must be a number of seconds (got ${show(seconds)})`);
  else if (seconds < PTZ_DURATION.min) bad('duration', 'min', `must be at least ${PTZ_DURATION.min} seconds (got ${seconds})`);
  else if (seconds > PTZ_DURATION.max) bad('duration', 'max', `must be at most ${PTZ_DURATION.max} seconds (got ${seconds})`);
  const { min, max } = info.speed;
  const speed = input.speed ?? Math.round((min + max) / 2);
  if (typeof speed !== 'number' || !Number.isInteger(speed)) bad('speed', 'type', `must be a whole number (got ${show(speed)})`);
  else if (speed < min) bad('speed', 'min', `must be at least ${min} (got ${speed})`);
  else if (speed > max) bad('speed', 'max', `must be at most ${max} on this device (got ${speed})`);
  if (v.length) throw refused(WHERE, v);
  return { kind: 'move', move: move as PtzMove, seconds: seconds as number, speed: speed as number };
}

/** A stored preset by number (or a numeric string) or by name; else why not (a predicate that follows "preset"). */
export function findPreset(info: PtzInfo, raw: unknown): PtzPreset | string {
  const names = info.presets.map((p) => `${p.no} ${p.name}`).join(', ');
  const offer = info.presets.length ? `${info.channel} stores ${names}` : `${info.channel} has no stored preset`;
  const no = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : undefined;
  if (no !== undefined) {
    if (!Number.isInteger(no) || no < 1 || no > 255) return `must be a preset number 1-255 or a preset name (got ${show(raw)}; ${offer})`;
    return info.presets.find((p) => p.no === no) ?? `must be a preset stored on ${info.channel} (got ${no}; ${offer})`;
  }
  if (typeof raw !== 'string' || !raw.trim()) return `must be a preset number or name (got ${show(raw)}; ${offer})`;
  const name = raw.trim().toLowerCase();
  return (
    info.presets.find((p) => p.name.toLowerCase() === name) ?? `must be a preset stored on ${info.channel} (got ${show(raw)}; ${offer})`
  );
}

/** What a command did: the preset called, or the move run (its Stop sent), or what was stopped. */
export type PtzDone =
  | { channel: string; preset: number; name: string }
  | { channel: string; move: PtzMove; duration: number; speed: number }
  | { channel: string; stopped: PtzMove | null }
  /** Replaced by a later command on the channel before it began: nothing was sent for it. */
  | { channel: string; superseded: true };

interface Running {
  move: PtzMove;
  /** Ends the wait now: the Stop goes out at once. */
  cut(): void;
  done: Promise<unknown>;
}

const sleep = (ms: number, cut: (end: () => void) => void) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    cut(() => {
      clearTimeout(t);
      resolve();
    });
  });

/**
 * The PTZ commands of one device, one at a time per channel, and only the latest matters: a command that arrives while
 * another is carried out waits, replacing (superseding) one that already waited; a new command ends the running move
 * (its Stop sent at once); `stop` also drops the waiting one and is sent at once (while a move of ours runs, that
 * move's Stop is the stop). `stopAll()` (the client's close calls it before logging out) drops what waits and ends
 * every running move. Every call goes at the caller's priority (commands by default).
 */
export class PtzMotion {
  private readonly running = new Map<string, Running>();
  /** Per channel: the command waiting for the one being carried out (only the latest). */
  private readonly waiting = new Map<string, { cmd: PtzCommand; settle: (done: Promise<PtzDone>) => void }>();
  /** Per channel: the loop carrying out its commands, while there is one. */
  private readonly busy = new Map<string, Promise<void>>();
  private readonly lastMove = new Map<string, PtzMove>();

  constructor(private readonly c: Invoker) {}

  /**
   * Carries out a checked command (see {@link planPtz}); resolves once it is done (a move: after its Stop), or with
   * `superseded` when a later command on the channel replaced it before it began.
   */
  run(channel: string, cmd: PtzCommand): Promise<PtzDone> {
    requireChannel(channel, WHERE);
    const running = this.running.get(channel);
    running?.cut();
    this.dropWaiting(channel);
    if (cmd.kind === 'stop') {
      // At once, beside whatever is on the wire: our running move's Stop (sent now) is the stop.
      return running ? running.done.then(() => ({ channel, stopped: running.move })) : this.now(channel, cmd);
    }
    const done = new Promise<PtzDone>((resolve) => this.waiting.set(channel, { cmd, settle: resolve }));
    if (!this.busy.has(channel)) {
      const loop = this.carryOut(channel).finally(() => this.busy.delete(channel));
      this.busy.set(channel, loop);
    }
    return done;
  }

  /** Drops every waiting command and ends every running move now (their Stops go out); resolves when those are done. */
  async stopAll(): Promise<void> {
    for (const channel of [...this.waiting.keys()]) this.dropWaiting(channel);
    for (const r of this.running.values()) r.cut();
    await Promise.allSettled([...this.busy.values()]);
  }

  private dropWaiting(channel: string): void {
    const w = this.waiting.get(channel);
    if (!w) return;
    this.waiting.delete(channel);
    w.settle(Promise.resolve({ channel, superseded: true }));
  }

  /** The channel's commands, one after another, the latest waiting one each time. */
  private async carryOut(channel: string): Promise<void> {
    for (let w = this.waiting.get(channel); w; w = this.waiting.get(channel)) {
      this.waiting.delete(channel);
      const done = this.now(channel, w.cmd);
      w.settle(done);
      await done.catch(() => undefined);
    }
  }

  private send(data: PtzControlRequest): Promise<unknown> {
    return this.c.invoke(ptzControl, data);
  }

  private async now(channel: string, cmd: PtzCommand): Promise<PtzDone> {
    if (cmd.kind === 'preset') {
      await this.send({ channel, cmd: 'Ptz_Cmd_CallPreset', preset_point_no: cmd.preset.no });
      return { channel, preset: cmd.preset.no, name: cmd.preset.name };
    }
    if (cmd.kind === 'stop') {
      // Nothing of ours runs (it was ended before this command): stop whatever the camera does (`ctl_stop`).
      const last = this.lastMove.get(channel) ?? 'up';
      await this.send({ channel, cmd: MOVES[last].cmd, state: 'Stop', ctl_stop: true });
      return { channel, stopped: this.lastMove.get(channel) ?? null };
    }
    const { move, seconds, speed } = cmd;
    const spec = MOVES[move];
    this.lastMove.set(channel, move);
    let end = () => undefined as void;
    let cutNow = false;
    let finished!: () => void;
    const cut = () => {
      cutNow = true;
      end();
    };
    const running: Running = { move, cut, done: new Promise<void>((r) => (finished = r)) };
    this.running.set(channel, running);
    try {
      try {
        await this.send({ channel, cmd: spec.cmd, state: 'Start', speed });
      } catch (err) {
        // A Start that may have reached the camera (no answer) is ended like any other; a refused one moved nothing.
        if (!(err instanceof DeviceError) || err.kind === 'transport')
          await this.send({ channel, cmd: spec.cmd, state: 'Stop', speed }).catch(() => undefined);
        throw err;
      }
      if (!cutNow) await sleep(seconds * 1000, (e) => (end = e));
      await this.send({ channel, cmd: spec.cmd, state: 'Stop', speed });
      return { channel, move, duration: seconds, speed };
    } finally {
      if (this.running.get(channel) === running) this.running.delete(channel);
      finished();
    }
  }
}
