import { describe, expect, test } from "vitest";
import { render } from "../../src/playbook/template.js";

const scope = [
  { item: { key: "MAX_MODEL_LEN", value: 40960 } },
  { ctx: "40960", half: "{{ ctx | int }}", list: [1, 2], name: "voices", empty: "", self: "{{ self }}" },
];

describe("render", () => {
  test.each([
    ["plain text", "GPU=1", "GPU=1"],
    ["a variable", "{{ ctx }}", "40960"],
    ["inside text", "MAX_MODEL_LEN={{ ctx }}", "MAX_MODEL_LEN=40960"],
    ["| int", "{{ ctx | int }}", 40960],
    ["| string of a number", "{{ item.value | string }}", "40960"],
    ["| default when undefined", "{{ nope | default(32768) }}", 32768],
    ["| default('x') quoted", "{{ nope | default('auto') }}", "auto"],
    ["| d(var)", "{{ nope | d(ctx) }}", "40960"],
    ["| default keeps a defined value", "{{ ctx | default(1) }}", "40960"],
    ["| default(x, true) replaces empty", "{{ empty | default('8', true) }}", "8"],
    ["dotted item", "{{ item.key }}={{ item.value }}", "MAX_MODEL_LEN=40960"],
    ["bracket item", "{{ item['key'] }}", "MAX_MODEL_LEN"],
    ["a var that is a template", "{{ half }}", 40960],
    ["a whole expression keeps a list", "{{ list }}", [1, 2]],
    ["| trim", "{{ ' x ' | trim }}", "x"],
    ["a comment is dropped", "A=1{# why #}", "A=1"],
  ])("%s", (_name, text, expected) => {
    expect(render(text, scope)).toEqual({ ok: true, value: expected });
  });

  test.each([
    ["undefined variable", "{{ nope }}", "`nope` is not defined"],
    ["unknown filter", "{{ ctx | b64encode }}", "the filter `b64encode`"],
    ["a lookup", "{{ lookup('env', 'X') }}", "lookups and function calls"],
    ["an operator", "{{ ctx * 2 }}", "operators"],
    ["| int of text", "{{ name | int }}", "is not a number"],
    ["a statement", "{% if x %}A=1{% endif %}", "Jinja statements"],
    ["omit", "{{ nope | default(omit) }}", "`omit`"],
    ["a self-reference", "{{ self }}", "in a loop"],
    ["an unclosed {{", "A={{ ctx", "never closed"],
  ])("%s is unresolved", (_name, text, reason) => {
    const r = render(text, scope);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });
});
