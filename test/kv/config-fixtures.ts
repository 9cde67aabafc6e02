// The published config.json copies under test/kv/configs, read through the real reader.
import { readFileSync } from "node:fs";
import { readHfConfig } from "../../src/kv/hf-config.js";
import { factsFromSpec, type ModelFacts } from "../../src/kv/facts.js";
import { pack } from "./fixtures.js";

export function configText(name: string): string {
  return readFileSync(`test/kv/configs/${name}.json`, "utf8");
}

export function configFacts(name: string): ModelFacts {
  const file = `test/kv/configs/${name}.json`;
  const r = readHfConfig(configText(name), file);
  if (!r.ok) throw new Error(r.problem.message);
  return r.facts;
}

export function catalogFacts(id: string): ModelFacts {
  const m = pack.models().models[id];
  if (!m) throw new Error(`no ${id} in rules/models.yaml`);
  return factsFromSpec(m);
}
