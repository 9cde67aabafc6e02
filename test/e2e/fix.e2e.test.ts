// Issue 12 items 6 and 8 through the built CLI, in real temp repos holding the example fleet: for each
// sizing rule whose fix is a value, a staged change raises the finding, `kvgate check --fix` writes the
// advised value into the working tree (never the index), and once staged the gate re-runs: the
// finding is gone and no error appears that the change did not already have. One case applies the
// fix by hand from the message text alone.
import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kvgate } from "../helpers/cli.js";
import type { TempFolder, TempRepo } from "../helpers/repo.js";
import { FRANK, fleetFiles, fleetRepo, report, setEnv, touchGuard, type JsonFinding, type JsonReport } from "./fixtures/fleet.js";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

const GiB = 1024 ** 3;
const INTERN = "scripts/intern-decision.env";
const MERO = "scripts/meromero-rp.env";
const GEN_SMALL = "scripts/gen-small.env";

function edit(repo: TempRepo, file: string, fn: (text: string) => string): void {
  repo.write(file, fn(readFileSync(join(repo.dir, file), "utf8")));
}
const set = (repo: TempRepo, file: string, values: Record<string, string>) => edit(repo, file, (t) => setEnv(t, values));

interface Scenario {
  name: string;
  rule: string;
  /** Committed on top of the example fleet before the change (the state the change starts from). */
  base?: (r: TempRepo) => void;
  change: (r: TempRepo) => void;
  fix: { file: string; key: string; value: string | ((f: JsonFinding) => string) };
  /** More checks of the fixed file's text. */
  after?: (text: string) => void;
}

const open = (doc: JsonReport) => doc.findings.filter((f) => f.status === "open");
const errorsOf = (doc: JsonReport) =>
  new Set(
    open(doc)
      .filter((f) => f.severity === "error")
      .map((f) => `${f.rule} ${f.service ?? ""}`),
  );

