/**
 * A real PostgreSQL server for the Stage E tests: the one SLP_TEST_POSTGRES_URL
 * names, else a throwaway server started from the PostgreSQL that Debian's
 * `postgresql` package installs (.ci/run installs it), in a temporary folder on
 * a free port, as an unprivileged user when the suite runs as root (initdb
 * refuses root): `postgres` where Debian's package made it, else `nobody`, since
 * a fresh machine can have the binaries without the user. Stopped when the tests end. No server and no binaries is
 * a failure that says what to install, never a skipped test.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PostgresServer {
  url: string;
  stop(): void;
}

/** The newest installed server's bin folder (/usr/lib/postgresql/<version>/bin), or null. */
function serverBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
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
      "PostgreSQL is not installed: the Stage E tests run against a real server (apt-get install postgresql, as .ci/run does, or set SLP_TEST_POSTGRES_URL)",
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
  run([join(bin, "createdb"), "-h", dir, "-p", String(port), "-U", "slp", "slp_test"]);
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
