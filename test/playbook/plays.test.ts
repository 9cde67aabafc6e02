// Plays, sections, nesting, includes (and cycles), roles, variables, parse errors, non-playbooks.
import { describe, expect, test } from "vitest";
import { edits, lines, PB, problems, read } from "./helpers.js";

const set = (svc: string, kv: string): string => `    - lineinfile: { path: scripts/${svc}.env, line: ${kv} }`;

describe("plays and task lists", () => {
  test("pre_tasks, tasks, post_tasks, handlers: every section, in Ansible's order", () => {
    const r = read({
      [PB]: lines(
        "- hosts: all",
        "  handlers:",
        set("a", "D=4"),
        "  post_tasks:",
        set("a", "C=3"),
        "  tasks:",
        set("a", "B=2"),
        "  pre_tasks:",
        set("a", "A=1"),
      ),
    });
    expect(edits(r, "a")).toEqual([
      ["set", "A", "1", 9],
      ["set", "B", "2", 7],
      ["set", "C", "3", 5],
      ["set", "D", "4", 3],
    ]);
  });

  test("nested block/always are read; rescue (the rollback path) is not", () => {
    const r = read({
      [PB]: lines(
        "- hosts: all",
        "  tasks:",
        "    - block:",
        "        - block:",
        "            - lineinfile: { path: scripts/a.env, line: A=1 }", // 5
        "          always:",
        "            - lineinfile: { path: scripts/a.env, line: B=2 }", // 7
        "      rescue:",
        "        - lineinfile: { path: scripts/a.env, line: A=0 }",
      ),
    });
    expect(edits(r, "a")).toEqual([
      ["set", "A", "1", 5],
      ["set", "B", "2", 7],
    ]);
  });

  test("two plays, one deploy per service with edits in order", () => {
    const r = read({ [PB]: lines("- hosts: a", "  tasks:", set("x", "A=1"), "- hosts: b", "  tasks:", set("x", "A=2"), set("y", "B=1")) });
    expect(r.deploys.map((d) => d.service)).toEqual(["x", "y"]);
    expect(edits(r, "x")).toEqual([
      ["set", "A", "1", 3],
      ["set", "A", "2", 6],
    ]);
  });
});

