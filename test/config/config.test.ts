import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { parseConfig, loadPolicy, rememberConfigsIn, type ConfigMemory } from "../../src/config/load.js";
import { loadPack } from "../../src/rules/load.js";
import { GateError } from "../../src/errors.js";
import { configJsonSchema } from "../../src/cli/commands/schema.js";
import { GiB } from "../../src/units/bytes.js";
import { resolvePolicy } from "../../src/config/policy.js";
import { DEFAULTS } from "../helpers/policy-defaults.js";

function problems(text: string): string[] {
  try {
    parseConfig(text, "kvgate.yaml");
  } catch (e) {
    if (e instanceof GateError) return e.details;
    throw e;
  }
  return [];
}

describe("kvgate.yaml validation", () => {
  test("every problem is reported at once, with its path and line", () => {
    const details = problems(
      [
        "version: 1",
        "kv:",
        "  seats:",
        "    voices: { factor: high }",
        "fleet:",
        "  hosts:",
        "    h: { gpus: [ { index: 0, total: 96 gigs } ] }",
        "bogus: 1",
      ].join("\n"),
    );
    expect(details).toHaveLength(3);
    expect(details.some((d) => /^kv\.seats\.voices\.factor: .*expected number.* \(kvgate\.yaml:4\)$/.test(d))).toBe(true);
    expect(details.some((d) => /^fleet\.hosts\.h\.gpus\.0\.total: .*\(kvgate\.yaml:7\)$/.test(d))).toBe(true);
    expect(details.some((d) => /unknown key "bogus"/.test(d))).toBe(true);
  });
  test("a card's cuda_total that is not a byte quantity is refused with its path", () => {
    const details = problems(["fleet:", "  hosts:", "    h: { gpus: [ { index: 0, total: 96GiB, cuda_total: 95.6 gigs } ] }"].join("\n"));
    expect(details).toHaveLength(1);
    expect(details[0]).toMatch(/^fleet\.hosts\.h\.gpus\.0\.cuda_total: .*\(kvgate\.yaml:3\)$/);
  });
  test("a Kubernetes pool names its card or its CUDA total; its count is a whole number; kubernetes is a glob or a list", () => {
    const details = problems(
      ["kubernetes: []", "fleet:", "  pools:", "    l4: { count: 2 }", "    h100: { card: NVIDIA-H100-80GB-HBM3, count: 1.5 }"].join("\n"),
    );
    expect(details).toHaveLength(3);
    expect(details.some((d) => /^kubernetes: .*\(kvgate\.yaml:1\)$/.test(d))).toBe(true);
    expect(details.some((d) => /^fleet\.pools\.l4: name the pool's card, or give its cuda_total_mib \(kvgate\.yaml:4\)$/.test(d))).toBe(
      true,
    );
    expect(details.some((d) => /^fleet\.pools\.h100\.count: .*\(kvgate\.yaml:5\)$/.test(d))).toBe(true);
    const pack = loadPack();
    const policy = loadPolicy(
      'kubernetes: "ops/**/*.yaml"\nfleet: { pools: { l4: { card: NVIDIA-L4, reserve: 512MiB } } }\n',
      "kvgate.yaml",
      pack,
    );
    expect([policy.kubernetes, policy.fleet.pools.l4]).toEqual([
      ["ops/**/*.yaml"],
      { card: "NVIDIA-L4", cuda_total_mib: null, count: null, reserve_bytes: 512 * 2 ** 20, device_plugin_config: null },
    ]);
  });
  test("a KV factor below 1 is refused for the policy and for a seat; exactly 1 is accepted", () => {
    const details = problems(["kv:", "  factor: 0.9", "  seats:", "    voices: { factor: 0.5 }"].join("\n"));
    expect(details).toEqual([
      "kv.factor: must be at least 1: vLLM refuses to boot when the KV cache cannot hold one max-length request; use 1 for exactly one request (kvgate.yaml:2)",
      "kv.seats.voices.factor: must be at least 1: vLLM refuses to boot when the KV cache cannot hold one max-length request; use 1 for exactly one request (kvgate.yaml:4)",
    ]);
    expect(problems("kv: { factor: 1, seats: { voices: { factor: 1 } } }\n")).toEqual([]);
  });
  test("a YAML syntax error names the line", () => {
    expect(problems("kv:\n  factor: [1.25\n")[0]).toMatch(/kvgate\.yaml:\d+/);
  });
  test("a config of the wrong type at the top", () => {
    expect(problems("- just\n- a list\n")[0]).toMatch(/\(top level\): .*expected object/);
  });
  test("an empty file means the defaults", () => {
    expect(parseConfig("", "kvgate.yaml")).toEqual({});
    expect(parseConfig(null, "kvgate.yaml")).toEqual({});
  });
});

describe("resolved policy", () => {
  const pack = loadPack();
  test("defaults come from rules/policy.yaml", () => {
    const p = loadPolicy(null, "kvgate.yaml", pack);
    expect(p.kv).toEqual({ factor: 1.25, round_bytes: GiB / 2, seats: {} });
    expect(p.vllm).toEqual({
      overhead_bytes: 2 * GiB,
      default_utilization: 0.92,
      default_utilization_set: false,
      context_overhead_bytes: 512 * 1024 ** 2,
    });
    expect(p.engines).toEqual({ generic: [], vllm: { versions: null } });
    expect(p.services).toBe("scripts/*.env");
    expect(p.knobs.enforce).toEqual(["radiance"]);
    expect(p.secrets.override).toBe("ALLOW_SECRETS");
  });
  test("the hand-built test defaults are rules/policy.yaml's", () => {
    expect(resolvePolicy(DEFAULTS, {})).toEqual(loadPolicy(null, "kvgate.yaml", pack));
  });
  test("user values merge over defaults and byte quantities resolve", () => {
    const p = loadPolicy(
      "kv: { factor: 1.5, seats: { m: { pinned: 22GiB, by: Prime } } }\nfleet: { hosts: { h: { gpus: [{ index: 0, total: 96GiB, reserve: 512MiB }] } } }",
      "kvgate.yaml",
      pack,
    );
    expect(p.kv.factor).toBe(1.5);
    expect(p.kv.round_bytes).toBe(GiB / 2);
    expect(p.kv.seats.m).toEqual({ pinned_bytes: 22 * GiB, by: "Prime" });
    expect(p.fleet.hosts.h?.gpus).toEqual([{ index: 0, total_bytes: 96 * GiB, reserve_bytes: 512 * 1024 ** 2 }]);
  });
  test('a card\'s cuda_total (what nvidia-smi reports: 97,887 MiB on a "96 GB" card) is carried beside its total', () => {
    const p = loadPolicy(
      "fleet: { hosts: { h: { gpus: [{ index: 0, total: 96GiB, cuda_total: 97887MiB }, { index: 1, total: 96GiB }] } } }",
      "kvgate.yaml",
      pack,
    );
    expect(p.fleet.hosts.h?.gpus).toEqual([
      { index: 0, total_bytes: 96 * GiB, reserve_bytes: 0, cuda_total_bytes: 97887 * 1024 ** 2 },
      { index: 1, total_bytes: 96 * GiB, reserve_bytes: 0 },
    ]);
  });
  test("a card rules/cards.yaml knows by name takes its CUDA total from the table (A100-SXM4-80GB: 81,050 MiB); a total given wins", () => {
    const p = loadPolicy(
      "fleet: { hosts: { h: { gpus: [{ index: 0, name: NVIDIA A100-SXM4-80GB }, { index: 1, name: A100-SXM4-80GB, total: 80GiB }] } } }",
      "kvgate.yaml",
      pack,
    );
    expect(p.fleet.hosts.h?.gpus).toEqual([
      // cuda_total equal to total is left out: the card's total is then what CUDA reports.
      { index: 0, name: "NVIDIA A100-SXM4-80GB", total_bytes: 81050 * 1024 ** 2, reserve_bytes: 0 },
      { index: 1, name: "A100-SXM4-80GB", total_bytes: 80 * GiB, reserve_bytes: 0, cuda_total_bytes: 81050 * 1024 ** 2 },
    ]);
  });
  test("a card with neither a total nor a name the table knows is refused at its line, naming the fix", () => {
    const text = "fleet:\n  hosts:\n    h:\n      gpus:\n        - { index: 0, name: Radeon 9000 }\n        - { index: 1 }\n";
    let details: string[] = [];
    try {
      loadPolicy(text, "kvgate.yaml", pack);
    } catch (e) {
      if (!(e instanceof GateError)) throw e;
      details = e.details;
    }
    expect(details).toEqual([
      'fleet.hosts.h.gpus.0.total: required: rules/cards.yaml does not know the card "Radeon 9000", so give its total memory (e.g. total: 80GiB) (kvgate.yaml:5)',
      "fleet.hosts.h.gpus.1.total: required: the card's total memory (e.g. total: 80GiB), or a `name` rules/cards.yaml knows (e.g. name: A100-SXM4-80GB) (kvgate.yaml:6)",
    ]);
  });
});

describe("the JSON Schema", () => {
  test("rules/kvgate.schema.json is what `kvgate schema` prints (regenerate: node bin/kvgate.js schema > rules/kvgate.schema.json)", () => {
    expect(readFileSync("rules/kvgate.schema.json", "utf8")).toBe(configJsonSchema());
  });
  test("the schema knows the contract's keys", () => {
    const schema = JSON.parse(configJsonSchema());
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        "compose",
        "engines",
        "fleet",
        "kv",
        "knobs",
        "kubernetes",
        "ledgers",
        "models",
        "observed",
        "playbooks",
        "radiance",
        "secrets",
        "services",
        "systemd",
        "ttm",
        "usage",
        "version",
        "vllm",
        "waivers",
      ].sort(),
    );
    expect(schema.additionalProperties).toBe(false);
  });
});

