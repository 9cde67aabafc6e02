// Issue 24 item 7's done-when, end to end: a fleet written the operator's way, as an Ansible role that
// renders templates/vllm.env.j2 per seat from host_vars, with an inventory, group_vars and ansible.cfg,
// and no env file committed anywhere. kvgate.yaml names the playbooks (as `kvgate init` writes it) or
// not at all (discovery). The first commit is refused for exactly its two mistakes (a context too long
// for the KV, a token in a vars file), the advice is written in host_vars' own spelling, and after
// `kvgate check --fix` and `git add` (and the token moved to a lookup by hand) it passes. Then the
// malformed inputs of this layout: each a finding at its file and line, never a crash.
import { afterEach, describe, expect, test } from "vitest";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { gitCommit } from "../helpers/install.js";
import { hostCsv } from "../helpers/init-repo.js";
import type { JsonReport } from "./fixtures/fleet.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

/** Real-shaped, not a placeholder. */
const TOKEN = "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";
const J2 = "ansible/roles/vllm/templates/vllm.env.j2";
const GPU_B = "ansible/host_vars/gpu-b.yml";
const ALL = "ansible/group_vars/all.yml";

const KVGATE_YAML = (playbooks: boolean): string =>
  [
    "version: 1",
    ...(playbooks ? ['playbooks: "ansible/*.yml"'] : []),
    "fleet:",
    "  hosts:",
    "    gpu-a: { gpus: [ { index: 0, total: 24GiB } ] }",
    "    gpu-b: { gpus: [ { index: 0, total: 24GiB } ] }",
    "",
  ].join("\n");

/** Two hosts with one 24 GB card each, a role rendering one env file per seat of host_vars' vllm_seats. */
const FLEET: Record<string, string> = {
  "ansible/ansible.cfg": "[defaults]\ninventory = inventory/hosts.ini\nroles_path = roles\n",
  "ansible/inventory/hosts.ini": "[gpu]\ngpu-a ansible_host=10.0.0.11\ngpu-b ansible_host=10.0.0.12\n",
  "ansible/site.yml": "- name: vLLM seats\n  hosts: gpu\n  become: true\n  roles:\n    - vllm\n",
  "ansible/roles/vllm/defaults/main.yml":
    "vllm_image: vllm/vllm-openai:v0.8.5\nvllm_env_dir: /etc/vllm\nvllm_gpu_memory_utilization: 0.9\nvllm_seats: []\n",
  "ansible/roles/vllm/tasks/main.yml": [
    "- name: env file per seat",
    "  ansible.builtin.template:",
    "    src: vllm.env.j2",
    '    dest: "{{ vllm_env_dir }}/{{ item.name }}.env"',
    '    mode: "0600"',
    '  loop: "{{ vllm_seats }}"',
    "  notify: restart vllm",
    "",
  ].join("\n"),
  "ansible/roles/vllm/handlers/main.yml":
    '- name: restart vllm\n  ansible.builtin.systemd:\n    name: "vllm@{{ item.name }}"\n    state: restarted\n  loop: "{{ vllm_seats }}"\n',
  [J2]: [
    "# {{ ansible_managed }}",
    "VLLM_IMAGE={{ vllm_image }}",
    "CUDA_VISIBLE_DEVICES={{ item.gpu | default(0) }}",
    "{% if hf_token is defined %}",
    "HF_TOKEN={{ hf_token }}",
    "{% endif %}",
    `VLLM_EXTRA_ARGS="--model {{ item.model }} --served-model-name {{ item.name }} --max-model-len {{ item.max_model_len }} --gpu-memory-utilization {{ item.gpu_memory_utilization | default(vllm_gpu_memory_utilization) }} --override-generation-config '{\\"max_new_tokens\\":4096}'"`,
    "",
  ].join("\n"),
  "ansible/host_vars/gpu-a.yml": "vllm_seats:\n  - name: coder\n    model: Qwen/Qwen2.5-Coder-7B-Instruct\n    max_model_len: 32768\n",
  // Qwen3-8B's 40,960 tokens need 7.5 GiB of KV; 0.9 × 24 GiB leaves about 4 GiB beside its weights.
  [GPU_B]: "vllm_seats:\n  - name: chat\n    model: Qwen/Qwen3-8B\n    max_model_len: 40960\n",
  [ALL]: `hf_token: ${TOKEN}\n`,
};

