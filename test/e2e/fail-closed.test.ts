// Issue 12 items 1 and 2 through the built CLI in real repositories: an engine is recognised from what
// a service runs (an operator's fleet with no ENGINE key is refused exactly as its ENGINE=vllm twin),
// a misspelt engine is refused with the nearest name, and every input is read or refused: CR-only env
// files, GPU vs CUDA_VISIBLE_DEVICES, an empty services glob, an env file renamed out of the glob, a
// tenant named like a seat, numbers past 2^53 bytes, a missing git object.
import { afterEach, describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate, ROOT } from "../helpers/cli.js";
import { report, type JsonReport } from "./fixtures/fleet.js";

const OPERATOR = join(ROOT, "test", "fixtures", "operator-fleet");
const GiB = 1024 ** 3;

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

async function repoWith(files: Record<string, string>): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  for (const [p, t] of Object.entries(files)) r.write(p, t);
  r.stage();
  r.commit("fleet");
  return r;
}

/** The operator fleet's files (kvgate.yaml and scripts/*.env), optionally edited per env file. */
function operatorFleet(edit: (text: string) => string = (t) => t): Record<string, string> {
  const out: Record<string, string> = { "kvgate.yaml": readFileSync(join(OPERATOR, "kvgate.yaml"), "utf8") };
  for (const f of readdirSync(join(OPERATOR, "scripts"))) out[`scripts/${f}`] = edit(readFileSync(join(OPERATOR, "scripts", f), "utf8"));
  return out;
}

/** What a user sees of each finding (data aside): for comparing two runs finding by finding. */
const seen = (doc: JsonReport) => doc.findings.map((f) => [f.rule, f.severity, f.status, f.file, f.line, f.message]);

const FLEET_H = "fleet:\n  hosts:\n    h: { gpus: [ { index: 0, total: 96GiB }, { index: 1, total: 96GiB } ] }\n";

