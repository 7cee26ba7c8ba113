/** The shape of one finding, shared by every command and renderer. */
import { Type, type Static } from "@sinclair/typebox";

export const Severity = Type.Union([Type.Literal("BLOCK"), Type.Literal("INFO")], {
  description: "BLOCK fails the command (exit 1); INFO is read by a human and never changes the exit code",
});
export type Severity = Static<typeof Severity>;

/**
 * Whose move a finding is, and what that move is: what tcr's advice after a
 * red is built from (an agent told "fix the code" for a wrong test it just
 * wrote, or for a spec only a human may change, loses turns or does harm).
 */
export const FIX_KINDS = {
  sql: "the model's code is what is wrong: fix its SQL, or the yml that declares it, not the tests (Rule 3)",
  test: "a test is what is wrong or missing: check the expectation of a test written on this branch, or write the test the finding asks for",
  "pre-registration": "the prediction is what is wrong: fix the model's meta.pre_registration, before any diff is measured",
  human: "the human's: stop and ask; a spec, a protected path, a test the base has and the branch's history are a human's to change",
} as const;
export type FixKind = keyof typeof FIX_KINDS;

export const FixKind = Type.Union(
  [Type.Literal("sql"), Type.Literal("test"), Type.Literal("pre-registration"), Type.Literal("human")] satisfies {
    const: FixKind;
  }[],
  {
    description: `whose move it is: ${Object.entries(FIX_KINDS)
      .map(([kind, words]) => `${kind}: ${words}`)
      .join("; ")}`,
  },
);

export const Finding = Type.Object(
  {
    severity: Severity,
    rule: Type.String({ description: "the rule's code, e.g. T1" }),
    name: Type.String({ description: "the rule's kebab-case name, e.g. pk-uniqueness-test" }),
    file: Type.String({ description: "project-relative path the finding is about ('' when none)" }),
    model: Type.String({ description: "the model the finding is about ('' when none)" }),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "1-based line in file, or null" }),
    message: Type.String({ description: "what is wrong and which thing, in words" }),
    fix: FixKind,
  },
  { additionalProperties: false },
);
export type Finding = Static<typeof Finding>;
