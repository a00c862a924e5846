/**
 * The production module graph: dependencies point one way. The simulator never imports core/, the bridge or the
 * nodes (it judges requests with its own checks, so one bug cannot hide on both sides); core imports neither the
 * bridge nor the nodes; and inside each production folder no two modules import each other, directly or round
 * about. Read from the sources, walking each folder with its subfolders, so a new module is covered as soon as it
 * exists. `import type` statements are left out: they vanish from the built code and cannot form a circle there.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('production imports');
const ROOT = path.join(__dirname, '..', '..', '..');
const FOLDERS = ['core', 'bridge', 'nodes', 'simulator'] as const;

/** Every TypeScript module below a folder, as a path relative to the repository. */
const modulesOf = (folder: string): string[] =>
  readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.posix.join(folder, f.split(path.sep).join('/')));

/** The relative imports of a module that stay at run time, resolved to module paths (`x` -> `x.ts` or `x/index.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/^(import|export)(?! type )[^;]*?from '(\.[^']*)'/gms)].map((m) => {
    const target = path.posix.join(path.posix.dirname(file), m[2]);
    return existsSync(path.join(ROOT, `${target}.ts`)) ? `${target}.ts` : `${target}/index.ts`;
  });
}

const modules = FOLDERS.flatMap(modulesOf);
const graph = new Map(modules.map((f) => [f, importsOf(f)]));
const folderOf = (file: string) => file.split('/')[0];

test('the simulator imports nothing of core, the bridge or the nodes; core nothing of the bridge or the nodes', () => {
  const forbidden: Record<string, readonly string[]> = { simulator: ['core', 'bridge', 'nodes'], core: ['bridge', 'nodes'] };
  const wrong = modules.flatMap((f) =>
    (graph.get(f) ?? []).filter((i) => forbidden[folderOf(f)]?.includes(folderOf(i))).map((i) => `${f}: ${i}`),
  );
  assert.equal(wrong, []);
});

for (const folder of FOLDERS) {
  test(`no import circles inside ${folder}/`, () => {
    const inside = modules.filter((f) => folderOf(f) === folder);
    const circles = new Set<string>();
    const done = new Set<string>();
    const visit = (file: string, trail: string[]): void => {
      const at = trail.indexOf(file);
      if (at !== -1) {
        circles.add([...trail.slice(at), file].join(' -> '));
        return;
      }
      if (done.has(file)) return;
      for (const next of graph.get(file) ?? []) if (folderOf(next) === folder) visit(next, [...trail, file]);
      done.add(file);
    };
    for (const f of inside) visit(f, []);
    assert.ok(inside.length > 10, `${inside.length} modules read`);
    assert.equal([...circles], []);
  });
}

test.run();
