// Headless Chromium for the browser tests: Debian's package (/usr/bin/chromium; .ci/run
// installs it), driven by playwright-core, which downloads no browser of its own. A suite
// that cannot start it fails with the reason: it never skips.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.KUBE_PROVISIONER_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium; .ci/run does) or set KUBE_PROVISIONER_CHROMIUM`,
    );
  }
  try {
    return await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, timeout: 60_000 });
  } catch (error) {
    throw new Error(`Chromium at ${CHROMIUM_PATH} did not start: ${(error as Error).message}`, { cause: error });
  }
}
