/**
 * `slp mutate --html`: the Stryker report rendered by Stryker's own web
 * component (mutation-testing-elements, the only module that imports it),
 * inlined into one page that works offline: no script, style or font is
 * fetched from anywhere.
 */
import elements from "mutation-testing-elements/dist/mutation-test-elements.js" with { type: "text" };

export function mutationHtml(report: Record<string, unknown>, title: string): string {
  // `</script` inside the JSON would end the script element early.
  const json = JSON.stringify(report)
    .replace(/<\/(script)/gi, "<\\/$1")
    .replace(/<!--/g, "<\\!--");
  const library = elements.replace(/<\/(script)/gi, "<\\/$1");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<script>${library}</script>
</head>
<body>
<mutation-test-report-app title-postfix="${escapeHtml(title)}"></mutation-test-report-app>
<script>document.querySelector("mutation-test-report-app").report = ${json};</script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