describe("includes", () => {
  test("import_tasks / include_tasks relative to the including file's folder, edits at the included file's lines", () => {
    const r = read({
      [PB]: lines("- hosts: all", "  tasks:", "    - import_tasks: tasks/seats.yml"),
      "playbooks/tasks/seats.yml": lines(
        "- lineinfile: { path: scripts/a.env, line: A=1 }",
        "- ansible.builtin.include_tasks:",
        "    file: more.yml",
      ),
      "playbooks/tasks/more.yml": lines("# more", "- lineinfile: { path: scripts/a.env, line: B=2 }"),
    });
    expect(edits(r, "a")).toEqual([
      ["set", "A", "1", 1, "playbooks/tasks/seats.yml"],
      ["set", "B", "2", 2, "playbooks/tasks/more.yml"],
    ]);
    expect(r.files).toEqual([PB, "playbooks/tasks/seats.yml", "playbooks/tasks/more.yml"]);
    expect(r.deploys[0]?.playbook).toBe(PB);
  });

  test("include vars reach the included tasks", () => {
    const r = read({
      [PB]: lines("- hosts: all", "  tasks:", "    - include_tasks: t.yml", "      vars: { ctx: 40960 }"),
      "playbooks/t.yml": lines("- lineinfile: { path: scripts/a.env, line: 'MAX_MODEL_LEN={{ ctx }}' }"),
    });
    expect(edits(r, "a")).toEqual([["set", "MAX_MODEL_LEN", "40960", 1, "playbooks/t.yml"]]);
  });

  test("an include missing from the repo is unresolved", () => {
    const r = read({ [PB]: lines("- hosts: all", "  tasks:", "    - import_tasks: nope.yml") });
    expect(problems(r)).toEqual([["unresolved", PB, 3]]);
  });

  test("an import cycle is a parse error at the import that closes it, and the walk ends", () => {
    const r = read({
      [PB]: lines("- hosts: all", "  tasks:", "    - import_tasks: a.yml"),
      "playbooks/a.yml": lines("- lineinfile: { path: scripts/x.env, line: A=1 }", "- import_tasks: b.yml"),
      "playbooks/b.yml": lines("- import_tasks: a.yml"),
    });
    expect(problems(r)).toEqual([["parse", "playbooks/b.yml", 1]]);
    expect(r.problems[0]?.message).toContain("playbooks/a.yml → playbooks/b.yml → playbooks/a.yml");
    expect(edits(r, "x")).toEqual([["set", "A", "1", 1, "playbooks/a.yml"]]);
  });

  test("an include_tasks cycle (may be stopped by when:) is a notice", () => {
    const r = read({ [PB]: lines("- hosts: all", "  tasks:", "    - include_tasks: p.yaml") });
    // p.yaml is the playbook itself: including it as tasks loops back.
    expect(problems(r)).toEqual([["unresolved", PB, 3]]);
  });

  test("import_playbook", () => {
    const r = read({
      [PB]: lines("- import_playbook: other.yml"),
      "playbooks/other.yml": lines("- hosts: all", "  tasks:", set("a", "A=1")),
    });
    expect(edits(r, "a")).toEqual([["set", "A", "1", 3, "playbooks/other.yml"]]);
  });

  test("roles: tasks/main.yml with the role's defaults and vars", () => {
    const r = read({
      [PB]: lines("- hosts: all", "  roles:", "    - role: seat", "      vars: { seat: b }"),
      "playbooks/roles/seat/tasks/main.yml": lines("- lineinfile: { path: 'scripts/{{ seat }}.env', line: 'MAX_MODEL_LEN={{ ctx }}' }"),
      "playbooks/roles/seat/defaults/main.yml": lines("ctx: 8192", "seat: a"),
      "playbooks/roles/seat/vars/main.yml": lines("ctx: 40960"),
    });
    expect(edits(r, "b")).toEqual([["set", "MAX_MODEL_LEN", "40960", 1, "playbooks/roles/seat/tasks/main.yml"]]);
  });
});