async function operatorRepo(playbooksGlob: boolean, over: Record<string, string | Buffer> = {}): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  r.write("README.md", "the inference fleet\n");
  r.stage();
  r.commit("readme");
  for (const [p, t] of Object.entries({ "kvgate.yaml": KVGATE_YAML(playbooksGlob), ...FLEET, ...over })) r.write(p, t);
  r.stage();
  return r;
}

type Report = JsonReport & { coverage?: unknown };
const json = (r: TempRepo, args: string[]): Report => {
  const run = kvgate([...args, "--format", "json"], { cwd: r.dir });
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout) as Report;
};
const errors = (doc: JsonReport) =>
  doc.findings.filter((f) => f.severity === "error" && f.status === "open").map((f) => [f.rule, f.file, f.line]);

describe.each([
  ["kvgate.yaml names the playbooks", true],
  ["kvgate.yaml names none (discovered)", false],
])("an Ansible-role fleet: %s", (_name, glob) => {
  test("the gate's first commit is refused for exactly its context and its token, the advice in host_vars' spelling", async () => {
    const r = await operatorRepo(glob);
    const text = kvgate(["check", "--staged"], { cwd: r.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).not.toContain(TOKEN);
    expect(text.stdout).toContain(
      `${GPU_B}:4 error kv/covers-context chat: no KV pin (vLLM 0.8.5 has none: --kv-cache-memory-bytes came in 0.10.2), so vLLM's profiler sizes the cache: an estimated 4.75 GiB (0.9 × 24 GiB − weights 15.3 GiB − overhead 1.55 GiB) < required 7.5 GiB = ceil(1.25 × 40,960 tokens × 144 KiB / 0.5 GiB) × 0.5 GiB; the card has no room for more utilization: set max_model_len: 25600, the longest the estimate holds, or free the card (kvgate plan)`,
    );
    expect(text.stdout).toContain("2 seats sized on 2 cards; 0 unsized — REFUSED");
    const doc = json(r, ["check", "--staged"]);
    expect(errors(doc)).toEqual([
      ["secret/huggingface-token", ALL, 1],
      ["kv/covers-context", GPU_B, 4],
    ]);
    expect(doc.findings.find((f) => f.rule === "kv/covers-context")?.data.context_fix).toEqual({
      file: GPU_B,
      line: 4,
      key: "max_model_len",
      value: "25600",
      yaml: true,
    });
    expect(doc.coverage).toEqual({ sized: 2, cards: 2, not_engines: [], unsized: [] });
  });

  test("kvgate check --fix edits the variable in host_vars; with the token moved to a lookup and git add, it passes", async () => {
    const r = await operatorRepo(glob);
    const fix = kvgate(["check", "--fix"], { cwd: r.dir });
    expect(fix.stdout).toContain(`fixed ${GPU_B}:4 max_model_len 40960 → 25600 (kv/covers-context)`);
    expect(readFileSync(join(r.dir, GPU_B), "utf8")).toBe(
      "vllm_seats:\n  - name: chat\n    model: Qwen/Qwen3-8B\n    max_model_len: 25600\n",
    );
    // Only the index still holds the refused value: the token stays until it is moved by hand.
    expect(fix.code).toBe(1);
    r.write(ALL, "hf_token: \"{{ lookup('env', 'HF_TOKEN') }}\"\n");
    r.stage();
    const pass = kvgate(["check", "--staged"], { cwd: r.dir });
    expect(pass.code, pass.stdout).toBe(0);
    expect(pass.stdout).toContain("kvgate staged: 0 errors, 0 warnings, 2 notices; 2 seats sized on 2 cards; 0 unsized — PASS");
    // What kvgate cannot read (the lookup) is said, with the service and key, not guessed.
    expect(pass.stdout).toContain(
      `${J2}:5 notice playbook/unresolved HF_TOKEN for chat: {{ hf_token }} cannot be read: lookups and function calls run only inside Ansible`,
    );
    r.commit("vLLM seats, gated");
    expect(kvgate(["check", "--all"], { cwd: r.dir }).code).toBe(0);
  });
});

describe("an Ansible-role fleet set up only with kvgate init (the cards from one host's nvidia-smi, for the group's two)", () => {
  test("the commit that turns the gate on is refused for its context and its token; check --fix, the token moved, git add: it passes", async () => {
    const r = await makeRepo();
    made.push(r);
    for (const [p, t] of Object.entries(FLEET)) r.write(p, t);
    r.stage();
    r.commit("the fleet as it runs today");
    const init = kvgate(["init", "--from-host", hostCsv(1, "NVIDIA GeForce RTX 4090", 24564), "--host", "gpu-a,gpu-b"], { cwd: r.dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("wrote     kvgate.yaml (2 seats found; 1 card of gpu-a, gpu-b from");
    const yaml = readFileSync(join(r.dir, "kvgate.yaml"), "utf8");
    expect(yaml).toContain("#   chat (ansible/roles/vllm/templates/vllm.env.j2:2): engine vllm (by image), host gpu-b, gpu 0");
    expect(yaml).toContain("# Deployed by: ansible/site.yml");

    // The gate's first commit is checked as --all: refused for exactly the context and the token.
    r.stage();
    const first = gitCommit(r, "turn the gate on");
    expect(first.code, first.out).not.toBe(0);
    expect(first.out).not.toContain(TOKEN);
    const doc = json(r, ["check", "--all"]);
    expect(errors(doc)).toEqual([
      ["secret/huggingface-token", ALL, 1],
      ["kv/covers-context", GPU_B, 4],
    ]);
    expect(doc.coverage).toEqual({ sized: 2, cards: 2, not_engines: [], unsized: [] });
    const finding = doc.findings.find((f) => f.rule === "kv/covers-context");
    expect(finding?.message).toContain("vLLM 0.8.5 has none: --kv-cache-memory-bytes came in 0.10.2");
    expect(finding?.message).toMatch(/set max_model_len: \d+, the longest the estimate holds/);

    const fix = kvgate(["check", "--all", "--fix"], { cwd: r.dir });
    expect(fix.stdout).toMatch(new RegExp(`fixed ${GPU_B}:4 max_model_len 40960 → \\d+ \\(kv/covers-context\\)`));
    expect(readFileSync(join(r.dir, GPU_B), "utf8")).toMatch(/^ {4}max_model_len: \d+\n$/m);
    r.write(ALL, "hf_token: \"{{ lookup('env', 'HF_TOKEN') }}\"\n");
    r.stage();
    const second = gitCommit(r, "turn the gate on, the fleet sized");
    expect(second.code, second.out).toBe(0);
    expect(r.git("log", "-1", "--format=%B")).toContain("Kvgate-Verdict: pass");
    expect(json(r, ["check", "--all"])).toMatchObject({ verdict: "pass", coverage: { sized: 2, cards: 2, unsized: [] } });
  });
});

describe("the fleet as the template renders it", () => {
  test("explain shows the seat as rendered, each value at the variable that holds it", async () => {
    const r = await operatorRepo(true, { [GPU_B]: FLEET[GPU_B]?.replace("40960", "16384") ?? "", [ALL]: "" });
    r.commit("fleet");
    const doc = JSON.parse(kvgate(["explain", "chat", "--format", "json"], { cwd: r.dir }).stdout) as {
      services: {
        name: string;
        host: string;
        gpus: number[];
        deployed_by: unknown[];
        settings: Record<string, { value: unknown; file: string; line: number }>;
      }[];
    };
    const chat = doc.services.find((s) => s.name === "chat");
    expect([chat?.host, chat?.gpus]).toEqual(["gpu-b", [0]]);
    // No env file is committed: the task that renders it (at its loop, one seat per item) is where it comes from.
    expect(chat?.deployed_by).toEqual([{ file: "ansible/roles/vllm/tasks/main.yml", line: 6, playbook: "ansible/site.yml" }]);
    const text = kvgate(["explain", "chat"], { cwd: r.dir, env: { NO_COLOR: "1" } }).stdout.split("\n");
    expect(text[0]).toMatch(/^chat {2}\(no scripts\/chat\.env\) {2}vllm/);
    expect(text[1]).toBe("  deployed by ansible/roles/vllm/tasks/main.yml:6 (playbook ansible/site.yml): its values below");
    expect(chat?.settings.max_model_len).toMatchObject({ value: 16384, file: GPU_B, line: 4 });
  });
});

describe("a value only Ansible can compute: the seat is refused as unsized, never passed", () => {
  test("max_model_len from a lookup in host_vars: that seat refused as unsized (its args line skipped), a notice at the line, the other seat sized", async () => {
    const r = await operatorRepo(true, { [GPU_B]: FLEET[GPU_B]?.replace("40960", `"{{ lookup('env', 'CHAT_CTX') }}"`) ?? "", [ALL]: "" });
    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: r.dir });
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout) as Report;
    // The skipped line also held --model: the model is unknown too. Both name the seat; unsized says which line.
    expect(errors(doc)).toEqual([
      ["engine/unknown-model", J2, 2],
      ["fleet/unsized", J2, 2],
    ]);
    const unsized = doc.findings.find((f) => f.rule === "fleet/unsized");
    expect(unsized?.service).toBe("chat");
    expect(unsized?.message).toContain(`VLLM_EXTRA_ARGS at ${J2}:7 could not be read`);
    expect(doc.findings.filter((f) => f.rule === "playbook/unresolved").map((f) => [f.file, f.line, f.service])).toEqual([[J2, 7, "chat"]]);
    expect(doc.coverage).toEqual({ sized: 1, cards: 1, not_engines: [], unsized: ["chat"] });
    // The unread line may hold the output cap: no "no default output cap" claim about chat, and every
    // finding points at a file the repository has (not the scripts/chat.env nobody committed).
    expect(doc.findings.filter((f) => f.rule === "gen/output-cap" && f.service === "chat")).toEqual([]);
    for (const f of doc.findings) if (f.file) expect(existsSync(join(r.dir, f.file)), `${f.rule} at ${f.file}`).toBe(true);
  });
});

