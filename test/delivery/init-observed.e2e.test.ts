// `kvgate init` without --from-host takes the card totals an observed file records (`kvgate observe
// --write`: each card's total_bytes as the host's metrics reported it), before any card name the
// repository writes; a file that does not read, or a card without its total, is a `card` note naming
// the file and line, never a guess. Real git, the built CLI.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { kvgate } from "../helpers/cli.js";
import { useInitRepos, userRepo } from "../helpers/init-repo.js";

useInitRepos();

const SEAT = (gpu: number, model = "Qwen/Qwen3-4B") =>
  `VLLM_IMAGE=vllm/vllm-openai:v0.10.2\nHOST=gpu-box\nCUDA_VISIBLE_DEVICES=${gpu}\nVLLM_EXTRA_ARGS="--model ${model} --max-model-len 16384 --kv-cache-memory-bytes 3221225472 --override-generation-config '{\\"max_new_tokens\\":4096}'"\n`;

const GIB24 = 24564 * 1024 * 1024;
const card = (host: string, index: number, total: number | null) =>
  `  - host: ${host}\n    index: ${index}\n    plateau_free_bytes: 4294967296\n${total === null ? "" : `    total_bytes: ${total}\n`}`;
const observed = (cards: string) => `version: 1\nfrom: "2026-11-01T00:00:00Z"\nuntil: "2026-11-08T00:00:00Z"\ncards:\n${cards}`;

async function initIn(files: Record<string, string>) {
  const r = await userRepo(files);
  r.stage();
  r.commit("the fleet", { noVerify: true });
  const init = kvgate(["init"], { cwd: r.dir });
  expect(init.code, init.stdout + init.stderr).toBe(0);
  return { r, out: init.stdout, yaml: readFileSync(join(r.dir, "kvgate.yaml"), "utf8") };
}

function coverage(dir: string) {
  return (JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: dir }).stdout) as { coverage: unknown }).coverage;
}

describe("kvgate init: the inventory from an observed file", () => {
  test("each card at the total its metrics reported, ahead of a card name; the seats sized", async () => {
    const { r, out, yaml } = await initIn({
      "deploy/chat.env": SEAT(0),
      "deploy/coder.env": SEAT(1, "Qwen/Qwen3-1.7B"),
      // Listed out of order, and a name the repository writes that says otherwise: the metrics win.
      "ops/observed.yaml": observed(card("gpu-box", 1, GIB24) + card("gpu-box", 0, GIB24)),
      "group_vars/gpu.yml": "gpu_model: NVIDIA L4\n",
    });
    expect(out).toContain("2 cards of gpu-box from ops/observed.yaml (observed 2026-11-01T00:00:00Z – 2026-11-08T00:00:00Z)");
    expect(yaml).toContain(
      "        - { index: 0, total: 24564MiB }  # as observed\n        - { index: 1, total: 24564MiB }  # as observed",
    );
    expect(yaml).not.toContain("NVIDIA L4");
    expect(coverage(r.dir)).toMatchObject({ sized: 2, cards: 2, unsized: [] });
  });

  test("a malformed observed file, or a card without its total: a note at its line, and no card taken from it", async () => {
    const broken = await initIn({ "deploy/chat.env": SEAT(0), "observed.yaml": "version: 1\ncards: [\n" });
    expect(broken.out).toMatch(/card {6}observed\.yaml(:\d+)?: not an observed file kvgate can read \(.+\); not used/);
    expect(broken.yaml).toContain("# fleet:   # TODO: the card inventory.");
    expect(coverage(broken.r.dir)).toMatchObject({ sized: 0, unsized: ["chat"] });

    const noTotal = await initIn({ "deploy/chat.env": SEAT(0), "observed.yaml": observed(card("gpu-box", 0, null)) });
    expect(noTotal.out).toContain("card      observed.yaml:5: gpu-box GPU 0 has no total_bytes; not used");
    expect(noTotal.yaml).toContain("# fleet:   # TODO: the card inventory.");
  });

  test("an observed file that is a symlink out of the repository is not read: a note, and no card taken", async () => {
    const outside = mkdtempSync(join(tmpdir(), "kvgate-outside-"));
    try {
      writeFileSync(join(outside, "observed.yaml"), observed(card("gpu-box", 0, GIB24)));
      const r = await userRepo({ "deploy/chat.env": SEAT(0) });
      symlinkSync(join(outside, "observed.yaml"), join(r.dir, "observed.yaml"));
      r.stage();
      r.commit("the fleet", { noVerify: true });
      const init = kvgate(["init"], { cwd: r.dir });
      expect(init.code, init.stdout + init.stderr).toBe(0);
      expect(init.stdout).toMatch(/card {6}observed\.yaml: not read: the file is a symlink that leads outside the repository/);
      expect(readFileSync(join(r.dir, "kvgate.yaml"), "utf8")).toContain("# fleet:   # TODO: the card inventory.");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
