/**
 * `slp review --html FILE`: the same review as one self-contained page (no
 * script, no network, no external font: a Content-Security-Policy forbids
 * them), with per number a chart of the declared band and the measured
 * value as a marker, in inline SVG. Readable on a phone, printable.
 */
import { formatNumber } from "../core/numbers.ts";
import {
  SENSITIVE_CELL,
  type ReviewData,
  type ReviewHistoryEntry,
  type ReviewModel,
  type ReviewNumber,
  type ReviewRows,
} from "../schemas/review.ts";
import * as words from "./review-words.ts";

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
const h = escapeHtml;

const STYLE = `
:root { color-scheme: light; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --band: #dafbe1; --band-bad: #ffebe9; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0; }
h2 { font-size: 1.25rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
p, li { overflow-wrap: anywhere; }
.inputs { color: var(--muted); }
section.model { border: 1px solid var(--line); border-radius: .5rem; padding: 1rem; margin: 1rem 0; break-inside: avoid-page; }
.file { color: var(--muted); font-size: .875rem; }
.declared { border-left: 3px solid var(--line); padding-left: .75rem; color: var(--muted); }
.verdict { font-weight: 600; }
.ok { color: var(--ok); } .bad { color: var(--bad); } .warn { color: var(--warn); }
.ok::before { content: "✓ "; } .bad::before { content: "✗ "; } .warn::before { content: "! "; }
.flag { background: #fff8c5; border-radius: .25rem; padding: .25rem .5rem; }
figure.band-chart { margin: .75rem 0; }
figure.band-chart figcaption { font-size: .875rem; overflow-wrap: anywhere; }
figure.band-chart svg { display: block; width: 100%; max-width: 36rem; height: auto; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: .875rem; margin: .25rem 0 .75rem; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; white-space: nowrap; }
td.sensitive { font-style: italic; color: var(--muted); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
ol.edges > li { margin-bottom: .75rem; }
section.history { border: 2px solid var(--warn); border-radius: .5rem; padding: 1rem; margin: 1rem 0; background: #fffbeb; }
section.history.empty { border-color: var(--line); background: #fff; }
section.history h3 { margin-top: .75rem; }
section.history h3[data-history-model] { text-transform: none; letter-spacing: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
ul.history { list-style: none; padding-left: 0; margin: .25rem 0 .75rem; }
ul.history > li { margin: .375rem 0; padding-left: 1.25rem; text-indent: -1.25rem; overflow-wrap: anywhere; }
ul.history code, .other-tests code { background: #eff2f5; border-radius: .25rem; padding: 0 .25rem; }
.rule { font-weight: 600; }
table.data-tests td.asserts { white-space: normal; min-width: 12rem; }
@media (max-width: 40rem) {
  table.data-tests thead { display: none; }
  table.data-tests, table.data-tests tbody, table.data-tests tr, table.data-tests td { display: block; }
  table.data-tests tr { border: 1px solid var(--line); border-radius: .25rem; margin-bottom: .5rem; padding: .25rem 0; }
  table.data-tests td, table.data-tests td.asserts { border: none; padding: .125rem .5rem; white-space: normal; overflow-wrap: anywhere; min-width: 0; }
  table.data-tests td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
}
details summary { cursor: pointer; color: var(--muted); }
@media (max-width: 40rem) { body { font-size: 15px; } main { padding: .5rem; } section.model { padding: .75rem; } }
@media print { body { font-size: 11pt; } main { max-width: none; } section.model { border-color: #999; } details > *:not(summary) { display: block; } a { color: inherit; } }
`;

export function reviewHtml(data: ReviewData): string {
  const body = [
    `<h1>${h(words.title(data))}</h1>`,
    historySection(data),
    `<p class="inputs">${h(words.inputsLine(data))}</p>`,
    ...data.models.map(modelSection),
    data.unreviewed.length
      ? `<p class="inputs">Not part of this review (a spec, nothing pre-registered on this branch): ${h(data.unreviewed.join(", "))}.</p>`
      : "",
  ].filter(Boolean);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${h(words.title(data))}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body.join("\n")}
