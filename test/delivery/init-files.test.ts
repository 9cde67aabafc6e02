// The files `kvgate init` writes or edits, as text: hook scripts, package.json's prepare, the
// pre-commit framework entry, the workflow. sh reads them back in init-files.e2e.test.ts; the hooks
// themselves run in init.e2e.test.ts and install.e2e.test.ts.
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { guardLine, hasKvgate, kvgateLine, mergeHook, OLD_LINES, shWord, wrapperHook } from "../../src/init/hooks.js";
import { withPrepare } from "../../src/init/husky.js";
import { commitStage, configuredHookIds, withKvgateEntry } from "../../src/init/precommit.js";
import { workflowYaml } from "../../src/init/workflow.js";
import { GateError } from "../../src/errors.js";

const RUNNER = "node_modules/kvgate/bin/kvgate-hook";

describe("hook lines", () => {
  test("each hook calls the installed runner through sh, never npx", () => {
    expect(kvgateLine(RUNNER, "pre-commit")).toBe(
      '[ "${HUSKY-}" = "0" ] || sh node_modules/kvgate/bin/kvgate-hook check --staged || exit $?',
    );
    expect(kvgateLine(RUNNER, "prepare-commit-msg")).toBe(
      '[ "${HUSKY-}" = "0" ] || sh node_modules/kvgate/bin/kvgate-hook hook prepare-commit-msg "$@" || exit $?',
    );
    expect(guardLine(RUNNER, "pre-commit")).toBe(
      '[ -z "${KVGATE_CANARY-}" ] || exec sh node_modules/kvgate/bin/kvgate-hook check --staged',
    );
  });
  test.each([
    ["/opt/kvgate/bin/kvgate-hook", "/opt/kvgate/bin/kvgate-hook"],
    ["/Users/Jo Doe/kvgate/bin/kvgate-hook", "'/Users/Jo Doe/kvgate/bin/kvgate-hook'"],
    ["/tmp/it's/kvgate-hook", "'/tmp/it'\\''s/kvgate-hook'"],
  ])("the runner path %j is one sh word: %s", (path, word) => {
    expect(shWord(path)).toBe(word);
  });
});

describe("mergeHook (husky files, and hooks that already run kvgate)", () => {
  test("a new file: the comment and kvgate's line, no guard (nothing else runs)", () => {
    const { text, change } = mergeHook(null, "pre-commit", RUNNER);
    expect(change).toBe("wrote");
    expect(text.split("\n")).toEqual([expect.stringContaining("# kvgate (added by `kvgate init`)"), kvgateLine(RUNNER, "pre-commit"), ""]);
  });
  test("a file with the user's lines: kvgate's line last, the self-test guard first", () => {
    const { text, change } = mergeHook("npx lint-staged\n", "pre-commit", RUNNER);
    expect(change).toBe("appended");
    const lines = text.trimEnd().split("\n");
    expect(lines[1]).toBe(guardLine(RUNNER, "pre-commit"));
    expect(lines.indexOf("npx lint-staged")).toBe(2);
    expect(lines.at(-1)).toBe(kvgateLine(RUNNER, "pre-commit"));
    expect(mergeHook(text, "pre-commit", RUNNER)).toEqual({ text, change: "kept" });
  });
  test("a shebang stays the first line", () => {
    const { text } = mergeHook("#!/usr/bin/env sh\nnpm test\n", "pre-commit", RUNNER);
    expect(text.split("\n").slice(0, 3)).toEqual([
      "#!/usr/bin/env sh",
      expect.stringContaining("self-test"),
      guardLine(RUNNER, "pre-commit"),
    ]);
  });
  test.each(OLD_LINES.map((l, i) => [l, i === 0 ? "pre-commit" : "prepare-commit-msg"] as const))(
    "an earlier init's npx line %j is replaced in place",
    (old, hook) => {
      const { text, change } = mergeHook(
        `#!/usr/bin/env sh\n# kvgate (added by \`kvgate init\`): HUSKY=0 skips it; KVGATE_BIN overrides the command.\n${old}\n`,
        hook,
        RUNNER,
      );
      expect(change).toBe("updated");
      expect(text).not.toContain("npx");
      expect(text).toContain(kvgateLine(RUNNER, hook));
      expect(text.match(/kvgate-hook/g)).toHaveLength(1);
    },
  );
  test.each([
    ["npx kvgate check --staged", "pre-commit"],
    ["node ./node_modules/kvgate/bin/kvgate.js --staged", "pre-commit"],
    ['kvgate hook prepare-commit-msg "$@"', "prepare-commit-msg"],
  ] as const)("a user's own kvgate line %j is left alone", (line, hook) => {
    expect(hasKvgate(line, hook)).toBe(true);
    expect(mergeHook(`${line}\n`, hook, RUNNER)).toEqual({ text: `${line}\n`, change: "kept-own" });
  });
  test("a pre-commit line does not count as the prepare-commit-msg hook", () => {
    expect(hasKvgate("npx kvgate check --staged", "prepare-commit-msg")).toBe(false);
    expect(mergeHook("npx kvgate check --staged\n", "prepare-commit-msg", RUNNER).change).toBe("appended");
  });
});

