// Fuzzing the playbook reader: any text (and any set of included files) gives a PlaybookRead with
// deploys or problems, never a throw; hostile YAML (alias bombs, deep nesting) ends in playbook
// problems, fast.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { stringify } from "yaml";
import { readPlaybook } from "../../src/playbook/index.js";
import type { PlaybookRead } from "../../src/playbook/index.js";
import { envLine, RUNS } from "./arbitraries.js";

const PB = "playbooks/deploy.yml";

function wellFormed(r: PlaybookRead): void {
  expect(r.path).toBe(PB);
  for (const p of r.problems) {
    expect(["parse", "unresolved"]).toContain(p.kind);
    expect(p.line).toBeGreaterThanOrEqual(1);
    expect(p.message.length).toBeGreaterThan(0);
  }
  for (const d of r.deploys) {
    expect(d.playbook).toBe(PB);
    for (const e of d.edits) expect(e.line).toBeGreaterThanOrEqual(1);
  }
}

const read = (text: string, extra: Record<string, string> = {}): PlaybookRead =>
  readPlaybook(PB, new Map([[PB, text], ...Object.entries(extra)]));

const envPath = fc.constantFrom(
  "/opt/scripts/voices.env",
  "{{ env_dir }}/gen.env",
  "/opt/{{ missing }}.env",
  "scripts/x.env.bak",
  "voices.env",
);
const scalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("{{ item }}", "{{ max_len }}", "{{ undefined_var | default(3) }}", "{% if x %}y{% endif %}", "{{"),
);
const task = fc.oneof(
  fc.record(
    {
      name: fc.string({ maxLength: 8 }),
      lineinfile: fc.record(
        {
          path: envPath,
          line: envLine,
          regexp: fc.constantFrom("^MAX_MODEL_LEN=", "(", "^X"),
          state: fc.constantFrom("present", "absent"),
        },
        { requiredKeys: ["path"] },
      ),
    },
    { requiredKeys: ["lineinfile"] },
  ),
  fc.record({
    "ansible.builtin.copy": fc.record({ dest: envPath, content: fc.array(envLine, { maxLength: 4 }).map((l) => l.join("\n")) }),
  }),
  fc.record({ blockinfile: fc.record({ path: envPath, block: fc.array(envLine, { maxLength: 3 }).map((l) => l.join("\n")) }) }),
  fc.record({ template: fc.record({ src: fc.constantFrom("x.env.j2", "missing.j2"), dest: envPath }) }),
  fc.record({
    "community.docker.docker_container": fc.record(
      {
        name: fc.constantFrom("vllm-voices", "gen", "x"),
        env: fc.dictionary(fc.constantFrom("MAX_MODEL_LEN", "GPU", "SERVE_ARGS"), scalar),
        command: fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 4 })),
        device_requests: fc.array(fc.record({ device_ids: fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.nat(4)), { maxLength: 2 }) }), {
          maxLength: 2,
        }),
      },
      { requiredKeys: ["name"] },
    ),
  }),
  fc.record({ import_tasks: fc.constantFrom("tasks.yml", "deploy.yml", "missing.yml", "{{ tasks_file }}") }),
  fc.record({ include_tasks: fc.record({ file: fc.constantFrom("tasks.yml", "deploy.yml") }) }),
  fc.record({ include_role: fc.record({ name: fc.constantFrom("vllm", "missing") }) }),
  fc.record({
    lineinfile: fc.record({ path: envPath, line: fc.constant("{{ item }}") }),
    loop: fc.oneof(fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }), fc.constant("{{ items }}")),
  }),
  fc.anything({ maxDepth: 2 }),
);
const taskList = fc.letrec((tie) => ({
  tasks: fc.array(
    fc.oneof(
      { weight: 4, arbitrary: task },
      { weight: 1, arbitrary: fc.record({ block: tie("tasks"), rescue: tie("tasks"), always: tie("tasks") }, { requiredKeys: ["block"] }) },
    ),
    { maxLength: 4 },
  ),
})).tasks;
const play = fc.record(
  {
    hosts: fc.constantFrom("all", "gpu", ""),
    vars: fc.dictionary(fc.constantFrom("env_dir", "max_len", "items", "tasks_file", "item"), scalar),
    vars_files: fc.array(fc.constantFrom("vars.yml", "missing.yml", "{{ env_dir }}/v.yml"), { maxLength: 2 }),
    pre_tasks: taskList,
    tasks: taskList,
    roles: fc.array(
      fc.oneof(
        fc.constantFrom("vllm", "missing"),
        fc.record({ role: fc.constant("vllm"), vars: fc.dictionary(fc.string({ maxLength: 4 }), scalar) }),
      ),
      { maxLength: 2 },
    ),
    handlers: taskList,
  },
  { requiredKeys: ["hosts"] },
);
const playbook = fc.oneof(
  fc
    .array(
      fc.oneof(
        { weight: 5, arbitrary: play },
        { weight: 1, arbitrary: fc.record({ import_playbook: fc.constantFrom("deploy.yml", "other.yml") }) },
      ),
      { maxLength: 3 },
    )
    .map((p) => stringify(p)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => stringify(v)),
  fc.string({ maxLength: 200 }),
);
/** What includes may find: a tasks file, a vars file, a role, a template (each itself arbitrary). */
const companions = fc.record({
  "playbooks/tasks.yml": fc.oneof(
    taskList.map((t) => stringify(t)),
    fc.string({ maxLength: 80 }),
  ),
  "playbooks/vars.yml": fc.oneof(
    fc.dictionary(fc.string({ maxLength: 6 }), scalar).map((v) => stringify(v)),
    fc.string({ maxLength: 40 }),
  ),
  "playbooks/roles/vllm/tasks/main.yml": taskList.map((t) => stringify(t)),
  "playbooks/x.env.j2": fc.array(envLine, { maxLength: 5 }).map((l) => l.join("\n")),
  "playbooks/other.yml": playbook,
});

