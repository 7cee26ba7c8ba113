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

/** `14203118.4` -> `14,203,118.4`: the whole part's digits grouped by commas. */
export function groupThousands(text: string): string {
  const negative = text.startsWith("-");
  const body = negative ? text.slice(1) : text;
  const [whole = "", fraction] = body.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "-" : ""}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}

/** The decimals the loop prints (a unit test's diff, its finding): enough to read a value, not binary-float noise. */
export const SHOWN_DECIMALS = 4;

/**
 * A decimal with at most four significant decimals, trailing zeros dropped,
 * never grouped (it stands for a value in a table): `666.3333333333334` ->
 * `666.3333`, `0.000123456` -> `0.0001235` (four significant digits once the
 * leading zeros of a fraction are past), `2.5` -> `2.5`.
 */
export function formatDecimal(value: number): string {
  if (!Number.isFinite(value) || Number.isInteger(value)) return formatNumber(value).replace(/,/g, "");
  const magnitude = Math.abs(value);
  const leadingZeros = magnitude >= 1 ? 0 : Math.max(0, -Math.floor(Math.log10(magnitude)) - 1);
  const text = trimZeros(value.toFixed(Math.min(20, leadingZeros + SHOWN_DECIMALS)));
  return text === "-0" ? "0" : text;
}

/** A value's text with a long plain decimal shortened by formatDecimal; any other text (a name, `1e-7`, `19.99`) as it is. */
export function shortDecimal(text: string): string {
  const match = /^-?\d+\.(\d+)$/.exec(text);
  if (!match || (match[1] as string).length <= SHOWN_DECIMALS) return text;
  return formatDecimal(Number(text));
}

/**
 * Whether rows from two sides of a comparison may be shown with
 * shortDecimal: only when no two rows that differ would read the same once
 * shortened (a difference beyond the fourth decimal is then shown in full).
 */
export function decimalsMayBeShortened(
  left: readonly (readonly (string | null)[])[],
  right: readonly (readonly (string | null)[])[],
): boolean {
  const key = (row: readonly (string | null)[], short: boolean) =>
    JSON.stringify(row.map((value) => (value === null ? null : short ? shortDecimal(value) : value)));
  const full = new Map<string, Set<string>>();
  for (const row of [...left, ...right]) {
    const shown = key(row, true);
    const set = full.get(shown) ?? new Set<string>();
    set.add(key(row, false));
    full.set(shown, set);
    if (set.size > 1) return false;
  }
  return true;
}
