'use strict';
/**
 * The registration of a node file's types, written into the built node file (dist/nodes/<name>/<name>.html).
 * Each node's editor script (nodes/<name>/editor.ts) owns its types' definitions: `NVR2MQTT.<short>.definitions()`,
 * <short> being <name> without `nvr-`. Node-RED's package checker (node-red-dev validate, the flow library's
 * scorecard) reads a node file's types only from `RED.nodes.registerType('<literal>', {...})` calls in its inline
 * scripts, with category, colour, icon, ports and the names of the defaults and credentials written inline: so the
 * build evaluates the definitions (the compiled scripts, in node:vm with a stand-in for jQuery) and writes that call,
 * its literals taken from them and every other member (validators, label, dialog callbacks) read from the same
 * definitions when the editor runs the file.
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

/** jQuery, as the editor scripts call it while they load and define: every call answers another stand-in. */
function jqueryStandIn() {
  const chain = new Proxy(function () {}, {
    get: (_t, key) => (key === Symbol.toPrimitive ? () => '' : chain),
    apply: () => chain,
  });
  return chain;
}

/** The scripts a node file loads (`<script src="resources/<package>/<file>">`), as files under resources/. */
function editorScripts(html, resourcesDir) {
  return [...html.matchAll(/<script src="resources\/[^/]+\/([^"]+)"><\/script>/g)].map((m) => path.join(resourcesDir, m[1]));
}

/** `name`'s definitions, as `NVR2MQTT.<short>.definitions()` gives them once the node file's scripts ran. */
function definitionsOf(name, html, resourcesDir) {
  const context = vm.createContext({ $: jqueryStandIn() });
  context.window = context;
  for (const file of editorScripts(html, resourcesDir)) vm.runInContext(fs.readFileSync(file, 'utf8'), context, { filename: file });
  const short = name.replace(/^nvr-/, '');
  const owner = context.NVR2MQTT?.[short];
  if (typeof owner?.definitions !== 'function') throw new Error(`${name}: no NVR2MQTT.${short}.definitions() in its editor scripts`);
  return { expression: `NVR2MQTT.${short}.definitions()`, definitions: owner.definitions() };
}

const LITERAL = new Set(['string', 'number', 'boolean']);
/** Members whose keys the checker lists (each value read from the definition). */
const LISTED = ['defaults', 'credentials'];

function member(key, value, from, indent) {
  if (LITERAL.has(typeof value)) return `${indent}${key}: ${JSON.stringify(value)}`;
  if (LISTED.includes(key)) {
    const inner = Object.keys(value).map((k) => `${indent}    ${k}: ${from}.${key}.${k}`);
    return `${indent}${key}: {\n${inner.join(',\n')}\n${indent}}`;
  }
  return `${indent}${key}: ${from}.${key}`;
}

/** The inline script registering `name`'s types, for the end of the built node file. */
function registrationScript(name, html, resourcesDir) {
  const { expression, definitions } = definitionsOf(name, html, resourcesDir);
  const calls = Object.entries(definitions).map(([type, def]) => {
    const from = `types['${type}']`;
    const members = Object.entries(def).map(([k, v]) => member(k, v, from, '        '));
    return `    RED.nodes.registerType('${type}', {\n${members.join(',\n')}\n    });`;
  });
  const script = [
    '<script type="text/javascript">',
    `// Written by the build (scripts/node-registration.js) from ${expression}, in the literal form Node-RED's package checker reads.`,
    '(function () {',
    "    'use strict';",
    `    var types = ${expression};`,
    ...calls,
    '})();',
    '</script>',
    '',
  ].join('\n');
  const icons = Object.values(definitions).map((d) => d.icon);
  const config = Object.values(definitions).some((d) => d.category === 'config');
  return { script, icons, config };
}

module.exports = { registrationScript };
