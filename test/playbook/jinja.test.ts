// A role's .j2 rendered as Ansible's template module does: statements, whitespace control and
// trim_blocks, each output line with the template line that wrote it, the variable behind each value,
// and lines kvgate could not render marked rather than guessed.
import { describe, expect, test } from "vitest";
import { renderTemplate } from "../../src/playbook/jinja.js";
import { parseYamlFile } from "../../src/playbook/nodes.js";
import { varsOf } from "../../src/playbook/vars.js";
import { lines } from "./helpers.js";
import type { Scope } from "../../src/playbook/template.js";

const hostVars = parseYamlFile(
  "host_vars/gpu1.yml",
  lines(
    "seats:",
    "  - name: coder",
    "    ctx: 32768",
    "    env: { HF_HOME: /models, VLLM_USE_V1: 1 }",
    "image: vllm/vllm-openai:v0.8.5",
    "extra: [--enforce-eager, --max-num-seqs, 8]",
  ),
);
const vars = varsOf(hostVars, hostVars.doc.contents);
const scope: Scope = [{ item: (vars.seats as unknown[])[0] }, vars];

/** [template line, text] of each output line. */
const out = (text: string, s: Scope = scope) => {
  const r = renderTemplate(text, s);
  expect(r.error).toBeNull();
  return r.lines.map((l) => [l.src, l.text]);
};

describe("rendering", () => {
  test("variables, with the template's lines (trim_blocks drops the newline after a block tag)", () => {
    expect(
      out(
        lines(
          "# {{ ansible_managed | default('managed') }}", // 1
          "IMAGE={{ image }}", //                            2
          "{% if item.ctx > 16384 %}", //                   3
          "MAX_MODEL_LEN={{ item.ctx }}", //                4
          "{% else %}", //                                   5
          "MAX_MODEL_LEN=16384", //                          6
          "{% endif %}", //                                  7
          "GPU=0", //                                        8
        ),
      ),
    ).toEqual([
      [1, "# managed"],
      [2, "IMAGE=vllm/vllm-openai:v0.8.5"],
      [4, "MAX_MODEL_LEN=32768"],
      [8, "GPU=0"],
    ]);
  });

  test("elif, is defined, and a false condition writes nothing", () => {
    expect(
      out(lines("{% if item.quant is defined %}", "Q={{ item.quant }}", "{% elif item.name == 'coder' %}", "Q=none", "{% endif %}")),
    ).toEqual([[4, "Q=none"]]);
  });

  test("for over a mapping's items(), with loop.index; for over a list with join-like loop.last", () => {
    expect(out(lines("{% for k, v in item.env.items() %}", "{{ k }}={{ v }}", "{% endfor %}"))).toEqual([
      [2, "HF_HOME=/models"],
      [2, "VLLM_USE_V1=1"],
    ]);
    expect(out(lines('ARGS="{% for a in extra %}{{ a }}{% if not loop.last %} {% endif %}{% endfor %}"'))).toEqual([
      [1, 'ARGS="--enforce-eager --max-num-seqs 8"'],
    ]);
    expect(out(lines("{% for a in [] %}", "X=1", "{% else %}", "NONE=1", "{% endfor %}"))).toEqual([[4, "NONE=1"]]);
  });

  test("set, raw, comments and whitespace control", () => {
    expect(
      out(
        lines(
          "{% set ctx = item.ctx | int %}", //   1
          "A={{ ctx }}{# a comment #} # kept", // 2
          "{% raw %}B={{ not rendered }}{% endraw %} # kept", // 3
          "C=1   {%- if true -%}", //            4
          "   2", //                              5
          "{%- endif %}", //                       6
        ),
      ),
    ).toEqual([
      [2, "A=32768 # kept"],
      [3, "B={{ not rendered }} # kept"],
      [4, "C=12"],
    ]);
    // As in Jinja with trim_blocks, a comment or block tag that ends a line takes its newline along.
    expect(out(lines("A=1{# why #}", "B=2"))).toEqual([[1, "A=1B=2"]]);
  });

  test("each value keeps the variable it came from", () => {
    const r = renderTemplate(
      lines("MAX_MODEL_LEN={{ item.ctx }}", "{% for k, v in item.env.items() %}{{ k }}={{ v }}", "{% endfor %}"),
      scope,
    );
    const ats = r.lines.map((l) => l.parts.filter((p) => p.at).map((p) => [p.text, p.at?.file, p.at?.line, p.at?.name]));
    expect(ats).toEqual([
      [["32768", "host_vars/gpu1.yml", 3, "ctx"]],
      [["/models", "host_vars/gpu1.yml", 4, "HF_HOME"]],
      [["1", "host_vars/gpu1.yml", 4, "VLLM_USE_V1"]],
    ]);
  });
});