const SCENARIOS: Scenario[] = [
  {
    // gen-small asks 0.24 of its card, not 0.25: with intern-decision's bigger pin beside it, 0.25 would
    // no longer boot last (its own 512 MiB CUDA context counted), and the fix would lower the context instead.
    name: "kv/covers-context: a context raised without its pin gets the pin (1.25 × 40,960 × 144 KiB → 7.5 GiB)",
    rule: "kv/covers-context",
    change: (r) => {
      set(r, GEN_SMALL, { GPU_MEMORY_UTILIZATION: "0.24" });
      set(r, INTERN, { MAX_MODEL_LEN: "40960" });
    },
    fix: { file: INTERN, key: "KV_CACHE_MEMORY_BYTES", value: String(7.5 * GiB) },
  },
  {
    name: "kv/covers-context: a pin given as a flag is fixed in the flag, not by adding the env key",
    rule: "kv/covers-context",
    change: (r) => {
      set(r, GEN_SMALL, { GPU_MEMORY_UTILIZATION: "0.24" });
      edit(r, INTERN, (t) =>
        setEnv(t, { MAX_MODEL_LEN: "40960" })
          .replace(/^KV_CACHE_MEMORY_BYTES=.*\n/m, "")
          .replace(
            'SERVE_ARGS="--served-model-name intern-decision',
            'SERVE_ARGS="--served-model-name intern-decision --kv-cache-memory-bytes 6442450944',
          ),
      );
    },
    fix: { file: INTERN, key: "--kv-cache-memory-bytes", value: String(7.5 * GiB) },
    after: (t) => {
      expect(t).toContain(`--kv-cache-memory-bytes ${7.5 * GiB} --override-generation-config`);
      expect(t).not.toMatch(/^KV_CACHE_MEMORY_BYTES=/m);
    },
  },
  {
    // A 9 GiB tenant leaves gpu 1 0.9 GiB spare: 1.5 GiB more pin would overfill it (gpu/fits), so the
    // fix lowers the context to what 6 GiB holds: 6 GiB / (1.25 × 144 KiB) = 34,952 → 34,816 tokens.
    name: "kv/covers-context: when the bigger pin would overfill the card, the context is lowered instead",
    rule: "kv/covers-context",
    base: (r) =>
      edit(r, "kvgate.yaml", (t) =>
        t.replace("    - { name: parakeet-nemo", "    - { name: asr-big, host: fv-ml1, gpu: 1, vram: 9GiB }\n    - { name: parakeet-nemo"),
      ),
    change: (r) => set(r, INTERN, { MAX_MODEL_LEN: "40960" }),
    fix: { file: INTERN, key: "MAX_MODEL_LEN", value: "34816" },
  },
  {
    name: "kv/oversized: a pin a step above the requirement is lowered to it (7 GiB → 6 GiB at 32,768)",
    rule: "kv/oversized",
    change: (r) => set(r, INTERN, { KV_CACHE_MEMORY_BYTES: String(7 * GiB) }),
    fix: { file: INTERN, key: "KV_CACHE_MEMORY_BYTES", value: String(6 * GiB) },
  },
  {
    name: "kv/exception: an owner-pinned seat goes back to the owner's 22 GiB",
    rule: "kv/exception",
    change: (r) => set(r, MERO, { KV_CACHE_MEMORY_BYTES: String(20 * GiB) }),
    fix: { file: MERO, key: "KV_CACHE_MEMORY_BYTES", value: String(22 * GiB) },
  },
  {
    name: "kv/unpinned-shared-card: a seat that drops its pin on a shared card gets one (the KV_CACHE_MEMORY_BYTES line is added)",
    rule: "kv/unpinned-shared-card",
    change: (r) => edit(r, INTERN, (t) => t.replace(/^KV_CACHE_MEMORY_BYTES=.*\n/m, "")),
    fix: { file: INTERN, key: "KV_CACHE_MEMORY_BYTES", value: String(6 * GiB) },
    after: (t) => expect(t.trimEnd().split("\n").at(-1)).toBe(`KV_CACHE_MEMORY_BYTES=${6 * GiB}`),
  },
  {
    name: "kv/boot-check: a utilization the neighbours cannot leave free is lowered to what they do",
    rule: "kv/boot-check",
    change: (r) => set(r, INTERN, { GPU_MEMORY_UTILIZATION: "0.9" }),
    fix: { file: INTERN, key: "GPU_MEMORY_UTILIZATION", value: (f) => String(f.data.max_utilization) },
  },
  {
    name: "kv/boot-check: utilization set by flag is fixed in the flag (no GPU_MEMORY_UTILIZATION= added, no env/conflict)",
    rule: "kv/boot-check",
    change: (r) =>
      edit(r, INTERN, (t) =>
        t
          .replace(/^GPU_MEMORY_UTILIZATION=.*\n/m, "")
          .replace(
            'SERVE_ARGS="--served-model-name intern-decision',
            'SERVE_ARGS="--served-model-name intern-decision --gpu-memory-utilization 0.9',
          ),
      ),
    fix: { file: INTERN, key: "--gpu-memory-utilization", value: (f) => String(f.data.max_utilization) },
    after: (t) => expect(t).not.toMatch(/^GPU_MEMORY_UTILIZATION=/m),
  },
  {
    name: "kv/context-max: a context past Qwen3-8B's native 40,960 is lowered to it",
    rule: "kv/context-max",
    change: (r) => set(r, INTERN, { MAX_MODEL_LEN: "65536", KV_CACHE_MEMORY_BYTES: String(12 * GiB) }),
    fix: { file: INTERN, key: "MAX_MODEL_LEN", value: "40960" },
  },
  {
    name: "radiance/headroom: GPU_HEADROOM_MIB 32 is raised to the 48 MiB floor, its comment kept",
    rule: "radiance/headroom",
    change: (r) => set(r, FRANK, { GPU_HEADROOM_MIB: "32" }),
    fix: { file: FRANK, key: "GPU_HEADROOM_MIB", value: "48" },
    after: (t) => expect(t).toContain("GPU_HEADROOM_MIB=48        # 48 is the first rung measured decode-neutral"),
  },
  {
    // +1,000 MiB with the TTM floor raised to cover it: the whole step 45,952 is covered too.
    name: "radiance/pool-step: a pool change off the 1,024-MiB step goes to the nearest whole step",
    rule: "radiance/pool-step",
    change: (r) => {
      set(r, FRANK, { HOST_POOL_MIB: "45928", TTM_MIN_MIB: "101000", TTM_TARGET_MIB: "102100" });
      touchGuard(r, "pool 45,928");
    },
    fix: { file: FRANK, key: "HOST_POOL_MIB", value: "45952" },
  },
  {
    // 48,128 → 49,152: the host already holds the whole plane (the floor is 0 from 47,100).
    name: "radiance/pool-no-effect: a pool raise that buys nothing goes back to the old pool",
    rule: "radiance/pool-no-effect",
    base: (r) => set(r, FRANK, { HOST_POOL_MIB: "48128", TTM_MIN_MIB: "104192", TTM_TARGET_MIB: "105216" }),
    change: (r) => {
      set(r, FRANK, { HOST_POOL_MIB: "49152", TTM_MIN_MIB: "106240", TTM_TARGET_MIB: "107264" });
      touchGuard(r, "pool 49,152");
    },
    fix: { file: FRANK, key: "HOST_POOL_MIB", value: "48128" },
  },
  {
    // frank-archon is funded below 100 % at the committed values: cutting MAX_SEQS is not the lever.
    name: "radiance/demand-cut: a demand cut on an under-funded endpoint puts the demand back",
    rule: "radiance/demand-cut",
    change: (r) => set(r, FRANK, { MAX_SEQS: "4" }),
    fix: { file: FRANK, key: "MAX_SEQS", value: "8" },
  },
  {
    name: "ttm/ledger: TTM_MIN_MIB 97,791 under the 97,791.68 ledger goes to 97,792",
    rule: "ttm/ledger",
    change: (r) => set(r, FRANK, { TTM_MIN_MIB: "97791" }),
    fix: { file: FRANK, key: "TTM_MIN_MIB", value: "97792" },
  },
  {
    name: "ttm/target: TTM_TARGET_MIB 98,815 under 97,792 + 1,024 slack goes to 98,816",
    rule: "ttm/target",
    change: (r) => set(r, FRANK, { TTM_TARGET_MIB: "98815" }),
    fix: { file: FRANK, key: "TTM_TARGET_MIB", value: "98816" },
  },
];

