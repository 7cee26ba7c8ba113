import { runMain } from "/work/wt/12-dialects/test/support/cli.ts";
const dir = process.argv[2];
const { readFileSync, writeFileSync } = await import("node:fs");
const args = readFileSync(`${dir}/args`, "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
const r = await runMain(args, dir);
writeFileSync(`${dir}/expected`, `# exit ${r.exitCode}\n${r.stdout}`);