describe("the plain-git wrapper", () => {
  test("runs the chained hook first (not under the self-test), then execs kvgate", () => {
    const text = wrapperHook("/opt/kvgate/bin/kvgate-hook", "prepare-commit-msg");
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("#!/bin/sh");
    expect(lines.slice(-3)).toEqual([
      'chained="${0%/*}/prepare-commit-msg.kvgate-chained"',
      'if [ -z "${KVGATE_CANARY-}" ] && [ -x "$chained" ]; then "$chained" "$@" || exit $?; fi',
      '[ "${HUSKY-}" = "0" ] || exec sh /opt/kvgate/bin/kvgate-hook hook prepare-commit-msg "$@"',
    ]);
  });
});

describe("package.json's prepare script (husky)", () => {
  test.each([
    ['{\n  "name": "fleet"\n}\n', "husky", "  "],
    ['{\n\t"name": "fleet",\n\t"scripts": { "prepare": "npm run build" }\n}\n', "npm run build && husky", "\t"],
    ['{"name":"fleet","scripts":{"prepare":""}}', "husky", "  "],
    ['{\n    "name": "fleet"\n}\n', "husky", "    "],
  ])("%j → prepare %j, indented as it was", (text, prepare, indent) => {
    const next = withPrepare(text)!;
    const json = JSON.parse(next.text) as { scripts: { prepare: string } };
    expect(json.scripts.prepare).toBe(prepare);
    expect(next.text.split("\n")[1]!.startsWith(`${indent}"`)).toBe(true);
    expect(withPrepare(next.text)).toBeNull();
  });
  test.each(["husky", "husky && npm run build", "npm run build; husky", "cd .. && husky frontend/.husky"])(
    "prepare %j already runs husky: nothing to change",
    (prepare) => {
      expect(withPrepare(JSON.stringify({ scripts: { prepare } }))).toBeNull();
    },
  );
  test("a prepare that only mentions husky in a word is not enough", () => {
    expect(JSON.parse(withPrepare(JSON.stringify({ scripts: { prepare: "node huskyish.js" } }))!.text).scripts.prepare).toBe(
      "node huskyish.js && husky",
    );
  });
});