</main>
</body>
</html>
`;
}

function verdict(entry: { text: string; verdict: words.Verdict }, tag = "p"): string {
  return `<${tag} class="verdict ${entry.verdict}">${h(entry.text)}</${tag}>`;
}

function modelSection(model: ReviewModel): string {
  const declared = words.declaredAs(model);
  const out = [
    `<section class="model" data-model="${h(model.model)}">`,
    `<h2>${h(words.headingOf(model))}</h2>`,
    `<p class="file">${h(model.file)}</p>`,
    declared ? `<p class="declared">${h(declared)}</p>` : "",
    ...model.compare.map((blocked) => `<p class="verdict bad">compare: ${h(blocked)}</p>`),
    `<section data-reading="grain"><h3>1. Grain and key</h3>`,
    `<p>grain: <strong>${h(model.grain ?? "the spec states no grain")}</strong></p>`,
    verdict(words.keyLine(model)),
    `</section>`,
    `<section data-reading="numbers"><h3>2. The numbers</h3>`,
    `<p>${h(words.windowLine(model))}</p>`,
    ...model.numbers.map(chart),
    beforeAfterHtml(model),
  ];
  for (const entry of [words.columnsLine(model), words.reconciliationLine(model)]) if (entry) out.push(verdict(entry));
  for (const flag of words.bandFlags(model)) out.push(`<p class="flag" data-flag="cannot-fail">cannot fail: ${h(flag)}</p>`);
  const anchor = words.anchorLine(model);
  if (anchor) out.push(`<p>${h(anchor)}</p>`);
  out.push(...currencyHtml(model));
  out.push(`</section>`, `<section data-reading="edges"><h3>3. Known edges</h3>`);
  if (model.edges.length === 0) out.push("<p>The spec lists no known edge.</p>");
  else {
    out.push(`<ol class="edges">`);
    for (const edge of model.edges) {
      if (edge.tests.length === 0) {
        out.push(`<li data-edge="${h(edge.edge)}"><span class="verdict bad">${h(edge.edge)}: no unit test names it</span></li>`);
        continue;
      }
      for (const test of edge.tests) {
        const tables = [...test.given.map((item) => rowsTable(`given ${item.input}`, item.rows)), rowsTable("expect", test.expect)];
        out.push(
          `<li data-edge="${h(edge.edge)}"><span class="verdict ${test.status === "pass" ? "ok" : "bad"}">${h(edge.edge)}</span><br>${h(words.edgeTestLine(test))}`,
          `<details open><summary>the rows of ${h(test.name)}</summary>${tables.join("")}</details></li>`,
        );
      }
    }
    out.push(`</ol>`);
  }
  out.push(otherTests(model));
  out.push(verdict(words.mutationLine(model)));
  if (model.mutation.survivors.length > 0) {
    out.push(
      `<ul class="survivors">${model.mutation.survivors.map((survivor) => `<li><code>${h(survivor.id)}</code> ${h(words.survivorLine(survivor))}</li>`).join("")}</ul>`,
    );
  }
  out.push(`</section>`, `</section>`);
  return out.filter(Boolean).join("\n");
}

/** Production's and the branch's values beside each delta, rows first; "" without a diff. */
function beforeAfterHtml(model: ReviewModel): string {
  if (model.before_after.length === 0) return "";
  const head = `<tr>${words.BEFORE_AFTER_HEADER.map((title) => `<th scope="col">${h(title)}</th>`).join("")}</tr>`;
  const rows = model.before_after
    .map((entry) => {
      const [label, ...cells] = words.beforeAfterCells(entry);
      return `<tr data-before-after="${h(entry.name)}"><th scope="row">${h(label ?? "")}</th>${cells.map((cell) => `<td class="num">${h(cell)}</td>`).join("")}</tr>`;
    })
    .join("");
  const note = words.beforeAfterNote(model);
  return `<div class="table-wrap"><table class="before-after"><thead>${head}</thead><tbody>${rows}</tbody></table></div>${note ? `<p class="inputs">${h(note)}</p>` : ""}`;
}

/** Whether the diff measures this code, and the anchor against the source of truth. */
function currencyHtml(model: ReviewModel): string[] {
  const measured = words.measuredOnLine(model);
  const anchor = words.anchorCheckLine(model);
  return [
    measured ? `<p class="verdict ${measured.verdict}" data-check="measured-on">${h(measured.text)}</p>` : "",
    anchor ? `<p class="verdict ${anchor.verdict}" data-check="anchor">${h(anchor.text)}</p>` : "",
  ].filter(Boolean);
}

function rowsTable(caption: string, rows: ReviewRows): string {
  const head = `<p>${h(caption)}: ${h(words.rowsSummary(rows))}${rows.note && rows.rows.length === 0 ? ` · ${h(rows.note)}` : ""}</p>`;
  if (rows.columns.length === 0) return head;
  const headRow = `<tr>${rows.columns.map((column) => `<th scope="col">${h(column)}</th>`).join("")}</tr>`;
  const bodyRows = rows.rows.map((row) => `<tr>${rows.columns.map((column) => cell(row[column] ?? null)).join("")}</tr>`).join("");
  const note = rows.note ? `<p>${h(rows.note)}</p>` : "";
  return `${head}<div class="table-wrap"><table><thead>${headRow}</thead><tbody>${bodyRows}</tbody></table></div>${note}`;
}

function cell(value: string | null): string {
  if (value === SENSITIVE_CELL) return `<td class="sensitive">sensitive</td>`;
  return `<td>${h(value ?? "")}</td>`;
}

/** Chart geometry, in SVG user units. */
const WIDTH = 400;
const LEFT = 28;
const RIGHT = WIDTH - 28;

/**
 * The band as a rectangle on a number line, the measured number as a marker
 * (none when there is no number), zero as a dashed tick, each end labelled;
 * an infinite end runs off the chart with an arrow.
 */
function chart(number: ReviewNumber): string {
  const min = number.min ?? 0;
  const finite = [min, number.max, number.measured ?? Number.NaN, 0].filter(Number.isFinite);
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (lo === hi) {
    lo -= 1;
    hi += 1;
  }
  const pad = (hi - lo) * 0.12;
  lo -= pad;
  hi += pad;
  const x = (value: number) =>
    value === -Infinity ? LEFT : value === Infinity ? RIGHT : LEFT + ((value - lo) / (hi - lo)) * (RIGHT - LEFT);
  const verdict = words.numberVerdict(number);
  const bandX = x(min);
  const bandWidth = Math.max(2, x(number.max) - bandX);
  const measured = number.measured !== null && Number.isFinite(number.measured) ? x(number.measured) : null;
  const unit = number.by === "delta_pct" ? " %" : "";
  const label = `${words.numberLabel(number)}: declared ${words.bandText(number)}, measured ${words.measuredText(number)}, ${verdict.text}`;
  const parts = [
    `<svg viewBox="0 0 ${WIDTH} 74" role="img" aria-label="${h(label)}" xmlns="http://www.w3.org/2000/svg">`,
    `<line x1="${LEFT}" y1="40" x2="${RIGHT}" y2="40" stroke="#8c959f" stroke-width="1"/>`,
    `<rect class="band" x="${bandX.toFixed(1)}" y="30" width="${bandWidth.toFixed(1)}" height="20" fill="${verdict.verdict === "ok" ? "#dafbe1" : "#ffebe9"}" stroke="${verdict.verdict === "ok" ? "#1a7f37" : "#cf222e"}" stroke-width="1.5"/>`,
  ];
  if (0 > lo && 0 < hi)
    parts.push(
      `<line class="zero" x1="${x(0).toFixed(1)}" y1="24" x2="${x(0).toFixed(1)}" y2="56" stroke="#59636e" stroke-dasharray="3 3"/>`,
    );
  if (number.min === -Infinity) parts.push(`<path d="M ${LEFT} 40 l 8 -6 v 12 z" fill="#59636e"/>`);
  if (number.max === Infinity) parts.push(`<path d="M ${RIGHT} 40 l -8 -6 v 12 z" fill="#59636e"/>`);
  const end = (at: number, value: number) =>
    `<text x="${at.toFixed(1)}" y="68" font-size="14" text-anchor="middle" fill="#59636e">${h(formatNumber(value))}${unit}</text>`;
  parts.push(end(bandX, min));
  if (number.max !== min) parts.push(end(bandX + bandWidth, number.max));
  if (measured !== null) {
    const color = verdict.verdict === "ok" ? "#1a7f37" : "#cf222e";
    parts.push(
      `<g class="marker" data-value="${number.measured}">`,
      `<line x1="${measured.toFixed(1)}" y1="22" x2="${measured.toFixed(1)}" y2="58" stroke="${color}" stroke-width="3"/>`,
      `<path d="M ${measured.toFixed(1)} 22 l -6 -8 h 12 z" fill="${color}"/>`,
      `<text x="${measured.toFixed(1)}" y="11" font-size="14" font-weight="600" text-anchor="middle" fill="${color}">${h(words.measuredText(number).replace(" percent", " %"))}</text>`,
      `</g>`,
    );
  } else {
    parts.push(
      `<text x="${WIDTH / 2}" y="16" font-size="14" text-anchor="middle" fill="#cf222e">${h(number.measured_note ?? "not measured")}</text>`,
    );
  }
  parts.push("</svg>");
  return `<figure class="band-chart" data-number="${h(number.name)}" data-inside="${number.inside ?? "unknown"}"><figcaption>${h(words.numberLabel(number))}: declared ${h(words.bandText(number))}; measured ${h(words.measuredText(number))} <span class="verdict ${verdict.verdict}">${h(verdict.text)}</span></figcaption>${parts.join("")}</figure>`;
}

