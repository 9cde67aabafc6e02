// Issue 17's done-means end to end: a temp repository holding a copy of examples/compose (a host whose
// vLLM seats run from a docker compose file), changed and checked by the built CLI. Also gpu/plateau
// from a committed observed file (issue 18), on the same fleet.
import { afterEach, describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { makeRepo, type TempFolder, type TempRepo } from "../helpers/repo.js";
import { ROOT, kvgate, type JsonFinding } from "../helpers/cli.js";
import { applyFixes } from "../../src/fix/edit.js";
import type { ValueFix } from "../../src/model/value-fix.js";

const EXAMPLE = join(ROOT, "examples", "compose");
const CF = "hosts/fv-ml3/compose.yaml";
const GiB = 2 ** 30;

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}
const example = (path: string): string => readFileSync(join(EXAMPLE, path), "utf8");

async function composeRepo(extra: Record<string, string> = {}): Promise<TempRepo> {
  const repo = await makeRepo();
  made.push(repo);
  for (const f of filesUnder(EXAMPLE)) repo.write(relative(EXAMPLE, f), readFileSync(f));
  for (const [p, text] of Object.entries(extra)) repo.write(p, text);
  repo.stage();
  repo.commit("the compose fleet");
  return repo;
}

type Found = JsonFinding;
function staged(repo: TempRepo): { code: number | null; verdict: string; findings: Found[] } {
  repo.stage();
  const run = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
  expect(run.stderr).toBe("");
  const r = JSON.parse(run.stdout) as { verdict: string; findings: Found[] };
  return { code: run.code, ...r };
}
const lineOf = (text: string, needle: string): number => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

describe("the compose example", () => {
  test("check --all passes, and the seats are read from the compose file (the webui is not a seat)", async () => {
    const repo = await composeRepo();
    const run = kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // One notice: chat runs Qwen3-8B at 32,768 of its native 40,960 tokens, and its card has room for
    // the 7.5 GiB the maximum needs (kv/context-headroom, from the model's facts).
    const findings = (JSON.parse(run.stdout) as { findings: Found[] }).findings;
    expect(findings.map((f) => [f.rule, f.severity, f.service])).toEqual([["kv/context-headroom", "notice", "chat"]]);
  });

  test("the headroom notice's suggestions, written in both files as the message says, leave no finding (no drift)", async () => {
    const repo = await composeRepo();
    const before = kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir });
    const notice = (JSON.parse(before.stdout) as { findings: Found[] }).findings.find((f) => f.rule === "kv/context-headroom");
    // The compose file writes its flags as list items, the env file in SERVE_ARGS: each in its own spelling.
    expect(notice?.message).toContain("set --max-model-len 40960 and --kv-cache-memory-bytes 8053063680 (the same in scripts/chat.env)");
    const edits = new Map<string, ValueFix[]>();
    for (const s of notice?.data.suggestions as ValueFix[]) {
      for (const f of [s, ...(s.also ? [s.also] : [])]) edits.set(f.file, [...(edits.get(f.file) ?? []), f]);
    }
    expect([...edits.keys()].sort()).toEqual([CF, "scripts/chat.env"]);
    for (const [file, fixes] of edits) {
      const edit = applyFixes(readFileSync(join(repo.dir, file), "utf8"), file, fixes);
      expect(edit.failed).toEqual([]);
      expect(edit.applied).toHaveLength(2);
      repo.write(file, edit.text);
    }
    expect(readFileSync(join(repo.dir, CF), "utf8")).toContain('      - --max-model-len\n      - "40960"');
    const r = staged(repo);
    // Without the env file's copy, playbook/drift would warn twice (the compose file deploys other values).
    expect(r.findings.map((f) => f.rule)).toEqual([]);
    expect(r.code).toBe(0);
  });

  test("raising --max-model-len in compose.yaml without the KV is refused at the compose file", async () => {
    const repo = await composeRepo();
    const text = example(CF).replace('      - "32768"', '      - "65536"');
    repo.write(CF, text);
    const r = staged(repo);
    expect(r.code).toBe(1);
    const kv = r.findings.find((f) => f.rule === "kv/covers-context");
    // 1.25 × 65,536 × 147,456 B = 11.25 GiB required; the compose file deploys a 6 GiB pin (at its flag).
    expect(kv).toMatchObject({
      severity: "error",
      status: "open",
      file: CF,
      line: lineOf(text, "--kv-cache-memory-bytes"),
      service: "chat",
    });
    expect(kv?.data).toMatchObject({ max_model_len: 65536, required_bytes: 11.5 * GiB, pinned_bytes: 6 * GiB, bytes_per_token: 147456 });
    // The env file the service loads still says 32768: drift, at the compose line that differs.
    expect(r.findings.find((f) => f.rule === "playbook/drift")).toMatchObject({
      file: CF,
      line: lineOf(text, "--max-model-len"),
      data: { key: "--max-model-len", playbook_value: "65536", committed_value: "32768" },
    });
  });

  test("a device_ids move onto a full card fails gpu/fits at the gpus line", async () => {
    // A 20 GiB tenant on card 0: chat (23.3 GiB) fits beside it, voices (17 GiB) would not as well.
    const config = example("kvgate.yaml").replace(
      "vllm: {",
      "  tenants:\n    - { name: trainer, host: fv-ml3, gpu: 0, vram: 20GiB, pin: true }\nvllm: {",
    );
    const repo = await composeRepo({ "kvgate.yaml": config });
    const text = example(CF).replace('      - device_ids: ["1"]', '      - device_ids: ["0"]');
    repo.write(CF, text);
    const r = staged(repo);
    expect(r.code).toBe(1);
    const fits = r.findings.find((f) => f.rule === "gpu/fits");
    expect(fits).toMatchObject({ severity: "error", file: CF, line: lineOf(text, 'device_ids: ["0"]') });
    expect(fits?.data).toMatchObject({ host: "fv-ml3", gpu: 0, total_bytes: 48 * GiB, reserve_bytes: GiB });
    expect(fits?.data.spare_bytes as number).toBeLessThan(0);
  });

  test("${VAR:-default} resolves; a ${VAR} the .env lacks is a notice and the change still passes", async () => {
    const repo = await composeRepo();
    repo.write(CF, example(CF).replace("HF_HOME: /root/.cache/huggingface", "HF_HOME: ${HF_CACHE}"));
    const r = staged(repo);
    expect(r.code).toBe(0);
    expect(r.findings.map((f) => [f.rule, f.severity, f.file])).toEqual([
      ["compose/unresolved", "notice", CF],
      ["compose/unresolved", "notice", CF],
    ]);
    expect(r.findings[0]?.message).toContain("${HF_CACHE} is not set in the .env beside the compose file");
  });

  test("a malformed compose file is refused (compose/parse, with its line), never a crash or a pass", async () => {
    const repo = await composeRepo();
    repo.write(CF, example(CF).replace('    ports: ["8001:8000"]', '    ports: ["8001:8000"\n  bad: : :'));
    const r = staged(repo);
    expect(r.code).toBe(1);
    expect(r.findings.filter((f) => f.rule === "compose/parse").length).toBeGreaterThan(0);
    for (const f of r.findings.filter((x) => x.rule === "compose/parse")) expect([f.file, typeof f.line]).toEqual([CF, "number"]);
  });

  test("a compose file that is binary is a compose/parse error at line 1", async () => {
    const repo = await composeRepo();
    repo.write(CF, Buffer.from("services:\n  chat:\0\n"));
    const r = staged(repo);
    expect(r.code).toBe(1);
    expect(r.findings.find((f) => f.rule === "compose/parse")).toMatchObject({ file: CF, line: 1 });
  });
});

