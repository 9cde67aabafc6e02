import { describe, expect, it } from "vitest";
import { CHECKS } from "../../src/checks/registry.js";

const SECTIONS_4_AND_5 = [
  "engine/unknown-model",
  "gen/output-cap",
  "gpu/fits",
  "kv/boot-check",
  "kv/context-max",
  "kv/covers-context",
  "kv/exception",
  "kv/long-context-override",
  "kv/oversized",
  "kv/unpinned-shared-card",
  "kv/yarn",
];

describe("the kv rules", () => {
  it("registers every rule of sections 4 and 5 in id order", () => {
    expect(CHECKS.map((k) => k.id).filter((id) => SECTIONS_4_AND_5.includes(id))).toEqual(SECTIONS_4_AND_5);
  });
});
