import type { Json } from './state';

/** A command was refused: nothing was sent to the device. */
export class Refusal extends Error {
  constructor(
    readonly reason: string,
    readonly details: Json = {},
  ) {
    super(reason);
    this.name = 'Refusal';
  }
}

/** A key as Home Assistant shows it, with the MQTT key: "Floodlight brightness (floodlight_brightness)". */
export function shownKey(row: { key: string; name?: string }): string {
  return row.name && row.name !== row.key ? `${row.name} (${row.key})` : row.key;
}

/** A key the device does not offer (R2: absent from its Range or live page). */
export function notOffered(row: { key: string; name?: string }, device: string, channel?: string): Refusal {
  return new Refusal(`${shownKey(row)}: ${device}${channel ? ` ${channel}` : ''} does not offer this setting`, { key: row.key });
}
