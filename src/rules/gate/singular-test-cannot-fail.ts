/** G10: a new singular test whose config() keeps it from failing the build. */
import type { Mapping } from "../../core/values.ts";
import { sortByText } from "../../core/text.ts";
import { cannotFailReason, DEAD_KEYS } from "../../project/dbt/data-tests.ts";
import { defineGateRule } from "../context/gate.ts";

/**
 * The settings of a singular test's `{{ config(...) }}` blocks, read as the
 * reference reads them: `key = value` pairs, quotes stripped, later ones win.
 * Values stay text, except `enabled`, which is a boolean: the reference reads
 * any explicit `enabled=` (`enabled=true` too) as disabled; `true` in any case
 * is enabled here.
 */
export function singularConfig(sql: string): Mapping {
  const config: Mapping = {};
  for (const block of sql.matchAll(/config\s*\(([\s\S]*?)\)\s*\}\}/g)) {
    for (const pair of (block[1] ?? "").matchAll(/(\w+)\s*=\s*([^,\s)]+)/g)) {
      config[pair[1] as string] = (pair[2] as string).replace(/^['"]+|['"]+$/g, "");
    }
  }
  if (Object.hasOwn(config, "enabled")) config.enabled = String(config.enabled).toLowerCase() === "true";
  return config;
}

export default defineGateRule({
  code: "G10",
  name: "singular-test-cannot-fail",
  severity: "BLOCK",
  docs: {
    summary:
      "A new singular test (tests/**.sql outside tests/generic/) whose config() disables it, sets a severity other than error, or sets error_if/warn_if/fail_calc/limit.",
    rationale:
      "A singular test born with severity warn looks like coverage and can never block. A where in its config is not flagged; a config carried by a macro is G9's. Unlike the reference, an explicit enabled=true counts as enabled.",
    enforces: "Control 5B: the gate blocks a test added that cannot fail.",
  },
  messages: { born: "{path} is a new singular test and cannot fail the build: {reason}" },
  async run(ctx, report) {
    for (const path of sortByText(ctx.after.singular.keys())) {
      if (ctx.before.files.has(path)) continue;
      if (!ctx.after.singular.has(path)) continue;
      const sql = await ctx.after.project.text(path);
      const reason = cannotFailReason(singularConfig(sql), DEAD_KEYS);
      const configAt = sql.search(/config\s*\(/);
      const line = configAt === -1 ? 1 : sql.slice(0, configAt).split("\n").length;
      if (reason !== "") report("born", { file: path, model: "", line }, { path, reason });
    }
  },
});
