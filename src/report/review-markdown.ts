/** `slp review` as Markdown: the document a pull request carries (a comment, a job summary), within GitHub's limit. */
import { SENSITIVE_CELL, type ReviewData, type ReviewHistoryEntry, type ReviewModel, type ReviewRows } from "../schemas/review.ts";
import { fitToLimit, htmlText, mdInline } from "./markdown-text.ts";
import * as words from "./review-words.ts";

const MARK: Record<words.Verdict, string> = { ok: "✅", bad: "⛔", warn: "⚠️", none: "" };

const line = (entry: { text: string; verdict: words.Verdict }) => `${MARK[entry.verdict]} ${mdInline(entry.text)}`.trim();

export function reviewMarkdown(data: ReviewData): string {
  const parts = [`## ${mdInline(words.title(data))}`, historySection(data), mdInline(words.inputsLine(data))];
  for (const model of data.models) parts.push(modelSection(model));
  if (data.unreviewed.length > 0) {
    parts.push(`_Not part of this review (a spec, nothing pre-registered on this branch): ${mdInline(data.unreviewed.join(", "))}._`);
  }
  return fitToLimit(`${parts.join("\n\n")}\n`, "the whole review is `slp review --format json`, or `--html FILE` as one page");
}

function modelSection(model: ReviewModel): string {
  const out = [`### ${mdInline(words.headingOf(model))} · ${mdInline(model.file)}`];
  const declared = words.declaredAs(model);
  if (declared) out.push(`> ${mdInline(declared)}`);
  for (const blocked of model.compare) out.push(`> ⛔ compare: ${mdInline(blocked)}`);

  out.push("**1. Grain and key**", `- grain: ${mdInline(model.grain ?? "the spec states no grain")}\n- ${line(words.keyLine(model))}`);

  out.push(`**2. The numbers** · ${mdInline(words.windowLine(model))}`);
  if (model.numbers.length > 0) {
    const table = ["| number | declared | measured | |", "| --- | --- | --- | --- |"];
    for (const number of model.numbers) {
      const verdict = words.numberVerdict(number);
      table.push(
        `| ${mdInline(words.numberLabel(number))} | ${mdInline(words.bandText(number))} | ${mdInline(words.measuredText(number))} | ${MARK[verdict.verdict]} ${verdict.text} |`,
      );
    }
    out.push(table.join("\n"));
  }
  const beforeAfter = beforeAfterMarkdown(model);
  if (beforeAfter) out.push(beforeAfter);
  const checks = [words.columnsLine(model), words.reconciliationLine(model)].filter((entry) => entry !== null);
  const flags = words.bandFlags(model).map((flag) => `- ⚠️ **cannot fail:** ${mdInline(flag)}`);
  const anchor = words.anchorLine(model);
  out.push(
    [...checks.map((entry) => `- ${line(entry)}`), ...flags, ...(anchor ? [`- ${mdInline(anchor)}`] : []), ...currencyMarkdown(model)].join(
      "\n",
    ),
  );

  out.push("**3. Known edges**");
  if (model.edges.length === 0) out.push("_The spec lists no known edge._");
  const edges: string[] = [];
  model.edges.forEach((edge, i) => {
    if (edge.tests.length === 0) {
      edges.push(`${i + 1}. ⛔ ${mdInline(edge.edge)}: no unit test names it`);
      return;
    }
    for (const test of edge.tests) {
      const mark = test.status === "pass" ? "✅" : "⛔";
      edges.push(`${i + 1}. ${mark} ${mdInline(edge.edge)}: ${mdInline(words.edgeTestLine(test))}`);
      const tables = [...test.given.map((item) => rowsTable(`given ${item.input}`, item.rows)), rowsTable("expect", test.expect)];
      edges.push(
        `   <details><summary>${htmlText(`the rows of ${test.name}`)}</summary>\n\n${tables.map((table) => indent(table)).join("\n\n")}\n\n   </details>`,
      );
    }
  });
  if (edges.length > 0) out.push(edges.join("\n"));
  out.push(...otherTests(model));
  const mutation = words.mutationLine(model);
  const survivors = model.mutation.survivors.map(
    (survivor) => `  - \`${survivor.id.replace(/`/g, "'")}\` ${mdInline(words.survivorLine(survivor))}`,
  );
  out.push([`- ${line(mutation)}`, ...survivors].join("\n"));
  return out.join("\n\n");
}

