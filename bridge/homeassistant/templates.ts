/** Home Assistant value templates shared by discovery and the parts that announce their own entities. */

/** Template yielding ON / OFF from a boolean state key, `None` (unknown in Home Assistant) when the key is absent. */
export const onOffTemplate = (key: string) =>
  `{% if value_json.${key} is not defined %}None{% elif value_json.${key} %}ON{% else %}OFF{% endif %}`;
