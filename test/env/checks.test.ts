import { describe, expect, test } from "vitest";
import { runMemory, openRules } from "../helpers/memory.js";

const radiance = (extra: string) => `ENGINE=radiance\nHOST=h\nGPU=0,1\n${extra}\n`;
const fleet = "fleet:\n  hosts:\n    h: { gpus: [ { index: 0, total: 96GiB }, { index: 1, total: 96GiB } ] }\n";
const only = (rule: string) => (f: { rule: string }) => f.rule === rule;

describe("env/parse", () => {
  test("fails on a bad line, with the line", async () => {
    const f = await runMemory({ after: { "scripts/a.env": "A=1\nnot a line\n" } });
    expect(openRules(f).filter(([r]) => r === "env/parse")).toEqual([["env/parse", 2]]);
    expect(f.find(only("env/parse"))?.message).toMatch(/line 2 is not KEY=VALUE/);
  });
  test("passes a clean file", async () => {
    expect((await runMemory({ after: { "scripts/a.env": "A=1\n# c\n\nexport B='x'\n" } })).filter(only("env/parse"))).toEqual([]);
  });
  test("a non-UTF-8 or NUL file is a finding, not a crash", async () => {
    const f = await runMemory({ after: { "scripts/a.env": "A=\u0000\n" } });
    expect(f.find(only("env/parse"))?.message).toMatch(/NUL byte/);
  });
});

describe("env/duplicate-key", () => {
  test("warns at the second line", async () => {
    const f = await runMemory({ after: { "scripts/a.env": "A=1\nA=2\n" } });
    expect(f.filter(only("env/duplicate-key")).map((x) => [x.severity, x.line])).toEqual([["warning", 2]]);
  });
  test("silent without duplicates", async () => {
    expect((await runMemory({ after: { "scripts/a.env": "A=1\nB=2\n" } })).filter(only("env/duplicate-key"))).toEqual([]);
  });
});

describe("env/conflict", () => {
  test("env key and flag differ: the flag wins, a warning at the flag's line", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/r.env": radiance('MAX_SEQS=8\nRADIANCE_ARGS="--max-num-seqs 16"') } });
    const c = f.find(only("env/conflict"));
    expect(c?.line).toBe(5);
    expect(c?.message).toBe("r: --max-num-seqs 16 wins over MAX_SEQS=8 (line 4); remove one of them so the file says one number");
  });
  test("the same value in both places is not a conflict", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/r.env": radiance('MAX_SEQS=8\nRADIANCE_ARGS="--max-num-seqs=8"') } });
    expect(f.filter(only("env/conflict"))).toEqual([]);
  });
});

