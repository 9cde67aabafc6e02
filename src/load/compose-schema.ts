// The Compose Specification's schema check, loaded the first time a compose file is read. build.mjs
// compiles the vendored schema (src/compose/schema/) with ajv into a file of its own beside the
// bundle (dist/compose-schema.cjs, 200 KB): a run that reads no compose file never loads it, and no
// run pays for ajv's compile (a second). Run from the source tree (vitest), the same built file is
// used (the test setup builds it).
import { createRequire } from "node:module";
import type { SchemaCheck, SchemaError } from "../compose/validate.js";

/** Where the compiled validator is, relative to this module as built (build.mjs defines it per bundle). */
declare const __KVGATE_COMPOSE_SCHEMA__: string | undefined;

type Validate = ((doc: unknown) => boolean) & { errors?: SchemaError[] | null };

let validate: Validate | null = null;

function load(): Validate {
  if (validate) return validate;
  const file = typeof __KVGATE_COMPOSE_SCHEMA__ === "string" ? __KVGATE_COMPOSE_SCHEMA__ : "../../dist/compose-schema.cjs";
  let mod: { default?: Validate } & Validate;
  try {
    mod = createRequire(import.meta.url)(file) as typeof mod;
  } catch (e) {
    // A broken install: fail closed with what is missing (the CLI exits 2 on an internal error).
    throw new Error(
      `the compose schema validator (${file}) cannot be loaded: ${(e as Error).message}; reinstall kvgate, or run npm run bundle`,
      { cause: e },
    );
  }
  validate = mod.default ?? mod;
  return validate;
}

/** Checks a compose document against the schema; loads the validator on first use. */
export const composeSchemaCheck: SchemaCheck = (doc) => {
  const v = load();
  return v(doc) ? [] : (v.errors ?? []);
};
