/** G4: a unit test that exists on the base was changed (its given rows, its expected rows, its config). */
import { compareCodePoints } from "../../core/text.ts";
import { pythonStr } from "../../core/values.ts";
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "G4",
  name: "unit-test-changed",
  severity: "BLOCK",
  fix: "test",
  docs: {
    summary:
      "A unit test on the base whose body changed: given, expect, overrides, config (meta.edge included), model; everything but its description.",
    rationale:
      "The rows a unit test is given and the rows it expects are a question and its answer; an agent that rewrites the answer until it matches the code has tested nothing. Moving an unchanged unit test to another file is silent; two models may each own a unit test of the same name.",
    enforces: "Control 5B: the gate blocks an expected value changed in an existing test.",
  },
  messages: {
    changed:
      "unit test '{unit}' was changed; the rows it is given and the rows it expects are the question and the answer, and this PR wrote both",
  },
  run(ctx, report) {
    const changed = [...ctx.after.units]
      .filter(([key, unit]) => {
        const was = ctx.before.units.get(key);
        return was !== undefined && was.body !== unit.body;
      })
      .map(([, unit]) => unit)
      .sort((a, b) => compareCodePoints(pythonStr(a.model), pythonStr(b.model)) || compareCodePoints(a.name, b.name));
    for (const unit of changed) report("changed", { file: unit.file, model: pythonStr(unit.model), line: unit.line }, { unit: unit.name });
  },
});
