/**
 * G1: a test that existed on the base was removed, disabled, or had its
 * arguments changed; a file under tests/ was removed or changed; a unit test
 * was removed.
 */
import { compareCodePoints, sortByText } from "../../core/text.ts";
import { pythonStr, type Mapping } from "../../core/values.ts";
import { defineGateRule, testOn, whichSuffix, type TestRunState } from "../context/gate.ts";
import type { TestEntry } from "../context/gate-inventory.ts";
import type { DataTest } from "../../project/dbt/data-tests.ts";

/** `ref('name')` in a test's arguments (as canonical JSON, its quotes escaped) or a singular test's SQL: the relation it reads. */
const SEED_REF = /\bref\(\s*\\?['"]([^'"\\]+)\\?['"]\s*\)/g;

/** A member of a bag that runs: `enabled` missing or boolean true. */
function enabledCount(configs: Mapping[]): number {
  return configs.filter((config) => !Object.hasOwn(config, "enabled") || config.enabled === true).length;
}

export default defineGateRule({
  code: "G1",
  name: "test-removed",
  severity: "BLOCK",
  fix: "test",
  docs: {
    summary:
      "A data test on the base removed, disabled, declared fewer times or with other arguments, or no longer run by dbt (its yml moved where dbt_project.yml's data_tests: configs disable it, or the node it tests disabled); a file under tests/ removed or changed; a unit test removed; a seed's CSV changed that an existing data test's arguments or singular test ref().",
    rationale:
      "Removing the test that fails is the shortest way to a green build. Moving a test to another file, renaming tests: to data_tests:, nesting arguments under arguments: or adding tags changes nothing and is silent; shrinking an accepted_values list or dropping one of two identical twins is caught.",
    enforces: "Control 5B: the gate blocks a pull request that removes a test.",
  },
  messages: {
    missing: "test '{test}' on {on} exists on {base} but not on this branch",
    arguments: {
      text: "test '{test}' on {on} changed its arguments{which}; if that is intended, a human changes it before the agent starts, or in a separate PR",
      fix: "human",
    },
    fewer: "test '{test}' on {on} was declared {before} times on {base} and {after} on this branch{which}",
    disabled: "test '{test}' on {on} was disabled{which}",
    notRun: "test '{test}' on {on} no longer runs{which}: {why}",
    file: "singular or generic test {path} was removed or changed; an agent adds tests, it never edits or removes one",
    unit: "unit test '{unit}' was removed",
    seedAnswer: {
      text: "seed {seed} changed on this branch, and test '{test}' on {on} compares against it; the test's answer changed with no test changing, and a human changes it",
      fix: "human",
    },
    seedSingular: {
      text: "seed {seed} changed on this branch, and the singular test {path} reads it; the test's answer changed with no test changing, and a human changes it",
      fix: "human",
    },
  },
  async run(ctx, report) {
    const headStates = await ctx.runStates("after");
    for (const pair of ctx.testGroups) {
      const { base, head } = pair;
      if (!base) continue;
      const at = ctx.groupPlace(pair);
      const names = { test: pair.name, on: testOn(pair), base: ctx.baseName };
      if (!head) {
        report("missing", at, names);
        continue;
      }
      const argumentSets = ctx.argumentSets(base);
      const gone = argumentSets.find((key) => !head.sets.has(key));
      if (gone !== undefined) {
        // One finding per test: the first argument set that is gone says enough.
        report("arguments", at, { ...names, which: whichSuffix(base, gone) });
        continue;
      }
      for (const key of argumentSets) {
        const was = base.sets.get(key)?.configs ?? [];
        const is = head.sets.get(key)?.configs ?? [];
        const which = whichSuffix(base, key);
        const here = ctx.groupPlace(pair, head.sets.get(key)?.entries[0]);
        if (is.length < was.length) report("fewer", here, { ...names, before: was.length, after: is.length, which });
        else if (enabledCount(is) < enabledCount(was)) report("disabled", here, { ...names, which });
        else {
          // What the test says is unchanged; where its yml sits, or the node it tests, may still keep dbt from running it.
          const stopped = (head.sets.get(key)?.entries ?? []).find((entry) => headStates.get(entry.test)?.disabledBy);
          if (!stopped) continue;
          const baseStates = await ctx.runStates("before");
          const running = (entries: TestEntry[], states: Map<DataTest, TestRunState>) =>
            entries.filter((entry) => enabledCount([entry.config]) === 1 && !states.get(entry.test)?.disabledBy).length;
          if (running(head.sets.get(key)?.entries ?? [], headStates) < running(base.sets.get(key)?.entries ?? [], baseStates))
            report("notRun", ctx.groupPlace(pair, stopped), { ...names, which, why: headStates.get(stopped.test)?.disabledBy ?? "" });
        }
      }
    }
    for (const path of sortByText(ctx.before.files.keys())) {
      if (ctx.after.files.get(path) !== ctx.before.files.get(path)) report("file", { file: path, model: "", line: 1 }, { path });
    }
    // A seed a test compares against is that test's answer: editing its CSV rewrites the test.
    const changes = await ctx.changes();
    const seeds = new Set(
      [...changes.nodes.values()]
        .filter((change) => change.kind === "seed" && change.what.includes("its CSV"))
        .map((change) => change.name),
    );
    if (seeds.size > 0) {
      const read = (text: string) => [...text.matchAll(SEED_REF)].map((match) => match[1] as string).filter((name) => seeds.has(name));
      for (const pair of ctx.testGroups) {
        if (!pair.base || !pair.head) continue;
        for (const key of ctx.argumentSets(pair.head)) {
          if (!pair.base.sets.has(key)) continue;
          for (const seed of sortByText(new Set(read(key))))
            report("seedAnswer", ctx.groupPlace(pair, pair.head.sets.get(key)?.entries[0]), { seed, test: pair.name, on: testOn(pair) });
        }
      }
      for (const path of sortByText(ctx.after.singular.keys())) {
        if (!ctx.before.singular.has(path)) continue;
        for (const seed of sortByText(new Set(read(await ctx.after.project.text(path)))))
          report("seedSingular", { file: path, model: "", line: 1 }, { seed, path });
      }
    }
    const removed = [...ctx.before.units].filter(([key]) => !ctx.after.units.has(key)).map(([, unit]) => unit);
    removed.sort((a, b) => compareCodePoints(pythonStr(a.model), pythonStr(b.model)) || compareCodePoints(a.name, b.name));
    for (const unit of removed) report("unit", { file: unit.file, model: pythonStr(unit.model), line: unit.line }, { unit: unit.name });
  },
});
