// Headless Chromium (Debian's package) driven by playwright-core: no browser download, the
// executable comes from `apt-get install chromium`.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

/** Why a browser test cannot run here, or undefined when it can (helpers/missing: skipped, or failed under CI=true). */
export function browserSkipReason(): string | undefined {
  return existsSync(chromiumPath) ? undefined : `${chromiumPath} not found (apt-get install -y chromium)`;
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    // Stay off the network entirely: no QUIC, no background/component/sync traffic.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
    timeout: 30_000,
  });
}
