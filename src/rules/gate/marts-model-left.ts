/** G14: a marts model of the base that leaves marts on the branch: moved out, renamed, deleted or disabled. */
import { sortByText } from "../../core/text.ts";
import { isMapping, type Value } from "../../core/values.ts";
import { sqlConfig } from "../../project/dbt/node-config.ts";
import type { Project, RefNode } from "../../project/model.ts";
import { declaredVersions } from "../../project/nodes/models.ts";
import { isJinja } from "../../project/dbt/data-tests.ts";
import { defineGateRule, type GateContext } from "../context/gate.ts";

/** Said of an `enabled` only rendering decides: the model may be built, or not. */
const RENDERING_DECIDES = "which only rendering decides";

/** How a model is kept from being built at head (or may be: an enabled only rendering decides), or null when it is built. */
async function disabledBy(project: Project, node: RefNode): Promise<string | null> {
  const enabled: Value | undefined = node.config.enabled;
  // An expression true with the project's vars and slp's target may still be false under another --vars or target.
  const expression = node.enabledExpression;
  if (expression?.value === false) return `config(enabled=${expression.text}) in ${node.file}, which renders to false`;
  if (expression) return `its SQL sets enabled to ${expression.text}, ${RENDERING_DECIDES}`;
  if (isJinja(enabled)) return `its enabled is the Jinja ${enabled}, ${RENDERING_DECIDES}`;
  if (enabled === undefined || enabled === true) return null;
  if (node.file !== null && node.language === "sql" && sqlConfig(await project.text(node.file)).config.enabled !== undefined) {
    return `config(enabled=${String(enabled)}) in ${node.file}`;
  }
  const declaration = node.declaration;
  // A version's own config: has the last word over its model's (dbt applies it after).
  const version =
    declaration && node.version !== null
      ? declaredVersions(declaration).find((entry) => entry.label === node.version)?.entry.config
      : undefined;
  if (isMapping(version) && version.enabled !== undefined)
    return `config.enabled: ${String(version.enabled)} on version ${node.version} in ${declaration?.file}`;
  const yml = declaration?.entry.config;
  if (isMapping(yml) && yml.enabled !== undefined) return `config.enabled: ${String(yml.enabled)} in ${declaration?.file}`;
  return `+enabled: ${String(enabled)} in ${(await project.settings()).file ?? "dbt_project.yml"}`;
}

/** Where a model sits on one side: its yml and its code (every version's file), as gate reads them. */
function placesOf(ctx: GateContext, side: "before" | "after", name: string, code: readonly string[], node: RefNode | undefined): string[] {
  const inventory = ctx[side];
  const paths = [
    inventory.models.get(name)?.file,
    ...code.map((file) => inventory.sqls.get(file)),
    node?.file ?? undefined,
    node?.ymlFile ?? undefined,
  ];
  return sortByText(new Set(paths.filter((path): path is string => typeof path === "string")));
}

export default defineGateRule({
  code: "G14",
  name: "marts-model-left",
  severity: "BLOCK",
  fix: "human",
  docs: {
    summary:
      "A marts model of the base that this branch moves or renames out of every marts path, deletes (its code gone, whatever its yml says), or disables (config(enabled=...) in its SQL, config.enabled in its yml, +enabled in dbt_project.yml, or an enabled only rendering decides).",
    rationale:
      "Marts membership is what makes every other rule look: a model moved to models/reporting/ in one pull request is changed freely in the next, and a disabled or deleted mart takes its tests, its spec and its diff with it while the build stays green. Where a mart lives, and whether it is built, is a human's decision.",
    enforces: "Control 5A: critical model directories are protected paths; Rule 8: the agent stops and asks a human before touching them.",
  },
  messages: {
    moved:
      "{model} is a marts model on {base} ({was}) and sits outside every marts path on this branch ({now}); moved out of marts it escapes every marts rule from the next pull request on, and a human moves a mart",
    renamed:
      "marts model {model} ({was} on {base}) is renamed to {to} on this branch; a mart's name is what its readers and its history hold on to, and a human renames a mart",
    deleted:
      "marts model {model} ({was} on {base}) is deleted on this branch{left}; a mart is built for its readers, and a human removes one, in a pull request of their own",
    disabled:
      "marts model {model} is disabled on this branch ({how}); dbt does not build a disabled model, so its tests, its spec and its diff all go quiet, and a human disables a mart",
    mayBeDisabled:
      "marts model {model} may be disabled on this branch ({how}); dbt does not build a disabled model, so its tests, its spec and its diff all go quiet, and a human disables a mart",
  },
  async run(ctx, report) {
    const head = await ctx.after.project.nodes();
    const headModels = new Map(head.models.filter((node) => node.latest).map((node) => [node.name, node]));
    let baseModels: Promise<Map<string, RefNode>> | undefined;
    const baseModel = async (name: string) => {
      baseModels ??= ctx.before.project
        .nodes()
        .then((nodes) => new Map(nodes.models.filter((node) => node.latest).map((node) => [node.name, node])));
      return (await baseModels).get(name);
    };
    // The models of the base are those with code there, as gate reads them; a version's file is its model's.
    const baseCode = new Map<string, string[]>();
    for (const file of sortByText(ctx.before.sqls.keys())) {
      const name = ctx.modelOfCode("before", file);
      baseCode.set(name, [...(baseCode.get(name) ?? []), file]);
    }
    for (const [name, code] of sortByText(baseCode, ([name]) => name)) {
      const was = placesOf(ctx, "before", name, code, undefined);
      if (!was.some((path) => ctx.inMarts(path))) continue;
      const wasText = was.join(", ");
      const node = headModels.get(name);
      const at = ctx.place(name);
      if (!node) {
        const ids = new Set(code.map((file) => ctx.before.code.get(file)));
        const to = sortByText(ctx.after.code.keys()).find((other) => !ctx.before.code.has(other) && ids.has(ctx.after.code.get(other)));
        if (to !== undefined) report("renamed", at, { model: name, was: wasText, base: ctx.baseName, to });
        else {
          const yml = ctx.after.models.get(name)?.file;
          report("deleted", at, {
            model: name,
            was: wasText,
            base: ctx.baseName,
            left: yml ? ` (its code is gone; ${yml} still declares it)` : "",
          });
        }
        continue;
      }
      const now = placesOf(ctx, "after", name, code, node);
      if (!now.some((path) => ctx.inMarts(path))) {
        report("moved", at, { model: name, was: wasText, base: ctx.baseName, now: now.join(", ") });
        continue;
      }
      const how = await disabledBy(ctx.after.project, node);
      if (how === null) continue;
      const wasNode = await baseModel(name);
      if (wasNode === undefined || (await disabledBy(ctx.before.project, wasNode)) === null)
        report(how.endsWith(RENDERING_DECIDES) ? "mayBeDisabled" : "disabled", at, { model: name, how });
    }
  },
});
