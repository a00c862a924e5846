import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Package version, read at run time from package.json (dist/bridge/base/ -> ../../../package.json; ../../package.json from the sources). */
function readVersion(): string {
  for (const rel of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(join(__dirname, rel), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'nvr2mqtt' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
export const ORIGIN_URL = 'https://www.npmjs.com/package/nvr2mqtt';
