// Issue 16 through the built CLI in real repositories: a seat is sized from the model's own
// config.json when the repository commits one (over the catalog), sliding-window layers keep their
// window as vLLM sizes them, and a seat without a byte pin is checked against what vLLM's profiler
// will leave it.
import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";

const GiB = 1024 ** 3;
const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

const config = (name: string) => readFileSync(`test/kv/configs/${name}.json`, "utf8");

async function repo(cardTotal: string, files: Record<string, string>, cards = 1): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  const gpus = Array.from({ length: cards }, (_, i) => `        - { index: ${i}, total: ${cardTotal} }\n`).join("");
  r.write("kvgate.yaml", `fleet:\n  hosts:\n    h1:\n      gpus:\n${gpus}`);
  for (const [p, text] of Object.entries(files)) r.write(p, text);
  r.stage();
  r.commit("fleet");
  return r;
}

function findings(
  r: TempRepo,
  rule: string,
): { code: number | null; list: Array<{ rule: string; message: string; file: string; data: Record<string, unknown> }> } {
  const run = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
  const json = JSON.parse(run.stdout) as {
    findings: Array<{ rule: string; message: string; file: string; data: Record<string, unknown> }>;
  };
  return { code: run.code, list: json.findings.filter((f) => f.rule === rule) };
}

const CAP = `ARGS=--override-generation-config '{"max_new_tokens":4096}'\n`;

describe("model facts from the repository's config.json", () => {
  test("Gemma-3-27B from its committed config.json: pinned at 18 GiB passes, 17 GiB is refused (not the 77.5 GiB of every layer at full context)", async () => {
    const env = (pin: string) =>
      `ENGINE=vllm\nGPU=0\nMODEL=google/gemma-3-27b-it\nMAX_MODEL_LEN=131072\nKV_CACHE_MEMORY_BYTES=${pin}\n${CAP}`;
    const r = await repo("96GiB", {
      "models/google/gemma-3-27b-it/config.json": config("gemma-3-27b-it"),
      "scripts/gemma.env": env("18G"),
    });
    const ok = findings(r, "kv/covers-context");
    expect([ok.code, ok.list]).toEqual([0, []]);
    // explain shows per layer kind the count, the blocks of one request and the bytes.
    const explain = kvgate(["explain", "gemma"], { cwd: r.dir });
    expect(explain.stdout).toContain("model facts from models/google/gemma-3-27b-it/config.json");
    expect(explain.stdout).toContain(
      "one request: 52 sliding (60 slots) × 577 blocks = 4.23 GiB + 10 full × 8,192 blocks = 10 GiB = 14.23 GiB",
    );
    expect(explain.stdout).toContain("required 18 GiB = ceil(1.25 × one request 14.23 GiB / 512 MiB) × 512 MiB");
    r.write("scripts/gemma.env", env("17G"));
    r.stage();
    r.commit("shrink");
    const bad = findings(r, "kv/covers-context");
    expect(bad.code).toBe(1);
    expect(bad.list).toHaveLength(1);
    expect(bad.list[0]?.data).toMatchObject({
      required_bytes: 18 * GiB,
      pinned_bytes: 17 * GiB,
      kv_source: "pinned",
      layers: { full: 10, sliding: 52 },
    });
    expect(bad.list[0]?.message).toContain("ceil(1.25 × 14.23 GiB for one 131,072-token request / 0.5 GiB) × 0.5 GiB");
  });

  test("a committed config.json is used over the catalog", async () => {
    // Qwen3-8B's config with half its layers: 18 × 2 × 8 × 128 × 2 B × 40,960 × 1.25 = 3.52 GiB → 4 GiB (the catalog: 7.5 GiB).
    const half = JSON.stringify({ ...JSON.parse(config("qwen3-8b")), num_hidden_layers: 18 });
    const r = await repo("96GiB", {
      "models/Qwen/Qwen3-8B/config.json": half,
      "scripts/q.env": `ENGINE=vllm\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=40960\nKV_CACHE_MEMORY_BYTES=4G\n${CAP}`,
    });
    const run = kvgate(["explain", "q", "--format", "json"], { cwd: r.dir });
    expect(run.code).toBe(0);
    const q = (JSON.parse(run.stdout) as { services: Array<{ name: string; kv: Record<string, unknown> }> }).services.find(
      (s) => s.name === "q",
    );
    expect(q?.kv).toMatchObject({ required_bytes: 4 * GiB, model_source: "config.json", model_file: "models/Qwen/Qwen3-8B/config.json" });
    expect(findings(r, "kv/covers-context").list).toEqual([]);
  });

  test("a malformed config.json is a finding at its file, never a crash or a catalog guess", async () => {
    const r = await repo("96GiB", {
      "models/Qwen/Qwen3-8B/config.json": '{ "num_hidden_layers": 36,',
      "scripts/q.env": `ENGINE=vllm\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=40960\nKV_CACHE_MEMORY_BYTES=8053063680\n${CAP}`,
    });
    const f = findings(r, "engine/unknown-model");
    expect(f.code).toBe(1);
    expect(f.list).toEqual([
      expect.objectContaining({ file: "models/Qwen/Qwen3-8B/config.json", message: expect.stringContaining("is not valid JSON") }),
    ]);
  });

  test("MODEL_CONFIG naming a file the repository does not hold is refused at that line", async () => {
    const r = await repo("96GiB", {
      "scripts/q.env": `ENGINE=vllm\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMODEL_CONFIG=models/qwen/config.json\nMAX_MODEL_LEN=40960\nKV_CACHE_MEMORY_BYTES=8053063680\n${CAP}`,
    });
    const f = findings(r, "engine/unknown-model");
    expect(f.code).toBe(1);
    expect(f.list).toEqual([
      expect.objectContaining({
        file: "scripts/q.env",
        message: expect.stringContaining("MODEL_CONFIG names models/qwen/config.json, which the repository does not hold"),
      }),
    ]);
  });
});

