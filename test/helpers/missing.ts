/**
 * A real part a test needs (Chromium, openssl, Node 22 + Node-RED 5) that this machine lacks. Locally the
 * test is skipped, visibly: a "SKIPPED" line with the reason, and uvu counts it in its Skipped total. Under
 * CI=true a missing part fails the run instead: the test is registered and fails, saying what is missing.
 */
import { execFileSync } from 'node:child_process';
import type { Callback, Test } from 'uvu';
import { suite } from 'uvu';

const inCI = !!process.env.CI && !/^(false|0)$/i.test(process.env.CI);

/** Registers `title` when nothing is missing (`missing` undefined); otherwise skips it, or fails it under CI. */
export function testIf<T>(test: Test<T>, missing: string | undefined, title: string, fn: Callback<T>): void {
  if (!missing) {
    test(title, fn);
  } else if (inCI) {
    test(title, () => {
      throw new Error(`missing here: ${missing} (CI=true: a missing part fails the run)`);
    });
  } else {
    console.log(`SKIPPED ${title}: ${missing}`);
    test.skip(title, fn);
  }
}

/** A whole suite that cannot run: one skipped (or, under CI, failing) test named after it. */
export function missingSuite(name: string, missing: string): void {
  const test = suite(name);
  testIf(test, missing, name, () => {});
  test.run();
}

/** Why `tool` cannot run here (not on PATH, or failing `tool version`), or undefined when it can. */
export function missingTool(tool: string, versionArgs = ['version']): string | undefined {
  try {
    execFileSync(tool, versionArgs, { stdio: 'ignore' });
    return undefined;
  } catch (err) {
    return `${tool} not available (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
}
