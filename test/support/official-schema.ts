/**
 * Validates a value against a third party's official JSON Schema (Stryker's
 * mutation-testing-report schema, SARIF), bundled in the repository, with
 * ajv: the validator those schemas are published for, in tests only.
 */
import Ajv from "ajv";
import { readFileSync } from "node:fs";

const compiled = new Map<string, ReturnType<Ajv["compile"]>>();

/** Every error (`/path: message`), or [] when `value` is valid against the schema at `schemaPath`. */
export function validateAgainst(schemaPath: string, value: unknown): string[] {
  let validate = compiled.get(schemaPath);
  if (!validate) {
    const schema = JSON.parse(readFileSync(schemaPath, "utf8")) as Record<string, unknown>;
    // draft-07 schemas carry a `$schema` ajv knows; formats (uri) are not asserted, as the spec allows.
    validate = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
    compiled.set(schemaPath, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || "/"}: ${error.message ?? "invalid"}`);
}
