/**
 * Every test's time limit, set before any test file loads (bunfig.toml's
 * `[test] preload`): Bun reads no `timeout` key from bunfig.toml, so without
 * this each test had Bun's 5 s default, which a loaded 2-core machine (two
 * suites at once) exceeds on tests that start a process or a server. A test
 * that hangs still fails, after a minute.
 */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);
