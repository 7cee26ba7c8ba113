/**
 * The one fuel budget of a render: loop iterations and calls (template_steps),
 * macro call depth (nesting_depth) and text written (template_output_mb), all
 * from src/core/limits.ts. Nested renders (a macro file read on first use
 * inside a model's render) share the outer one.
 */
import { formatLimit, limit, limitBytes, LimitError } from "../../core/limits.ts";

interface Budget {
  steps: number;
  output: number;
  depth: number;
  maxSteps: number;
  maxOutput: number;
  maxDepth: number;
}
let budget: Budget | null = null;

/** Runs `run` under the current budget, opening one when none is open. */
export function withBudget<T>(run: () => T): T {
  if (budget) return run();
  budget = {
    steps: 0,
    output: 0,
    depth: 0,
    maxSteps: limit("template_steps"),
    maxOutput: limitBytes("template_output_mb"),
    maxDepth: limit("nesting_depth"),
  };
  try {
    return run();
  } finally {
    budget = null;
  }
}

/** Charges `count` steps (loop iterations, calls, items copied) to the current render. */
export function spend(count = 1): void {
  if (!budget) return;
  budget.steps += count;
  if (budget.steps > budget.maxSteps) {
    throw new LimitError(
      "template_steps",
      `the template takes more than ${formatLimit("template_steps")} (loop iterations and calls) to render`,
    );
  }
}

/** Every piece written to an output buffer (the template's, a macro's, a {% set %} block's) is counted. */
export function written(text: string): string {
  if (budget) {
    budget.output += text.length;
    if (budget.output > budget.maxOutput) throw tooMuchOutput();
  }
  return text;
}

/** Refuses a text longer than one render may produce. */
export function bounded<T>(value: T): T {
  if (typeof value === "string" && value.length > limitBytes("template_output_mb")) throw tooMuchOutput();
  return value;
}

/** Refuses a width or count before a string or list that large is built. */
export function sized(count: unknown): number {
  const n = Math.max(0, Math.trunc(Number(count) || 0));
  if (n > limitBytes("template_output_mb")) throw tooMuchOutput();
  return n;
}

function tooMuchOutput(): LimitError {
  return new LimitError("template_output_mb", `the template writes more than ${formatLimit("template_output_mb")} of text`);
}

/** One macro call deeper; the returned function steps back out. */
export function deeper(): () => void {
  if (!budget) return () => {};
  const current = budget;
  current.depth += 1;
  if (current.depth > current.maxDepth) {
    current.depth -= 1;
    throw new LimitError("nesting_depth", `macros call each other more than ${formatLimit("nesting_depth")} deep`);
  }
  return () => {
    current.depth -= 1;
  };
}

/** A stack overflow (a construct nested beyond what the engine can hold) as the limit it is. */
export function tooDeepIfOverflow(error: unknown): unknown {
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new LimitError(
      "nesting_depth",
      "the template nests expressions deeper than the engine can follow (split the long expression into {% set %} steps)",
    );
  }
  return error;
}
