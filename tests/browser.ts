/** Headless Chromium for browser tests: the flags this machine's closed network needs. */

import { type Browser, chromium } from "playwright-core";

/** Launches Debian's Chromium headless, with background networking off (it would be refused). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    timeout: 60_000,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