describe("a flag to add goes where the template writes the flags", () => {
  test("no output cap: the warning is at the template's VLLM_EXTRA_ARGS line (not host_vars' model), and adding the flag there clears it", async () => {
    const cap = ` --override-generation-config '{\\"max_new_tokens\\":4096}'`;
    const noCap = (FLEET[J2] ?? "").replace(cap, "");
    expect(noCap).not.toBe(FLEET[J2]);
    const r = await operatorRepo(true, { [GPU_B]: FLEET[GPU_B]?.replace("40960", "16384") ?? "", [ALL]: "", [J2]: noCap });
    const at = (doc: JsonReport) =>
      doc.findings.filter((f) => f.rule === "gen/output-cap").map((f) => [f.service, f.file, f.line, f.severity]);
    expect(at(json(r, ["check", "--staged"]))).toEqual([
      ["coder", J2, 7, "warning"],
      ["chat", J2, 7, "warning"],
    ]);
    r.write(J2, noCap.replace('vllm_gpu_memory_utilization) }}"', `vllm_gpu_memory_utilization) }}${cap}"`));
    r.stage();
    const after = json(r, ["check", "--staged"]);
    expect(at(after)).toEqual([]);
    expect(after.findings.filter((f) => f.severity !== "notice")).toEqual([]);
  });
});

