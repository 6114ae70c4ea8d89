import { spawnSync } from 'node:child_process';
import {
  fromEnv,
  installDebianPackages,
  mayInstallDebianPackages,
  onPath,
  progressOf,
  ToolchainMissingError,
  type Progress,
  type ResolvedTool,
} from './toolchain';

/** Whether a Chromium binary starts here (its shared libraries are all present). */
const starts = (path: string): boolean =>
  spawnSync(path, ['--version'], { stdio: 'ignore', timeout: 30_000 }).status === 0;

/**
 * The headless Chromium of the npm package @sparticuz/chromium (a devDependency, Linux x86-64):
 * brotli-packed in the package, unpacked once into the temp directory by the package itself.
 */
async function npmChromium(): Promise<string | undefined> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  try {
    const { default: chromium } = await import('@sparticuz/chromium');
    const path = await chromium.executablePath();
    return starts(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Chromium for the Web UI test: CHROMIUM_PATH, else the npm package's headless build, else one
 * on PATH (Debian's `chromium`), else Debian's package installed now when this process may.
 * playwright-core downloads no browser of its own (it cannot, offline).
 */
export async function ensureChromium(
  progress: Progress = progressOf('chromium'),
): Promise<ResolvedTool> {
  const explicit = fromEnv('CHROMIUM_PATH');
  if (explicit) return explicit;
  const npm = await npmChromium();
  if (npm) return { path: npm, source: 'npm (@sparticuz/chromium)' };
  const installed = onPath('chromium') ?? onPath('chromium-browser');
  if (installed) return { path: installed, source: 'PATH' };
  if (mayInstallDebianPackages()) {
    await installDebianPackages(['chromium'], 'the Web UI test drives a real browser', progress);
    const debian = onPath('chromium');
    if (debian) return { path: debian, source: 'Debian (installed now)' };
  }
  throw new ToolchainMissingError(
    'no Chromium that starts here: run npm install (@sparticuz/chromium carries a headless build ' +
      'for Linux x86-64), install one (Debian: apt-get install chromium), or set CHROMIUM_PATH',
  );
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