describe("engine/removed-flag", () => {
  test("--vram-kv-mib on radiance (newest by default) is an error at its line", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/r.env": radiance('SERVE_ARGS="--vram-kv-mib 4096"') } });
    const r = f.find(only("engine/removed-flag"));
    expect([r?.severity, r?.line]).toEqual(["error", 4]);
    expect(r?.message).toMatch(/--vram-kv-mib was removed in radiance 1\.8\.1.*--max-num-seqs/);
  });
  test("the env spelling VRAM_WEIGHTS_MIB too", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/r.env": radiance("VRAM_WEIGHTS_MIB=9800") } });
    expect(openRules(f).filter(([r]) => r === "engine/removed-flag")).toEqual([["engine/removed-flag", 4]]);
  });
  test("allowed on radiance 1.8.0", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/r.env": radiance('RADIANCE_VERSION=1.8.0\nSERVE_ARGS="--vram-kv-mib 4096"') } });
    expect(f.filter(only("engine/removed-flag"))).toEqual([]);
  });
  test("not a radiance flag on vLLM", async () => {
    const f = await runMemory({ after: { "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--vram-kv-mib 4096"' } });
    expect(f.filter(only("engine/removed-flag"))).toEqual([]);
  });
});

describe("engine/bad-value", () => {
  test.each([
    ['SERVE_ARGS="--kv-cache-memory-bytes 22GiB"', "--kv-cache-memory-bytes"],
    ['SERVE_ARGS="--kv-cache-memory-bytes 22GB"', "--kv-cache-memory-bytes"],
    ['SERVE_ARGS="--max-model-len 22.5G"', "--max-model-len"],
    ["MAX_MODEL_LEN=-4096", "MAX_MODEL_LEN"],
    ["GPU_MEMORY_UTILIZATION=1.5", "GPU_MEMORY_UTILIZATION"],
  ])("%s is refused", async (line, name) => {
    const f = await runMemory({ after: { "scripts/v.env": `ENGINE=vllm\nMODEL=Qwen/Qwen3-8B\n${line}\n` } });
    const b = f.find(only("engine/bad-value"));
    expect(b?.line).toBe(3);
    expect(b?.message.startsWith(`v: ${name}: `)).toBe(true);
  });
  test("vLLM's own forms pass: 22G, 32K, plain bytes; the gate's env keys take IEC strings", async () => {
    const f = await runMemory({ after: { "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--kv-cache-memory-bytes 22G --max-model-len 32K"\nKV_CACHE_MEMORY_BYTES=22GiB\n' } });
    expect(f.filter(only("engine/bad-value"))).toEqual([]);
  });
});

describe("engine/flag-alias", () => {
  test("--kv-cache-memory warns and names the canonical flag", async () => {
    const f = await runMemory({ after: { "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--kv-cache-memory 8053063680"\n' } });
    expect(f.find(only("engine/flag-alias"))?.message).toBe("v: --kv-cache-memory is an alias; write --kv-cache-memory-bytes");
  });
  test("the canonical flag does not", async () => {
    const f = await runMemory({ after: { "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--kv-cache-memory-bytes 8053063680"\n' } });
    expect(f.filter(only("engine/flag-alias"))).toEqual([]);
  });
});

describe("fleet/unknown-host and fleet/unknown-card", () => {
  test("a host not in the inventory", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/r.env": "ENGINE=radiance\nHOST=nope\nGPU=0\n" } });
    expect(openRules(f).filter(([r]) => r.startsWith("fleet/"))).toEqual([["fleet/unknown-host", 2]]);
  });
  test("a card the host lacks", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=0,3\n" } });
    expect(openRules(f).filter(([r]) => r.startsWith("fleet/"))).toEqual([["fleet/unknown-card", 3]]);
    expect(f.find(only("fleet/unknown-card"))?.message).toMatch(/GPU 3 is not a card of h \(cards: 0, 1\)/);
  });
  test("a known host and card pass", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=1\n" } });
    expect(f.filter((x) => x.rule.startsWith("fleet/"))).toEqual([]);
  });
});

describe("fleet/tp-mismatch", () => {
  test("TP=2 on one listed card is an error at the GPU line", async () => {
    const f = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/v.env": "ENGINE=vllm\nHOST=h\nGPU=0\nTP=2\n" } });
    expect(openRules(f).filter(([r]) => r === "fleet/tp-mismatch")).toEqual([["fleet/tp-mismatch", 3]]);
    expect(f.find(only("fleet/tp-mismatch"))?.message).toBe("v: TP=2 needs 2 cards, but GPU lists 1 (0); list 2 cards in GPU, or set TP=1");
  });
  test("TP=2 on two cards, and TP=1 on one, pass", async () => {
    const a = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/v.env": "ENGINE=vllm\nHOST=h\nGPU=0,1\nTP=2\n" } });
    const b = await runMemory({ after: { "kvgate.yaml": fleet, "scripts/v.env": "ENGINE=vllm\nHOST=h\nGPU=1\n" } });
    expect([...a, ...b].filter(only("fleet/tp-mismatch"))).toEqual([]);
  });
});

describe("the engine", () => {
  test("a change is answerable for what it introduces: a finding the before state had is not reported", async () => {
    const bad = "A=1\nnot a line\n";
    const f = await runMemory({ before: { "scripts/a.env": bad }, after: { "scripts/a.env": bad + "B=2\n" } });
    expect(f.filter(only("env/parse"))).toEqual([]);
    const g = await runMemory({ before: { "scripts/a.env": "A=1\n" }, after: { "scripts/a.env": bad } });
    expect(openRules(g)).toEqual([["env/parse", 2]]);
  });
  test("a Kvgate-Waive trailer waives that rule, with the reason", async () => {
    const f = await runMemory({ before: {}, after: { "scripts/a.env": "A=1\nA=2\n" }, trailers: [{ key: "Kvgate-Waive", value: "env/duplicate-key cleaning up next week" }] });
    const d = f.find(only("env/duplicate-key"));
    expect(d?.status).toBe("waived");
    expect(d?.reason).toMatch(/cleaning up next week/);
  });
  test("a waiver naming an unknown rule is an error", async () => {
    const f = await runMemory({ before: {}, after: { "scripts/a.env": "A=1\n" }, trailers: [{ key: "Kvgate-Waive", value: "kv/covers-contxt typo" }] });
    expect(openRules(f)).toEqual([["waiver/unknown-rule", null]]);
  });
});
