// Loads the rules/ pack shipped with kvgate. Each file is validated with zod when first used; a
// broken pack is an internal error (exit 2), never a silent default.
import { configSchema } from "../config/schema.js";
import { EnginesFile } from "./engines.js";
import { builtinModels, type ModelCatalog } from "./models.js";
import { builtinDetectors, type DetectorSet } from "./detectors.js";
import { rulesData } from "./data.js";
import { builtinCards } from "./cards.js";
import type { RulesPack } from "./pack.js";

let cached: RulesPack | null = null;

export function loadPack(): RulesPack {
  if (cached) return cached;
  let models: ModelCatalog | null = null;
  let detectors: DetectorSet | null = null;
  cached = {
    defaults: rulesData(configSchema, "policy.yaml"),
    engines: rulesData(EnginesFile, "engines.yaml"),
    models() {
      models ??= builtinModels();
      return models;
    },
    detectors() {
      detectors ??= builtinDetectors();
      return detectors;
    },
    cards: builtinCards,
  };
  return cached;
}
