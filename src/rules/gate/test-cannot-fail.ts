/** G3: a test's severity lowered to warn, a new threshold key, or a test born unable to fail. */
import { looseEqual, pythonStr, type Mapping } from "../../core/values.ts";
import { cannotFailReason, DEAD_KEYS, FAILING_KEYS, isJinja, jinjaReason } from "../../project/dbt/data-tests.ts";
import { configValue, defineGateRule, testOn, whichSuffix } from "../context/gate.ts";

function severity(config: Mapping): string {
  return pythonStr(Object.hasOwn(config, "severity") ? config.severity : "error").toLowerCase();
}

export default defineGateRule({
  code: "G3",
  name: "test-cannot-fail",
  severity: "BLOCK",
  fix: "test",
  docs: {
    summary:
      "A data test downgraded from error to warn (by its own severity, or by moving its yml where dbt_project.yml's data_tests: configs say warn), given a new error_if/warn_if/fail_calc/limit, given an enabled, severity or threshold written as Jinja, or added already unable to fail (disabled, not error, with a threshold, or with any of those or a where written as Jinja).",
    rationale:
      "A test that warns, or whose threshold moved, still runs and still looks like coverage, but can no longer stop the build. Adding a threshold key set to null changes nothing and is silent; only warn counts as a downgrade of an existing test (disabling one is G1's). A config written as Jinja ({{ 'error' if target.name == 'dev' else 'warn' }}) renders per target, so it can fail in CI and pass in production: it counts as a test that cannot fail.",
    enforces: "Control 5B: the gate blocks a test's severity downgraded, and a test added that cannot fail.",
  },
  messages: {
    born: "test '{test}' on {on}{which} is new and cannot fail the build: {reason}",
    downgraded: "test '{test}' on {on}{which} was downgraded from error to warn, so it cannot block",
    downgradedWhere: "test '{test}' on {on}{which} now only warns, so it cannot block: {why}",
    threshold: "test '{test}' on {on}{which} sets {key}, which changes what counts as failing",
    jinja: "test '{test}' on {on}{which} cannot be trusted to fail the build: {reason}",
  },
  async run(ctx, report) {
    const headStates = await ctx.runStates("after");
    for (const pair of ctx.testGroups) {
      const { base, head } = pair;
      if (!head) continue;
      for (const key of ctx.argumentSets(head)) {
        const was = base?.sets.get(key)?.configs ?? [];
        const names = { test: pair.name, on: testOn(pair), which: whichSuffix(head, key) };
        for (const entry of head.sets.get(key)?.entries ?? []) {
          const { config } = entry;
          const at = ctx.groupPlace(pair, entry);
          const warnsBy = headStates.get(entry.test)?.warnsBy;
          if (warnsBy && was.length > 0 && severity(config) !== "warn") {
            // The test says nothing of severity; the folder its yml now sits in says warn.
            const baseStates = await ctx.runStates("before");
            const baseEntries = base?.sets.get(key)?.entries ?? [];
            if (!baseEntries.some((old) => severity(old.config) === "warn" || baseStates.get(old.test)?.warnsBy))
              report("downgradedWhere", at, { ...names, why: warnsBy });
          }
          if (was.some((old) => looseEqual(old, config))) continue;
          if (was.length === 0) {
            const reason = cannotFailReason(config, DEAD_KEYS);
            if (reason !== "") report("born", at, { ...names, reason });
            continue;
          }
          const isNew = (key: string) => !was.some((old) => looseEqual(configValue(old, key), configValue(config, key)));
          if (severity(config) === "warn" && !was.some((old) => severity(old) === "warn")) report("downgraded", at, names);
          // A where written as Jinja on an existing test is G2's (a where added or changed).
          for (const key of FAILING_KEYS) {
            const value = config[key];
            if (key !== "where" && isJinja(value) && isNew(key)) report("jinja", at, { ...names, reason: jinjaReason(key, value) });
          }
          for (const dead of DEAD_KEYS) {
            if (!Object.hasOwn(config, dead) || isJinja(config[dead])) continue;
            if (isNew(dead)) report("threshold", at, { ...names, key: dead });
          }
        }
      }
    }
  },
});
