/**
 * Headless Chromium for the tests that look at the HTML people read: the
 * system's Chromium where Debian's package put one, else the build the
 * `@sparticuz/chromium` package ships on npm, so the README's test command
 * needs nothing beyond Node.js and npm.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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
  // Loaded only here: it unpacks its browser on first use. Its --single-process (made for
  // AWS Lambda) takes the whole browser down when one page context closes.
  const { default: packaged } = await import("@sparticuz/chromium");
  return chromium.launch({
    executablePath: await unpackedOnce(() => packaged.executablePath()),
    args: [...packaged.args.filter((flag) => flag !== "--single-process"), ...QUIET],
  });
}

/**
 * The packaged browser, unpacked once per machine into a folder of its own.
 * The package writes into the temporary folder in place and takes any file
 * named chromium there as done, so two suites at once (or one killed midway)
 * left a half-written binary every later run executed (ETXTBSY, SIGSEGV).
 * Here one process at a time unpacks (a lock folder: mkdir is atomic; one older
 * than two minutes was left by a killed run), into a fresh folder the package
 * sees as its temporary folder, renamed into place only when complete.
 */
async function unpackedOnce(unpack: () => Promise<string>): Promise<string> {
  const manifest = join(dirname(require.resolve("@sparticuz/chromium")), "..", "package.json");
  const home = join(tmpdir(), `slp-chromium-${JSON.parse(readFileSync(manifest, "utf8")).version}`);
  const binary = join(home, "chromium");
  if (existsSync(binary)) return binary;
  const lock = `${home}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) rmSync(lock, { recursive: true, force: true });
      else await Bun.sleep(200);
    }
  }
  const staging = mkdtempSync(`${home}.unpacking-`);
  const temporaryFolder = process.env.TMPDIR;
  try {
    if (existsSync(binary)) return binary;
    process.env.TMPDIR = staging;
    const unpacked = await unpack();
    if (unpacked !== join(staging, "chromium")) throw new Error(`the packaged Chromium unpacked to ${unpacked}, not ${staging}`);
    renameSync(staging, home);
    return binary;
  } finally {
    if (temporaryFolder === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = temporaryFolder;
    rmSync(staging, { recursive: true, force: true });
    rmSync(lock, { recursive: true, force: true });
  }
}
