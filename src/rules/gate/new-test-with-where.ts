/** I3: a test this branch adds that carries a `where` (reported, not blocked). */
import { pythonStr } from "../../core/values.ts";
import { configValue, defineGateRule, testOn } from "../context/gate.ts";

export default defineGateRule({
  code: "I3",
  name: "new-test-with-where",
  severity: "INFO",
  fix: "test",
  docs: {
    summary: "A data test (or argument set) this branch adds with a where: which rows it skips.",
    rationale:
      "A new test with a filter is not a weakened test, so it does not block; but the rows it never looks at are worth one look from the Author.",
    enforces: "Control 5B: a WHERE or exclusion clause on a test, reported where the branch adds the test.",
  },
  messages: { where: "test '{test}' on {on} is new and skips rows with where: {where}" },
  run(ctx, report) {
    for (const pair of ctx.testGroups) {
      if (!pair.head) continue;
      for (const key of ctx.argumentSets(pair.head)) {
        if ((pair.base?.sets.get(key)?.configs.length ?? 0) > 0) continue;
        for (const entry of pair.head.sets.get(key)?.entries ?? []) {
          const where = configValue(entry.config, "where");
          if (where !== null) report("where", ctx.groupPlace(pair, entry), { test: pair.name, on: testOn(pair), where: pythonStr(where) });
        }
      }
    }
  },
});
