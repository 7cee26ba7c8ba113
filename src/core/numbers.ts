/**
 * Numbers the way a person writes them, in every message: no `1000000.0`
 * artefacts, thousands grouped, no binary-float noise.
 *
 * - integers: digits grouped by commas (`12000` -> `12,000`, `-3` -> `-3`);
 * - other numbers: at most 12 significant digits, trailing zeros dropped
 *   (`0.30000000000000004` -> `0.3`, `14203118.4` -> `14,203,118.4`);
 * - very large or very small magnitudes keep an exponent (`1e+21`, `1e-7`);
 * - `NaN` prints `NaN`, infinities `infinity` / `-infinity`.
 */
export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "infinity" : "-infinity";
  if (Object.is(value, -0)) return "0";
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e21 || magnitude < 1e-6)) {
    const [mantissa, exponent] = value.toPrecision(12).split("e");
    return `${trimZeros(mantissa ?? "")}e${exponent}`;
  }
  const text = Number.isInteger(value) ? String(value) : trimZeros(value.toPrecision(12));
  return groupThousands(text);
}

/** A percentage difference with four significant digits, as drift is quoted. */
export function formatPercent(value: number): string {
  if (!Number.isFinite(value)) return formatNumber(value);
  return formatNumber(Number(value.toPrecision(4)));
}

function trimZeros(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

function groupThousands(text: string): string {
  const negative = text.startsWith("-");
  const body = negative ? text.slice(1) : text;
  const [whole = "", fraction] = body.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "-" : ""}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}
