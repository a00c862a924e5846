/**
 * The recorder's "Command error" (`<base>/<dev>/command_error`, not retained): every command that is refused,
 * fails at the device, or is not confirmed by its read-back, said where Home Assistant users look (an `event`
 * entity: the logbook shows it, an automation can notify). `bridge/event` keeps its own, more technical report.
 */
import type { Json } from '../device/state';

/** The entity's event types (a contract: automations match on them). */
export const COMMAND_ERROR_TYPES = ['refused', 'failed', 'not_confirmed'] as const;
export type CommandErrorType = (typeof COMMAND_ERROR_TYPES)[number];

/** Device-level key of the entity (unique id suffix, component id). */
export const COMMAND_ERROR_KEY = 'command_error';

/** One message on `<base>/<dev>/command_error`: which key of which channel (null: the device's), and why. */
export interface CommandError {
  event_type: CommandErrorType;
  key: string | null;
  channel: string | null;
  reason: string;
}

/** The recorder's `event` entity reading the topic (its payload carries `event_type`, the rest become attributes). */
export function commandErrorComponent(stateTopic: string, uniqueId: string): Json {
  return {
    p: 'event',
    name: 'Command error',
    unique_id: uniqueId,
    state_topic: stateTopic,
    event_types: [...COMMAND_ERROR_TYPES],
    entity_category: 'diagnostic',
    icon: 'mdi:alert-circle-outline',
  };
}