describe("engines recognised from what a service runs (contract §12)", () => {
  test("the operator fleet (image + vLLM flags, no ENGINE) is refused exactly as its ENGINE=vllm twin", async () => {
    const bare = await repoWith(operatorFleet());
    // ENGINE=vllm appended, so every other line keeps its number.
    const twin = await repoWith(operatorFleet((t) => `${t}ENGINE=vllm\n`));
    const a = kvgate(["check", "--all", "--format", "json"], { cwd: bare.dir });
    const b = kvgate(["check", "--all", "--format", "json"], { cwd: twin.dir });
    expect([a.code, b.code]).toEqual([1, 1]);
    const [ra, rb] = [report(a), report(b)];
    expect(seen(ra)).toEqual(seen(rb));
    expect(ra.counts).toEqual(rb.counts);
    expect(ra.counts).toMatchObject({ error: 5, warning: 1, exempt: 1 });
    // The 1 GiB pin for 40,960 tokens that used to pass: 1.07 × 40,960 × 144 KiB rounded up to 0.5 GiB.
    const voices = ra.findings.find((f) => f.rule === "kv/covers-context" && f.service === "voices");
    expect(voices?.data).toMatchObject({ pinned_bytes: GiB, required_bytes: 6.5 * GiB, max_model_len: 40960, factor: 1.07 });
    // The finding data says how the engine was recognised (and the twin's, set by ENGINE, does not need to).
    expect(voices?.data.engine_from).toEqual({ engine: "vllm", by: "image", evidence: "IMAGE=vllm/vllm-openai:v0.11.0 matches vllm/vllm-openai:*", file: "scripts/voices.env", line: 2 });
    expect(rb.findings.find((f) => f.rule === "kv/covers-context")?.data.engine_from).toBeUndefined();
    expect(ra.findings.map((f) => f.rule).sort()).toEqual(["engine/flag-alias", "kv/boot-check", "kv/boot-check", "kv/covers-context", "kv/covers-context", "kv/exception", "kv/unpinned-shared-card"]);
  });

  test("explain says how each engine was recognised, in text and JSON, and counts every seat on its card", async () => {
    const r = await repoWith(operatorFleet());
    const text = kvgate(["explain", "voices"], { cwd: r.dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("voices  scripts/voices.env  vllm (by image: IMAGE=vllm/vllm-openai:v0.11.0 matches vllm/vllm-openai:*) · host fv-ml1 · gpu 0 · Qwen/Qwen3-8B");
    const json = JSON.parse(kvgate(["explain", "--format", "json"], { cwd: r.dir }).stdout);
    const coder = json.services.find((s: { name: string }) => s.name === "coder");
    expect(coder).toMatchObject({ engine: "vllm", engine_from: { by: "image", file: "scripts/coder.env", line: 2 }, settings: { max_model_len: { value: 32768 } } });
    const card0 = json.gpus.find((g: { index: number }) => g.index === 0);
    expect(card0.tenants.sort()).toEqual(["coder", "cyberprev", "parakeet-nemo", "voices"]);
    expect(text.stdout).not.toContain("not counted");
  });

  test("a command line or an engine-only flag names the engine when there is no image", async () => {
    const r = await repoWith({
      "kvgate.yaml": FLEET_H,
      "scripts/cmd.env": 'HOST=h\nGPU=0\nCMD="python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --max-model-len 40960 --kv-cache-memory-bytes 1073741824"\n',
      "scripts/flag.env": 'HOST=h\nGPU=1\nMODEL=Qwen/Qwen3-8B\nARGS="--max-model-len 40960 --kv-cache-memory-bytes 1073741824"\n',
    });
    const doc = report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }));
    const covers = doc.findings.filter((f) => f.rule === "kv/covers-context");
    // 1.25 × 40,960 × 144 KiB = 7.03 GiB → 7.5 GiB against a 1 GiB pin, for both.
    expect(covers.map((f) => [f.service, f.data.required_bytes, f.data.engine_from.by, f.data.engine_from.evidence])).toEqual([
      ["cmd", 7.5 * GiB, "command", "CMD runs `python3 -m vllm.entrypoints.openai.api_server`"],
      ["flag", 7.5 * GiB, "flag", "--kv-cache-memory-bytes, a flag only vllm has"],
    ]);
  });

  test("ENGINE=vlm with a 1 GiB pin for 40,960 tokens: engine/unknown suggesting vllm; engines.generic lets it be", async () => {
    const env = "ENGINE=vlm\nHOST=h\nGPU=1\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=40960\nKV_CACHE_MEMORY_BYTES=1073741824\n";
    const r = await repoWith({ "kvgate.yaml": FLEET_H, "scripts/typo.env": env });
    const run = kvgate(["check", "--all"], { cwd: r.dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("scripts/typo.env:1 error engine/unknown typo: ENGINE=vlm is not an engine kvgate knows (vllm, radiance), and it holds a GPU (GPU=1), so no sizing rule would check it; did you mean vllm? set ENGINE=vllm");
    // The advice applied: the seat is now checked, and its 1 GiB pin is the error it always was.
    r.write("scripts/typo.env", env.replace("ENGINE=vlm", "ENGINE=vllm"));
    const fixed = report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }));
    expect(fixed.findings.map((f) => f.rule)).not.toContain("engine/unknown");
    expect(fixed.findings.find((f) => f.rule === "kv/covers-context")?.data).toMatchObject({ pinned_bytes: GiB, required_bytes: 7.5 * GiB });
    // Listed as generic, the name is the user's knowing choice: no engine/unknown, no sizing rules.
    r.write("scripts/typo.env", env);
    r.write("kvgate.yaml", `${FLEET_H}engines: { generic: [vlm] }\n`);
    const generic = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    expect([generic.code, report(generic).findings.map((f) => f.rule)]).toEqual([0, []]);
  });

  test("malformed: an empty or unknown image, an unsplittable command, engines.generic not a list", async () => {
    const r = await repoWith({
      "kvgate.yaml": FLEET_H,
      "scripts/empty.env": "IMAGE=\nHOST=h\nGPU=0\n",
      "scripts/odd.env": "IMAGE=:::@@\nHOST=h\nGPU=1\n",
      "scripts/quote.env": "HOST=h\nGPU=0\nCMD=\"vllm serve 'Qwen/Qwen3-8B\"\n",
    });
    const doc = report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }));
    const rows = doc.findings.filter((f) => f.severity === "error").map((f) => [f.rule, f.file, f.line]);
    expect(rows).toEqual([
      ["engine/unknown", "scripts/empty.env", 3],
      ["engine/unknown", "scripts/odd.env", 3],
      // The command cannot be split, so it names no engine: both are said, neither is a crash.
      ["engine/unknown", "scripts/quote.env", 2],
      ["env/parse", "scripts/quote.env", 3],
    ]);
    r.write("kvgate.yaml", `${FLEET_H}engines: { generic: vlm }\n`);
    const bad = kvgate(["check", "--all"], { cwd: r.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/engines\.generic/);
  });
});
