import { onPath, ToolchainMissingError } from './temporal-binaries';

/** Debian's chromium (package chromium), or CHROMIUM_PATH: playwright-core downloads no browser. */
export function chromiumExecutable(): string {
  const path = process.env.CHROMIUM_PATH ?? onPath('chromium') ?? onPath('chromium-browser');
  if (!path) {
    throw new ToolchainMissingError(
      'chromium not found: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH',
    );
  }
  return path;
}

/**
 * Headless and offline: no first-run, sync, component updates or other calls home; no GPU; no
 * sandbox (CI runs as root, where Chromium's sandbox refuses to start).
 */
export const offlineChromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--metrics-recording-only',
];
