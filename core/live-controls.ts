import type { ChannelHardware } from './channel-model';

/**
 * THE table of live controls (`PreviewChannel/Floodlight2AudioAlarm`): one row per user-facing control, the only
 * place that knows the device's field names, `operation_type`, bounds, the channel hardware that offers a control,
 * and how MQTT and Home Assistant show it. The page's schema (pages/live.ts), `liveState` and the Set check
 * (live.ts), the bridge's live rows and commands, and the nvr-control modes (and so its editor) are derived from it:
 * a new live control is a row here (and, where it is new, its part in the simulator).
 */
export interface LiveControlSpec {
  /** Device field it reads and writes; absent from the Get answer = the channel lacks it (R2). */
  field: string;
  /** `operation_type` of a Set that changes it. */
  part: string;
  kind: 'bool' | 'int';
  /** The channel hardware (`ChannelInfo`) that offers it: where the live page is unknown, it exists when this does. */
  hardware: LiveHardware;
  /** Allowed values, or the Get member holding `{min, max}` (its `_range`) with documented bounds as fallback. */
  values?: readonly number[];
  range?: { field: string; min: number; max: number };
  /** The Get member that says whether the value may be changed at all (its `_adjustable`). */
  adjustable?: string;
  /**
   * A switch: what it is called in messages, the setting it may be switched on with, and that it can be switched
   * off again after a duration (by the bridge or nvr-control: the device's live page has no duration of its own).
   */
  switch?: { label: string; setting?: string; timed: true };
  /**
   * Published by the bridge: the channel state key, the Home Assistant entity (`light`: ON/OFF and the JSON light
   * schema with its setting as brightness; `siren`: Home Assistant's siren JSON with `volume_level` and `duration`;
   * `switch`: ON/OFF; none: a value shown by another entity), its name and icon.
   */
  published?: { key: string; entity?: 'light' | 'siren' | 'switch'; name: string; icon?: string };
}

/** Channel hardware a live control can belong to (the parts `ChannelInfo` reports as present or absent). */
export type LiveHardware = { [K in keyof ChannelHardware]: ChannelHardware[K] extends boolean ? K : never }[keyof ChannelHardware];

export const LIVE_CONTROLS = {
  floodlight: {
    field: 'floodlight_switch',
    part: 'Floodlight',
    kind: 'bool',
    hardware: 'floodlight',
    switch: { label: 'floodlight', setting: 'brightness', timed: true },
    published: { key: 'floodlight', entity: 'light', name: 'Floodlight', icon: 'mdi:light-flood-down' },
  },
  brightness: {
    field: 'floodlight_value',
    part: 'Floodlight',
    kind: 'int',
    hardware: 'floodlight',
    range: { field: 'floodlight_value_range', min: 1, max: 100 },
    published: { key: 'floodlight_brightness', name: 'Floodlight brightness' },
  },
  /** 0 steady, 1 flashing. */
  mode: { field: 'floodlight_mode', part: 'Floodlight', kind: 'int', hardware: 'floodlight', values: [0, 1] },
  /** 0 low, 1 middle, 2 high. */
  strobe: { field: 'floodlight_strobe_frequency', part: 'Floodlight', kind: 'int', hardware: 'floodlight', values: [0, 1, 2] },
  siren: {
    field: 'audioAlarm_switch',
    part: 'AudioAlarm',
    kind: 'bool',
    hardware: 'siren',
    switch: { label: 'siren', setting: 'volume', timed: true },
    published: { key: 'siren', entity: 'siren', name: 'Siren', icon: 'mdi:alarm-light' },
  },
  volume: {
    field: 'audioAlarm_value',
    part: 'AudioAlarm',
    kind: 'int',
    hardware: 'siren',
    range: { field: 'audioAlarm_value_range', min: 1, max: 10 },
    adjustable: 'audioAlarm_value_adjustable',
  },
  redBlueLight: {
    field: 'redBlueLight_switch',
    part: 'RedBlueLight',
    kind: 'bool',
    hardware: 'redBlueLight',
    switch: { label: 'red/blue light', timed: true },
    published: { key: 'red_blue_light', entity: 'switch', name: 'Red/blue light', icon: 'mdi:car-light-alert' },
  },
} as const satisfies Readonly<Record<string, LiveControlSpec>>;

type Table = typeof LIVE_CONTROLS;
export type LiveControlName = keyof Table;
type Bounds = { min: number; max: number };
type ValueOf<C> = C extends { kind: 'bool' } ? boolean : C extends { values: readonly (infer V)[] } ? V : number;
type KeysWhere<Has> = { [K in keyof Table]: Table[K] extends Has ? K : never }[keyof Table];

/** A change of live controls: any subset, each its own type. */
export type LiveChange = { -readonly [K in keyof Table]?: ValueOf<Table[K]> };

/** A channel's live state: each control the page reports, with the bounds (`<control>Range`) and `_adjustable` flags. */
export type LiveState = { channel: string } & LiveChange & { [K in KeysWhere<{ range: object }> as `${K}Range`]?: Bounds } & {
    [K in KeysWhere<{ adjustable: string }> as `${K}Adjustable`]?: boolean;
  };

/** The controls that switch a part on and off (floodlight, siren, red/blue light). */
export type LiveSwitch = KeysWhere<{ switch: object }>;
/** Live values that are settings of a switch (sent with it when switching on). */
export type LiveSetting = Table[LiveSwitch] extends infer C ? (C extends { switch: { setting: infer S } } ? S : never) : never;
/** `operation_type` of a Set: the one part it touches, or `All`. */
export type OperationType = Table[keyof Table]['part'] | 'All';

/** The table as rows of one type (for code that walks it). */
export const CONTROLS: Readonly<Record<LiveControlName, LiveControlSpec>> = LIVE_CONTROLS;
