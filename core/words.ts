/**
 * The words that switch something on or off, the same for MQTT commands and Node-RED messages (case-insensitive,
 * surrounding spaces ignored; docs/mqtt.md "Live commands and ON/OFF words"). `TOGGLE` flips the current state where the bridge knows it.
 */
const ON_WORDS = ['ON', 'TRUE', '1'] as const;
const OFF_WORDS = ['OFF', 'FALSE', '0'] as const;
const TOGGLE_WORD = 'TOGGLE';

/** true / false for an ON/OFF word, 'toggle' for TOGGLE, undefined for anything else. */
function switchWord(text: string): boolean | 'toggle' | undefined {
  const w = text.trim().toUpperCase();
  if ((ON_WORDS as readonly string[]).includes(w)) return true;
  if ((OFF_WORDS as readonly string[]).includes(w)) return false;
  return w === TOGGLE_WORD ? 'toggle' : undefined;
}

/** A switch value as sent: a boolean, or a word (TOGGLE flips `current` when it is known); undefined otherwise. */
export function switchValue(raw: unknown, current?: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw !== 'string') return undefined;
  const w = switchWord(raw);
  return w === 'toggle' ? (typeof current === 'boolean' ? !current : undefined) : w;
}
