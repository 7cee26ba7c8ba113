/**
 * What `slp tcr --format json` puts in the envelope's `data`: what happened
 * to the step (committed, reverted, could not judge), each step's verdict
 * with the findings that made it red and those already at HEAD, the hooks'
 * output, the files, where a reverted change was saved, and what to do next.
 */
import { Type, type Static } from "@sinclair/typebox";
import { EnvelopeError } from "./envelope.ts";
import { Finding } from "./finding.ts";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const TcrChange = Type.Object(
  {
    path: Type.String({ description: "repository-relative" }),
    kind: Type.Union(
      [Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted"), Type.Literal("mode"), Type.Literal("typechange")],
      { description: "mode: only the executable bit changed; typechange: a file became a symlink or back" },
    ),
    before_mode: Nullable(Type.String(), "the mode at HEAD (100644, 100755, 120000), or null when added"),
    after_mode: Nullable(Type.String(), "the mode in the work tree, or null when deleted"),
  },
  { additionalProperties: false },
);

export const TcrStepOutcome = Type.Object(
  {
    name: Type.String(),
    verdict: Type.Union([Type.Literal("green"), Type.Literal("red"), Type.Literal("error"), Type.Literal("skipped")], {
      description:
        "red: it blocks, or it could not judge the change but judges HEAD (cause change); error: it could not judge, and cannot judge HEAD either (cause environment); skipped: it did not run (a commit hook failed first)",
    }),
    exit_code: Nullable(Type.Integer(), "the step's own exit code, or null when skipped"),
    summary: Nullable(Type.String(), "the step's summary line, or null when skipped"),
    findings: Type.Array(Finding, {
      description: "the step's findings, a failing unit test being one (rule unit); blocks already at HEAD are left out",
    }),
    already_at_head: Type.Array(Finding, { description: "blocks HEAD has too (same rule, file, model, message): not this step's doing" }),
    errors: Type.Array(EnvelopeError, { description: "why the step could not judge the change (it exited 2), else []" }),
    cause: Nullable(
      Type.Union([Type.Literal("change"), Type.Literal("environment")]),
      "for a step that could not judge (exit 2): change when the same step judges HEAD (exit 0 or 1), so this change made it unable to: red, its errors are findings; environment when it cannot judge HEAD either (or tcr cannot run it there): nothing reverted, no strike; null when the step judged",
    ),
    at_head: Nullable(
      Type.Object(
        {
          exit_code: Type.Integer(),
          summary: Type.String(),
          errors: Type.Array(EnvelopeError, { description: "why it could not judge HEAD either, else []" }),
        },
        { additionalProperties: false },
      ),
      "the same step run at HEAD, when tcr ran it there (a step that could not judge, or one with blocks); null otherwise",
    ),
    data: Type.Unknown({ description: "the step's own data (unit: every test with the rows only in expected and only in actual)" }),
  },
  { additionalProperties: false },
);

/** A reverted attempt's change as tcr saved it: `--restore NUMBER` puts it back. */
export const TcrSavedAttempt = Type.Object(
  {
    number: Type.Integer({ description: "what --restore takes" }),
    head: Type.String({ description: "the short sha of HEAD the change was made on" }),
    dir: Type.String({ description: "the folder under the git directory, relative to the project" }),
    patch: Type.String({ description: "the change as a binary patch against that HEAD" }),
    subject: Type.String({ description: "the first line of the attempt's message" }),
  },
  { additionalProperties: false },
);

export const TcrHistory = Type.Object(
  {
    attempts: Type.Array(
      Type.Object(
        {
          result: Type.String({ description: "green, red, stopped, cannot-judge, reset, dry-run, nothing-to-commit" }),
          subject: Type.String({ description: "the first line of its message (the reason, for a reset)" }),
          red_steps: Type.Array(Type.String(), { description: "the steps (or the hook) that were red" }),
          files: Type.Array(Type.String()),
          commit: Nullable(Type.String(), "the commit a green attempt made"),
          strikes: Type.Integer({ description: "the strike count after it" }),
          saved: Nullable(Type.Integer(), "the number of its saved change (for --restore), when it was reverted"),
        },
        { additionalProperties: false },
      ),
      { description: "the last attempts, oldest first (the full log is tcr-log.jsonl in the git directory's slp/)" },
    ),
    saved: Type.Array(TcrSavedAttempt, { description: "every saved reverted attempt, oldest first" }),
  },
  { additionalProperties: false },
);

export const TcrData = Type.Object(
  {
    outcome: Type.Union(
      [
        Type.Literal("committed"),
        Type.Literal("nothing-to-commit"),
        Type.Literal("reverted"),
        Type.Literal("stopped"),
        Type.Literal("would-commit"),
        Type.Literal("would-revert"),
        Type.Literal("cannot-judge"),
        Type.Literal("revert-incomplete"),
        Type.Literal("reset"),
        Type.Literal("status"),
        Type.Literal("restored"),
      ],
      {
        description:
          "status: --status, nothing changed; restored: --restore put a saved attempt back in the work tree; stopped: the strike limit is reached; cannot-judge: a step (or git) could not judge, nothing was reverted and no strike counted; revert-incomplete: the revert failed part-way, see restore",
      },
    ),
    branch: Nullable(Type.String(), "the branch the loop commits on"),
    head: Nullable(Type.String(), "HEAD before the step"),
    base: Nullable(
      Type.Object(
        {
          name: Type.String({ description: "as configured (SLP_BASE, slp.yml base, main)" }),
          ref: Type.String({ description: "the ref read: the name, or origin/<name> when only the remote-tracking branch exists" }),
          commit: Type.String(),
        },
        { additionalProperties: false },
      ),
      "the base branch gate compared against, or null when no step needs one",
    ),
    candidate: Nullable(Type.String(), "the commit the steps judged (the branch moves to it only when every step is green)"),
    commit: Nullable(Type.String(), "the new commit, when committed"),
    red_step: Nullable(Type.String(), "the step (or hook) that was not green: the first red one, when several were"),
    red_steps: Type.Array(Type.String(), {
      description:
        "every step that was red in this attempt (or the hook that failed before any step ran); all of them ran, and together they count one strike",
    }),
    steps: Type.Array(TcrStepOutcome),
    hooks: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          exit_code: Type.Integer(),
          output: Type.String({ description: "stdout and stderr as printed (the end of it, when long)" }),
        },
        { additionalProperties: false },
      ),
      { description: "the repository's hooks run as git commit runs them (pre-commit, prepare-commit-msg, commit-msg, post-commit)" },
    ),
    files: Type.Array(TcrChange, { description: "what the step changed since HEAD" }),
    strikes: Type.Integer({ description: "consecutive reds after this call" }),
    strike_limit: Type.Integer(),
    saved: Nullable(
      Type.Object(
        {
          dir: Type.String({ description: "the folder under the git directory, relative to the project" }),
          patch: Type.String({ description: "the change as a binary patch against HEAD" }),
          apply: Type.String({ description: "the command that brings the change back" }),
          files: Type.Array(Type.String(), { description: "copies of the files the change added" }),
          moved_aside: Type.Array(Type.String(), { description: "ignored files that stood where HEAD has a file, moved here" }),
        },
        { additionalProperties: false },
      ),
      "where a reverted change was saved, or null",
    ),
    restore: Nullable(
      Type.Object(
        {
          done: Type.Integer(),
          failed: Nullable(
            Type.Object({ action: Type.String(), path: Type.String(), error: Type.String() }, { additionalProperties: false }),
            "the step that failed",
          ),
          left: Type.Array(Type.Object({ action: Type.String(), path: Type.String() }, { additionalProperties: false }), {
            description: "the restore steps not applied (the failed one first)",
          }),
        },
        { additionalProperties: false },
      ),
      "how a revert that stopped part-way left the work tree, or null",
    ),
    trailers: Type.Array(Type.Object({ key: Type.String(), value: Type.String() }, { additionalProperties: false }), {
      description: "the git trailers the commit carries (or would carry)",
    }),
    reset: Nullable(
      Type.Object({ was: Type.Integer(), by: Type.String(), reason: Type.String() }, { additionalProperties: false }),
      "for --reset: the count cleared, who cleared it and why (the next commit records it)",
    ),
    restored: Nullable(
      Type.Object(
        {
          number: Type.Integer(),
          files: Type.Array(Type.String(), { description: "the repository paths the saved patch wrote into the work tree" }),
        },
        { additionalProperties: false },
      ),
      "for --restore: which saved attempt was put back, and the paths it wrote; null otherwise",
    ),
    history: Nullable(TcrHistory, "for --status: the last attempts and the saved reverted ones; null otherwise"),
    next: Type.String({
      description:
        "what to do next: after a red, one line per kind of fix its findings carry (the human's first, then the pre-registration, the tests, the SQL), joined by newlines",
    }),
  },
  {
    $id: "tcr.schema.json",
    title: "slp tcr data",
    additionalProperties: false,
    description: "The data of `slp tcr --format json`.",
  },
);
export type TcrData = Static<typeof TcrData>;
export type TcrStepOutcome = Static<typeof TcrStepOutcome>;
