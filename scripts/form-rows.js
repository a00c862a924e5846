'use strict';
/**
 * The dialogs' labelled rows, written in a node file's template as
 *   <nvr-row prop="mode" icon="toggle-on" class="extra-class"><select id="node-input-mode"></select></nvr-row>
 * and expanded by the build into the row Node-RED's dialogs use: a `form-row` div, a label for the property's
 * input with its Font Awesome icon and its catalogue text (`<node>.label.<prop>`), then the content, by default a
 * text input for the property. The expanded rows are in the shipped node file, so they are in the dialog when
 * Node-RED fills each `node-input-<prop>` (before oneditprepare). A config node's inputs are `node-config-input-<prop>`.
 */
const ROW = /^( *)<nvr-row prop="([\w-]+)" icon="([\w-]+)"(?: class="([\w -]+)")?>([\s\S]*?)<\/nvr-row>$/gm;

function expandRows(html, node, config) {
  const prefix = config ? 'node-config-input-' : 'node-input-';
  const out = html.replace(ROW, (_m, indent, prop, icon, extra, content) => {
    const lines = content
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const inner = lines.length ? lines : [`<input type="text" id="${prefix}${prop}">`];
    return [
      `${indent}<div class="form-row${extra ? ' ' + extra : ''}">`,
      `${indent}    <label for="${prefix}${prop}"><i class="fa fa-${icon}"></i> <span data-i18n="${node}.label.${prop}"></span></label>`,
      ...inner.map((l) => `${indent}    ${l}`),
      `${indent}</div>`,
    ].join('\n');
  });
  // A row written otherwise (another attribute, on several lines) would ship unexpanded: the dialog would lack it.
  if (out.includes('<nvr-row')) throw new Error(`${node}.html: an <nvr-row> not in the form <nvr-row prop icon [class]>…</nvr-row>`);
  return out;
}

module.exports = { expandRows };
