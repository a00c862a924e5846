import type { ChannelHardware } from './channel-slots';

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

/**
 * The device names a part's members after the part: `floodlight_switch`, `floodlight_value`, `floodlight_value_range`
 * for Floodlight, `audioAlarm_...` for AudioAlarm, `redBlueLight_...` for RedBlueLight.
 */
const memberOf = (part: string, member: string) => `${part[0].toLowerCase()}${part.slice(1)}_${member}`;

type Switch = NonNullable<LiveControlSpec['switch']>;
type Published = NonNullable<LiveControlSpec['published']>;

/** A part's on/off switch (`<part>_switch`). */
function partSwitch<const P extends string, const S extends Switch, const B extends Published>(
  part: P,
  hardware: LiveHardware,
  sw: S,
  published: B,
) {
  return { field: memberOf(part, 'switch'), part, kind: 'bool', hardware, switch: sw, published } as const;
}

/** A part's setting (`<part>_value`): its bounds in `<part>_value_range`, these documented ones as fallback. */
function partValue<const P extends string, const X extends Pick<LiveControlSpec, 'adjustable' | 'published'>>(
  part: P,
  hardware: LiveHardware,
  bounds: { min: number; max: number },
  more: X,
) {
  return {
    field: memberOf(part, 'value'),
    part,
    kind: 'int',
    hardware,
    range: { field: memberOf(part, 'value_range'), ...bounds },
    ...more,
  } as const;
}

export const LIVE_CONTROLS = {
  floodlight: partSwitch(
    'Floodlight',
    'floodlight',
    { label: 'floodlight', setting: 'brightness', timed: true },
    { key: 'floodlight', entity: 'light', name: 'Floodlight', icon: 'mdi:light-flood-down' },
  ),
  brightness: partValue(
    'Floodlight',
    'floodlight',
    { min: 1, max: 100 },
    { published: { key: 'floodlight_brightness', name: 'Floodlight brightness' } },
  ),
  /** 0 steady, 1 flashing. */
  mode: { field: 'floodlight_mode', part: 'Floodlight', kind: 'int', hardware: 'floodlight', values: [0, 1] },
  /** 0 low, 1 middle, 2 high. */
  strobe: { field: 'floodlight_strobe_frequency', part: 'Floodlight', kind: 'int', hardware: 'floodlight', values: [0, 1, 2] },
  siren: partSwitch(
    'AudioAlarm',
    'siren',
    { label: 'siren', setting: 'volume', timed: true },
    { key: 'siren', entity: 'siren', name: 'Siren', icon: 'mdi:alarm-light' },
  ),
  volume: partValue('AudioAlarm', 'siren', { min: 1, max: 10 }, { adjustable: 'audioAlarm_value_adjustable' }),
  redBlueLight: partSwitch(
    'RedBlueLight',
    'redBlueLight',
    { label: 'red/blue light', timed: true },
    { key: 'red_blue_light', entity: 'switch', name: 'Red/blue light', icon: 'mdi:car-light-alert' },
  ),
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
