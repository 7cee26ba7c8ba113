/**
 * Headless Chromium for the tests that look at the HTML people read: the
 * system's Chromium where Debian's package put one, else the build the
 * `@sparticuz/chromium` package ships on npm, so the README's test command
 * needs nothing beyond Node.js and npm.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/** The flags a closed network needs: nothing Chromium would fetch on its own (updates, sync, QUIC). */
const QUIET = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchChromium(): Promise<Browser> {
  if (existsSync(SYSTEM_CHROMIUM)) return chromium.launch({ executablePath: SYSTEM_CHROMIUM, args: QUIET });
  // Loaded only here: it unpacks its browser into the temporary folder on first use. Its
  // --single-process (made for AWS Lambda) takes the whole browser down when one page context closes.
  const { default: packaged } = await import("@sparticuz/chromium");
  return chromium.launch({
    executablePath: await packaged.executablePath(),
    args: [...packaged.args.filter((flag) => flag !== "--single-process"), ...QUIET],
  });
}
