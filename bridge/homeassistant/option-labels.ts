/**
 * How a select shows a device's options in Home Assistant: words people say ("Auto", "Black and white", "Warning
 * light", "Alarm 1") instead of the vendor's values (`AutoMode`, `BlackWhiteMode`, `Warninglight`, `Alarm1`). Home
 * Assistant's MQTT select offers its `options` as they are shown; so the options are the labels, its value template
 * turns the device's value into its label and its command template a label back into the device's value: the state
 * topic and the command topic keep the device's values (the MQTT API and Node-RED are unchanged).
 */

/** Labels that splitting the vendor's word does not give. */
const SAID: Readonly<Record<string, string>> = {
  AutoMode: 'Auto',
  ColorMode: 'Colour',
  BlackWhiteMode: 'Black and white',
  TimeSchedule: 'Schedule',
  Warninglight: 'Warning light',
  FullColorMode: 'Full colour',
  DayNightMode: 'Day/night',
  OFF: 'Off',
  ON: 'On',
};

/** A vendor value as a label: `SAID`, else its words split ("ImageMode" -> "Image", "User-defined1" -> "User-defined 1"). */
export function optionLabel(value: string): string {
  if (Object.hasOwn(SAID, value)) return SAID[value];
  const words = value
    .replace(/(.)Mode$/, '$1')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .split(' ');
  // Sentence case; a word in capitals (an abbreviation) stays as it is.
  return words.map((w, i) => (i === 0 || /^[A-Z0-9]{2,}$/.test(w) ? w : w.toLowerCase())).join(' ');
}

/** Jinja's text for a JS string (JSON's quoting is Jinja's too). */
const text = (s: string) => JSON.stringify(s);

/**
 * The options as shown, with the templates that map them, for a select of `key` whose device values are `values`;
 * undefined where the labels are the values already, or two values would show alike (then the values are shown).
 */
export function labelledOptions(
  key: string,
  values: readonly string[],
): { options: string[]; value_template: string; command_template: string } | undefined {
  const labels = values.map(optionLabel);
  if (labels.every((l, i) => l === values[i]) || new Set(labels).size !== labels.length) return undefined;
  const pairs = (from: readonly string[], to: readonly string[]) => from.map((f, i) => `${text(f)}: ${text(to[i])}`).join(', ');
  const v = `value_json.${key}`;
  return {
    options: labels,
    value_template: `{% set m = {${pairs(values, labels)}} %}{{ m.get(${v}, ${v}) if ${v} is defined else 'None' }}`,
    command_template: `{% set m = {${pairs(labels, values)}} %}{{ m.get(value, value) }}`,
  };
}
