/** G9: a protected path added, removed or edited, or a generic test definition added. */
import { sortByText } from "../../core/text.ts";
import { mayAddUnderTests } from "../../project/history/protected.ts";
import { defineGateRule } from "../context/gate.ts";

export default defineGateRule({
  code: "G9",
  name: "protected-path-changed",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "A protected path changed (.github/, macros/, models/semantic/, docs/profile/, tools/, .pre-commit-config.yaml, CODEOWNERS and docs/CODEOWNERS, AGENTS.md, dbt_project.yml and the files dbt reads beside it (selectors.yml, profiles.yml, .dbtignore), .slp-version, .slp/, tcr.sh, the agents' hook settings, slp.yml, slp.yml's protected_paths, the base's macro, snapshot and analysis folders but its reconciliations, and the folders of the local packages the base's packages.yml names), a new file under tests/generic/, or any other new file under a test folder that is not a singular test or a unit-test fixture (tests/mutation_equivalents.yml, a properties yml).",
    rationale:
      "These files define the rules of the game: CI, owners, the agent's rules, macros that every model and test calls (a local package's too), what a bare dbt build selects (a default selector), which files dbt reads at all (.dbtignore) and the target it builds in (profiles.yml), the slp version CI installs, the agent's commit loop and the hooks that stop it before it writes. A new generic test that carries the name of one in use replaces it everywhere it is declared, with no test file changing. With the project in a subfolder, each built-in path is protected both at the repository root and in the project folder; slp.yml is read from the base, so a branch cannot loosen what judges it.",
    enforces: "Control 5A protected paths; Rule 8: the agent stops and asks a human before touching them.",
  },
  messages: {
    changed:
      "{path} changed on this branch; it is a protected path, and Rule 8 says the agent stops and asks a human, who changes it in a pull request of their own",
    testFile:
      "{path} is a new file under {folder}/ that is neither a singular test nor a unit-test fixture; a file there such as mutation_equivalents.yml or a properties yml changes how existing tests are judged, and a human writes those",
    generic:
      "{path} is a new generic test definition; one that carries the name of a test in use replaces that test everywhere it is declared, with no test file changing, and a human writes those",
  },
  run(ctx, report) {
    for (const path of ctx.changed(ctx.before.protected, ctx.after.protected))
      report("changed", { file: path, model: "", line: 1 }, { path });
    for (const path of sortByText(ctx.after.files.keys())) {
      if (ctx.before.files.has(path)) continue;
      const folder = ctx.testFolders.find((candidate) => path.startsWith(`${candidate}/`));
      if (folder === undefined) continue;
      if (path.startsWith(`${folder}/generic/`)) report("generic", { file: path, model: "", line: 1 }, { path });
      else if (!mayAddUnderTests(folder, path)) report("testFile", { file: path, model: "", line: 1 }, { path, folder });
    }
  },
});
