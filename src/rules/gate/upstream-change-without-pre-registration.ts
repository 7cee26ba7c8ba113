/** G15: a marts model downstream of something this branch changed, without a pre-registration of this branch's own. */
import { sortByText } from "../../core/text.ts";
import { isCriticalSpec } from "../../project/dbt/lineage.ts";
import { defineGateRule } from "../context/gate.ts";

const OWN_CODE = new Set(["new", "its SQL", "its code"]);

export default defineGateRule({
  code: "G15",
  name: "upstream-change-without-pre-registration",
  severity: "BLOCK",
  fix: "pre-registration",
  docs: {
    summary:
      "A marts model downstream of a model, seed, snapshot or source this branch changed (its SQL, CSV, config or relation, or a macro it calls), or one that calls a changed macro itself, whose meta.pre_registration at head is missing or is the base's. slp.yml's lineage (from the base) narrows it to critical models (critical-only) or turns it off; a mart whose own SQL changed is G8's.",
    rationale:
      "Changing stg_orders.sql instead of the mart moves every mart's numbers with no prediction at all, and Stage E builds state:modified+, so compare measures each of them. The prediction is owed where the numbers move.",
    enforces: "Stage B: a pre-registration for every model whose code the PR changes; Stage E builds critical models with state:modified+.",
  },
  messages: {
    missing:
      "this branch changes what this marts model is built from ({changed}) and it carries no meta.pre_registration; its numbers move with no interval to hold them against, and compare measures it all the same",
    inherited:
      "this branch changes what this marts model is built from ({changed}) and its meta.pre_registration is the one {base} already has; a prediction written for an earlier change is not this change's, and counts as absent",
  },
  async run(ctx, report) {
    if (ctx.lineage === "off") return;
    const changes = await ctx.changes();
    if (changes.nodes.size === 0) return;
    const reached = await changes.reached();
    for (const node of changes.after.models) {
      if (!node.latest || !ctx.isMarts(node.name)) continue;
      // A mart whose own SQL changed owes its pre-registration under G8 already.
      if (ctx.codeChanged.has(node.name)) continue;
      const model = ctx.after.models.get(node.name);
      if (!model || (ctx.lineage === "critical-only" && !isCriticalSpec(model.spec))) continue;
      // Its own new or edited code is G8's (or G9's, under a protected path); what else changed it is this rule's.
      const upstream = (reached.get(node.uniqueId) ?? [])
        .map((id) => changes.nodes.get(id))
        .filter((change) => change !== undefined)
        .map((change) => (change.id === node.uniqueId ? { ...change, what: change.what.filter((what) => !OWN_CODE.has(what)) } : change))
        .filter((change) => change.what.length > 0);
      if (upstream.length === 0) continue;
      const gap = ctx.preRegistrationGap(node.name);
      if (gap === null) continue;
      const changed = sortByText(
        upstream.map((change) =>
          change.id === node.uniqueId ? `${change.name} itself (${change.what.join(", ")})` : `${change.name} (${change.what.join(", ")})`,
        ),
      ).join(", ");
      report(gap, ctx.place(node.name), { changed, base: ctx.baseName });
    }
  },
});