async function staged(s: Scenario): Promise<{ repo: TempRepo; before: JsonReport; finding: JsonFinding }> {
  const { repo } = await fleetRepo(made);
  if (s.base) {
    s.base(repo);
    repo.stage();
    repo.commit("base");
  }
  s.change(repo);
  repo.stage();
  const before = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
  const hits = open(before).filter((f) => f.rule === s.rule);
  expect(hits, JSON.stringify(before.findings.map((f) => [f.rule, f.service, f.message]))).toHaveLength(1);
  return { repo, before, finding: hits[0] as JsonFinding };
}

describe("check --fix clears each sizing rule's finding without raising another", () => {
  test.each(SCENARIOS)("$name", async (s) => {
    const { repo, before, finding } = await staged(s);
    const value = typeof s.fix.value === "function" ? s.fix.value(finding) : s.fix.value;
    expect(finding.data.fix).toMatchObject({ file: s.fix.file, key: s.fix.key, value });
    // The message says the same value in the same spelling.
    expect(finding.message).toContain(s.fix.key.startsWith("-") ? `${s.fix.key} ${value}` : `${s.fix.key}=${value}`);
    const index = repo.git("diff", "--cached");

    const run = kvgate(["check", "--staged", "--fix"], { cwd: repo.dir });
    expect(run.stdout).toMatch(new RegExp(`fixed ${s.fix.file.replace(/[.]/g, "\\.")}:\\d+ ${s.fix.key} .*${value} \\(${s.rule}\\)`));
    expect(repo.git("diff", "--cached")).toBe(index); // never the index
    const text = readFileSync(join(repo.dir, s.fix.file), "utf8");
    s.after?.(text);

    repo.stage();
    const again = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(open(again).filter((f) => f.rule === s.rule)).toEqual([]);
    const had = errorsOf(before);
    expect([...errorsOf(again)].filter((e) => !had.has(e))).toEqual([]);
    expect(open(again).some((f) => f.rule === "env/conflict")).toBe(false);
    // The exit code of --fix is the re-check's: what the staged tree gets once the fixes are staged.
    expect(run.code).toBe(again.verdict === "fail" ? 1 : 0);
  });
});