describe("the hook's fast path never skips a file the role reads (issue 24 item 8)", () => {
  const VERDICTS = (r: TempRepo) => join(r.dir, ".git", "kvgate", "verdicts");
  const run = (r: TempRepo, fast: boolean) => {
    rmSync(VERDICTS(r), { recursive: true, force: true });
    const c = kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_DEBUG: "1", KVGATE_FAST_PATH: fast ? "1" : "0" } });
    return { code: c.code, stdout: c.stdout, taken: c.stderr.includes("fast path: taken"), verdicts: readdirSync(VERDICTS(r)).length };
  };

  test.each<[string, (r: TempRepo) => void, 0 | 1]>([
    ["host_vars (the context raised past the KV)", (r) => r.write(GPU_B, FLEET[GPU_B] ?? ""), 1],
    ["a new host_vars file", (r) => r.write("ansible/host_vars/gpu-c.yml", "vllm_seats: []\n"), 0],
    ["the role's template", (r) => r.write(J2, (FLEET[J2] ?? "").replace("{{ item.max_model_len }}", "65536")), 1],
    [
      "the role's defaults",
      (r) =>
        r.write(
          "ansible/roles/vllm/defaults/main.yml",
          "vllm_image: vllm/vllm-openai:v0.8.5\nvllm_env_dir: /etc/vllm\nvllm_gpu_memory_utilization: 0.5\nvllm_seats: []\n",
        ),
      1,
    ],
    ["the inventory", (r) => r.write("ansible/inventory/hosts.ini", "[gpu]\ngpu-a\n[gpu\n"), 1],
    [
      "a new play beside the roles",
      (r) =>
        r.write(
          "ansible/more.yml",
          "- hosts: gpu-b\n  roles:\n    - role: vllm\n      vllm_seats: [{ name: x, model: Qwen/Qwen3-8B, max_model_len: 65536 }]\n",
        ),
      1,
    ],
  ])("a staged change to %s takes the full path, with the full path's verdict", async (_name, change, code) => {
    const r = await operatorRepo(false, { [GPU_B]: FLEET[GPU_B]?.replace("40960", "16384") ?? "", [ALL]: "" });
    r.commit("fleet", { noVerify: true });
    r.write("README.md", "docs\n");
    r.stage();
    expect(run(r, false).code).toBe(0);
    // A docs edit is the fast path's: the key the full run recorded lets it answer.
    expect(run(r, true).taken).toBe(true);
    change(r);
    r.stage();
    const full = run(r, false);
    const fast = run(r, true);
    expect(full.code).toBe(code);
    expect(fast).toEqual({ ...full, taken: false });
  });
});