describe("the rules/ pack", () => {
  test("every rules/ file validates at load", () => {
    const pack = loadPack();
    expect(Object.keys(pack.engines.engines).sort()).toEqual(["radiance", "vllm"]);
    expect(pack.defaults.version).toBe(1);
    expect(() => pack.models()).not.toThrow();
    expect(() => pack.detectors()).not.toThrow();
  });
  test("the example config validates", () => {
    expect(() => parseConfig(readFileSync("examples/fleet/kvgate.yaml", "utf8"), "examples/fleet/kvgate.yaml")).not.toThrow();
  });
});

describe("configs validated before (the CLI's cache: src/cli/config-cache.ts)", () => {
  test("a text validated once is taken from the memory; a broken one is never kept; none without a memory", () => {
    const kept = new Map<string, unknown>();
    const memory: ConfigMemory = {
      get: (file, text, cards) => kept.get(`${file}|${cards}|${text}`) as ReturnType<ConfigMemory["get"]>,
      put: (file, text, cards, config) => void kept.set(`${file}|${cards}|${text}`, config),
    };
    rememberConfigsIn(memory);
    try {
      expect(parseConfig("kv:\n  factor: 2\n", "kvgate.yaml")).toEqual({ kv: { factor: 2 } });
      expect([...kept.keys()]).toEqual(["kvgate.yaml|false|kv:\n  factor: 2\n"]);
      // What the memory holds is what a run gets: the text is not parsed again.
      kept.set("kvgate.yaml|false|kv:\n  factor: 2\n", { kv: { factor: 3 } });
      expect(parseConfig("kv:\n  factor: 2\n", "kvgate.yaml")).toEqual({ kv: { factor: 3 } });
      // With the card table it is another validation (a named card's total is then optional).
      expect(parseConfig("kv:\n  factor: 2\n", "kvgate.yaml", () => null)).toEqual({ kv: { factor: 2 } });
      for (let i = 0; i < 2; i++) expect(() => parseConfig("kv:\n  factor: high\n", "kvgate.yaml")).toThrow(GateError);
      expect(kept.size).toBe(2);
    } finally {
      rememberConfigsIn(null);
    }
    expect(parseConfig("kv:\n  factor: 2\n", "kvgate.yaml")).toEqual({ kv: { factor: 2 } });
  });
});
