/**
 * The platforms slp ships a binary for: those DuckDB publishes node bindings
 * for on npm (`@duckdb/node-bindings-<os>-<arch>`) and Bun cross-compiles to.
 * One row each; the npm platform packages, the release assets, the launcher's
 * list and the GitHub Action all follow from this table.
 */

export interface Platform {
  /** `<os>-<arch>` as Node spells them (`process.platform`-`process.arch`). */
  name: string;
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  /** npm's `libc` field: only glibc Linux builds (DuckDB's musl bindings are not shipped yet). */
  libc?: "glibc";
  /** Bun's `--target` for `bun build --compile`. */
  bunTarget: Bun.Build.CompileTarget;
  /** The executable's file name inside its package. */
  binary: "slp" | "slp.exe";
  /** How a person names it, for messages and package descriptions. */
  label: string;
}

export const PLATFORMS: readonly Platform[] = [
  { name: "linux-x64", os: "linux", cpu: "x64", libc: "glibc", bunTarget: "bun-linux-x64", binary: "slp", label: "Linux x64 (glibc)" },
  {
    name: "linux-arm64",
    os: "linux",
    cpu: "arm64",
    libc: "glibc",
    bunTarget: "bun-linux-arm64",
    binary: "slp",
    label: "Linux arm64 (glibc)",
  },
  { name: "darwin-x64", os: "darwin", cpu: "x64", bunTarget: "bun-darwin-x64", binary: "slp", label: "macOS x64" },
  { name: "darwin-arm64", os: "darwin", cpu: "arm64", bunTarget: "bun-darwin-arm64", binary: "slp", label: "macOS arm64" },
  { name: "win32-x64", os: "win32", cpu: "x64", bunTarget: "bun-windows-x64", binary: "slp.exe", label: "Windows x64" },
];

/** The npm package that holds a platform's binary. */
export function platformPackage(platform: Platform): string {
  return `@spec-lock-diff/cli-${platform.name}`;
}

/** The file name of a platform's binary among a GitHub release's assets. */
export function releaseAsset(platform: Platform): string {
  return `slp-${platform.name}${platform.binary === "slp.exe" ? ".exe" : ""}`;
}

/** The platform this process runs on, when slp ships one for it (never on musl Linux). */
export function hostPlatform(): Platform | undefined {
  const name = `${process.platform}-${process.arch}`;
  if (process.platform === "linux" && isMusl()) return undefined;
  return PLATFORMS.find((platform) => platform.name === name);
}

export function findPlatform(name: string): Platform | undefined {
  return PLATFORMS.find((platform) => platform.name === name);
}

/** glibc reports its version in Node's diagnostic report; musl does not. */
function isMusl(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}
