import { type Browser, chromium } from 'playwright-core';
import { findOnPath } from '../../src/external-programs.js';

/** Debian's chromium for the page tests (never a downloaded browser), or undefined: those tests skip, naming it. */
export const CHROMIUM = process.env.CHROMIUM_PATH || findOnPath('chromium') || findOnPath('chromium-browser');

/**
 * The bound of Chromium's launch. Playwright's own is 30 s; on these machines a binary not run
 * for a minute is out of the page cache, and its launch then reads most of 283 MB at ~15 MB/s:
 * 19 s alone, longer beside another test's reads (BENCHMARKS.md, "The suite on a cold disk").
 */
export const BROWSER_LAUNCH_MS = 100_000;

/** Headless Chromium as root in a sandbox-less container (Playwright's own headless flags). */
export function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no chromium on PATH (Debian package chromium), nor CHROMIUM_PATH');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], timeout: BROWSER_LAUNCH_MS });
}