/** The branch's history, first on the page: per model where an entry is a model's, branch-wide otherwise; the reason when it was not read. */
function historySection(data: ReviewData): string {
  const history = data.history;
  const empty = history.branch.length === 0 && history.models.length === 0;
  const list = (entries: ReviewHistoryEntry[]) =>
    `<ul class="history">${entries
      .map(
        (entry) =>
          `<li data-kind="${h(entry.kind)}" data-rule="${h(entry.rule ?? "")}" data-commit="${h(entry.commit ?? "")}"><span class="verdict ${words.historyVerdict(entry)}"></span>${entry.commit ? `<code>${h(entry.commit)}</code>` : "<em>not committed</em>"} ${entry.rule ? `<span class="rule">[${h(entry.rule)}]</span> ` : ""}${h(entry.text)}</li>`,
      )
      .join("")}</ul>`;
  const out = [
    `<section class="history${empty ? " empty" : ""}" data-section="history" data-read="${history.read}">`,
    `<h2>${h(words.HISTORY_HEADING)}</h2>`,
    `<p>${h(words.historyLine(data))}</p>`,
  ];
  if (history.branch.length > 0) out.push(`<h3>The branch</h3>`, list(history.branch));
  for (const model of history.models) out.push(`<h3 data-history-model="${h(model.model)}">${h(model.model)}</h3>`, list(model.entries));
  out.push(`</section>`);
  return out.join("\n");
}

