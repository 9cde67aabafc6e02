// The rules/ pack validated once, when the bundles are built (build.mjs bundles this file and runs
// it), instead of at every start: the bundles embed each file's validated output, which the run
// then reads as is (src/rules/data.ts). Validating the 4 files with zod cost about 29 ms of every
// hook run, on data that cannot change inside a built bundle. From the source tree (tests) every
// file is still validated at load.
import { isDeepStrictEqual } from "node:util";
import type * as z from "zod";
import { configSchema } from "../config/schema.js";
import { EnginesFile } from "./engines.js";
import { modelsFile } from "./models.js";
import { SecretsFile } from "./detectors.js";
import { CardsFile } from "./cards.js";

/** Every rules/*.yaml file and the schema that validates it: a new file must be registered here. */
const PACK_SCHEMAS: Record<string, z.ZodType> = {
  "policy.yaml": configSchema(),
  "engines.yaml": EnginesFile,
  "models.yaml": modelsFile(),
  "secrets.yaml": SecretsFile,
  "cards.yaml": CardsFile,
};

/**
 * Each file's validated output (what `schema.parse` returns), by file name. Throws naming the file
 * when one is invalid, has no schema, or validates to something JSON cannot carry into a bundle.
 */
export function checkedPack(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const schema = PACK_SCHEMAS[name];
    if (!schema) throw new Error(`rules/${name} has no schema: register it in src/rules/pack-check.ts`);
    const r = schema.safeParse(value);
    if (!r.success)
      throw new Error(`rules/${name} is invalid: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(r.data)), r.data)) {
      throw new Error(`rules/${name} validates to values JSON cannot carry (undefined, a Map, a RegExp): the bundle cannot embed it`);
    }
    out[name] = r.data;
  }
  return out;
}
