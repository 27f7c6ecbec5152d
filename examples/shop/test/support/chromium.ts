/**
 * Debian's Chromium for browser tests, driven by playwright-core (which downloads no browser of
 * its own). Under CI=true a missing Chromium fails the file (.ci/run installs it); elsewhere the
 * file is skipped with one loud line saying what to install.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const line = `${CHROMIUM_PATH} is missing: install it with \`apt-get install -y chromium\``;
  if (process.env.CI === 'true') throw new Error(`CI=true and the browser tests need Chromium: ${line}`);
  console.warn(`!!! SKIPPING browser tests: ${line}`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
