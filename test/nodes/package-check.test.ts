/**
 * What Node-RED's package checker (`node-red-dev validate`, the flow library's scorecard) reads of
 * the editor files: for each file of package.json's `node-red.nodes`, the `.html` beside it; in its
 * `text/javascript` scripts, every `RED.nodes.registerType` call with a literal type name and an
 * object literal whose category, colour, icon, ports and default names are written inline. A type
 * registered any other way (a name from a variable, a definition built by a function) is invisible
 * to it: "Unable to parse", and no examples are found for the type. Parsed here with TypeScript's
 * parser as the checker parses them with acorn; every type the runtime registers must be there.
 * Read from the built node files (dist/nodes/<name>/<name>.html, what the package ships and the checker reads):
 * the build writes each registration there from the types' definitions in the editor scripts (scripts/node-registration.js).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { NODE_TYPES } from './node-types';

const root = join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { 'node-red': { nodes: Record<string, string> } };
/** The checker's own way of finding the scripts (node-red-dev src/libs/checknodes.js). */
const SCRIPT = /<script.+?type=['"]text\/javascript['"].*?>([\S\s]*?)<\/script>/gi;
/** Members the checker wants inline (literal values), and the one it lists by name. */
const INLINE = ['category', 'color', 'icon', 'inputs', 'outputs'];

interface Found {
  type: string;
  problems: string[];
  defaults: string[];
  category?: string;
}

function registrations(html: string): { found: Found[]; unreadable: string[] } {
  const found: Found[] = [];
  const unreadable: string[] = [];
  for (const [, code] of html.matchAll(SCRIPT)) {
    const file = ts.createSourceFile('editor.js', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'registerType') {
        const [name, def] = n.arguments;
        if (!name || !ts.isStringLiteral(name)) unreadable.push(`a type name that is not a literal: ${name?.getText()}`);
        else if (!def || !ts.isObjectLiteralExpression(def)) unreadable.push(`${name.text}: a definition that is not an object literal`);
        else {
          const f: Found = { type: name.text, problems: [], defaults: [] };
          for (const p of def.properties) {
            if (!ts.isPropertyAssignment(p)) continue;
            const key = p.name.getText();
            const literal = ts.isStringLiteral(p.initializer) || ts.isNumericLiteral(p.initializer);
            if (INLINE.includes(key) && !literal) f.problems.push(`${key} not inline`);
            if (key === 'category' && ts.isStringLiteral(p.initializer)) f.category = p.initializer.text;
            if (key === 'defaults') {
              if (!ts.isObjectLiteralExpression(p.initializer)) f.problems.push('defaults not inline');
              else f.defaults = p.initializer.properties.map((d) => d.name?.getText() ?? '?');
            }
          }
          found.push(f);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(file);
  }
  return { found, unreadable };
}

const test = suite("nodes: Node-RED's package checker reads every node type");

test('each editor file registers its types with literal names and inline definitions', () => {
  const all: Found[] = [];
  for (const js of Object.values(pkg['node-red'].nodes)) {
    const html = readFileSync(join(root, js.replace(/\.js$/, '.html')), 'utf8');
    const { found, unreadable } = registrations(html);
    assert.equal(unreadable, [], js);
    assert.ok(found.length > 0, `${js}: no type the checker can read`);
    for (const f of found) assert.equal(f.problems, [], `${f.type} in ${js}`);
    all.push(...found);
  }
  // The types the runtime registers (package.json's node files, as the palette lists them).
  const types = all.map((f) => f.type).sort();
  assert.equal(types, NODE_TYPES);
  const request = all.filter((f) => ['nvr-range', 'nvr-get', 'nvr-set'].includes(f.type));
  for (const f of request) {
    assert.is(f.category, 'nvr2mqtt', f.type);
    assert.equal(
      f.defaults,
      ['name', 'device', 'page', 'pageType', 'channel', 'channelType', 'data', 'dataType', 'output', 'ignoreMsg'],
      f.type,
    );
  }
});

test('every node type but the config node is used by an example flow (the checker looks for one)', () => {
  const dir = join(root, 'examples');
  const used = new Set(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as Array<{ type: string }>).map((n) => n.type)),
  );
  for (const t of [
    'nvr-range',
    'nvr-get',
    'nvr-set',
    'nvr-control',
    'nvr-upgrade',
    'nvr-event',
    'nvr-snapshot',
    'nvr-speaker',
    'nvr-recordings',
  ])
    assert.ok(used.has(t), `no example uses ${t}`);
});

test.run();