describe("variables", () => {
  test("play vars with | int and | default, task vars over play vars", () => {
    const r = read({
      [PB]: lines(
        "- hosts: all",
        "  vars:",
        "    ctx: '40960'",
        "  tasks:",
        "    - lineinfile: { path: scripts/a.env, line: 'MAX_MODEL_LEN={{ ctx | int }}' }",
        "    - lineinfile: { path: scripts/a.env, line: 'TP={{ tp | default(2) }}' }",
        "    - lineinfile: { path: scripts/a.env, line: 'GPU={{ gpu }}' }",
        "      vars: { gpu: '0,1' }",
      ),
    });
    expect(edits(r, "a")).toEqual([
      ["set", "MAX_MODEL_LEN", "40960", 5],
      ["set", "TP", "2", 6],
      ["set", "GPU", "0,1", 7],
    ]);
  });

  test("in-repo vars_files (over play vars, later files win) and a missing one", () => {
    const r = read({
      [PB]: lines(
        "- hosts: all",
        "  vars: { ctx: 1, kv: 2 }",
        "  vars_files:",
        "    - vars/one.yml",
        "    - ../vars/two.yml",
        "    - vars/missing.yml", // 6
        "  tasks:",
        "    - lineinfile: { path: scripts/a.env, line: 'MAX_MODEL_LEN={{ ctx }}' }",
        "    - lineinfile: { path: scripts/a.env, line: 'KV_CACHE_MEMORY_BYTES={{ kv }}' }",
      ),
      "playbooks/vars/one.yml": lines("ctx: 32768", "kv: 5905580032"),
      "vars/two.yml": lines("kv: 6979321856"),
    });
    expect(edits(r, "a")).toEqual([
      ["set", "MAX_MODEL_LEN", "32768", 8],
      ["set", "KV_CACHE_MEMORY_BYTES", "6979321856", 9],
    ]);
    expect(problems(r)).toEqual([["unresolved", PB, 6]]);
    expect(r.files).toEqual([PB, "playbooks/vars/one.yml", "vars/two.yml"]);
  });

  test("group_vars/all next to the playbook is the lowest layer", () => {
    const r = read({
      [PB]: lines("- hosts: all", "  tasks:", "    - lineinfile: { path: scripts/a.env, line: 'MAX_MODEL_LEN={{ ctx }}' }"),
      "playbooks/group_vars/all.yml": lines("ctx: 16384"),
    });
    expect(edits(r, "a")).toEqual([["set", "MAX_MODEL_LEN", "16384", 3]]);
  });

  test("an unresolved value skips that setting with a notice naming the service and key", () => {
    const r = read({
      [PB]: lines(
        "- hosts: all",
        "  tasks:",
        "    - lineinfile: { path: scripts/a.env, line: 'MAX_MODEL_LEN={{ ctx }}' }",
        "    - lineinfile: { path: scripts/a.env, line: 'KV_CACHE_MEMORY_BYTES={{ kv | human_to_bytes }}' }",
        "    - lineinfile: { path: scripts/a.env, line: GPU=1 }",
      ),
    });
    expect(edits(r, "a")).toEqual([["set", "GPU", "1", 5]]);
    expect(r.problems.map((p) => [p.kind, p.line, p.service, p.key])).toEqual([
      ["unresolved", 3, "a", "MAX_MODEL_LEN"],
      ["unresolved", 4, "a", "KV_CACHE_MEMORY_BYTES"],
    ]);
    expect(r.problems[0]?.message).toContain("`ctx` is not defined");
    expect(r.problems[1]?.message).toContain("human_to_bytes");
  });

  test("a destination whose file name is a variable is unresolved", () => {
    const r = read({ [PB]: lines("- hosts: all", "  tasks:", "    - lineinfile: { path: 'scripts/{{ seat }}.env', line: GPU=1 }") });
    expect(r.deploys).toEqual([]);
    expect(problems(r)).toEqual([["unresolved", PB, 3]]);
  });

  test("YAML anchors and merge keys", () => {
    const r = read({
      [PB]: lines(
        "- hosts: all",
        "  tasks:",
        "    - lineinfile: &base { path: scripts/a.env, line: GPU=0 }",
        "    - lineinfile:",
        "        <<: *base",
        "        line: GPU=1", // 6
      ),
    });
    expect(edits(r, "a")).toEqual([
      ["set", "GPU", "0", 3],
      ["set", "GPU", "1", 6],
    ]);
  });
});

describe("what is not a playbook", () => {
  test.each([
    ["a vars file (a mapping)", lines("ctx: 40960", "kv: 8053063680")],
    ["a tasks file (a list without hosts)", lines("- lineinfile: { path: scripts/a.env, line: GPU=1 }")],
    ["an empty file", ""],
    ["a scalar", lines("just text")],
  ])("%s: valid YAML, no problem, no deploy", (_name, text) => {
    const r = read({ [PB]: text });
    expect([r.isPlaybook, r.deploys, r.problems]).toEqual([false, [], []]);
  });

  test("a YAML error is a parse problem with its line", () => {
    const r = read({
      [PB]: lines("- hosts: all", "  tasks:", "    - lineinfile:", "        path: scripts/a.env", "      line: 'GPU=1", ""),
    });
    expect(r.isPlaybook).toBe(false);
    expect(r.problems.map((p) => p.kind)).toContain("parse");
    expect(r.problems[0]?.line).toBeGreaterThanOrEqual(5);
  });

  test("a bad indentation is reported at its line", () => {
    const r = read({ [PB]: lines("- hosts: all", "  tasks:", "    - lineinfile: { path: scripts/a.env, line: GPU=1 }", "   bad: [") });
    expect(problems(r)[0]).toEqual(["parse", PB, 4]);
  });

  test("a YAML error in an included file is a parse problem there", () => {
    const r = read({
      [PB]: lines("- hosts: all", "  tasks:", "    - import_tasks: t.yml"),
      "playbooks/t.yml": lines("- a: 1", "  b: c: d"),
    });
    expect(problems(r)).toEqual([["parse", "playbooks/t.yml", 2]]);
  });
});
