/**
 * The one JSON object every command prints with `--format json`. Stable
 * keys: a key that can be missing is worse than one that is null.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Finding } from "./finding.ts";

export const EnvelopeError = Type.Object(
  {
    code: Type.String({ description: "stable error code, e.g. E_INPUT, E_USAGE, E_GIT" }),
    message: Type.String({ description: "what could not be judged, in words" }),
    file: Type.Union([Type.String(), Type.Null()], { description: "the file it is in, or null" }),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "the line, or null" }),
    column: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: "the column on that line, or null (known where the engine places an error in a model's SQL)",
    }),
    fix: Type.Union([Type.String(), Type.Null()], { description: "what to do about it, or null" }),
  },
  { additionalProperties: false },
);

export const Envelope = Type.Object(
  {
    command: Type.String({ description: "the task that ran, e.g. check" }),
    version: Type.String({ description: "slp's version" }),
    status: Type.Union([Type.Literal("ok"), Type.Literal("blocked"), Type.Literal("error")], {
      description: "ok: nothing blocks; blocked: at least one BLOCK; error: could not judge",
    }),
    exit_code: Type.Integer({ description: "the process exit code: 0 ok, 1 blocked, 2 error, 3 tcr stop" }),
    summary: Type.String({ description: "the summary line the text format prints last" }),
    findings: Type.Array(Finding, { description: "every finding, sorted as the text lines are" }),
    data: Type.Unknown({ description: "the command's own result (counts, verdicts), or null" }),
    notes: Type.Array(Type.String(), { description: "warnings and remarks that are not findings" }),
    errors: Type.Array(EnvelopeError, { description: "why the command could not judge (status error)" }),
  },
  {
    $id: "envelope.schema.json",
    title: "slp JSON envelope",
    additionalProperties: false,
    description: "What every slp command prints on stdout with --format json: exactly this one object.",
  },
);
export type Envelope = Static<typeof Envelope>;