describe("check --fix", () => {
  test("applying the fix by hand from the message text clears it too (kv/boot-check, flag spelling)", async () => {
    const s = SCENARIOS.find((x) => x.fix.key === "--gpu-memory-utilization") as Scenario;
    const { repo, before, finding } = await staged(s);
    const said = /set (--gpu-memory-utilization) ([0-9.]+) or lower/.exec(finding.message);
    expect(said, finding.message).not.toBeNull();
    edit(repo, INTERN, (t) => t.replace("--gpu-memory-utilization 0.9", `${said?.[1]} ${said?.[2]}`));
    repo.stage();
    const again = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(open(again).filter((f) => f.rule === "kv/boot-check")).toEqual([]);
    const had = errorsOf(before);
    expect([...errorsOf(again)].filter((e) => !had.has(e))).toEqual([]);
  });

  test("a fix that needs two values writes both (the TTM floor and the target above it), in rounds", async () => {
    const { repo } = await fleetRepo(made);
    // The pool grows a whole step (45,952) with the guard touched but the floor and target left: the
    // ledger is 99,839.68, so TTM_MIN_MIB must reach 99,840 and TTM_TARGET_MIB 100,864.
    set(repo, FRANK, { HOST_POOL_MIB: "45952" });
    touchGuard(repo, "pool 45,952");
    repo.stage();
    const run = kvgate(["check", "--staged", "--fix"], { cwd: repo.dir });
    expect(run.stdout).toContain("fixed scripts/frank-archon.env:22 TTM_MIN_MIB 97792 → 99840 (ttm/ledger)");
    expect(run.stdout).toContain("fixed scripts/frank-archon.env:23 TTM_TARGET_MIB 98816 → 100864 (ttm/ledger)");
    repo.stage();
    const again = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(open(again).filter((f) => f.severity === "error")).toEqual([]);
    expect(run.code).toBe(0);
  });

  test("--all fixes the working tree and re-checks it; a machine format keeps stdout parseable", async () => {
    const { repo } = await fleetRepo(made);
    set(repo, FRANK, { TTM_MIN_MIB: "97791" });
    const run = kvgate(["check", "--all", "--fix", "--format", "json"], { cwd: repo.dir });
    expect(run.stderr).toContain("fixed scripts/frank-archon.env:22 TTM_MIN_MIB 97791 → 97792 (ttm/ledger)");
    const doc = report(run);
    expect(doc.findings.some((f) => f.rule === "ttm/ledger")).toBe(false);
    expect(readFileSync(join(repo.dir, FRANK), "utf8")).toContain("TTM_MIN_MIB=97792\n");
  });

  test("nothing to fix says so; --fix with --commit is a usage error (it writes the working tree)", async () => {
    const { repo, base } = await fleetRepo(made);
    repo.write("notes.txt", "hello\n");
    repo.stage();
    const run = kvgate(["check", "--staged", "--fix"], { cwd: repo.dir });
    expect([run.code, run.stdout]).toEqual([0, expect.stringContaining("no finding carries a value fix; nothing written")]);
    const bad = kvgate(["check", "--commit", base, "--fix"], { cwd: repo.dir });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringContaining("--fix writes the working tree: use it with --staged or --all, not --commit"),
    ]);
  });

  test("the fixed file keeps its CRLF line endings", async () => {
    const { repo } = await fleetRepo(made);
    repo.write(FRANK, (fleetFiles()[FRANK] as string).replace("TTM_MIN_MIB=97792", "TTM_MIN_MIB=97791").replace(/\n/g, "\r\n"));
    repo.stage();
    kvgate(["check", "--staged", "--fix"], { cwd: repo.dir });
    const text = readFileSync(join(repo.dir, FRANK), "utf8");
    expect(text).toContain("TTM_MIN_MIB=97792\r\n");
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
  });
});

describe("advice in the spelling the file uses", () => {
  test("plan moves a seat whose file uses CUDA_VISIBLE_DEVICES with CUDA_VISIBLE_DEVICES=, never GPU=", async () => {
    const { repo } = await fleetRepo(made);
    for (const [path, text] of Object.entries(fleetFiles())) {
      if (path.startsWith("scripts/") && path.endsWith(".env") && path !== FRANK)
        repo.write(path, text.replace(/^(export )?GPU=/m, "$1CUDA_VISIBLE_DEVICES="));
    }
    // voices onto gpu 1 beside meromero-rp: the plan moves a seat back.
    repo.write(
      "scripts/voices.env",
      readFileSync(join(repo.dir, "scripts/voices.env"), "utf8").replace(
        /^(export )?CUDA_VISIBLE_DEVICES=\d+/m,
        "$1CUDA_VISIBLE_DEVICES=1",
      ),
    );
    const json = JSON.parse(kvgate(["plan", "--host", "fv-ml1", "--format", "json"], { cwd: repo.dir }).stdout);
    const seatMoves = json.moves.filter((m: { kind: string }) => m.kind === "seat");
    expect(seatMoves.length).toBeGreaterThan(0);
    const text = kvgate(["plan", "--host", "fv-ml1"], { cwd: repo.dir }).stdout;
    for (const m of seatMoves) expect(text).toMatch(new RegExp(`set CUDA_VISIBLE_DEVICES=${m.to} at scripts/${m.name}\\.env:\\d+`));
    expect(text).not.toContain("set GPU=");
  });
});