describe("gpu/plateau from a committed observed file", () => {
  const observed = (plateau: number) =>
    [
      "version: 1",
      'from: "2026-11-01T00:00:00Z"',
      'until: "2026-11-08T00:00:00Z"',
      "cards:",
      '  - host: "fv-ml3"',
      "    index: 1",
      `    plateau_free_bytes: ${plateau}`,
      "",
    ].join("\n");
  const config = example("kvgate.yaml") + "observed: observed.yaml\n";

  test("raising voices' pin by 1.5 GiB on a card with 2 GiB free at plateau is refused at the pin", async () => {
    const repo = await composeRepo({ "kvgate.yaml": config, "observed.yaml": observed(2 * GiB) });
    const env = example("scripts/voices.env").replace("7680M", "9216M");
    repo.write("scripts/voices.env", env);
    const cf = example(CF).replace("7680M", "9216M");
    repo.write(CF, cf);
    const r = staged(repo);
    expect(r.code).toBe(1);
    const p = r.findings.find((f) => f.rule === "gpu/plateau");
    // The pin that runs is the compose command's (it replaces the env file's flags): the finding is there.
    expect(p).toMatchObject({ severity: "error", file: CF, line: lineOf(cf, "9216M") });
    expect(p?.data).toMatchObject({
      host: "fv-ml3",
      gpu: 1,
      plateau_free_bytes: 2 * GiB,
      added_bytes: 1.5 * GiB,
      free_after_bytes: 0.5 * GiB,
      short_bytes: 0.5 * GiB,
    });
  });

  test("a malformed observed file is a finding naming the file and line", async () => {
    const repo = await composeRepo({ "kvgate.yaml": config, "observed.yaml": observed(2 * GiB) });
    repo.write("observed.yaml", observed(2 * GiB).replace(`plateau_free_bytes: ${2 * GiB}`, "plateau_free_bytes: -5"));
    const r = staged(repo);
    expect(r.code).toBe(1);
    expect(r.findings.find((f) => f.rule === "gpu/plateau")).toMatchObject({ severity: "error", file: "observed.yaml", line: 7 });
  });
});
