// `check --all` reads the tree a chunk at a time (256 files): the secret scan is handed each chunk in
// turn and the fleet checks see the fleet's files, so the whole tree is never held. These tests run
// the engine over a real repository of three chunks, streamed, and over the same files held whole,
// and ask for the same result; and a file that cannot be read mid-stream stops the run.
import { afterEach, describe, expect, test } from "vitest";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openTree } from "../../src/git/index.js";
import type { DeployUnit } from "../../src/git/index.js";
import { checkUnits, type RunOptions } from "../../src/engine/run.js";
import { GateError } from "../../src/errors.js";
import { secretFingerprint } from "../../src/secrets/redact.js";
import { pack } from "../helpers/rule-tester.js";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { treeFilesOf } from "../helpers/tree-files.js";
import { FAKE } from "../secrets/helpers.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

const FLEET = "fleet:\n  hosts:\n    fv-ml1:\n      gpus:\n        - { index: 0, total: 96GiB, reserve: 1GiB }\n";
const SEAT = "ENGINE=vllm\nHOST=fv-ml1\nGPU=0\nMODEL=Qwen/Qwen3-0.6B\nMAX_MODEL_LEN=8192\nKV_CACHE_MEMORY_BYTES=2GiB\n";
/** A deploy of seat a at a context its KV cache does not cover: the checks run again over it. */
const PLAYBOOK = [
  "- name: Deploy a",
  "  hosts: fv-ml1",
  "  tasks:",
  "    - name: a's context",
  "      ansible.builtin.lineinfile:",
  '        path: "/opt/fleet/scripts/a.env"',
  '        regexp: "^MAX_MODEL_LEN="',
  '        line: "MAX_MODEL_LEN=262144"',
  "",
].join("\n");
const FILLERS = 600;

/**
 * 600 notes (docs/n000.md …), a seat and a playbook that deploys it, kvgate.yaml and a .kvgateignore:
 * the AWS key in note 450 (the second chunk) is listed there, the GitHub token in note 590 (the
 * third) is not, an image is binary, and the ignore file also lists a value no file holds.
 */
async function fleetOfThreeChunks(): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  r.write("kvgate.yaml", FLEET);
  r.write("scripts/a.env", SEAT);
  r.write("playbooks/a.yaml", PLAYBOOK);
  for (let i = 0; i < FILLERS; i++) r.write(`docs/n${String(i).padStart(3, "0")}.md`, `note ${i}\nplain text\n`);
  r.write("docs/n450.md", `note 450\naws: ${FAKE.awsId}\n`);
  r.write("docs/n590.md", `note 590\n\ntoken = ${FAKE.ghp}\n`);
  r.write("docs/img.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]));
  r.write(".kvgateignore", `${secretFingerprint(FAKE.awsId)} # the docs' example key\n${secretFingerprint(FAKE.glpat)} # gone\n`);
  r.stage();
  r.commit("fleet and notes");
  return r;
}

const OPTS: RunOptions = { mode: "all", failOn: "error", pack, env: {} };

async function allUnit(dir: string): Promise<DeployUnit> {
  const [u] = await (await openTree(dir)).units({ mode: "all" });
  if (!u) throw new Error("no --all unit");
  return u;
}

describe("check --all over a tree read a chunk at a time", () => {
  test("the same result as the files held whole: every secret in every chunk, the ignore entries used across chunks, the count", async () => {
    const r = await fleetOfThreeChunks();
    const streamed = await checkUnits([await allUnit(r.dir)], OPTS);
    const u = await allUnit(r.dir);
    const { tree: _tree, ...rest } = u;
    const whole = await checkUnits([{ ...rest, files: await treeFilesOf(u) }], OPTS);
    expect(streamed).toEqual(whole);
    // 600 notes (two of them rewritten), the image, the seat, the playbook, kvgate.yaml, .kvgateignore.
    expect(streamed.filesChecked).toBe(FILLERS + 5);
    // The playbook's deploy was checked again (the file scan is not: it would only repeat itself).
    expect(streamed.findings.filter((f) => f.file === "playbooks/a.yaml").map((f) => [f.rule, f.line])).toEqual([
      ["kv/context-max", 8],
      ["kv/covers-context", 8],
      ["playbook/drift", 8],
    ]);
    const secretish = streamed.findings.filter((f) => f.rule.startsWith("secret/"));
    expect(secretish.map((f) => [f.rule, f.status, f.file, f.line])).toEqual([
      ["secret/ignore-unused", "open", ".kvgateignore", 2],
      ["secret/skipped", "open", "docs/img.png", null],
      ["secret/aws-access-key-id", "exempt", "docs/n450.md", 2],
      ["secret/github-token", "open", "docs/n590.md", 3],
    ]);
    expect(streamed.verdict).toBe("fail");
  });

  test("a file that turns into a folder after the listing stops the run naming it (exit 2), never a pass without it", async () => {
    const r = await fleetOfThreeChunks();
    const u = await allUnit(r.dir);
    // Listed as a file, read in the second chunk as a folder.
    rmSync(join(r.dir, "docs/n400.md"));
    mkdirSync(join(r.dir, "docs/n400.md"));
    const err = await checkUnits([u], OPTS).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GateError);
    expect((err as GateError).message).toBe("docs/n400.md cannot be read: EISDIR (it is a folder)");
  });

  test("a file gone since the listing is left out, as when the tree was read whole", async () => {
    const r = await fleetOfThreeChunks();
    const u = await allUnit(r.dir);
    rmSync(join(r.dir, "docs/n590.md"));
    const result = await checkUnits([u], OPTS);
    expect(result.filesChecked).toBe(FILLERS + 4);
    expect(result.findings.filter((f) => f.file === "docs/n590.md")).toEqual([]);
  });
});
