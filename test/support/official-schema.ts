/**
 * Validates a value against a third-party's published JSON Schema (SARIF,
 * Stryker's mutation report), bundled under test/support/schemas/, with ajv:
 * the schema's own draft decides the validator (2020-12 or draft-07).
 */
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { readFileSync } from "node:fs";

type Validate = ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params: unknown }[] | null };

const compiled = new Map<string, Validate>();

function validatorFor(schemaPath: string): Validate {
  let validate = compiled.get(schemaPath);
  if (!validate) {
    const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
    const draft2020 = typeof schema.$schema === "string" && schema.$schema.includes("2020-12");
    const ajv = draft2020 ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(schema) as Validate;
    compiled.set(schemaPath, validate);
  }
  return validate;
}

/** The schema's complaints about the value, one line each (`/path: message`); [] when it is valid. */
export function validateAgainst(schemaPath: string, value: unknown): string[] {
  const validate = validatorFor(schemaPath);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || "/"}: ${error.message ?? "invalid"} ${JSON.stringify(error.params)}`,
  );
}