describe("what kvgate cannot evaluate marks the lines it touches", () => {
  const unsure = (text: string) => renderTemplate(text, scope).lines.map((l) => [l.src, l.text, l.unsure?.reason ?? null]);

  test("an undefined variable marks its line; the others render", () => {
    expect(unsure(lines("A={{ nope }}", "B=1"))).toEqual([
      [1, "A=", expect.stringContaining("`nope` is not defined")],
      [2, "B=1", null],
    ]);
  });

  test("a condition on a variable from outside the repository marks every branch's lines, and the line an inline if sits in", () => {
    expect(unsure(lines("{% if from_vault %}", "A=1", "{% else %}", "A=2", "{% endif %}", "B=1"))).toEqual([
      [2, "A=1", expect.stringContaining("`from_vault` is not defined")],
      [4, "A=2", expect.stringContaining("`from_vault` is not defined")],
      [6, "B=1", null],
    ]);
    expect(unsure(lines('ARGS="--model m{% if eager %} --enforce-eager{% endif %}"'))[0]?.[2]).toContain("`eager` is not defined");
  });

  test("a loop over an unknown list: its body once, unsure", () => {
    expect(unsure(lines("{% for a in nope %}", "X{{ loop.index }}=1", "{% endfor %}", "Y=1"))).toEqual([
      [2, "X=1", expect.stringContaining("`nope` is not defined")],
      [4, "Y=1", null],
    ]);
  });

  test("{% include %}, a macro, a filtered loop are not evaluated", () => {
    expect(unsure(lines("A=1 {% include 'x.j2' %}"))[0]?.[2]).toContain("{% include %} is not evaluated");
    expect(unsure(lines("{% macro m() %}x{% endmacro %}B=1"))[0]?.[2]).toContain("{% macro %}");
    expect(unsure(lines("{% for a in extra if a %}", "Z=1", "{% endfor %}"))[0]?.[2]).toContain("filtered or recursive");
  });
});

describe("a template that does not render is a parse problem at its line", () => {
  test.each([
    ["an {% if %} never closed", lines("A=1", "{% if x %}", "B=1"), 2, "{% if %} is never closed"],
    ["an {% endif %} with nothing open", lines("A=1", "{% endif %}"), 2, "without its opening tag"],
    ["an {% endfor %} closing an if", lines("{% if x %}", "{% endfor %}"), 2, "the {% if %} of line 1 is open"],
    ["a {{ never closed", lines("A=1", "B={{ x"), 2, "never closed"],
    ["an {% else %} with no if", lines("{% else %}"), 1, "without an {% if %}"],
    ["a for that is not `x in list`", lines("{% for x %}", "{% endfor %}"), 1, "is not `for x in list`"],
    ["an unknown statement", lines("{% frobnicate %}"), 1, "is not a Jinja statement"],
    ["a raw never closed", lines("{% raw %}", "x"), 1, "never closed"],
  ])("%s", (_name, text, line, message) => {
    const r = renderTemplate(text, scope);
    expect(r.lines).toEqual([]);
    expect(r.error).toMatchObject({ kind: "parse", line });
    expect(r.error?.message).toContain(message);
  });
});
