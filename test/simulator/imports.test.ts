/**
 * The simulator's module graph: it never imports core/ (it judges requests with its own checks, so one bug cannot
 * hide on both sides), and its dependencies point one way (no two modules import each other, directly or round
 * about). Read from the sources, so a new module is covered as soon as it exists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('simulator imports');
const DIR = path.join(__dirname, '..', '..', '..', 'simulator');

const modules = readdirSync(DIR).filter((f) => f.endsWith('.ts'));
const importsOf = (file: string): string[] =>
  [...readFileSync(path.join(DIR, file), 'utf8').matchAll(/^(?:import|export)[^;]*?from '([^']+)'/gms)].map((m) => m[1]);

test('the simulator never imports core, the bridge or the nodes', () => {
  const outside = modules.flatMap((f) =>
    importsOf(f)
      .filter((i) => /^\.\.\/(core|bridge|nodes)\b/.test(i))
      .map((i) => `${f}: ${i}`),
  );
  assert.equal(outside, []);
});

test('no import circles inside simulator/', () => {
  const graph = new Map(
    modules.map((f) => [
      f,
      importsOf(f)
        .filter((i) => i.startsWith('./'))
        .map((i) => `${i.slice(2)}.ts`)
        .filter((i) => modules.includes(i)),
    ]),
  );
  const circles = new Set<string>();
  const done = new Set<string>();
  const visit = (file: string, trail: string[]): void => {
    const at = trail.indexOf(file);
    if (at !== -1) {
      circles.add([...trail.slice(at), file].join(' -> '));
      return;
    }
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    done.add(file);
  };
  for (const f of modules) visit(f, []);
  assert.ok(modules.length > 10, `${modules.length} modules read`);
  assert.equal([...circles], []);
});

test.run();
