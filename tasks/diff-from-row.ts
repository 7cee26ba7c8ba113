/** `slp diff-from-row`: the one result row of your own diff query, written as a valid diff.json. */
import { Type } from "@sinclair/typebox";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { InputError } from "../src/core/errors.ts";
import type { Report } from "../src/core/report.ts";
import { readInputText } from "../src/project/history/diff-files.ts";
import { diffFromRow, diffJsonText, readRow } from "../src/project/artifacts/diff-row.ts";
import { defineTask } from "../src/runner/define-task.ts";

export default defineTask({
  name: "diff-from-row",
  description: "Turn the single result row (CSV or JSON) of your diff query into a valid diff.json",
  informational: true,
  input: Type.Object({
    file: Type.Optional(
      Type.String({
        positional: true,
        metavar: "FILE",
        description: "the row: a CSV header and one line, or one JSON object; - or nothing reads standard input",
      }),
    ),
    model: Type.String({ metavar: "MODEL", description: "the model the row measures" }),
    out: Type.Optional(Type.String({ metavar: "PATH", description: "write the diff.json there instead of standard output" })),
  }),
  async run({ input, environment }): Promise<Report> {
    const fromStdin = input.file === undefined || input.file === "-";
    const source = { file: fromStdin ? "(standard input)" : (input.file as string) };
    let text: string;
    if (!fromStdin) {
      text = readInputText(environment.cwd, source.file, "pass the file your diff query's result was saved to");
    } else if (environment.readStdin) {
      text = await environment.readStdin();
    } else {
      throw new InputError("no row to read: give a FILE, or pipe the query's result into standard input", {
        fix: "slp diff-from-row --model MODEL result.csv",
      });
    }
    const { row, lineOf } = readRow(text, source);
    const diff = diffFromRow(input.model, row, { ...source, lineOf });
    const json = diffJsonText(diff);
    if (input.out !== undefined) {
      const target = resolve(environment.cwd, input.out);
      try {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, json);
      } catch (error) {
        throw new InputError(`cannot be written: ${(error as Error).message}`, { file: input.out, fix: "choose a path you can write to" });
      }
    }
    return {
      command: "diff-from-row",
      findings: [],
      text: input.out === undefined ? json : `wrote ${input.out}\n`,
      data: { model: input.model, out: input.out ?? null, diff },
    };
  },
});
