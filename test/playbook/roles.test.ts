// Ansible laid out the way operators do: an inventory, group_vars/host_vars, ansible.cfg, roles with
// defaults, vars, meta dependencies, handlers and templates; a play walked once per host, each value
// rendered with Ansible's precedence and pointed at the variable that holds it.
import { describe, expect, test } from "vitest";
import { edits, lines, problems, read, writtenAt } from "./helpers.js";
import { readPlaybook } from "../../src/playbook/plays.js";
import { readUnit } from "../../src/systemd/read.js";

const SITE = "ansible/site.yml";
const J2 = "ansible/roles/vllm/templates/vllm.env.j2";

/** A role that renders one env file per seat of `vllm_seats`. */
const ROLE = {
  "ansible/roles/vllm/defaults/main.yml": lines("vllm_image: vllm/vllm-openai:v0.8.5", "vllm_util: 0.9", "vllm_seats: []"),
  "ansible/roles/vllm/tasks/main.yml": lines(
    "- name: env file per seat", //               1
    "  ansible.builtin.template:", //             2
    "    src: vllm.env.j2", //                    3
    "    dest: '/etc/vllm/{{ item.name }}.env'", // 4
    "  loop: '{{ vllm_seats }}'", //              5
  ),
  [J2]: lines(
    "VLLM_IMAGE={{ vllm_image }}", //                                     1
    "CUDA_VISIBLE_DEVICES={{ item.gpu | default(0) }}", //               2
    'VLLM_EXTRA_ARGS="--model {{ item.model }} --max-model-len {{ item.ctx }} --gpu-memory-utilization {{ item.util | default(vllm_util) }}"', // 3
  ),
};

const site = (hosts = "gpu"): Record<string, string> => ({ [SITE]: lines(`- hosts: ${hosts}`, "  roles:", "    - vllm") });

