/** The real command line, as a subprocess and in-process: tasks, help, version, envelope, determinism. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Envelope } from "../src/schemas/envelope.ts";
import { isValid } from "../src/schemas/validate.ts";
import { VERSION } from "../src/version.ts";
import { runCli, runMain } from "./support/cli.ts";

const ROOT = join(import.meta.dir, "..");
const QUICKSTART = join(ROOT, "examples", "quickstart");

describe("slp (subprocess)", () => {
  test("check passes the quickstart, with its summary note", () => {
    const result = runCli(["check", "--project-dir", "examples/quickstart"], ROOT);
    expect(result.stderr).toBe("");
    expect(result.stdout.split("\n").filter(Boolean).at(-1)).toBe(
      "slp check: 5 infos - OK (2 models in models/marts/, of 4 models read)",
    );
    expect(result.exitCode).toBe(0);
  });

  test("--version prints the bare version", () => {
    const result = runCli(["--version"], ROOT);
    expect(result.stdout).toBe(`${VERSION}\n`);
    expect(result.exitCode).toBe(0);
  });

  test("no task prints the usage on stderr and exits 2", () => {
    const result = runCli([], ROOT);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith("usage: slp");
    expect(result.exitCode).toBe(2);
  });

  test("rules lists every rule, explain prints one, tasks lists the tasks", () => {
    const rules = runCli(["rules"], ROOT);
    expect(rules.stdout).toMatch(/^T1 +pk-uniqueness-test +check +BLOCK/m);
    expect(rules.stdout.trim().split("\n")).toHaveLength(38);
    expect(rules.exitCode).toBe(0);
    const explain = runCli(["explain", "T1"], ROOT);
    expect(explain.stdout).toStartWith("T1 pk-uniqueness-test (check, BLOCK)");
    expect(explain.stdout).toContain("Enforces: Rule 2");
    const tasks = runCli(["tasks"], ROOT);
    expect(tasks.stdout).toMatch(/^check\s+Check specs/m);
    expect(tasks.stdout).not.toMatch(/^gen\s/m);
  });
});

describe("slp (in-process)", () => {
  test("`slp run check` is `slp check`", async () => {
    const direct = await runMain(["check"], QUICKSTART);
    const viaRun = await runMain(["run", "check"], QUICKSTART);
    expect(viaRun).toEqual(direct);
  });

  test("the same input gives the same bytes, cache cold or warm", async () => {
    const first = await runMain(["check"], QUICKSTART, { SLP_NO_CACHE: "1" });
    const second = await runMain(["check"], QUICKSTART);
    const third = await runMain(["check"], QUICKSTART);
    expect(second.stdout).toBe(first.stdout);
    expect(third.stdout).toBe(first.stdout);
  });

  test("--format json prints exactly one envelope that fits its schema", async () => {
    const result = await runMain(["check", "--format", "json"], QUICKSTART);
    const envelope = JSON.parse(result.stdout);
    expect(isValid(Envelope, envelope)).toBe(true);
    expect(envelope.command).toBe("check");
    expect(envelope.status).toBe("ok");
    expect(envelope.exit_code).toBe(0);
    expect(envelope.findings).toHaveLength(5);
    expect(envelope.errors).toEqual([]);
  });

  test("--format json on an error is still one envelope, status error, exit 2", async () => {
    const result = await runMain(["check", "--marts-path", "models/nowhere", "--format=json"], QUICKSTART);
    const envelope = JSON.parse(result.stdout);
    expect(isValid(Envelope, envelope)).toBe(true);
    expect(envelope.status).toBe("error");
    expect(envelope.errors[0].code).toBe("E_INPUT");
    expect(envelope.errors[0].message).toContain("models/nowhere/ not found");
    expect(result.exitCode).toBe(2);
  });

  test("flags parse like argparse: prefixes, --flag=value, options after positionals", async () => {
    const byPrefix = await runMain(["check", "--proj", QUICKSTART, "--marts=models/marts"], ROOT);
    expect(byPrefix.exitCode).toBe(0);
    const unknown = await runMain(["check", "--nope"], QUICKSTART);
    expect(unknown.stderr).toContain("slp check: error: unrecognized arguments: --nope");
    expect(unknown.exitCode).toBe(2);
    const unknownTask = await runMain(["frobnicate"], QUICKSTART);
    expect(unknownTask.stderr).toContain("invalid choice: 'frobnicate'");
    expect(unknownTask.exitCode).toBe(2);
  });

  test("--help prints the task's flags and exits 0", async () => {
    const result = await runMain(["check", "--help"], QUICKSTART);
    expect(result.stdout).toContain("--project-dir DIR");
    expect(result.stdout).toContain("--marts-path PATH");
    expect(result.exitCode).toBe(0);
  });
});
