// Each module form a playbook writes an env file with, and the line each setting is reported at.
import { describe, expect, test } from "vitest";
import { edits, lines, PB, problems, read } from "./helpers.js";
import { keyOfRegexp } from "../../src/playbook/modules.js";

const play = (...tasks: string[]): string => lines("- hosts: fv-ml1", "  tasks:", ...tasks);

describe("lineinfile", () => {
  test("short name: line + regexp sets the key at the line: line", () => {
    const r = read({
      [PB]: play(
        "    - lineinfile:", //                              3
        "        path: /opt/fleet/scripts/voices.env", //     4
        "        regexp: '^MAX_MODEL_LEN='", //               5
        "        line: MAX_MODEL_LEN=40960", //               6
      ),
    });
    expect(r.isPlaybook).toBe(true);
    expect(edits(r, "voices")).toEqual([["set", "MAX_MODEL_LEN", "40960", 6]]);
    expect(r.deploys[0]?.envFile).toBe("scripts/voices.env");
  });

  test("FQCN with dest and the free-form k=v form", () => {
    const r = read({
      [PB]: play(
        "    - ansible.builtin.lineinfile:", //                               3
        "        dest: scripts/coder.env", //                                 4
        "        line: 'export KV_CACHE_MEMORY_BYTES=8053063680'", //         5
        '    - ansible.legacy.lineinfile: path=scripts/coder.env line="GPU=0"', // 6
      ),
    });
    expect(edits(r, "coder")).toEqual([
      ["set", "KV_CACHE_MEMORY_BYTES", "8053063680", 5],
      ["set", "GPU", "0", 6],
    ]);
  });

  test("state: absent removes the key its regexp names", () => {
    const r = read({
      [PB]: play(
        "    - lineinfile:",
        "        path: scripts/voices.env",
        "        regexp: '^export\\s+KV_CACHE_MEMORY_BYTES='", // 5
        "        state: absent",
      ),
    });
    expect(edits(r, "voices")).toEqual([["remove", "KV_CACHE_MEMORY_BYTES", 5]]);
  });

  test("a regexp naming another key renames it: remove the old, set the new", () => {
    const r = read({
      [PB]: play("    - lineinfile:", "        path: scripts/a.env", "        regexp: ^CUDA_VISIBLE_DEVICES=", "        line: GPU=1"),
    });
    expect(edits(r, "a")).toEqual([
      ["remove", "CUDA_VISIBLE_DEVICES", 6],
      ["set", "GPU", "1", 6],
    ]);
  });

  test("state: absent with a regexp kvgate cannot read is unresolved", () => {
    const r = read({
      [PB]: play("    - lineinfile:", "        path: scripts/a.env", "        regexp: '.*LEN.*'", "        state: absent"),
    });
    expect(edits(r, "a")).toEqual([]);
    expect(problems(r)).toEqual([["unresolved", PB, 5]]);
  });

  test("a file that is not <service>.env is not a deploy", () => {
    const r = read({
      [PB]: play(
        "    - lineinfile:",
        "        path: /etc/hosts",
        "        line: 10.0.0.1 fv-ml1",
        "    - lineinfile: { path: scripts/a.env.bak, line: GPU=1 }",
      ),
    });
    expect(r.deploys).toEqual([]);
  });

  test.each([
    ["^MAX_MODEL_LEN=", "MAX_MODEL_LEN"],
    ["^export KV_CACHE_MEMORY_BYTES=", "KV_CACHE_MEMORY_BYTES"],
    ["^#?GPU=", "GPU"],
    ["^\\s*TP\\s*=", "TP"],
    ["^(export\\s+)?HOST=", "HOST"],
    ["^GPU", "GPU"],
    [".*LEN", null],
    ["^GP.*", null],
  ])("keyOfRegexp(%s) = %s", (re, key) => {
    expect(keyOfRegexp(re)).toBe(key);
  });
});

describe("blockinfile, copy, template", () => {
  test("blockinfile: each line of a literal block at its own line", () => {
    const r = read({
      [PB]: play(
        "    - community.general.blockinfile:", //  3
        "        path: scripts/voices.env", //      4
        "        block: |", //                      5
        "          MAX_MODEL_LEN=40960", //         6
        "          # a comment", //                 7
        "          KV_CACHE_MEMORY_BYTES=6979321856", // 8
      ),
    });
    expect(edits(r, "voices")).toEqual([
      ["set", "MAX_MODEL_LEN", "40960", 6],
      ["set", "KV_CACHE_MEMORY_BYTES", "6979321856", 8],
    ]);
  });

  test("copy content: the file is written whole (reset), then each line", () => {
    const r = read({
      [PB]: play(
        "    - ansible.builtin.copy:", //            3
        "        dest: '{{ root }}/scripts/gen-small.env'", // 4: the folder stays a variable
        "        content: |", //                     5
        "          ENGINE=vllm", //                  6
        '          SERVE_ARGS="--max-model-len 32768"', // 7
      ),
    });
    expect(edits(r, "gen-small")).toEqual([
      ["reset", 5],
      ["set", "ENGINE", "vllm", 6],
      ["set", "SERVE_ARGS", "--max-model-len 32768", 7],
    ]);
    expect(r.problems).toEqual([]);
  });

  test("template: its .j2 read as an env file, rendered with play vars, at the .j2's lines", () => {
    const r = read({
      [PB]: lines(
        "- hosts: all",
        "  vars:",
        "    ctx: 40960",
        "  tasks:",
        "    - template:",
        "        src: voices.env.j2",
        "        dest: /opt/scripts/voices.env",
      ),
      "playbooks/templates/voices.env.j2": lines("ENGINE=vllm", "MAX_MODEL_LEN={{ ctx }}", "KV_CACHE_MEMORY_BYTES={{ kv_bytes }}", "GPU=0"),
    });
    const j2 = "playbooks/templates/voices.env.j2";
    expect(edits(r, "voices")).toEqual([
      ["reset", 6],
      ["set", "ENGINE", "vllm", 1, j2],
      ["set", "MAX_MODEL_LEN", "40960", 2, j2],
      ["set", "GPU", "0", 4, j2],
    ]);
    expect(r.problems.map((p) => [p.kind, p.file, p.line, p.key])).toEqual([["unresolved", j2, 3, "KV_CACHE_MEMORY_BYTES"]]);
    expect(r.files).toContain(j2);
  });

  test("template src missing from the repo is unresolved, not a crash", () => {
    const r = read({ [PB]: play("    - template: { src: nope.j2, dest: scripts/a.env }") });
    expect(edits(r, "a")).toEqual([]);
    expect(problems(r)).toEqual([["unresolved", PB, 3]]);
  });
});