describe("the pre-commit framework entry", () => {
  test.each([
    [
      "pre-commit's own style (dash at column 0, 4-space keys)",
      "repos:\n-   repo: local\n    hooks:\n    -   id: a\n        name: a\n        entry: a\n        language: system\n",
      "",
    ],
    [
      "indented items",
      "# mine\nrepos:\n  - repo: local\n    hooks:\n      - id: a\n        name: a\n        entry: a\n        language: system\n\n",
      "  ",
    ],
    ["an empty flow list", "repos: []\n", ""],
    ["default_stages before repos", "default_stages: [commit]\nrepos:\n- repo: local\n  hooks: []\n", ""],
  ])("%s: appended as YAML that parses, the user's lines kept", (_name, text, dash) => {
    const out = withKvgateEntry(text, RUNNER, "commit");
    if (!text.startsWith("repos: []")) expect(out.startsWith(text.trimEnd())).toBe(true);
    const parsed = parse(out) as {
      repos: { repo: string; hooks: { id: string; entry: string; stages: string[]; pass_filenames?: boolean; language: string }[] }[];
    };
    const local = parsed.repos.at(-1)!;
    expect(local.repo).toBe("local");
    expect(local.hooks.map((h) => [h.id, h.entry, h.stages, h.language])).toEqual([
      ["kvgate", "sh node_modules/kvgate/bin/kvgate-hook check --staged", ["commit"], "system"],
      ["kvgate-prepare-commit-msg", "sh node_modules/kvgate/bin/kvgate-hook hook prepare-commit-msg", ["prepare-commit-msg"], "system"],
    ]);
    expect(local.hooks[0]!.pass_filenames).toBe(false);
    expect(out).toContain(`\n${dash}- repo: local\n`);
    expect(configuredHookIds(out)).toEqual(new Set([...configuredHookIds(text), "kvgate", "kvgate-prepare-commit-msg"]));
  });
  test("a top-level key after repos: the entry is printed to paste, nothing guessed", () => {
    const text = "repos:\n- repo: local\n  hooks: []\nfail_fast: true\n";
    expect(() => withKvgateEntry(text, RUNNER, "commit")).toThrow(GateError);
    try {
      withKvgateEntry(text, RUNNER, "commit");
    } catch (e) {
      expect((e as GateError).details.join("\n")).toContain("entry: sh node_modules/kvgate/bin/kvgate-hook check --staged");
    }
  });
  test("a config that does not parse is a GateError naming its line", () => {
    expect(() => configuredHookIds("repos:\n- repo: local\n  hooks: [\n")).toThrow(/\.pre-commit-config\.yaml:\d+ does not parse/);
    expect(() => configuredHookIds("fail_fast: true\n")).toThrow(/has no `repos:` list/);
  });
  test.each([
    [null, "commit"],
    [[3, 0, 4], "commit"],
    [[3, 1, 9], "commit"],
    [[3, 2, 0], "pre-commit"],
    [[4, 2, 0], "pre-commit"],
  ] as const)("pre-commit %j: the commit stage is named %s", (version, stage) => {
    expect(commitStage(version ? [...version] : null)).toBe(stage);
  });
});

describe("the workflow", () => {
  interface Step {
    id?: string;
    name?: string;
    uses?: string;
    if?: string;
    "continue-on-error"?: boolean;
    with?: Record<string, unknown>;
  }
  const wf = parse(workflowYaml("main")) as {
    on: Record<string, unknown>;
    permissions: Record<string, string>;
    jobs: { kvgate: { steps: Step[] } };
  };
  const steps = wf.jobs.kvgate.steps;
  const upload = steps.find((s) => s.uses?.startsWith("github/codeql-action/upload-sarif"))!;

  test("runs on pull requests and pushes to the default branch, with the permissions the upload needs and no more", () => {
    expect(Object.keys(wf.on)).toEqual(["pull_request", "push"]);
    expect(wf.on.push).toEqual({ branches: ["main"] });
    expect(wf.permissions).toEqual({ contents: "read", "security-events": "write", actions: "read" });
  });
  test("the full history, then the Action with policy-from: base written out", () => {
    expect(steps[0]).toEqual({ uses: "actions/checkout@v4", with: { "fetch-depth": 0 } });
    expect(steps[1]).toEqual({
      id: "kvgate",
      uses: expect.stringMatching(/^kvgate\/kvgate@v\d+\.\d+\.\d+$/),
      with: { sarif: "kvgate.sarif", "policy-from": "base" },
    });
  });
  test("the SARIF upload cannot turn a passing gate red, and still runs after a refusal", () => {
    expect(steps.indexOf(upload)).toBe(2);
    expect(upload["continue-on-error"]).toBe(true);
    expect(upload.if).toBe("${{ always() && steps.kvgate.outputs.sarif-file != '' }}");
    expect(upload.with).toEqual({ sarif_file: "${{ steps.kvgate.outputs.sarif-file }}", category: "kvgate" });
  });
});
