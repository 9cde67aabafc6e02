// vLLM version facts (rules/engines.yaml version_facts) resolved per version, and the version an image names.
import { describe, expect, it } from "vitest";
import { EnginesFile } from "../../src/rules/engines.js";
import type { VersionFact } from "../../src/rules/version-facts.js";
import { compareVersions, normalizeVersion, versionFromImage, vllmFacts, vllmVersionFacts } from "../../src/kv/vllm-versions.js";
import { pack } from "./fixtures.js";

const entries = vllmVersionFacts(pack.engines);

describe("rules/engines.yaml vLLM facts", () => {
  it("cites a vLLM file or PR for every entry", () => {
    expect(entries.length).toBeGreaterThanOrEqual(15);
    for (const e of entries) expect(e.cite, `${e.fact} ${e.since}`).toMatch(/vllm\/|PR #\d+|vLLM/);
    expect(pack.engines.engines.vllm?.version_key).toBe("VLLM_VERSION");
  });

  it("refuses an entry whose version is not a dotted number", () => {
    const bad = structuredClone(pack.engines);
    (bad.engines.vllm?.version_facts as VersionFact[])[0] = { fact: "default_utilization", value: 0.9, since: "latest", cite: "x" };
    expect(EnginesFile.safeParse(bad).success).toBe(false);
  });
});

describe("vllmFacts", () => {
  it("gives the newest known facts without a version", () => {
    expect(vllmFacts(null, entries)).toMatchObject({
      version: null,
      defaultUtilization: 0.92,
      kvCacheMemoryBytesFlag: true,
      maxModelLenAuto: true,
      maxNewTokens: "default",
      cudaGraphsInBudget: true,
      hybridKvCacheManager: true,
      chunkedLocalHybrid: true,
      uncertain: [],
    });
    expect(vllmFacts(null, entries).kvCacheDtypes).toEqual(expect.arrayContaining(["fp8_ds_mla", "int8_per_token_head", "nvfp4"]));
  });

  // version, utilization, --kv-cache-memory-bytes, auto, max_new_tokens, graphs in budget, sliding hybrid, Llama-4 hybrid
  const table: [string, number, boolean, boolean, string, boolean, boolean, boolean][] = [
    ["0.7.3", 0.9, false, false, "ignored", false, false, false],
    ["0.9.2", 0.9, false, false, "cap", false, false, false],
    ["0.10.0", 0.9, false, false, "cap", false, true, true], // PR #17996 / #19351: sliding and chunked in the hybrid manager
    ["0.10.1", 0.9, false, false, "cap", false, true, false], // PR #21761 turned chunked local off again
    ["0.10.2", 0.9, true, false, "cap", false, true, false], // PR #21489: --kv-cache-memory-bytes
    ["v0.11.0", 0.9, true, false, "cap", false, true, false],
    ["0.21.0", 0.9, true, false, "cap", true, true, false], // graph memory profiled inside the budget
  ];
  it.each(table)("%s", (version, util, bytesFlag, auto, cap, graphs, hybrid, chunked) => {
    const f = vllmFacts(version, entries);
    expect([
      f.defaultUtilization,
      f.kvCacheMemoryBytesFlag,
      f.maxModelLenAuto,
      f.maxNewTokens,
      f.cudaGraphsInBudget,
      f.hybridKvCacheManager,
      f.chunkedLocalHybrid,
    ]).toEqual([util, bytesFlag, auto, cap, graphs, hybrid, chunked]);
    expect(f.cites.default_utilization).toMatch(/cache\.py/);
  });

  it("lists the facts it cannot pin for a named version", () => {
    // 0.11.0: the 0.92 default, auto, max_new_tokens as a default and Llama-4's hybrid flip came in
    // releases kvgate has not pinned
    expect(vllmFacts("0.11.0", entries).uncertain).toEqual([
      "default_utilization",
      "max_model_len_auto",
      "max_new_tokens",
      "kv_cache_dtypes",
      "chunked_local_hybrid",
    ]);
    // before the first pinned release of batch_defaults
    expect(vllmFacts("0.7.3", entries).uncertain).toContain("batch_defaults");
    expect(vllmFacts("0.9.2", entries).uncertain).not.toContain("hybrid_kv_cache_manager");
  });

  it("falls back and says so when an entry's value has the wrong type", () => {
    const broken: VersionFact[] = [{ fact: "default_utilization", value: "ninety", since: "0.1.0", cite: "x" }];
    const f = vllmFacts("0.10.0", broken);
    expect(f.defaultUtilization).toBe(0.92);
    expect(f.uncertain).toContain("default_utilization");
  });
});

describe("versions from tags and images", () => {
  const images: [string, string | null][] = [
    ["vllm/vllm-openai:v0.11.0", "0.11.0"],
    ["vllm/vllm-openai:v0.10.1.1", "0.10.1.1"],
    ["docker.io/vllm/vllm-openai:0.9.2", "0.9.2"],
    ["registry.local:5000/vllm/vllm-openai:v0.8.5", "0.8.5"],
    ["vllm/vllm-openai:v0.6.4.post1", "0.6.4"],
    ["vllm/vllm-openai:v0.11.0-cu130", "0.11.0"],
    ["vllm/vllm-openai:latest", null],
    ["vllm/vllm-openai:nightly", null],
    ["vllm/vllm-openai:gptoss", null],
    ["vllm/vllm-openai", null],
    ["registry.local:5000/vllm/vllm-openai", null],
    ["vllm/vllm-openai@sha256:0123abcd", null],
  ];
  it.each(images)("%s → %s", (image, version) => {
    expect(versionFromImage(image)).toBe(version);
  });

  it("reads VLLM_VERSION spellings and compares numerically", () => {
    expect(normalizeVersion("v0.10.2")).toBe("0.10.2");
    expect(normalizeVersion(" 0.11.0 ")).toBe("0.11.0");
    expect(normalizeVersion("main")).toBeNull();
    expect(compareVersions("0.10.1", "0.9.2")).toBeGreaterThan(0);
    expect(compareVersions("0.10", "0.10.0")).toBe(0);
  });
});