describe("hosts, inventories and variables", () => {
  const files = {
    ...site(),
    ...ROLE,
    "ansible/inventory/hosts.ini": lines("[gpu]", "gpu-a", "gpu-b vllm_util=0.8"),
    "ansible/group_vars/gpu.yml": lines("vllm_seats:", "  - { name: coder, model: Qwen/Qwen2.5-Coder-7B-Instruct, ctx: 32768 }"),
    "ansible/host_vars/gpu-b.yml": lines("vllm_seats:", "  - name: chat", "    model: Qwen/Qwen3-8B", "    ctx: 40960", "    gpu: 1"),
  };

  test("a play runs once per host of its pattern: each host renders its own seats, with HOST where the inventory names it", () => {
    const r = read(files, SITE);
    expect(r.problems).toEqual([]);
    expect(r.deploys.map((d) => d.service)).toEqual(["coder", "chat"]);
    expect(edits(r, "coder")).toEqual([
      ["reset", 5, "ansible/roles/vllm/tasks/main.yml"],
      ["set", "VLLM_IMAGE", "vllm/vllm-openai:v0.8.5", 1, J2],
      ["set", "CUDA_VISIBLE_DEVICES", "0", 2, J2],
      ["set", "VLLM_EXTRA_ARGS", "--model Qwen/Qwen2.5-Coder-7B-Instruct --max-model-len 32768 --gpu-memory-utilization 0.9", 3, J2],
      ["host", "gpu-a", 2, "ansible/inventory/hosts.ini"],
    ]);
    // gpu-b's host_vars win over group_vars/gpu; its inventory line's vllm_util over the role default.
    expect(edits(r, "chat").slice(2)).toEqual([
      ["set", "CUDA_VISIBLE_DEVICES", "1", 2, J2],
      ["set", "VLLM_EXTRA_ARGS", "--model Qwen/Qwen3-8B --max-model-len 40960 --gpu-memory-utilization 0.8", 3, J2],
      ["host", "gpu-b", 3, "ansible/inventory/hosts.ini"],
    ]);
  });

  test("a seat whose value is a lookup: the loop still runs (Ansible templates items lazily); only that value is unresolved", () => {
    const r = read(
      {
        ...files,
        "ansible/host_vars/gpu-b.yml": lines(
          "vllm_seats:",
          "  - name: chat",
          "    model: Qwen/Qwen3-8B",
          "    ctx: \"{{ lookup('env', 'CTX') }}\"",
        ),
      },
      SITE,
    );
    expect(r.deploys.map((d) => d.service)).toEqual(["coder", "chat"]);
    // The line that uses it is not guessed: no VLLM_EXTRA_ARGS for chat, and a notice naming its service and key.
    expect(edits(r, "chat").filter((e) => e[1] === "VLLM_EXTRA_ARGS")).toEqual([]);
    expect(r.problems.map((p) => [p.kind, p.file, p.line, p.service, p.key])).toEqual([["unresolved", J2, 3, "chat", "VLLM_EXTRA_ARGS"]]);
    expect(r.problems[0]?.message).toContain("lookups and function calls run only inside Ansible");
  });

  test("each value a variable holds points at the variable's line, in host_vars, group_vars, the inventory or the role's defaults", () => {
    const r = read(files, SITE);
    expect(writtenAt(r, "coder")).toEqual([
      ["VLLM_IMAGE", "ansible/roles/vllm/defaults/main.yml", 1, "vllm_image"],
      ["--model", "ansible/group_vars/gpu.yml", 2, "model"],
      ["--max-model-len", "ansible/group_vars/gpu.yml", 2, "ctx"],
      ["--gpu-memory-utilization", "ansible/roles/vllm/defaults/main.yml", 2, "vllm_util"],
    ]);
    expect(writtenAt(r, "chat")).toEqual([
      ["VLLM_IMAGE", "ansible/roles/vllm/defaults/main.yml", 1, "vllm_image"],
      ["CUDA_VISIBLE_DEVICES", "ansible/host_vars/gpu-b.yml", 5, "gpu"],
      ["--model", "ansible/host_vars/gpu-b.yml", 3, "model"],
      ["--max-model-len", "ansible/host_vars/gpu-b.yml", 4, "ctx"],
      ["--gpu-memory-utilization", "ansible/inventory/hosts.ini", 3, "vllm_util"],
    ]);
  });

  test("every file read is in the read's files (the hook's fast path keys on them)", () => {
    expect(read(files, SITE).files.sort()).toEqual(
      [
        SITE,
        "ansible/inventory/hosts.ini",
        "ansible/group_vars/gpu.yml",
        "ansible/host_vars/gpu-b.yml",
        "ansible/roles/vllm/defaults/main.yml",
        "ansible/roles/vllm/tasks/main.yml",
        J2,
      ].sort(),
    );
  });

  test("precedence: role defaults < group_vars/all < group_vars/<group> < host_vars < play vars < vars_files < role vars < role params < task vars", () => {
    const layer = (name: string, v: number) => lines(`ctx: ${v}`, `${name}: ${v}`);
    const base = {
      "p/inventory": lines("[gpu]", "h1"),
      "p/roles/r/defaults/main.yml": layer("d", 1),
      "p/group_vars/all.yml": layer("ga", 2),
      "p/group_vars/gpu.yml": layer("gg", 3),
      "p/host_vars/h1.yml": layer("hv", 4),
      "p/vars.yml": layer("vf", 6),
      "p/roles/r/vars/main.yml": layer("rv", 7),
      "p/roles/r/tasks/main.yml": lines(
        "- lineinfile: { path: scripts/s.env, line: 'CTX={{ ctx }}' }",
        "- lineinfile: { path: scripts/s.env, line: 'CTX={{ ctx }}' }",
        "  vars: { ctx: 9 }",
      ),
    };
    const play = (roleEntry: string) =>
      lines("- hosts: gpu", "  vars: { ctx: 5 }", "  vars_files: [vars.yml]", "  roles:", `    - ${roleEntry}`);
    const ctxOf = (f: Record<string, string>) =>
      edits(read(f, "p/site.yml"), "s")
        .filter((e) => e[0] === "set")
        .map((e) => e[2]);
    expect(ctxOf({ ...base, "p/site.yml": play("{ role: r, ctx: 8 }") })).toEqual(["8", "9"]);
    expect(ctxOf({ ...base, "p/site.yml": play("r") })).toEqual(["7", "9"]);
    const without = (...drop: string[]) => Object.fromEntries(Object.entries(base).filter(([k]) => !drop.includes(k)));
    expect(ctxOf({ ...without("p/roles/r/vars/main.yml"), "p/site.yml": play("r") })).toEqual(["6", "9"]);
    const noPlay = lines("- hosts: gpu", "  roles: [r]");
    expect(ctxOf({ ...without("p/roles/r/vars/main.yml"), "p/site.yml": noPlay })).toEqual(["4", "9"]);
    expect(ctxOf({ ...without("p/roles/r/vars/main.yml", "p/host_vars/h1.yml"), "p/site.yml": noPlay })).toEqual(["3", "9"]);
    expect(ctxOf({ ...without("p/roles/r/vars/main.yml", "p/host_vars/h1.yml", "p/group_vars/gpu.yml"), "p/site.yml": noPlay })).toEqual([
      "2",
      "9",
    ]);
    expect(
      ctxOf({
        ...without("p/roles/r/vars/main.yml", "p/host_vars/h1.yml", "p/group_vars/gpu.yml", "p/group_vars/all.yml"),
        "p/site.yml": noPlay,
      }),
    ).toEqual(["1", "9"]);
  });

  test("a seat two hosts both deploy (a role applied to a group) is one seat per host, <name>@<host>", () => {
    const r = read({ ...files, "ansible/host_vars/gpu-b.yml": "" }, SITE);
    expect(r.deploys.map((d) => d.service)).toEqual(["coder@gpu-a", "coder@gpu-b"]);
    expect(r.deploys.map((d) => d.envFile)).toEqual(["scripts/coder@gpu-a.env", "scripts/coder@gpu-b.env"]);
  });

  test("a service the repository has an env file for stays one service (the first host's deploy)", () => {
    const r = read({ ...files, "ansible/host_vars/gpu-b.yml": "" }, SITE, { services: new Map([["coder", "scripts/coder.env"]]) });
    expect(r.deploys.map((d) => [d.service, d.envFile])).toEqual([["coder", "scripts/coder.env"]]);
  });

  test("an inventory from ansible.cfg; a YAML inventory; group_vars next to the inventory", () => {
    const r = read(
      {
        ...site("gpu"),
        ...ROLE,
        "ansible/ansible.cfg": lines("[defaults]", "inventory = ../inventories/prod/hosts.yml  ; the production hosts"),
        "inventories/prod/hosts.yml": lines("all:", "  children:", "    gpu:", "      hosts:", "        gpu-a:"),
        "inventories/prod/group_vars/gpu.yml": lines("vllm_seats: [{ name: coder, model: m, ctx: 1024 }]"),
      },
      SITE,
    );
    expect(edits(r, "coder").at(-1)).toEqual(["host", "gpu-a", 5, "inventories/prod/hosts.yml"]);
    expect(r.files).toContain("ansible/ansible.cfg");
    expect(r.files).toContain("inventories/prod/group_vars/gpu.yml");
  });

  test("no inventory: a play on one host named in host_vars (or in kvgate.yaml's hosts) is that host; `all` is no host", () => {
    const one = { "p/site.yml": lines("- hosts: fv-ml1", "  roles: [vllm]"), ...moveRole("p") };
    const withHv = read({ ...one, "p/host_vars/fv-ml1.yml": lines("vllm_seats: [{ name: a, model: m, ctx: 1 }]") }, "p/site.yml");
    expect(edits(withHv, "a").at(-1)).toEqual(["host", "fv-ml1", 1, "p/site.yml"]);
    const byConfig = read({ ...one, "p/group_vars/all.yml": lines("vllm_seats: [{ name: a, model: m, ctx: 1 }]") }, "p/site.yml", {
      hosts: ["fv-ml1"],
    });
    expect(edits(byConfig, "a").at(-1)?.[0]).toBe("host");
    const all = read(
      {
        ...one,
        "p/site.yml": lines("- hosts: all", "  roles: [vllm]"),
        "p/group_vars/all.yml": lines("vllm_seats: [{ name: a, model: m, ctx: 1 }]"),
      },
      "p/site.yml",
    );
    expect(edits(all, "a").map((e) => e[0])).not.toContain("host");
  });

  test("a pattern that selects no host of the inventory is a notice; the play is read for no host", () => {
    const r = read({ ...files, [SITE]: lines("- hosts: tpu", "  roles: [vllm]") }, SITE);
    expect(problems(r)).toEqual([["unresolved", SITE, 1]]);
    expect(r.problems[0]?.message).toContain("selects no host of the inventory");
  });
});