describe("a seat without a byte pin is sized as vLLM's profiler will size it", () => {
  const llama = (len: string) =>
    `ENGINE=vllm\nGPU=0\nMODEL=meta-llama/Llama-3.1-8B-Instruct\nGPU_MEMORY_UTILIZATION=0.9\nMAX_MODEL_LEN=${len}\n${CAP}`;

  test("Llama-3.1-8B alone on a 24 GiB card at 0.9: 131,072 tokens is refused with the estimate; 16,384 passes", async () => {
    const r = await repo("24GiB", { "scripts/llama.env": llama("131072") });
    const text = kvgate(["check", "--all"], { cwd: r.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      "scripts/llama.env:5 error kv/covers-context llama: no KV pin, so vLLM's profiler sizes the cache: an estimated 5.14 GiB (0.9 × 24 GiB − weights 15 GiB − overhead 1.35 GiB − CUDA graphs 107.5 MiB) < required 20 GiB",
    );
    // No version named: sized for the allowed 0.19–0.21, failing on all (0.21's figures: graphs inside the budget).
    expect(text.stdout).toContain("(no vLLM version named: fails on every allowed release, 0.19.0–0.21.0; figures for 0.21.0)");
    const f = findings(r, "kv/covers-context");
    expect(f.list[0]?.data).toMatchObject({
      kv_source: "estimated",
      pinned_bytes: null,
      required_bytes: 20 * GiB,
      request_bytes: 16 * GiB,
      fits: 32_768,
    });
    // The advice applied as written clears it.
    r.write("scripts/llama.env", llama("32768"));
    r.stage();
    r.commit("fit");
    expect(findings(r, "kv/covers-context")).toEqual({ code: 0, list: [] });
    r.write("scripts/llama.env", llama("16384"));
    r.stage();
    r.commit("16k");
    const ok = kvgate(["check", "--all"], { cwd: r.dir });
    expect(ok.code).toBe(0);
  });
});

describe("parallelism, auto context and version facts from a real-shaped config.json", () => {
  test("phi-4 at TP 4 is refused (10 KV heads); at TP 2 it passes", async () => {
    const env = (tp: string, gpus: string) =>
      `ENGINE=vllm\nGPU=${gpus}\nMODEL=microsoft/phi-4\nTP=${tp}\nMAX_MODEL_LEN=16384\nKV_CACHE_MEMORY_BYTES=4G\n${CAP}`;
    const r = await repo("96GiB", { "models/microsoft/phi-4/config.json": config("phi-4"), "scripts/phi.env": env("4", "0,1,2,3") }, 4);
    const bad = findings(r, "engine/parallel");
    expect(bad.code).toBe(1);
    expect(bad.list).toEqual([
      expect.objectContaining({
        file: "scripts/phi.env",
        message: expect.stringContaining("phi: microsoft/phi-4: 10 KV heads"),
        data: expect.objectContaining({ check: "kv-heads", tp: 4, kv_heads: 10 }),
      }),
    ]);
    r.write("scripts/phi.env", env("2", "0,1"));
    r.stage();
    r.commit("tp 2");
    expect(findings(r, "engine/parallel")).toEqual({ code: 0, list: [] });
  });

  test("--max-model-len auto is a notice with what vLLM would fit; on vLLM 0.11 it is refused", async () => {
    const env = (extra: string) =>
      `ENGINE=vllm\nGPU=0\nMODEL=Qwen/Qwen3-8B\nKV_CACHE_MEMORY_BYTES=4G\n${extra}ARGS=--max-model-len auto --override-generation-config '{"max_new_tokens":4096}'\n`;
    const r = await repo("96GiB", { "models/Qwen/Qwen3-8B/config.json": config("qwen3-8b"), "scripts/q.env": env("") });
    const notice = findings(r, "kv/auto-context");
    expect(notice.code).toBe(0);
    expect(notice.list).toEqual([expect.objectContaining({ data: expect.objectContaining({ kv_bytes: 4 * GiB, expected_len: 29_120 }) })]);
    r.write("scripts/q.env", env("VLLM_VERSION=0.11.0\n"));
    r.stage();
    r.commit("pin the version");
    const refused = findings(r, "kv/auto-context");
    expect(refused.code).toBe(1);
    expect(refused.list[0]?.message).toContain("refused by vLLM 0.11.0");
  });
});
