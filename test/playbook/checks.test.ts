// playbook/drift, playbook/parse, playbook/unresolved over a check context: rule, line, numbers.
import { describe, expect, test } from "vitest";
import { playbookDrift } from "../../src/checks/playbook-drift.js";
import { playbookParse } from "../../src/checks/playbook-parse.js";
import { playbookUnresolved } from "../../src/checks/playbook-unresolved.js";
import { ctx, lines, PB, read, service } from "./helpers.js";
import { CHECKS } from "../../src/checks/registry.js";

const voices = service("scripts/voices.env", lines("ENGINE=vllm", "GPU=0", "MAX_MODEL_LEN=40960", "KV_CACHE_MEMORY_BYTES=6979321856", 'SERVE_ARGS="--max-num-seqs 8"', "HF_TOKEN=vault:albok/hf-token"));
const opts = { services: new Map([["voices", "scripts/voices.env"]]) };
const play = (...tasks: string[]) => lines("- hosts: fv-ml1", "  tasks:", ...tasks);
const li = (kv: string) => `    - lineinfile: { path: /opt/fleet/scripts/voices.env, line: '${kv}' }`;
const drift = (pb: string, extra: Partial<Parameters<typeof ctx>[0]> = {}) =>
  playbookDrift.run(ctx({ services: [voices], playbooks: [read({ [PB]: pb }, PB, opts)], ...extra })).map((r) => [r.message, r.line, r.data.key, r.data.playbook_value, r.data.committed_value]);

describe("playbook/drift", () => {
  test("registered", () => {
    expect(CHECKS.map((c) => c.id)).toEqual(expect.arrayContaining(["playbook/drift", "playbook/parse", "playbook/unresolved"]));
  });

  test("a value that differs from the committed env file, at the playbook's line", () => {
    expect(drift(play(li("MAX_MODEL_LEN=32768"), li("GPU=0")))).toEqual([["differs", 3, "MAX_MODEL_LEN", "32768", "40960"]]);
  });

  test("the same values: no drift", () => {
    expect(drift(play(li("MAX_MODEL_LEN=40960"), li("KV_CACHE_MEMORY_BYTES=6979321856"), li("GPU= 0")))).toEqual([]);
  });

  test("a removed key, and a sizing key the env file does not set", () => {
    const pb = play("    - lineinfile: { path: scripts/voices.env, regexp: ^KV_CACHE_MEMORY_BYTES=, state: absent }", li("TP=2"), li("HF_HOME=/models"));
    expect(drift(pb)).toEqual([
      ["removed", 3, "KV_CACHE_MEMORY_BYTES", null, "6979321856"],
      ["added", 4, "TP", "2", null],
    ]);
  });

  test("a container command that drops a flag and gives a setting as a flag", () => {
    const pb = lines(
      "- hosts: fv-ml1",
      "  tasks:",
      "    - docker_container:",
      "        name: vllm-voices",
      "        command: [--max-model-len, '32768']", // 5
    );
    expect(drift(pb)).toEqual([
      ["removed", 5, "--max-num-seqs", null, "8"],
      ["differs", 5, "--max-model-len", "32768", "40960"],
    ]);
  });

  test("the same setting as an env key on one side and a flag on the other is not drift", () => {
    const pb = lines("- hosts: fv-ml1", "  tasks:", "    - docker_container:", "        name: vllm-voices", "        command: [--max-model-len, '40960', --max-num-seqs, '8']");
    expect(drift(pb)).toEqual([]);
  });

  test("a secret-looking key: named, its values never shown", () => {
    const r = playbookDrift.run(ctx({ services: [voices], playbooks: [read({ [PB]: play(li("HF_TOKEN=hf_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")) }, PB, opts)] }));
    expect(r.map((x) => [x.message, x.data.key, "playbook_value" in x.data])).toEqual([["differs", "HF_TOKEN", false]]);
    expect(playbookDrift.messages.differs(r[0]?.data as never)).not.toContain("hf_a");
  });

  test("a deploy of a service with no committed env file", () => {
    const r = playbookDrift.run(ctx({ services: [voices], playbooks: [read({ [PB]: play("    - lineinfile: { path: scripts/ghost.env, line: GPU=1 }") })] }));
    expect(r.map((x) => [x.message, x.line, x.service])).toEqual([["no-env", 3, "ghost"]]);
  });

  test("only playbooks the unit touches (or every one under --all)", () => {
    const pb = play(li("MAX_MODEL_LEN=32768"));
    expect(drift(pb, { changed: ["scripts/voices.env"] })).toEqual([]);
    expect(drift(pb, { changed: [], kind: "all" })).toHaveLength(1);
  });

  test("a changed included file makes its playbook part of the unit", () => {
    const r = read({ [PB]: play("    - import_tasks: t.yml"), "playbooks/t.yml": lines(`- lineinfile: { path: scripts/voices.env, line: MAX_MODEL_LEN=8192 }`) }, PB, opts);
    const out = playbookDrift.run(ctx({ services: [voices], playbooks: [r], changed: ["playbooks/t.yml"] }));
    expect(out.map((x) => [x.file, x.line, x.data.playbook_value])).toEqual([["playbooks/t.yml", 1, "8192"]]);
  });
});

describe("playbook/parse and playbook/unresolved", () => {
  test("a YAML error: an error report at its line; a vars file: nothing", () => {
    const bad = read({ [PB]: lines("- hosts: all", "  tasks:", "   - x: y: z") });
    const vars = read({ "playbooks/vars.yml": lines("ctx: 1") }, "playbooks/vars.yml");
    const out = playbookParse.run(ctx({ services: [], playbooks: [bad, vars], changed: [PB, "playbooks/vars.yml"] }));
    expect(out.map((r) => [r.file, r.line])).toEqual([[PB, 3]]);
    expect(playbookParse.messages.parse(out[0]?.data as never)).toMatch(/^playbooks\/p\.yaml is not valid YAML: .*Ansible cannot run it as written$/);
  });

  test("an unresolved value: a notice with its service and key", () => {
    const r = read({ [PB]: play(li("MAX_MODEL_LEN={{ ctx }}")) }, PB, opts);
    const out = playbookUnresolved.run(ctx({ services: [voices], playbooks: [r] }));
    expect(out.map((x) => [x.line, x.service, x.data.key])).toEqual([[3, "voices", "MAX_MODEL_LEN"]]);
    expect(playbookUnresolved.severity).toBe("notice");
  });

  test("a tasks file included by two playbooks reports its problem once", () => {
    const files = { "playbooks/a.yaml": play("    - import_tasks: t.yml"), "playbooks/b.yaml": play("    - import_tasks: t.yml"), "playbooks/t.yml": lines("- lineinfile: { path: scripts/voices.env, line: 'A={{ x }}' }") };
    const reads = ["playbooks/a.yaml", "playbooks/b.yaml"].map((p) => read(files, p));
    expect(playbookUnresolved.run(ctx({ services: [], playbooks: reads })).map((x) => [x.file, x.line])).toEqual([["playbooks/t.yml", 1]]);
  });
});