/** Production's and the branch's values beside each delta, rows first; null without a diff. */
function beforeAfterMarkdown(model: ReviewModel): string | null {
  if (model.before_after.length === 0) return null;
  const table = [
    `| ${words.BEFORE_AFTER_HEADER.join(" | ")} |`,
    `| --- | ${words.BEFORE_AFTER_HEADER.slice(1)
      .map(() => "---:")
      .join(" | ")} |`,
    ...model.before_after.map((entry) => `| ${words.beforeAfterCells(entry).map(mdInline).join(" | ")} |`),
  ];
  const note = words.beforeAfterNote(model);
  return `${table.join("\n")}${note ? `\n\n_${mdInline(note)}_` : ""}`;
}

/** Whether the diff measures this code, and the anchor against the source of truth, as list items. */
function currencyMarkdown(model: ReviewModel): string[] {
  return [words.measuredOnLine(model), words.anchorCheckLine(model)].flatMap((entry) => (entry ? [`- ${line(entry)}`] : []));
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((row) => (row === "" ? "" : `   ${row}`))
    .join("\n");
}

/** The rows as a table; a sensitive cell reads _sensitive_, never its value. */
function rowsTable(caption: string, rows: ReviewRows): string {
  const head = `_${mdInline(caption)}: ${mdInline(words.rowsSummary(rows))}_`;
  if (rows.note && rows.rows.length === 0) return `${head} · ${mdInline(rows.note)}`;
  if (rows.columns.length === 0) return head;
  const table = [
    `| ${rows.columns.map(mdInline).join(" | ")} |`,
    `| ${rows.columns.map(() => "---").join(" | ")} |`,
    ...rows.rows.map((row) => `| ${rows.columns.map((column) => cell(row[column] ?? null)).join(" | ")} |`),
  ];
  return `${head}\n\n${table.join("\n")}${rows.note ? `\n\n_${mdInline(rows.note)}_` : ""}`;
}

function cell(value: string | null): string {
  if (value === SENSITIVE_CELL) return "_sensitive_";
  return value === null ? "" : mdInline(value);
}

/** The branch's history, first: per model where an entry is a model's, branch-wide otherwise; the reason when it was not read. */
function historySection(data: ReviewData): string {
  const out = [`### ${words.HISTORY_HEADING}`, mdInline(words.historyLine(data))];
  const entries = (list: ReviewHistoryEntry[]) =>
    list
      .map(
        (entry) =>
          `- ${MARK[words.historyVerdict(entry)]} ${entry.commit ? `\`${entry.commit}\`` : "_not committed_"} ${mdInline(words.historyEntryLine(entry))}`,
      )
      .join("\n");
  if (data.history.branch.length > 0) out.push("**The branch**", entries(data.history.branch));
  for (const model of data.history.models) out.push(`**${mdInline(model.model)}**`, entries(model.entries));
  return out.join("\n\n");
}

/** The model's tests the edges do not list: unit tests naming no edge, and its data tests with what each asserts. */
function otherTests(model: ReviewModel): string[] {
  const { unit, data } = model.other_tests;
  if (unit.length === 0 && data.length === 0) return ["_No other test on this model: no unit test beyond the edges, no data test._"];
  const out = ["**Other tests**"];
  if (unit.length > 0) {
    out.push(unit.map((test) => `- ${test.status === "pass" ? "✅" : "⛔"} ${mdInline(words.otherUnitLine(test))}`).join("\n"));
  }
  if (data.length > 0) {
    const table = ["| data test | on | asserts | |", "| --- | --- | --- | --- |"];
    for (const test of data) {
      table.push(
        `| ${mdInline(words.dataTestLabel(test))} | ${mdInline(test.column ?? "the model")} | ${mdInline(test.asserts)} | ${test.cannot_fail ? `⚠️ cannot fail: ${mdInline(test.cannot_fail)}` : "✅ can fail"} |`,
      );
    }
    out.push(table.join("\n"));
  }
  return out;
}
