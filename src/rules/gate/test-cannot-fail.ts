/** G3: a test's severity lowered to warn, a new threshold key, or a test born unable to fail. */
import { looseEqual, pythonStr, type Mapping } from "../../core/values.ts";
import { cannotFailReason, DEAD_KEYS } from "../../project/tests.ts";
import { configValue, defineGateRule, testOn, whichSuffix } from "../context/gate.ts";

function severity(config: Mapping): string {
  return pythonStr(Object.hasOwn(config, "severity") ? config.severity : "error").toLowerCase();
}

export default defineGateRule({
  code: "G3",
  name: "test-cannot-fail",
  severity: "BLOCK",
  docs: {
    summary:
      "A data test downgraded from error to warn, given a new error_if/warn_if/fail_calc/limit, or added already unable to fail (disabled, not error, or with a threshold).",
    rationale:
      "A test that warns, or whose threshold moved, still runs and still looks like coverage, but can no longer stop the build. Adding a threshold key set to null changes nothing and is silent; only warn counts as a downgrade of an existing test (disabling one is G1's).",
    enforces: "Control 5B: the gate blocks a test's severity downgraded, and a test added that cannot fail.",
  },
  messages: {
    born: "test '{test}' on {on}{which} is new and cannot fail the build: {reason}",
    downgraded: "test '{test}' on {on}{which} was downgraded from error to warn, so it cannot block",
    threshold: "test '{test}' on {on}{which} sets {key}, which changes what counts as failing",
  },
  run(ctx, report) {
    for (const pair of ctx.testGroups) {
      const { base, head } = pair;
      if (!head) continue;
      for (const key of ctx.argumentSets(head)) {
        const was = base?.sets.get(key)?.configs ?? [];
        const names = { test: pair.name, on: testOn(pair), which: whichSuffix(head, key) };
        for (const entry of head.sets.get(key)?.entries ?? []) {
          const { config } = entry;
          const at = ctx.testPlace(pair.model, entry);
          if (was.some((old) => looseEqual(old, config))) continue;
          if (was.length === 0) {
            const reason = cannotFailReason(config, DEAD_KEYS);
            if (reason !== "") report("born", at, { ...names, reason });
            continue;
          }
          if (severity(config) === "warn" && !was.some((old) => severity(old) === "warn")) report("downgraded", at, names);
          for (const dead of DEAD_KEYS) {
            if (!Object.hasOwn(config, dead)) continue;
            const value = configValue(config, dead);
            if (!was.some((old) => looseEqual(configValue(old, dead), value))) report("threshold", at, { ...names, key: dead });
          }
        }
      }
    }
  },
});