describe("readPlaybook never throws", () => {
  test("on any text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: "binary" }), (t) => wellFormed(read(t))),
      { numRuns: RUNS.medium },
    );
  });
  test("on playbook shapes: plays, blocks, includes, roles, loops, templates, vars", () => {
    fc.assert(
      fc.property(playbook, companions, (t, files) => wellFormed(read(t, files))),
      { numRuns: RUNS.heavy },
    );
  });
  test("on anchors, aliases and merge keys woven into a play", () => {
    const anchored = fc
      .tuple(
        fc.array(
          envLine.filter((l) => !/[\n\r"\\]/.test(l)),
          { minLength: 1, maxLength: 3 },
        ),
        fc.constantFrom("*base", "[*base, *base]", "*task", "{<<: *base}"),
      )
      .map(([lines, ref]) =>
        [
          "- hosts: all",
          "  vars: &base",
          `    env_dir: /opt/scripts`,
          "  tasks:",
          "    - &task",
          "      lineinfile:",
          "        path: /opt/scripts/voices.env",
          `        line: "${lines[0]}"`,
          `    - vars: ${ref}`,
          `      copy: { dest: /opt/scripts/voices.env, content: "${lines.join("\\n")}" }`,
          `    - <<: ${ref}`,
          "",
        ].join("\n"),
      );
    fc.assert(
      fc.property(anchored, (t) => wellFormed(read(t))),
      { numRuns: RUNS.medium },
    );
  });
});

describe("hostile playbooks end in problems, fast", () => {
  const bomb = [
    "- hosts: all",
    "  vars:",
    '    a: &a ["x","x","x","x","x","x","x","x","x"]',
    ..."bcdefghij".split("").map((c, i) => `    ${c}: &${c} [${Array(9).fill(`*${"abcdefghij"[i]}`).join(",")}]`),
    "  tasks:",
    '    - lineinfile: { path: /opt/scripts/voices.env, line: "MAX_MODEL_LEN={{ j }}" }',
    "",
  ].join("\n");
  const mergeBomb = [
    "- hosts: all",
    "  vars:",
    "    a: &a { x: 1 }",
    ..."bcdefghijklmnopqrstu"
      .split("")
      .map((c, i) => `    ${c}: &${c} { <<: [*${"abcdefghijklmnopqrstu"[i]}, *${"abcdefghijklmnopqrstu"[i]}] }`),
    "  tasks: []",
    "",
  ].join("\n");
  const deepBlocks = [
    "- hosts: all",
    "  tasks:",
    ...Array.from({ length: 200 }, (_, i) => `${"  ".repeat(i + 2)}- block:`),
    `${"  ".repeat(202)}- lineinfile: { path: /opt/scripts/voices.env, line: "A=1" }`,
    "",
  ].join("\n");
  test.each([
    ["an alias bomb in vars", bomb, /alias/i],
    ["a merge-key bomb", mergeBomb, /alias/i],
    ["10,000 levels of [ in vars", `- hosts: all\n  vars:\n    x: ${"[".repeat(10_000)}\n`, /nested too deeply/],
    ["200 nested blocks", deepBlocks, /nested more than/],
  ])("%s", (_, text, message) => {
    const r = read(text);
    wellFormed(r);
    expect(r.problems.length).toBeGreaterThanOrEqual(1);
    expect(r.problems.length).toBeLessThanOrEqual(11);
    expect(r.problems[0]).toMatchObject({ kind: "parse", file: PB });
    expect(r.problems.map((p) => p.message).join("\n")).toMatch(message);
  });
  test("a playbook that imports itself is a cycle problem, not a loop", () => {
    const r = read("- import_playbook: deploy.yml\n");
    expect(r.problems.map((p) => p.message).join("\n")).toMatch(/import cycle/);
  });
});
