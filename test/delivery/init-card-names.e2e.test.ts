// `kvgate init` without --from-host takes the card inventory from the GPU names the repository writes
// (Ansible host_vars/group_vars, compose, env files), through rules/cards.yaml: the card's CUDA total
// at the indexes the seats use, and where the name was read. Two names for one host, or a name the
// table lacks, are not guessed: the TODO stanza stays, and init says why. Real git, the built CLI.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { kvgate } from "../helpers/cli.js";
import { useInitRepos, userRepo } from "../helpers/init-repo.js";

useInitRepos();

const SEAT = (gpu: number, model = "Qwen/Qwen3-4B") =>
  `VLLM_IMAGE=vllm/vllm-openai:v0.10.2\nCUDA_VISIBLE_DEVICES=${gpu}\nVLLM_EXTRA_ARGS="--model ${model} --max-model-len 16384 --kv-cache-memory-bytes 3221225472 --override-generation-config '{\\"max_new_tokens\\":4096}'"\n`;

async function initIn(files: Record<string, string>) {
  const r = await userRepo(files);
  r.stage();
  r.commit("the fleet", { noVerify: true });
  const init = kvgate(["init"], { cwd: r.dir });
  expect(init.code, init.stdout + init.stderr).toBe(0);
  return { r, out: init.stdout, yaml: readFileSync(join(r.dir, "kvgate.yaml"), "utf8") };
}

function checkAll(dir: string) {
  return JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: dir }).stdout) as {
    findings: { rule: string; service: string | null }[];
    coverage: { sized: number; cards: number; unsized: string[] };
  };
}

describe("kvgate init: the inventory from the GPU names the repository writes", () => {
  test("an Ansible host_vars file names the card: its CUDA total at the seats' cards, the seats sized", async () => {
    const { r, out, yaml } = await initIn({
      "deploy/chat.env": SEAT(0),
      "deploy/coder.env": SEAT(1, "Qwen/Qwen3-1.7B"),
      "ansible/inventory/host_vars/gpu-box.yml": 'ansible_host: 10.0.0.7\ngpu_model: "NVIDIA GeForce RTX 4090"  # two of them\n',
    });
    expect(out).toContain(
      'wrote     kvgate.yaml (2 seats found, services: "deploy/*.env"; 2 cards of gpu-box from NVIDIA GeForce RTX 4090 named in ansible/inventory/host_vars/gpu-box.yml:2, its total from rules/cards.yaml)',
    );
    expect(yaml).toContain("    gpu-box:  # from NVIDIA GeForce RTX 4090 named in ansible/inventory/host_vars/gpu-box.yml:2");
    expect(yaml).toContain("        - { index: 0, total: 24564MiB }  # NVIDIA GeForce RTX 4090\n        - { index: 1, total: 24564MiB }");
    const doc = checkAll(r.dir);
    expect(doc.coverage).toMatchObject({ sized: 2, cards: 2, unsized: [] });
    expect(doc.findings.map((f) => f.rule)).not.toContain("fleet/unknown-host");
  });

  test("an env file's GPU_TYPE (an alias the table knows) is for the seats' host", async () => {
    const { r, yaml } = await initIn({ "deploy/chat.env": `GPU_TYPE=nvidia-l4\nHOST=edge-1\n${SEAT(0, "Qwen/Qwen3-1.7B")}` });
    expect(yaml).toContain("    edge-1:  # from NVIDIA L4 named in deploy/chat.env:1, its total from rules/cards.yaml");
    expect(yaml).toContain("        - { index: 0, total: 23034MiB }  # NVIDIA L4");
    expect(checkAll(r.dir).coverage).toMatchObject({ sized: 1, unsized: [] });
  });

  test("two cards named for one host, or one the table lacks: nothing guessed, the TODO stanza, and why", async () => {
    const two = await initIn({
      "deploy/chat.env": SEAT(0),
      "group_vars/gpu.yml": "gpu_model: NVIDIA L4\n",
      "compose.yaml":
        "# gpu_name: NVIDIA H100 80GB HBM3\nservices:\n  ui:\n    image: nginx\n    environment:\n      GPU_NAME: NVIDIA A10G\n",
    });
    expect(two.out).toMatch(
      /card {6}\S+: the repository names NVIDIA A10G and NVIDIA L4 \(compose\.yaml:6, group_vars\/gpu\.yml:1\); not guessed between/,
    );
    expect(two.yaml).toContain("# fleet:   # TODO: the card inventory.");
    expect(checkAll(two.r.dir).coverage).toMatchObject({ sized: 0, unsized: ["chat"] });

    const unknown = await initIn({
      "deploy/chat.env": SEAT(0),
      "host_vars/box.yml": "gpu_model: Acme Tensor 9000 48GB\naccelerator: nvidia\n",
    });
    expect(unknown.out).toContain(
      "card      host_vars/box.yml:1: Acme Tensor 9000 48GB is not a card rules/cards.yaml knows; give its total by hand",
    );
    expect(unknown.out).not.toContain("nvidia is not a card");
    expect(unknown.yaml).toContain("# fleet:   # TODO: the card inventory.");
  });

  test("a malformed host_vars file is read line by line: no crash, its card still found", async () => {
    const { yaml } = await initIn({ "deploy/chat.env": SEAT(0), "host_vars/box.yml": "gpu_model: Tesla T4\n  bad: [unclosed\n\0binary\n" });
    expect(yaml).toContain("    box:  # from Tesla T4 named in host_vars/box.yml:1");
  });
});