/** The model's tests the edges do not list: unit tests naming no edge, and its data tests with what each asserts. */
function otherTests(model: ReviewModel): string {
  const { unit, data } = model.other_tests;
  const out = [`<div class="other-tests" data-other-tests>`, `<h3>Other tests</h3>`];
  if (unit.length === 0 && data.length === 0) out.push("<p>No other test on this model: no unit test beyond the edges, no data test.</p>");
  if (unit.length > 0) {
    out.push(
      `<ul class="unit-tests">${unit.map((test) => `<li data-unit-test="${h(test.name)}"><span class="verdict ${test.status === "pass" ? "ok" : "bad"}">${h(words.otherUnitLine(test))}</span></li>`).join("")}</ul>`,
    );
  }
  if (data.length > 0) {
    const rows = data
      .map(
        (test) =>
          `<tr data-data-test="${h(test.name)}"><td><code>${h(words.dataTestLabel(test))}</code></td><td data-label="on">${h(test.column ?? "the model")}</td><td class="asserts" data-label="asserts">${h(test.asserts)}</td><td>${test.cannot_fail ? `<span class="verdict warn">cannot fail: ${h(test.cannot_fail)}</span>` : `<span class="verdict ok">can fail</span>`}</td></tr>`,
      )
      .join("");
    out.push(
      `<div class="table-wrap"><table class="data-tests"><thead><tr><th scope="col">data test</th><th scope="col">on</th><th scope="col">asserts</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table></div>`,
    );
  }
  out.push(`</div>`);
  return out.join("\n");
}
