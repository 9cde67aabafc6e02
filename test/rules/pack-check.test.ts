// The rules/ pack is validated when the bundles are built (build.mjs runs checkedPack): a broken
// file, a file without a schema, or data JSON cannot carry must fail the build, naming the file.
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { checkedPack } from "../../src/rules/pack-check.js";

const RULES = fileURLToPath(new URL("../../rules/", import.meta.url));
const shipped = (): Record<string, unknown> =>
  Object.fromEntries(
    readdirSync(RULES)
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => [f, parse(readFileSync(RULES + f, "utf8"))]),
  );

describe("checkedPack (what the build embeds)", () => {
  it("validates every shipped file and keeps what the schemas return", () => {
    const out = checkedPack(shipped());
    expect(Object.keys(out).sort()).toEqual(["cards.yaml", "engines.yaml", "models.yaml", "policy.yaml", "secrets.yaml"]);
    // The validated catalog, not the raw YAML: the schema's own shape (every model keeps its fields).
    expect(Object.keys((out["models.yaml"] as { models: object }).models).length).toBeGreaterThan(10);
  });

  it("refuses an invalid file, naming it and the field", () => {
    const pack = shipped();
    const engines = pack["engines.yaml"] as { engines: Record<string, unknown> };
    const broken = { ...pack, "engines.yaml": { engines: { ...engines.engines, vllm: { nonsense: true } } } };
    expect(() => checkedPack(broken)).toThrow(/^rules\/engines\.yaml is invalid: engines\.vllm/);
  });

  it("refuses a rules file nothing validates", () => {
    expect(() => checkedPack({ ...shipped(), "extra.yaml": { a: 1 } })).toThrow(
      "rules/extra.yaml has no schema: register it in src/rules/pack-check.ts",
    );
  });
});
