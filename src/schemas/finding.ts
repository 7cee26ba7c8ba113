/** The shape of one finding, shared by every command and renderer. */
import { Type, type Static } from "@sinclair/typebox";

export const Severity = Type.Union([Type.Literal("BLOCK"), Type.Literal("INFO")], {
  description: "BLOCK fails the command (exit 1); INFO is read by a human and never changes the exit code",
});
export type Severity = Static<typeof Severity>;

export const Finding = Type.Object(
  {
    severity: Severity,
    rule: Type.String({ description: "the rule's code, e.g. T1" }),
    name: Type.String({ description: "the rule's kebab-case name, e.g. pk-uniqueness-test" }),
    file: Type.String({ description: "project-relative path the finding is about ('' when none)" }),
    model: Type.String({ description: "the model the finding is about ('' when none)" }),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "1-based line in file, or null" }),
    message: Type.String({ description: "what is wrong and which thing, in words" }),
  },
  { additionalProperties: false },
);
export type Finding = Static<typeof Finding>;