/** The role's files under another folder. */
function moveRole(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(ROLE).map(([k, v]) => [k.replace(/^ansible\//, `${dir}/`), v]));
}

describe("roles", () => {
  test("roles_path from ansible.cfg; old-style params; meta dependencies first; handlers after the tasks", () => {
    const r = read(
      {
        "deploy/site.yml": lines("- hosts: all", "  roles:", "    - { role: seat, seat_name: coder }"),
        "deploy/ansible.cfg": lines("[defaults]", "roles_path = ../galaxy:./roles"),
        "galaxy/seat/meta/main.yml": lines("dependencies:", "  - role: common", "    vars: { gpu: 1 }"),
        "galaxy/seat/tasks/main.yml": lines("- lineinfile: { path: '/etc/{{ seat_name }}.env', line: 'B=2' }"),
        "galaxy/seat/handlers/main.yml": lines("- lineinfile: { path: '/etc/{{ seat_name }}.env', line: 'C=3' }"),
        "deploy/roles/common/tasks/main.yml": lines("- lineinfile: { path: /etc/coder.env, line: 'A={{ gpu }}' }"),
      },
      "deploy/site.yml",
    );
    expect(r.problems).toEqual([]);
    expect(edits(r, "coder").map((e) => `${e[1]}=${e[2]}`)).toEqual(["A=1", "B=2", "C=3"]);
  });

  test("include_role in a loop (loop_var), tasks_from, the role's own templates/ folder", () => {
    const r = read(
      {
        "p/site.yml": lines(
          "- hosts: all",
          "  vars:",
          "    seats: [{ name: a, ctx: 1024 }, { name: b, ctx: 2048 }]",
          "  tasks:",
          "    - include_role: { name: seat, tasks_from: env }",
          "      loop: '{{ seats }}'",
          "      loop_control: { loop_var: seat }",
        ),
        "p/roles/seat/tasks/env.yml": lines("- template: { src: seat.env.j2, dest: '/etc/{{ seat.name }}/vllm.env' }"),
        "p/roles/seat/templates/seat.env.j2": lines("MAX_MODEL_LEN={{ seat.ctx }}"),
      },
      "p/site.yml",
    );
    expect(r.deploys.map((d) => d.service)).toEqual(["vllm"]);
    // The destination names no item (the loop var is `seat`, not an item with a name): `vllm.env` is the service.
    expect(
      edits(r, "vllm")
        .filter((e) => e[0] === "set")
        .map((e) => e[2]),
    ).toEqual(["1024", "2048"]);
  });

  test("a loop item's name the destination uses is the service (/opt/vllm/<name>/env)", () => {
    const r = read(
      {
        "p/site.yml": lines(
          "- hosts: all",
          "  vars: { seats: [{ name: coder, ctx: 1 }] }",
          "  tasks:",
          "    - template: { src: t.j2, dest: '/opt/vllm/{{ item.name }}/env' }",
          "      loop: '{{ seats }}'",
        ),
        "p/templates/t.j2": lines("MAX_MODEL_LEN={{ item.ctx }}"),
      },
      "p/site.yml",
    );
    expect(r.deploys.map((d) => d.service)).toEqual(["coder"]);
  });

  test("a role that is not in the repository is a notice at the reference", () => {
    const r = read(
      { "p/site.yml": lines("- hosts: all", "  roles:", "    - geerlingguy.docker", "    - community.general.thing") },
      "p/site.yml",
    );
    expect(problems(r)).toEqual([
      ["unresolved", "p/site.yml", 3],
      ["unresolved", "p/site.yml", 4],
    ]);
    expect(r.problems[0]?.message).toContain("role geerlingguy.docker is not in the repository (looked in p/roles/");
    expect(r.problems[1]?.message).toContain("installed by ansible-galaxy");
  });

  test("a role that imports itself through another is a parse error at the line that closes the loop; an include_role loop a notice", () => {
    const cyc = read(
      {
        "p/site.yml": lines("- hosts: all", "  roles: [a]"),
        "p/roles/a/tasks/main.yml": lines("- import_role: { name: b }"),
        "p/roles/b/meta/main.yml": lines("dependencies:", "  - a"),
      },
      "p/site.yml",
    );
    expect(problems(cyc)).toEqual([["parse", "p/roles/b/meta/main.yml", 2]]);
    expect(cyc.problems[0]?.message).toContain("import cycle p/roles/a/ → p/roles/a/tasks/main.yml → p/roles/b/ → p/roles/a/");
    const inc = read(
      { "p/site.yml": lines("- hosts: all", "  roles: [a]"), "p/roles/a/tasks/main.yml": lines("- x: 1", "- include_role: { name: a }") },
      "p/site.yml",
    );
    expect(problems(inc)).toEqual([["unresolved", "p/roles/a/tasks/main.yml", 2]]);
  });

  test("a role file that is not valid YAML is a parse problem at its line", () => {
    const r = read(
      { "p/site.yml": lines("- hosts: all", "  roles: [a]"), "p/roles/a/defaults/main.yml": lines("ctx: [1,", "x: 2") },
      "p/site.yml",
    );
    expect(problems(r)[0]?.slice(0, 2)).toEqual(["parse", "p/roles/a/defaults/main.yml"]);
  });
});

describe("templates as deploys", () => {
  test("a template that does not render is a parse problem at the template's line; its seat is not deployed", () => {
    const r = read(
      {
        ...site("all"),
        ...ROLE,
        [J2]: lines("A=1", "{% if vllm_util %}", "B=2"),
        "ansible/group_vars/all.yml": lines("vllm_seats: [{ name: a }]"),
      },
      SITE,
    );
    expect(problems(r)).toEqual([["parse", J2, 2]]);
    expect(r.problems[0]?.message).toContain("the template does not render: {% if %} is never closed");
    expect(r.deploys).toEqual([]);
  });

  test("a setting the template cannot render is skipped with a notice naming the service and key, at the template's line", () => {
    const r = read({ ...site("all"), ...ROLE, "ansible/group_vars/all.yml": lines("vllm_seats: [{ name: a, model: m }]") }, SITE);
    expect(r.problems.map((p) => [p.kind, p.file, p.line, p.service, p.key])).toEqual([["unresolved", J2, 3, "a", "VLLM_EXTRA_ARGS"]]);
    expect(r.problems[0]?.message).toContain("`item.ctx` is not defined");
  });

  test("a unit template: the unit's command is the seat's, each flag at its template line and its variable", () => {
    const unit = "ansible/roles/vllm/templates/vllm.service.j2";
    const files = {
      ...site("all"),
      ...ROLE,
      "ansible/roles/vllm/tasks/main.yml": lines(
        "- template: { src: vllm.service.j2, dest: '/etc/systemd/system/vllm-{{ item.name }}.service' }",
        "  loop: '{{ vllm_seats }}'",
      ),
      [unit]: lines(
        "[Service]", //                                                       1
        "ExecStart=/usr/bin/docker run --rm --gpus device={{ item.gpu }} {{ vllm_image }} \\", // 2
        "  --model {{ item.model }} \\", //                                 3
        "  --max-model-len {{ item.ctx }}", //                               4
      ),
      "ansible/group_vars/all.yml": lines("vllm_seats:", "  - name: coder", "    model: m", "    ctx: 4096", "    gpu: 1"),
    };
    const r = readPlaybook(SITE, new Map(Object.entries(files)), {
      readUnit: (name, text) => readUnit(name, text, { paths: Object.keys(files), services: new Map() }),
    });
    expect(r.problems).toEqual([]);
    expect(edits(r, "coder").map((e) => e.slice(0, 4))).toEqual([
      ["gpus", "1", 2, unit],
      ["set", "IMAGE", "vllm/vllm-openai:v0.8.5", 2],
      ["flags", "COMMAND", "vllm serve --model m --max-model-len 4096", 2],
    ]);
    const flags = r.deploys[0]?.edits.find((e) => e.kind === "flags");
    expect(flags?.kind === "flags" && flags.wordLines).toEqual([2, 2, 3, 3, 4, 4]);
    expect(writtenAt(r, "coder")).toEqual([
      ["IMAGE", "ansible/roles/vllm/defaults/main.yml", 1, "vllm_image"],
      ["--model", "ansible/group_vars/all.yml", 3, "model"],
      ["--max-model-len", "ansible/group_vars/all.yml", 4, "ctx"],
    ]);
  });

  test("copy of a role's files/ (not templated)", () => {
    const r = read(
      {
        "p/site.yml": lines("- hosts: all", "  roles: [r]"),
        "p/roles/r/tasks/main.yml": lines("- copy: { src: coder.env, dest: /etc/vllm/coder.env }"),
        "p/roles/r/files/coder.env": lines("MAX_MODEL_LEN={{ not_rendered }}"),
      },
      "p/site.yml",
    );
    expect(edits(r, "coder")).toEqual([
      ["reset", 1, "p/roles/r/tasks/main.yml"],
      ["set", "MAX_MODEL_LEN", "{{ not_rendered }}", 1, "p/roles/r/files/coder.env"],
    ]);
  });
});
