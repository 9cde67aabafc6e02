// Loads the rules/ pack shipped with kvgate. Each file is validated with zod when first used; a
// broken pack is an internal error (exit 2), never a silent default.
import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigSchema } from "../config/schema.js";
import { formatZodIssues, parseYamlWithLines } from "../config/issues.js";
import { EnginesFile } from "./engines.js";
import { loadModelCatalog, type ModelCatalog } from "./models.js";
import { loadDetectors, type DetectorSet } from "./detectors.js";
import type { RulesPack } from "./pack.js";
import type { z } from "zod";

/** The folder holding rules/: found by walking up from this module (source tree or dist bundle). */
export function rulesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "rules", "policy.yaml"))) return join(dir, "rules");
    dir = dirname(dir);
  }
  throw new Error("kvgate's rules/ folder is missing next to the installed package; reinstall kvgate");
}

export function readRulesFile(name: string): { text: string; file: string } {
  const file = join(rulesDir(), name);
  return { text: readFileSync(file, "utf8"), file: `rules/${name}` };
}

export function validateYaml<T>(schema: z.ZodType<T>, text: string, file: string): T {
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) throw new Error(`${file}: ${load.errors.join("; ")}`);
  const r = schema.safeParse(load.value);
  if (!r.success) throw new Error(`${file} is invalid: ${formatZodIssues(r.error, load, file).join("; ")}`);
  return r.data;
}

let cached: RulesPack | null = null;

export function loadPack(): RulesPack {
  if (cached) return cached;
  const policy = readRulesFile("policy.yaml");
  const engines = readRulesFile("engines.yaml");
  let models: ModelCatalog | null = null;
  let detectors: DetectorSet | null = null;
  cached = {
    defaults: validateYaml(ConfigSchema, policy.text, policy.file),
    engines: validateYaml(EnginesFile, engines.text, engines.file),
    models() {
      if (!models) {
        const f = readRulesFile("models.yaml");
        models = loadModelCatalog(f.text, f.file);
      }
      return models;
    },
    detectors() {
      if (!detectors) {
        const f = readRulesFile("secrets.yaml");
        detectors = loadDetectors(f.text, f.file);
      }
      return detectors;
    },
  };
  return cached;
}
