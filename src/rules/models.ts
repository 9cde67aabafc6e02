// PLACEHOLDER until the model catalog lands (issue 3): the catalog type and its loader.
import type { ModelSpec } from "../config/policy.js";

export interface ModelCatalog {
  models: Record<string, ModelSpec>;
}

export function loadModelCatalog(_text: string, _file: string): ModelCatalog {
  return { models: {} };
}
