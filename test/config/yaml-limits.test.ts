// The shape limits every YAML reader applies before the parser runs (src/config/yaml-limits.ts): each
// hostile shape is refused at its line, fast, and real files of every kind pass.
import { describe, expect, test } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { yamlOverLimits } from "../../src/config/yaml-limits.js";

/** Past the length under which the text is not lexed at all. */
const PAD = `# ${"-".repeat(9000)}\n`;

describe("yamlOverLimits", () => {
  test.each([
    [
      "100,000 nested flow sequences (V8 runs out of memory formatting the parser's errors)",
      `a: ${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      2,
      /nested too deeply: more than 64 flow collections/,
    ],
    ["a million flow items (20 s of parsing)", `a: [${"1,".repeat(1_000_000)}1]\n`, 2, /holds more than 250,000 YAML nodes/],
    ["20,000 documents", `a: 1\n${"---\na: 1\n".repeat(20_000)}`, 3, /holds more than 1 YAML document/],
    ["300,000 block items", `a:\n${"  - 1\n".repeat(300_000)}`, 125_002, /holds more than 250,000 YAML nodes/],
  ])("%s is refused at its line", (_name, body, line, message) => {
    const started = Date.now();
    const got = yamlOverLimits(PAD + body);
    expect(got?.message).toMatch(message);
    expect(got?.line).toBe(line);
    // A generous bound for a loaded 2-core machine: the point is seconds, not the minutes of parsing.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  test("a leading `---`, multi-line scalars and the repository's own YAML pass", () => {
    expect(yamlOverLimits(`${PAD}---\na: 'x\n  y'\nb: |\n  z\n${"c: [1, {d: 2}]\n".repeat(500)}`)).toBeNull();
    for (const f of readdirSync("rules").filter((n) => n.endsWith(".yaml")))
      expect(yamlOverLimits(readFileSync(`rules/${f}`, "utf8"))).toBeNull();
  });

  test("a short text is not lexed: the hook's kvgate.yaml costs nothing", () => {
    expect(yamlOverLimits(`a: ${"[".repeat(1000)}`)).toBeNull();
  });
});
