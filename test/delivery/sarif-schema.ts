// The SARIF 2.1.0 schema (committed under fixtures/: the suite runs without network) compiled with ajv.
// ajv-formats is not a dependency, so the three formats the schema names get small checkers here.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { Ajv } from "ajv";

const schema = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "fixtures", "sarif-schema-2.1.0.json"), "utf8"));

function isUri(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(s) && URL.canParse(s);
}
function isUriReference(s: string): boolean {
  return !/\s/.test(s) && URL.canParse(s, "file:///base/");
}

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat("uri", { type: "string", validate: isUri });
ajv.addFormat("uri-reference", { type: "string", validate: isUriReference });
ajv.addFormat("date-time", { type: "string", validate: (s: string) => !Number.isNaN(Date.parse(s)) });
const validate = ajv.compile(schema);

/** Schema errors as `path message` lines; empty when the log is valid. */
export function sarifErrors(log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`);
}
