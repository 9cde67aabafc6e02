import { describe, expect, test } from "vitest";
import { render, type Scope } from "../../src/playbook/template.js";
import { parseYamlFile } from "../../src/playbook/nodes.js";
import { varsOf } from "../../src/playbook/vars.js";
import { lines } from "./helpers.js";

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

describe("the wider subset: filters, tests, comparisons", () => {
  const s = [{ n: "8", list: ["--a", "--b"], seat: { name: "coder", quant: null }, mode: "fp8", hf: "{{ lookup('env', 'HF') }}" }];
  test.each([
    ["| join(' ')", "{{ list | join(' ') }}", "--a --b"],
    ["| join with no separator", "{{ list | join }}", "--a--b"],
    ["| float", "{{ '0.9' | float }}", 0.9],
    ["| lower / | upper", "{{ mode | upper }}-{{ 'X' | lower }}", "FP8-x"],
    ["| bool", "{{ 'yes' | bool }}", true],
    ["| quote a word with a space", "{{ 'a b' | quote }}", "'a b'"],
    ["| length", "{{ list | length }}", 2],
    ["| mandatory of a defined value", "{{ n | mandatory }}", "8"],
    ["is defined", "{{ seat.name is defined }}", true],
    ["is not defined of an attribute", "{{ seat.nope is not defined }}", true],
    ["is defined of a variable whose value is a lookup", "{{ hf is defined }}", true],
    ["is none", "{{ seat.quant is none }}", true],
    ["== and and/or", "{{ mode == 'fp8' and n == '8' }}", true],
    ["in a list", "{{ '--a' in list }}", true],
    ["not in", "{{ 'x' not in list }}", true],
    ["an inline if", "{{ 'eager' if mode == 'fp8' else 'graph' }}", "eager"],
    ["an inline if with no else", "{{ 'x' if false }}", ""],
    ["~ joins text", "{{ seat.name ~ '-' ~ n }}", "coder-8"],
    ["a list literal", "{{ [1, 2] }}", [1, 2]],
    ["a negative number", "{{ -1 }}", -1],
    ["items() of a mapping", "{{ seat.items() | length }}", 2],
  ])("%s", (_name, text, expected) => {
    expect(render(text, s)).toMatchObject({ ok: true, value: expected });
  });

  test.each([
    ["| join of a text", "{{ n | join }}", "needs a list"],
    ["| mandatory of an undefined", "{{ nope | mandatory }}", "`nope` is not defined"],
    ["an unknown test", "{{ n is odd }}", "the test `is odd`"],
    ["< of text and a number", "{{ n < 3 }}", "two numbers or two strings"],
    ["a call that is not items()", "{{ n.split(',') }}", "function calls"],
    ["keyword arguments", "{{ list | join(d=',') }}", "keyword arguments"],
    ["an unclosed quote", "{{ 'abc }}", "never closed"],
    ["a stray token", "{{ n } }}", "not an expression"],
    ["an undefined in a condition", "{{ 'a' if nope else 'b' }}", "`nope` is not defined"],
  ])("%s is unresolved", (_name, text, reason) => {
    const r = render(text, s);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });
});

describe("where a value is written", () => {
  const vars = parseYamlFile(
    "host_vars/gpu1.yml",
    lines("ctx: 32768", "seats:", "  - name: coder", "    max_model_len: 40960", "alias: '{{ ctx }}'"),
  );
  const layer = varsOf(vars, vars.doc.contents);
  const at = (text: string, scope: Scope = [layer]) => {
    const r = render(text, scope);
    return r.ok ? [r.value, r.at?.file, r.at?.line, r.at?.name] : r.reason;
  };

  test("a variable's value is its key's line in its file", () => {
    expect(at("{{ ctx }}")).toEqual([32768, "host_vars/gpu1.yml", 1, "ctx"]);
  });
  test("an attribute of a list item keeps its own key's line", () => {
    expect(at("{{ item.max_model_len }}", [{ item: (layer.seats as unknown[])[0] }, layer])).toEqual([
      40960,
      "host_vars/gpu1.yml",
      4,
      "max_model_len",
    ]);
  });
  test("| int and | default keep it; a variable that names another is the other's", () => {
    expect(at("{{ ctx | int }}")).toEqual([32768, "host_vars/gpu1.yml", 1, "ctx"]);
    expect(at("{{ nope | default(ctx) }}")).toEqual([32768, "host_vars/gpu1.yml", 1, "ctx"]);
    expect(at("{{ alias }}")).toEqual([32768, "host_vars/gpu1.yml", 1, "ctx"]);
  });
  test("a literal and a computed value are nobody's", () => {
    expect(at("{{ nope | default(8192) }}")).toEqual([8192, undefined, undefined, undefined]);
    expect(at("{{ [ctx] | join(',') }}")).toEqual(["32768", undefined, undefined, undefined]);
  });
});