describe("malformed inputs of the layout: a finding at the file and line, never a crash", () => {
  const clean = { [GPU_B]: FLEET[GPU_B]?.replace("40960", "16384") ?? "", [ALL]: "" };
  const cases: [string, Record<string, string | Buffer>, [string, string, number], 0 | 1][] = [
    [
      "a role that does not exist (a notice: it may come from ansible-galaxy)",
      { "ansible/site.yml": "- hosts: gpu\n  roles:\n    - vllm\n    - nvidia.gpu_driver\n" },
      ["playbook/unresolved", "ansible/site.yml", 4],
      0,
    ],
    [
      "a template that does not render",
      { [J2]: "VLLM_IMAGE={{ vllm_image }}\n{% for x in vllm_seats %}\nA=1\n" },
      ["playbook/parse", J2, 2],
      1,
    ],
    [
      "an inventory that does not parse",
      { "ansible/inventory/hosts.ini": "[gpu]\ngpu-a\ngpu-b ansible_host\n" },
      ["playbook/parse", "ansible/inventory/hosts.ini", 3],
      1,
    ],
    [
      "an import cycle through roles (meta dependencies): Ansible refuses it",
      {
        "ansible/roles/vllm/meta/main.yml": "dependencies:\n  - role: docker\n",
        "ansible/roles/docker/meta/main.yml": "dependencies: [vllm]\n",
      },
      ["playbook/parse", "ansible/roles/docker/meta/main.yml", 1],
      1,
    ],
    [
      "an include cycle through roles (include_role): a notice, a `when:` may end it",
      {
        "ansible/roles/vllm/meta/main.yml": "dependencies:\n  - role: docker\n",
        "ansible/roles/docker/tasks/main.yml": "- name: back to vllm\n  include_role:\n    name: vllm\n",
      },
      ["playbook/unresolved", "ansible/roles/docker/tasks/main.yml", 3],
      0,
    ],
    [
      "a group_vars file that is not a mapping of variables (Ansible refuses it)",
      { "ansible/group_vars/gpu.yml": "- vllm_gpu_memory_utilization\n- 0.5\n" },
      ["playbook/parse", "ansible/group_vars/gpu.yml", 1],
      1,
    ],
    [
      "a role's template that is not UTF-8 (not a seat skipped)",
      { [J2]: Buffer.from("VLLM_IMAGE={{ vllm_image }}\n# caf\xe9\n", "latin1") },
      ["playbook/parse", J2, 1],
      1,
    ],
    ["a host_vars file that is not YAML", { [GPU_B]: "vllm_seats:\n  - name: chat\n   model: x\n" }, ["playbook/parse", GPU_B, 3], 1],
  ];

  test.each(cases)("%s", async (_name, over, expected, code) => {
    const r = await operatorRepo(true, { ...clean, ...over });
    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: r.dir });
    expect(run.stderr).toBe("");
    const doc = JSON.parse(run.stdout) as JsonReport;
    const found = doc.findings.filter((f) => f.rule.startsWith("playbook/")).map((f) => [f.rule, f.file, f.line]);
    expect(found).toContainEqual(expected);
    expect(run.code, JSON.stringify(doc.findings.map((f) => [f.rule, f.file, f.line, f.message]))).toBe(code);
  });
});
