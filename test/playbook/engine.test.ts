// Playbooks through the real engine (snapshots → loadFleet → checks → pipeline), and the wiring it uses
// for a playbook deploy: every check over the fleet as the playbook deploys it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { contextOf, runCase, type Actual } from "../helpers/rule-tester.js";
import { playbookPaths } from "../../src/load/playbooks.js";
import { playbookContexts } from "../../src/engine/playbook-deploys.js";
import type { CheckContext } from "../../src/checks/define.js";

/** Every check through the engine (the real loader, the deploy contexts, the pipeline), and the context. */
async function run(
  before: Record<string, string> | null,
  after: Record<string, string>,
): Promise<{ findings: Actual[]; ctx: CheckContext }> {
  const c = { name: "unit", files: after, beforeFiles: before };
  return { findings: await runCase(c), ctx: await contextOf(c) };
}

function folder(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = readFileSync(p, "utf8");
    }
  };
  walk(root);
  return out;
}

const rows = (fs: Actual[], prefix: string) => fs.filter((f) => f.rule.startsWith(prefix)).map((f) => [f.rule, f.file, f.line]);

describe("the example fleet's rebalance playbook", () => {
  const example = folder("examples/fleet");
  const PBX = "playbooks/fv-ml1-rebalance-20261005.yaml";

  test("it is read as a deploy of five seats, with no drift or parse problem", async () => {
    const { findings, ctx } = await run(null, example);
    const read = ctx.after.playbooks?.find((p) => p.path === PBX);
    expect(read?.deploys.map((d) => [d.service, d.edits.length])).toEqual([
      ["voices", 2],
      ["coder", 5],
      ["gen-small", 1],
      ["erp-seat", 1],
      ["intern-decision", 1],
    ]);
    expect(ctx.after.playbooks?.map((p) => [p.path, p.isPlaybook])).toEqual([
      ["playbooks/fv-ml1-rebalance-20261005.yaml", true],
      ["playbooks/tasks/vllm-healthcheck.yaml", false],
      ["playbooks/vars/fv-ml1.yaml", false],
    ]);
    expect(rows(findings, "playbook/")).toEqual([["playbook/unresolved", PBX, 63]]);
  });

  test("the seats it deploys carry the playbook's lines as origins", async () => {
    const { ctx } = await run(null, example);
    const [p] = playbookContexts(ctx);
    const coder = p?.ctx.after.services.find((s) => s.name === "coder");
    expect([
      coder?.settings.max_model_len?.value,
      coder?.settings.max_model_len?.origin.file,
      coder?.settings.max_model_len?.origin.line,
    ]).toEqual([32768, PBX, 69]);
    expect([coder?.gpus, coder?.origins.gpus?.line, coder?.model]).toEqual([[0], 79, "Qwen/Qwen2.5-Coder-14B-Instruct"]);
    expect(p?.ctx.after.services.find((s) => s.name === "meromero-rp")?.file).toBe("scripts/meromero-rp.env");
  });

  test("playbookPaths loads the playbooks folder and vars folders", () => {
    expect(playbookPaths(Object.keys(example), "playbooks/**/*.{yml,yaml}").sort()).toEqual([
      PBX,
      "playbooks/tasks/vllm-healthcheck.yaml",
      "playbooks/vars/fv-ml1.yaml",
    ]);
  });
});

describe("a playbook deploy is checked by the sizing rules", () => {
  const config = lines(
    "fleet:",
    "  hosts:",
    "    h: { gpus: [ { index: 0, total: 26624MiB }, { index: 1, total: 27320MiB } ] }",
    "knobs: { enforce: [radiance] }",
  );
  const endpoint = lines(
    "ENGINE=radiance",
    "HOST=h",
    "GPU=0,1",
    "TP=2",
    "GPU_HEADROOM_MIB=64",
    "HOST_POOL_MIB=44928",
    "MAX_SEQS=8",
    "MAX_MODEL_LEN=65536",
  );
  const base = { "kvgate.yaml": config, "scripts/moe.env": endpoint };
  const pb = (...kv: string[]) =>
    lines(
      "- hosts: h",
      "  tasks:",
      ...kv.map((x) => `    - ansible.builtin.lineinfile: { path: /srv/scripts/moe.env, regexp: '^${x.split("=")[0]}=', line: '${x}' }`),
    );

  test("two radiance knobs in one playbook: knob/one-per-deploy refuses it at the playbook's line", async () => {
    const { findings } = await run(base, { ...base, "playbooks/resize.yaml": pb("HOST_POOL_MIB=45952", "MAX_SEQS=12") });
    const knob = findings.filter((f) => f.rule === "knob/one-per-deploy");
    expect(knob.map((f) => [f.severity, f.line, f.service, f.data.knobs])).toEqual([["error", 3, "moe", ["HOST_POOL_MIB", "MAX_SEQS"]]]);
  });

  test("one knob in the playbook passes knob/one-per-deploy", async () => {
    const { findings } = await run(base, { ...base, "playbooks/resize.yaml": pb("HOST_POOL_MIB=45952") });
    expect(findings.filter((f) => f.rule === "knob/one-per-deploy")).toEqual([]);
  });

  const vllm = {
    "kvgate.yaml": lines("fleet:", "  hosts:", "    fv-ml1: { gpus: [ { index: 0, total: 96GiB, reserve: 1GiB } ] }"),
    "scripts/voices.env": lines(
      "ENGINE=vllm",
      "HOST=fv-ml1",
      "GPU=0",
      "MODEL=Qwen/Qwen3-8B",
      "MAX_MODEL_LEN=8192",
      "KV_CACHE_MEMORY_BYTES=2147483648",
    ),
  };
  test("a lineinfile raising a vLLM seat's context without its KV pin: kv/covers-context at the playbook's line", async () => {
    const playbook = lines(
      "# voices to its native max",
      "- hosts: fv-ml1",
      "  tasks:",
      "    - lineinfile:",
      "        path: /opt/fleet/scripts/voices.env",
      "        regexp: ^MAX_MODEL_LEN=",
      "        line: MAX_MODEL_LEN=40960",
    );
    const { findings } = await run(vllm, { ...vllm, "playbooks/ctx.yaml": playbook });
    const kv = findings.filter((f) => f.rule === "kv/covers-context" && f.status === "open");
    // 1.25 × 40,960 × 147,456 B = 7,549,747,200 → rounded up to 0.5 GiB: 7.5 GiB = 8,053,063,680.
    expect(kv.map((f) => [f.file, f.line, f.data.env_file_line, f.data.required_bytes, f.data.pinned_bytes, f.data.max_model_len])).toEqual(
      [["playbooks/ctx.yaml", 7, 6, 8053063680, 2147483648, 40960]],
    );
  });

  test("the same playbook raising the pin too passes kv/covers-context", async () => {
    const playbook = lines(
      "- hosts: fv-ml1",
      "  tasks:",
      ...["MAX_MODEL_LEN=40960", "KV_CACHE_MEMORY_BYTES=8053063680"].map(
        (l) => `    - lineinfile: { path: scripts/voices.env, regexp: '^${l.split("=")[0]}=', line: '${l}' }`,
      ),
    );
    const { findings } = await run(vllm, { ...vllm, "playbooks/ctx.yaml": playbook });
    expect(findings.filter((f) => f.rule === "kv/covers-context")).toEqual([]);
  });
});

function lines(...l: string[]): string {
  return l.join("\n") + "\n";
}
