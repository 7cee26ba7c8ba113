/** G2: a `where` added to, or changed on, a test that exists on both sides. */
import { looseEqual, pythonStr, type Value } from "../../core/values.ts";
import { sortByText } from "../../core/text.ts";
import { configValue, defineGateRule, testOn, whichSuffix } from "../context/gate.ts";
import type { TestEntry } from "../context/gate-inventory.ts";

export default defineGateRule({
  code: "G2",
  name: "where-added",
  severity: "BLOCK",
  fix: "test",
  docs: {
    summary: "A where added to, or changed on, a data test that exists on the base (on the test or under config:).",
    rationale:
      "A where clause decides which rows a test looks at; the rows that would fail can be filtered away while the test stays green. Removing a where is silent; a where under arguments: is an argument, and G1's.",
    enforces: "Control 5B: the gate blocks a WHERE or exclusion clause added to a test.",
  },
  messages: { where: "test '{test}' on {on}{which} now skips rows with where: {where}" },
  run(ctx, report) {
    for (const pair of ctx.testGroups) {
      const { base, head } = pair;
      if (!base || !head) continue;
      for (const key of ctx.argumentSets(head)) {
        const was = base.sets.get(key)?.configs;
        const is = head.sets.get(key)?.entries ?? [];
        if (!was) continue;
        const old = was.map((config) => configValue(config, "where"));
        const added: { where: Value; entry: TestEntry }[] = [];
        for (const entry of is) {
          const where = configValue(entry.config, "where");
          if (where === null || old.some((value) => looseEqual(value, where)) || added.some((seen) => looseEqual(seen.where, where)))
            continue;
          added.push({ where, entry });
        }
        for (const { where, entry } of sortByText(added, (item) => pythonStr(item.where))) {
          report("where", ctx.groupPlace(pair, entry), {
            test: pair.name,
            on: testOn(pair),
            which: whichSuffix(head, key),
            where: pythonStr(where),
          });
        }
      }
    }
  },
});
