/**
 * `slp.yml`, the optional settings file at the repository root. `gate` reads
 * it from the base commit, so a branch cannot loosen the rules that judge it.
 */
import { Type, type Static } from "@sinclair/typebox";
import { LIMIT_NAMES, LIMITS } from "../core/limits.ts";

const Path = Type.String({ minLength: 1, description: "must be a path relative to the repository root" });

export const Config = Type.Object(
  {
    marts_paths: Type.Optional(
      Type.Array(Path, {
        minItems: 1,
        description: "must list the folders whose models are marts (default [models/marts]); --marts-path replaces it",
      }),
    ),
    protected_paths: Type.Optional(
      Type.Array(Path, {
        description:
          "must list extra paths only a human may change (a trailing / protects a folder), added to the built-in set",
      }),
    ),
    base: Type.Optional(
      Type.String({ minLength: 1, description: "must name the branch pull requests target (default main)" }),
    ),
    tcr: Type.Optional(
      Type.Object(
        {
          steps: Type.Optional(
            Type.Array(Type.String({ minLength: 1, description: "must name a task" }), {
              minItems: 1,
              description: "must list the tasks the loop runs, in order (default [check, gate, unit])",
            }),
          ),
        },
        { additionalProperties: false, description: "must configure the TCR loop (slp tcr)" },
      ),
    ),
    limits: Type.Optional(
      Type.Object(
        Object.fromEntries(
          LIMIT_NAMES.map((name) => [
            name,
            Type.Optional(Type.Number({ description: `must be a number of ${LIMITS[name].unit}: ${LIMITS[name].bounds} (default ${LIMITS[name].default})` })),
          ]),
        ),
        {
          additionalProperties: false,
          description: "must raise or lower slp's resource limits (the README's Limits section); SLP_LIMIT_<NAME> in the environment wins",
        },
      ),
    ),
    tasks: Type.Optional(
      Type.Record(
        Type.String(),
        Type.String({ minLength: 1, description: "must be a shell command (run with Bun Shell at the repository root)" }),
        { description: "must map each task name to the shell command it runs; `slp run <name>` runs it" },
      ),
    ),
  },
  {
    $id: "config.schema.json",
    title: "slp.yml",
    additionalProperties: false,
    description: "Settings for slp, at the repository root. Every key is optional.",
  },
);
export type Config = Static<typeof Config>;