describe("docker_container", () => {
  const task = (name: string): string =>
    play(
      "    - community.docker.docker_container:", //      3
      `        name: ${name}`, //                         4
      "        image: vllm/vllm-openai:v0.11.0", //       5
      "        env:", //                                  6
      "          MAX_MODEL_LEN: 32768", //                7
      '          HF_TOKEN: "{{ vault_hf }}"', //          8
      "        command:", //                              9
      "          - --model", //                           10
      "          - Qwen/Qwen3-8B", //                     11
      "          - --kv-cache-memory-bytes", //           12
      "          - '8053063680'", //                      13
      "        device_requests:", //                      14
      "          - driver: nvidia", //                    15
      "            device_ids: ['0', '1']", //            16
      "            capabilities: [[gpu]]", //             17
    );

  test("env, command (a list) and device_ids, each at its line; unresolved env skipped", () => {
    const r = read({ [PB]: task("vllm-coder") }, PB, { services: new Map([["coder", "scripts/coder.env"]]) });
    expect(edits(r, "coder")).toEqual([
      ["set", "MAX_MODEL_LEN", "32768", 7],
      ["flags", "COMMAND", "--model Qwen/Qwen3-8B --kv-cache-memory-bytes 8053063680", 10],
      ["gpus", "0,1", 16],
    ]);
    expect(r.problems.map((p) => [p.kind, p.line, p.key, p.service])).toEqual([["unresolved", 8, "HF_TOKEN", "coder"]]);
  });

  test("a container named after the service, and a string command", () => {
    const r = read(
      { [PB]: play("    - docker_container:", "        name: coder", "        command: vllm serve Qwen/Qwen3-8B --max-model-len 32768") },
      PB,
      {
        services: new Map([["coder", "scripts/coder.env"]]),
      },
    );
    expect(edits(r, "coder")).toEqual([["flags", "COMMAND", "vllm serve Qwen/Qwen3-8B --max-model-len 32768", 5]]);
  });

  test("a container that is no known service is not a deploy", () => {
    const r = read({ [PB]: task("redis") }, PB, { services: new Map([["coder", "scripts/coder.env"]]) });
    expect(r.deploys).toEqual([]);
  });

  test("state: absent deploys nothing", () => {
    const r = read({ [PB]: play("    - docker_container: { name: vllm-coder, state: absent, env: { GPU: '1' } }") });
    expect(r.deploys).toEqual([]);
  });
});

describe("unknown modules and loops", () => {
  test("unknown modules are ignored", () => {
    const r = read({
      [PB]: play(
        "    - ansible.builtin.shell: echo MAX_MODEL_LEN=1 >> scripts/a.env",
        "    - community.general.ufw: { rule: allow, port: '8000' }",
      ),
    });
    expect(r.isPlaybook).toBe(true);
    expect(r.deploys).toEqual([]);
    expect(r.problems).toEqual([]);
  });

  test("loop over lineinfile with {{ item.x }}: one edit per item, at the item's line", () => {
    const r = read({
      [PB]: play(
        "    - lineinfile:", //                          3
        "        path: scripts/voices.env", //           4
        "        regexp: '^{{ item.key }}='", //         5
        "        line: '{{ item.key }}={{ item.value }}'", // 6
        "      loop:", //                                7
        "        - { key: MAX_MODEL_LEN, value: 40960 }", // 8
        "        - { key: KV_CACHE_MEMORY_BYTES, value: 6979321856 }", // 9
      ),
    });
    expect(edits(r, "voices")).toEqual([
      ["set", "MAX_MODEL_LEN", "40960", 8],
      ["set", "KV_CACHE_MEMORY_BYTES", "6979321856", 9],
    ]);
  });

  test("with_items over a list variable, and loop_control.loop_var", () => {
    const r = read({
      [PB]: lines(
        "- hosts: all",
        "  vars:",
        "    seats: [a, b]",
        "  tasks:",
        "    - lineinfile: { path: 'scripts/{{ seat }}.env', line: GPU=1 }", // 5
        "      with_items: '{{ seats }}'", //                                   6
        "      loop_control: { loop_var: seat }",
      ),
    });
    expect(edits(r, "a")).toEqual([["set", "GPU", "1", 6]]);
    expect(edits(r, "b")).toEqual([["set", "GPU", "1", 6]]);
  });
});
