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
