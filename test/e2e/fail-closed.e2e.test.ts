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
    expect(voices?.data.engine_from).toEqual({
      engine: "vllm",
      by: "image",
      evidence: "IMAGE=vllm/vllm-openai:v0.11.0 matches vllm/vllm-openai:*",
      file: "scripts/voices.env",
      line: 2,
    });
    expect(rb.findings.find((f) => f.rule === "kv/covers-context")?.data.engine_from).toBeUndefined();
    expect(ra.findings.map((f) => f.rule).sort()).toEqual([
      "engine/flag-alias",
      "kv/boot-check",
      "kv/boot-check",
      "kv/context-headroom",
      "kv/covers-context",
      "kv/covers-context",
      "kv/exception",
      "kv/unpinned-shared-card",
    ]);
  });

  test("explain says how each engine was recognised, in text and JSON, and counts every seat on its card", async () => {
    const r = await repoWith(operatorFleet());
    const text = kvgate(["explain", "voices"], { cwd: r.dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "voices  scripts/voices.env  vllm (by image: IMAGE=vllm/vllm-openai:v0.11.0 matches vllm/vllm-openai:*) · host fv-ml1 · gpu 0 · Qwen/Qwen3-8B",
    );
    const json = JSON.parse(kvgate(["explain", "--format", "json"], { cwd: r.dir }).stdout);
    const coder = json.services.find((s: { name: string }) => s.name === "coder");
    expect(coder).toMatchObject({
      engine: "vllm",
      engine_from: { by: "image", file: "scripts/coder.env", line: 2 },
      settings: { max_model_len: { value: 32768 } },
    });
    const card0 = json.gpus.find((g: { index: number }) => g.index === 0);
    expect(card0.tenants.sort()).toEqual(["coder", "cyberprev", "parakeet-nemo", "voices"]);
    expect(text.stdout).not.toContain("not counted");
  });

  test("a command line or an engine-only flag names the engine when there is no image", async () => {
    const r = await repoWith({
      "kvgate.yaml": FLEET_H,
      "scripts/cmd.env":
        'HOST=h\nGPU=0\nCMD="python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --max-model-len 40960 --kv-cache-memory-bytes 1073741824"\n',
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
    expect(run.stdout).toContain(
      "scripts/typo.env:1 error engine/unknown typo: ENGINE=vlm is not an engine kvgate knows (vllm, radiance), and it holds a GPU (GPU=1), so no sizing rule would check it; did you mean vllm? set ENGINE=vllm",
    );
    // The advice applied: the seat is now checked, and its 1 GiB pin is the error it always was.
    r.write("scripts/typo.env", env.replace("ENGINE=vlm", "ENGINE=vllm"));
    const fixed = report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }));
    expect(fixed.findings.map((f) => f.rule)).not.toContain("engine/unknown");
    expect(fixed.findings.find((f) => f.rule === "kv/covers-context")?.data).toMatchObject({
      pinned_bytes: GiB,
      required_bytes: 7.5 * GiB,
    });
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
      "scripts/quote.env": 'HOST=h\nGPU=0\nCMD="vllm serve \'Qwen/Qwen3-8B"\n',
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

describe("every input read or refused, never skipped", () => {
  const seat = ["ENGINE=vllm", "HOST=h", "GPU=0", "MODEL=Qwen/Qwen3-8B", "MAX_MODEL_LEN=40960", "KV_CACHE_MEMORY_BYTES=1073741824"];

  test("a CR-only env file is checked like its LF twin (and a broken one is refused at the same line)", async () => {
    const lf = await repoWith({ "kvgate.yaml": FLEET_H, "scripts/s.env": `${seat.join("\n")}\n` });
    const r = await repoWith({ "kvgate.yaml": FLEET_H, "scripts/s.env": `${seat.join("\r")}\r` });
    const doc = report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }));
    expect(seen(doc)).toEqual(seen(report(kvgate(["check", "--all", "--format", "json"], { cwd: lf.dir }))));
    const cr = doc.findings.find((f) => f.rule === "kv/covers-context");
    // 1.25 × 40,960 tokens × 144 KiB = 7.03 GiB → 7.5 GiB, at line 6 (KV_CACHE_MEMORY_BYTES), as in the LF file.
    expect([cr?.line, cr?.data.required_bytes, cr?.data.pinned_bytes]).toEqual([6, 7.5 * GiB, GiB]);
    r.write("scripts/s.env", `ENGINE=vllm\rHOST=h\rSERVE_ARGS="--max-model-len 4096\rGPU=0\r`);
    const bad = report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }));
    expect(bad.findings.filter((f) => f.rule === "env/parse").map((f) => [f.line, f.severity])).toEqual([[3, "error"]]);
  });

  test("fleet/gpu-conflict when GPU and CUDA_VISIBLE_DEVICES disagree; the advised value clears it", async () => {
    const r = await repoWith({ "kvgate.yaml": FLEET_H, "scripts/a.env": "ENGINE=radiance\nHOST=h\nGPU=0\nCUDA_VISIBLE_DEVICES=1\n" });
    const run = kvgate(["check", "--all"], { cwd: r.dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "scripts/a.env:3 error fleet/gpu-conflict a: GPU=0 but CUDA_VISIBLE_DEVICES=1 (line 4) names other cards; set CUDA_VISIBLE_DEVICES=0, or delete one of the two",
    );
    r.write("scripts/a.env", "ENGINE=radiance\nHOST=h\nGPU=0\nCUDA_VISIBLE_DEVICES=0\n");
    expect(report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir })).findings.map((f) => f.rule)).not.toContain(
      "fleet/gpu-conflict",
    );
    // Malformed: a CUDA list that is not a card list still disagrees with GPU, and is said so.
    r.write("scripts/a.env", "ENGINE=radiance\nHOST=h\nGPU=0\nCUDA_VISIBLE_DEVICES=GPU-5f1c\n");
    expect(
      report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }))
        .findings.filter((f) => f.rule === "fleet/gpu-conflict")
        .map((f) => f.data.cuda),
    ).toEqual(["GPU-5f1c"]);
  });

  test("fleet/no-services under --all, explain and plan: the seat found by discovery is checked all the same; the advised glob clears the warning", async () => {
    const r = await repoWith({
      "kvgate.yaml": FLEET_H,
      "env/a.env": "ENGINE=vllm\nHOST=h\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=40960\nKV_CACHE_MEMORY_BYTES=1073741824\n",
    });
    const refused = (run: ReturnType<typeof kvgate>) =>
      report(run)
        .findings.filter((f) => f.severity === "error")
        .map((f) => [f.rule, f.file, f.data.required_bytes]);
    const advice =
      'no file matches the services glob "scripts/*.env"; kvgate found the seats by discovery (env/a.env): set services: "env/*.env" in kvgate.yaml (kvgate init writes it) so the gate reads what you mean';
    const all = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    // The glob points elsewhere, but the seat is read (discovered): its 1 GiB pin for 40,960 tokens is refused.
    expect([all.code, refused(all)]).toEqual([1, [["kv/covers-context", "env/a.env", 7.5 * GiB]]]);
    expect(kvgate(["check", "--all"], { cwd: r.dir }).stdout).toContain(`warning fleet/no-services ${advice}`);
    expect(kvgate(["explain"], { cwd: r.dir }).stderr).toContain(`warning fleet/no-services: ${advice}`);
    expect(kvgate(["plan"], { cwd: r.dir }).stderr).toContain(`warning fleet/no-services: ${advice}`);
    r.write("kvgate.yaml", `${FLEET_H}services: "env/*.env"\n`);
    const fixed = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    expect([fixed.code, refused(fixed)]).toEqual([1, [["kv/covers-context", "env/a.env", 7.5 * GiB]]]);
    expect(report(fixed).findings.map((f) => f.rule)).not.toContain("fleet/no-services");
  });

  test("an env file renamed out of the services glob in a staged change is reported", async () => {
    const r = await repoWith({
      "kvgate.yaml": FLEET_H,
      "scripts/a.env": "ENGINE=radiance\nHOST=h\nGPU=0\n",
      "scripts/b.env": "ENGINE=radiance\nHOST=h\nGPU=1\n",
    });
    r.git("mv", "scripts/a.env", "archive-a.env");
    const run = kvgate(["check", "--staged"], { cwd: r.dir });
    expect(run.stdout).toContain(
      'archive-a.env:1 warning fleet/service-left a: scripts/a.env moved to archive-a.env, outside the services glob "scripts/*.env", so kvgate no longer checks it',
    );
    // A deleted seat is retired, not reported.
    r.git("reset", "-q", "--hard");
    r.git("rm", "-q", "scripts/b.env");
    expect(kvgate(["check", "--staged"], { cwd: r.dir }).stdout).not.toContain("fleet/service-left");
  });

  test("a tenant with a seat's name is one entry on the card, with a warning", async () => {
    const yaml = `${FLEET_H}  tenants:\n    - { name: coder, host: h, gpu: 0, vram: 3GiB }\n`;
    const r = await repoWith({
      "kvgate.yaml": yaml,
      "scripts/coder.env": "ENGINE=vllm\nHOST=h\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=32768\nKV_CACHE_MEMORY_BYTES=6442450944\n",
    });
    const json = JSON.parse(kvgate(["explain", "--format", "json"], { cwd: r.dir }).stdout);
    const card = json.gpus.find((g: { index: number }) => g.index === 0);
    expect(card.tenants).toEqual(["coder"]);
    const seatBytes = json.services[0].kv.pinned_bytes;
    expect(seatBytes).toBe(6 * GiB);
    // Counted once: 15.3 GiB weights + 6 GiB KV + 2 GiB overhead, and not the tenant's 3 GiB on top.
    expect(card.entries.map((e: { kind: string; name: string }) => [e.kind, e.name])).toEqual([["seat", "coder"]]);
    expect(card.used_bytes).toBe(16428249907 + 6 * GiB + 2 * GiB);
    const doc = report(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }));
    expect(doc.findings.filter((f) => f.rule === "fleet/tenant-is-service").map((f) => [f.severity, f.service])).toEqual([
      ["warning", "coder"],
    ]);
  });

  test("numbers past 2^53 bytes are refused naming the field (ledger facts, kvgate.yaml)", async () => {
    const ex = join(ROOT, "examples", "fleet");
    const files: Record<string, string> = { "kvgate.yaml": readFileSync(join(ex, "kvgate.yaml"), "utf8") };
    for (const f of ["frank-archon.env", "frank-archon.ledger.yaml"]) files[`scripts/${f}`] = readFileSync(join(ex, "scripts", f), "utf8");
    files["scripts/frank-archon.ledger.yaml"] = (files["scripts/frank-archon.ledger.yaml"] as string).replace(
      "card_total_mib: 26624",
      "card_total_mib: 1e308",
    );
    const r = await repoWith(files);
    const run = kvgate(["check", "--all"], { cwd: r.dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "scripts/frank-archon.ledger.yaml:6 error radiance/ledger-facts ledger facts: cards[0].card_total_mib: too large: a MiB figure must be at most 8589934591 (2^53 bytes)",
    );
    r.write("kvgate.yaml", `${FLEET_H}kv: { factor: 1e308 }\nttm: { slot_mib: 1e308 }\n`);
    const cfg = kvgate(["check", "--all"], { cwd: r.dir });
    expect(cfg.code).toBe(2);
    expect(cfg.stderr).toMatch(/kv\.factor.*too large: a factor is at most 1000/);
    expect(cfg.stderr).toMatch(/ttm\.slot_mib.*too large: at most 8589934591 MiB/);
  });

  test("a missing folder object in git diff names the folder and the fix (exit 2)", async () => {
    const r = await repoWith({ "kvgate.yaml": FLEET_H, "scripts/a.env": "ENGINE=radiance\nHOST=h\nGPU=0\n" });
    r.write("scripts/a.env", "ENGINE=radiance\nHOST=h\nGPU=1\n");
    r.stage();
    r.commit("move a");
    const tree = r.git("rev-parse", "HEAD~1:scripts").trim();
    r.remove(`.git/objects/${tree.slice(0, 2)}/${tree.slice(2)}`);
    for (const args of [
      ["check", "--range", "HEAD~1..HEAD"],
      ["check", "--commit", "HEAD"],
    ]) {
      const run = kvgate(args, { cwd: r.dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`the repository is corrupt: object ${tree} for the folder scripts/ cannot be read`);
      expect(run.stderr).toContain("fix: check the repository with `git fsck`");
    }
  });
});
