import * as v from 'valibot';
import { definePage } from '../page';
import { optBool, optInt, optString } from './common';

/**
 * `PreviewChannel/PTZ` (vendor: PreviewChannel > PTZ > Get, Control): a PTZ camera's presets, lens and buttons, and
 * its controls. Get takes `{channel}`; Control `{channel, cmd, state?, speed?, preset_point_no?, ...}` answers `{}`.
 * A continuous move runs from `state:"Start"` until the same cmd with `state:"Stop"` (or `ctl_stop:true`); there is
 * no stop command and no duration (see ptz-control.ts for the timed move).
 */

/** A preset slot (table 4): `no` 1-255 (table: 1-256), `name` 1-31 characters, `add` whether a position is stored. */
export const PtzPresetSlot = v.looseObject({ no: v.optional(v.number()), name: optString, add: optBool });

/** Capability members ("used to display" buttons): their form is not shown by the vendor, so any value is kept. */
const Capability = v.optional(v.unknown());

export const PtzAnswer = v.looseObject({
  channel: optString,
  ptz_version: optString,
  preset_point: v.optional(v.array(v.number())),
  preset_point_obj: v.optional(v.array(PtzPresetSlot)),
  zoom_slider: v.optional(v.number()),
  focus_slider: v.optional(v.number()),
  zoom_step: v.optional(v.number()),
  focus_step: v.optional(v.number()),
  isctl: optBool,
  state: optString,
  ptz_direction_control: Capability,
  zoom_minus_add: Capability,
  focus_minus_add: Capability,
  iris_minus_add: Capability,
});
export type PtzAnswer = v.InferOutput<typeof PtzAnswer>;

/** Table 3 cmds the client sends: moves, zoom and presets (the device has many more; the generic call reaches them). */
export const PTZ_CONTROL_CMDS = [
  'Ptz_Cmd_Up',
  'Ptz_Cmd_Down',
  'Ptz_Cmd_Left',
  'Ptz_Cmd_Right',
  'Ptz_Cmd_UpLeft',
  'Ptz_Cmd_UpRight',
  'Ptz_Cmd_DownLeft',
  'Ptz_Cmd_DownRight',
  'Ptz_Cmd_ZoomAdd',
  'Ptz_Cmd_ZoomMinus',
  'Ptz_Cmd_CallPreset',
] as const;
export type PtzCmd = (typeof PTZ_CONTROL_CMDS)[number];

export const PtzGetRequest = v.looseObject({ channel: v.string() });
export const PtzControlRequest = v.looseObject({
  channel: v.string(),
  cmd: v.picklist(PTZ_CONTROL_CMDS),
  state: v.optional(v.picklist(['Start', 'Stop'])),
  /** 0-10 on a camera, 0-100 on a DVR/NVR (table 2). */
  speed: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100))),
  preset_point_no: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(255))),
  ctl_stop: optBool,
  zoom_step: optInt,
  focus_step: optInt,
});
export type PtzControlRequest = v.InferInput<typeof PtzControlRequest>;

/** Controlled through `client.ptz()` (ptz-control.ts: timed moves, presets, bounds), not `update()`. */
export const ptzPage = definePage({
  name: 'PreviewChannel/PTZ',
  title: 'PTZ control',
  operations: {
    Get: {
      request: PtzGetRequest,
      response: PtzAnswer,
      description: "A PTZ camera's presets (preset_point_obj), lens position and buttons.",
    },
    Control: {
      request: PtzControlRequest,
      description: 'Move, zoom or call a preset of a PTZ camera (a move runs from state Start until state Stop).',
    },
  },
  readOnly: true,
});
export const { Get: ptzGet, Control: ptzControl } = ptzPage.operations;
