// vLLM version facts (rules/engines.yaml version_facts) resolved per version, and the version an image names.
import { describe, expect, it } from "vitest";
import { EnginesFile } from "../../src/rules/engines.js";
import type { VersionFact } from "../../src/rules/version-facts.js";
import {
  allowedVersions,
  compareVersions,
  deployedVllmVersion,
  normalizeVersion,
  versionFromImage,
  versionGroups,
  vllmFacts,
  vllmVersionFacts,
} from "../../src/kv/vllm-versions.js";
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
    ["0.16.0", 0.9, true, true, "cap", false, true, true], // PR #29431 (auto) and #29627 on the v0.16.0 branch
    ["0.17.0", 0.9, true, true, "default", false, true, true], // PR #34063: max_new_tokens a default
    ["0.21.0", 0.92, true, true, "default", true, true, true], // PR #38284: graphs inside the budget, default 0.92
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
    // 0.11.0: auto and Llama-4's hybrid flip were merged before 0.16.0 in a release kvgate has not
    // pinned; the newest KV dtypes are not pinned at all
    expect(vllmFacts("0.11.0", entries).uncertain).toEqual(["max_model_len_auto", "kv_cache_dtypes", "chunked_local_hybrid"]);
    expect(vllmFacts("0.16.0", entries).uncertain).toEqual(["kv_cache_dtypes"]);
    expect(vllmFacts("0.9.2", entries).uncertain).not.toContain("hybrid_kv_cache_manager");
  });

  // version → NCCL in the profile, graphs, MLA latent cache, PP request, Gemma-2 window cap
  const more: [string, boolean, string, boolean, string, boolean][] = [
    ["0.5.0", true, "full", false, "stage", false],
    ["0.5.1", true, "full", false, "stage", true], // PR #5908: Gemma-2 capped to its window
    ["0.6.5", true, "full", false, "stage", false], // PR #10584: full context for Gemma-2
    ["0.7.1", true, "full", true, "stage", false], // PR #12528 / #12601: MLA latent cache
    ["0.8.0", true, "piecewise", true, "stage", false], // V1 by default (PR #13726): piecewise graphs
    ["0.11.0", false, "full_and_piecewise", true, "model", false], // PR #25359, FULL_AND_PIECEWISE, PR #23974
    ["0.17.0", false, "full_and_piecewise", true, "stage", false], // PR #33698: each stage's own layers again
  ];
  it.each(more)("%s: the profiler's NCCL, graphs, MLA, PP and Gemma-2 facts", (version, nccl, mode, mla, scope, gemma2) => {
    const f = vllmFacts(version, entries);
    expect([f.ncclInProfile, f.cudaGraphs.mode, f.mlaCache, f.ppRequestScope, f.gemma2WindowCap]).toEqual([nccl, mode, mla, scope, gemma2]);
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

describe("the releases a seat without a version is sized for (engines.vllm.versions)", () => {
  const known = pack.engines.engines.vllm?.versions ?? [];
  it("defaults to the last three minor releases known", () => {
    expect(allowedVersions(known, null)).toEqual(["0.19.0", "0.20.0", "0.21.0"]);
  });

  // range → releases
  const ranges: [string, string[]][] = [
    [">=0.20", ["0.20.0", "0.21.0"]],
    [">=0.10 <0.11", ["0.10.0", "0.10.1", "0.10.2"]],
    ["0.11.x", ["0.11.0", "0.11.1"]],
    ["0.9", ["0.9.0", "0.9.1", "0.9.2"]],
    ["=0.10.2", ["0.10.2"]],
    // newer than kvgate has read: the newest known stands in
    [">=0.30", ["0.21.0"]],
  ];
  it.each(ranges)("%s", (range, versions) => {
    expect(allowedVersions(known, range)).toEqual(versions);
  });

  it("sizes releases with the same facts once: 0.19–0.20 apart from 0.21 (graphs in the budget, 0.92)", () => {
    const groups = versionGroups(["0.19.0", "0.20.0", "0.21.0"], entries);
    expect(groups.map((g) => g.versions)).toEqual([["0.19.0", "0.20.0"], ["0.21.0"]]);
    expect(groups.map((g) => g.facts.cudaGraphsInBudget)).toEqual([false, true]);
  });

  it("resolves a release's facts once a pack: the same facts for the same version, others for another", () => {
    const facts = vllmFacts("0.20.0", entries);
    expect(vllmFacts("v0.20.0", entries)).toBe(facts);
    expect(vllmFacts("0.21.0", entries)).not.toBe(facts);
    expect(vllmFacts("0.21.0", entries).cudaGraphsInBudget).toBe(true);
    // Another pack's entries (an edited copy) are resolved on their own, never from the first's memory.
    const edited = entries.map((e) => (e.fact === "default_utilization" ? { ...e, value: 0.5 } : e));
    expect(vllmFacts("0.20.0", edited).defaultUtilization).toBe(0.5);
    expect(vllmFacts("0.20.0", entries).defaultUtilization).toBe(facts.defaultUtilization);
    expect(versionGroups(["0.19.0", "0.20.0", "0.21.0"], entries)).toBe(versionGroups(["0.19.0", "0.20.0", "0.21.0"], entries));
    expect(versionGroups(["0.19.0", "0.20.0"], entries).map((g) => g.versions)).toEqual([["0.19.0", "0.20.0"]]);
  });

  it("reads the deployed version from VLLM_VERSION, else the image tag, else null", () => {
    const svc = (env: Record<string, string>) => {
      const all = Object.entries(env).map(([key, value]) => ({ key, value }));
      return { settings: {}, env: { all, entries: new Map(all.map((e) => [e.key, e])) } as never };
    };
    expect(deployedVllmVersion(svc({ VLLM_VERSION: "v0.10.2" }))).toBe("0.10.2");
    expect(deployedVllmVersion(svc({ IMAGE: "vllm/vllm-openai:v0.11.0" }))).toBe("0.11.0");
    expect(deployedVllmVersion(svc({ VLLM_IMAGE: "vllm/vllm-openai:v0.8.5" }))).toBe("0.8.5");
    expect(deployedVllmVersion(svc({ DOCKER_IMAGE: "vllm/vllm-openai:latest" }))).toBeNull();
    expect(deployedVllmVersion(svc({}))).toBeNull();
  });
});
