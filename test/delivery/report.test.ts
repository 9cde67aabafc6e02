import { describe, expect, test } from "vitest";
import { formatSarif, pathToUri, NO_FILE_URI } from "../../src/report/sarif.js";
import { ruleDocUrl } from "../../src/report/rules-doc.js";
import { formatGithub, formatGithubCommands, summaryMarkdown, workflowCommand, type AnnotationProps } from "../../src/report/github.js";
import { formatResult } from "../../src/report/reporters.js";
import { RULES } from "../../src/checks/registry.js";
import { countFindings, verdictOf, type CheckResult } from "../../src/engine/result.js";
import type { Finding } from "../../src/model/types.js";
import { runMemory } from "../helpers/memory.js";
import { sarifErrors } from "./sarif-schema.js";
import { cardRowsOf } from "../../src/report/card-rows.js";

function finding(over: Partial<Finding>): Finding {
  return {
    rule: "kv/covers-context",
    severity: "error",
    status: "open",
    message: "voices: pin 6 GiB < required 7.5 GiB",
    file: "scripts/voices.env",
    line: 5,
    service: "voices",
    commit: null,
    fingerprint: "fp-1",
    data: { required_bytes: 8053063680, pinned_bytes: 6442450944 },
    ...over,
  };
}

function resultOf(findings: Finding[]): CheckResult {
  return {
    tool: "kvgate",
    version: "0.1.0",
    mode: "range",
    failOn: "error",
    verdict: verdictOf(findings, "error"),
    counts: countFindings(findings),
    findings,
    units: ["a..b"],
    filesChecked: 2,
  };
}

const mixed = resultOf([
  finding({}),
  finding({ rule: "env/duplicate-key", severity: "warning", line: 2, fingerprint: "fp-2", message: "A twice" }),
  finding({ rule: "kv/oversized", severity: "notice", line: null, fingerprint: "fp-3", message: "could release 1 GiB" }),
  finding({ rule: "kv/covers-context", status: "exempt", reason: "owner Prime pinned it", fingerprint: "fp-4" }),
  finding({ rule: "secret/aws-access-key-id", status: "allowed", reason: "ALLOW_SECRETS=1", fingerprint: "sha256:0123456789ab" }),
  finding({
    rule: "knob/one-per-deploy",
    status: "waived",
    reason: "bisecting",
    file: null,
    line: null,
    fingerprint: "fp-6",
    commit: "abcdef0123456789",
  }),
  finding({ rule: "env/parse", file: "scripts/a b,c.env", line: 3, fingerprint: "fp-7", message: "line 3: 100%\nbad" }),
]);

describe("SARIF", () => {
  const log = JSON.parse(formatSarif(mixed));
  const run = log.runs[0];

  test("validates against the SARIF 2.1.0 schema", () => {
    expect(sarifErrors(log)).toEqual([]);
  });
  test("the schema check can fail: a result without a message is refused", () => {
    const broken = structuredClone(log);
    delete broken.runs[0].results[0].message;
    broken.runs[0].results[1].level = "fatal";
    expect(sarifErrors(broken).length).toBeGreaterThanOrEqual(2);
  });
  test("the driver lists every registered rule with its page (helpUri and help) and level", () => {
    expect(run.tool.driver.name).toBe("kvgate");
    expect(run.tool.driver.version).toBe("0.1.0");
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(RULES.map((r) => r.id));
    const flag = run.tool.driver.rules.find((r: { id: string }) => r.id === "engine/removed-flag");
    expect(flag.helpUri).toBe("https://github.com/kvgate/kvgate/blob/main/docs/rules/engine-removed-flag.md");
    expect(flag.help.markdown).toContain("(https://github.com/kvgate/kvgate/blob/main/docs/rules/engine-removed-flag.md)");
    expect(flag.defaultConfiguration.level).toBe("error");
    expect(flag.shortDescription.text).toBe(RULES.find((r) => r.id === "engine/removed-flag")?.description);
    const dup = run.tool.driver.rules.find((r: { id: string }) => r.id === "env/duplicate-key");
    expect(dup.defaultConfiguration.level).toBe("warning");
    expect(ruleDocUrl("secret/aws-access-key-id")).toBe(
      "https://github.com/kvgate/kvgate/blob/main/docs/rules/secret-aws-access-key-id.md",
    );
  });
  test("results: rule, index, level, message, location, fingerprint", () => {
    const rows = run.results.map((r: any) => [
      r.ruleId,
      r.level,
      r.locations[0].physicalLocation.artifactLocation.uri,
      r.locations[0].physicalLocation.region?.startLine ?? null,
      r.partialFingerprints["kvgate/v1"],
    ]);
    expect(rows).toEqual([
      ["kv/covers-context", "error", "scripts/voices.env", 5, "fp-1"],
      ["env/duplicate-key", "warning", "scripts/voices.env", 2, "fp-2"],
      ["kv/oversized", "note", "scripts/voices.env", null, "fp-3"],
      ["kv/covers-context", "error", "scripts/voices.env", 5, "fp-4"],
      ["secret/aws-access-key-id", "error", "scripts/voices.env", 5, "sha256:0123456789ab"],
      ["knob/one-per-deploy", "error", NO_FILE_URI, null, "fp-6"],
      ["env/parse", "error", "scripts/a%20b%2Cc.env", 3, "fp-7"],
    ]);
    for (const r of run.results) {
      expect(r.locations[0].physicalLocation.artifactLocation.uriBaseId).toBe("%SRCROOT%");
      if (RULES.some((x) => x.id === r.ruleId)) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    }
    expect(run.results[2].locations[0].physicalLocation.region).toBeUndefined();
  });
  test("exempt is an in-source suppression, allowed and waived external, each with its reason", () => {
    expect(run.results.map((r: any) => r.suppressions ?? null)).toEqual([
      null,
      null,
      null,
      [{ kind: "inSource", justification: "owner Prime pinned it" }],
      [{ kind: "external", justification: "ALLOW_SECRETS=1" }],
      [{ kind: "external", justification: "bisecting" }],
      null,
    ]);
  });
  test("paths become URI references", () => {
    expect(pathToUri("scripts/ü x.env")).toBe("scripts/%C3%BC%20x.env");
  });
  test("a real engine result (radiance removed flag) is valid SARIF with the finding's line", async () => {
    const findings = await runMemory({
      before: {},
      after: { "scripts/r.env": 'ENGINE=radiance\nHOST=h\nGPU=0\nSERVE_ARGS="--vram-kv-mib 4096"\n' },
    });
    const real = JSON.parse(formatResult(resultOf(findings), "sarif", { color: false, overrideName: "ALLOW_SECRETS" }));
    expect(sarifErrors(real)).toEqual([]);
    const r = real.runs[0].results.find((x: any) => x.ruleId === "engine/removed-flag");
    expect([r.level, r.locations[0].physicalLocation.region.startLine]).toEqual(["error", 4]);
  });
});

describe("GitHub annotations", () => {
  function capture() {
    const calls: [string, string, AnnotationProps][] = [];
    const core = {
      error: (m: string, p: AnnotationProps) => calls.push(["error", m, p]),
      warning: (m: string, p: AnnotationProps) => calls.push(["warning", m, p]),
      notice: (m: string, p: AnnotationProps) => calls.push(["notice", m, p]),
    };
    return { calls, core };
  }
  test("open findings only, with file, line and the rule id as title", () => {
    const { calls, core } = capture();
    formatGithub(mixed, core);
    expect(calls).toEqual([
      ["error", "voices: pin 6 GiB < required 7.5 GiB", { title: "kv/covers-context", file: "scripts/voices.env", startLine: 5 }],
      ["warning", "A twice", { title: "env/duplicate-key", file: "scripts/voices.env", startLine: 2 }],
      ["notice", "could release 1 GiB", { title: "kv/oversized", file: "scripts/voices.env" }],
      ["error", "line 3: 100%\nbad", { title: "env/parse", file: "scripts/a b,c.env", startLine: 3 }],
    ]);
  });
  test("the first 10 per severity; the rest are counted as omitted", () => {
    const many = resultOf([
      ...Array.from({ length: 12 }, (_, i) => finding({ line: i + 1, fingerprint: `e${i}` })),
      ...Array.from({ length: 3 }, (_, i) => finding({ severity: "warning", line: i + 1, fingerprint: `w${i}` })),
    ]);
    const { calls, core } = capture();
    const plan = formatGithub(many, core);
    expect([calls.filter((c) => c[0] === "error").length, calls.filter((c) => c[0] === "warning").length, plan.omitted]).toEqual([
      10, 3, 2,
    ]);
    expect(calls.filter((c) => c[0] === "error").map((c) => c[2].startLine)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
  test("workflow commands escape data and properties as the runner reads them", () => {
    expect(workflowCommand("error", { title: "env/parse", file: "scripts/a b,c.env", startLine: 3 }, "line 3: 100%\nbad")).toBe(
      "::error file=scripts/a b%2Cc.env,line=3,title=env/parse::line 3: 100%25%0Abad",
    );
  });
  test("--format github prints the commands and the verdict line", () => {
    const out = formatGithubCommands(mixed).trim().split("\n");
    expect(out[0]).toBe("::error file=scripts/voices.env,line=5,title=kv/covers-context::voices: pin 6 GiB < required 7.5 GiB");
    expect(out[2]).toBe("::notice file=scripts/voices.env,title=kv/oversized::could release 1 GiB");
    expect(out.at(-1)).toBe("kvgate range: 2 error(s), 1 warning(s), 1 notice(s), 1 exempt, 1 allowed, 1 waived — REFUSED");
  });
});

describe("job summary", () => {
  test("verdict, every finding (with status and reason), and the card table", () => {
    const md = summaryMarkdown(mixed, [
      {
        host: "fv-ml1",
        index: 0,
        total_bytes: 96 * 2 ** 30,
        used_bytes: 90 * 2 ** 30,
        spare_bytes: 5 * 2 ** 30,
        tenants: ["voices", "parakeet"],
      },
      { host: "fv-ml1", index: 1, total_bytes: 96 * 2 ** 30, reserve_bytes: 2 ** 30, used_bytes: 98 * 2 ** 30, spare_bytes: -3 * 2 ** 30 },
    ]);
    expect(md.split("\n")[0]).toBe("## ❌ kvgate: refused");
    expect(md).toContain(
      "2 error(s), 1 warning(s), 1 notice(s); 1 exempt, 1 allowed, 1 waived — unit `a..b`, 2 file(s) changed, failing at `error`.",
    );
    expect(md.split("\n").filter((l) => l.startsWith("| error") || l.startsWith("| warning") || l.startsWith("| notice"))).toHaveLength(7);
    expect(md).toContain(
      "| error (exempt) | [`kv/covers-context`](https://github.com/kvgate/kvgate/blob/main/docs/rules/kv-covers-context.md) | `scripts/voices.env:5` | voices: pin 6 GiB < required 7.5 GiB — _owner Prime pinned it_ | — |",
    );
    expect(md).toContain(
      "| error (waived) | [`knob/one-per-deploy`](https://github.com/kvgate/kvgate/blob/main/docs/rules/knob-one-per-deploy.md) | — | A twice".replace(
        "A twice",
        "voices: pin 6 GiB < required 7.5 GiB",
      ),
    );
    expect(md).toContain("`abcdef0123` |");
    expect(md).toContain("| `scripts/a b,c.env:3` | line 3: 100% bad |");
    expect(md).toContain("| fv-ml1 | 0 | 96 GiB | — | 90 GiB | 5 GiB | voices, parakeet |");
    expect(md).toContain("| fv-ml1 | 1 | 96 GiB | 1 GiB | 98 GiB | **-3 GiB** |  |");
  });
  test("errors before warnings before notices; rule ids link to the README; commit ids short", () => {
    const sha = "0123456789abcdef0123456789abcdef01234567";
    const md = summaryMarkdown({ ...mixed, units: [`${sha}..${sha.replace("0", "f")}`] });
    const rows = md.split("\n").filter((l) => /^\| (error|warning|notice)/.test(l));
    expect(rows.map((l) => l.split(" | ")[0]?.slice(2).split(" ")[0])).toEqual([
      "error",
      "error",
      "error",
      "error",
      "error",
      "warning",
      "notice",
    ]);
    for (const l of rows) {
      const rule = /`([^`]+)`/.exec(l)?.[1] ?? "";
      expect(l.split(" | ")[1]).toBe(`[\`${rule}\`](${ruleDocUrl(rule)})`);
    }
    expect(md).toContain("unit `0123456789..f123456789`");
    expect(md).not.toContain(sha);
  });
  test("a pass says so and has no findings table", () => {
    const md = summaryMarkdown(resultOf([]));
    expect(md.split("\n")[0]).toBe("## ✅ kvgate: pass");
    expect(md).toContain("No findings.");
    expect(md).not.toContain("| severity |");
    expect(md).not.toContain("GPU memory");
  });
});

describe("card rows from the kv ledger", () => {
  test("a vLLM card shows used and spare; a radiance card shows neither", () => {
    const GiB = 2 ** 30;
    const rows = cardRowsOf([
      {
        host: "h",
        index: 0,
        total_bytes: 96 * GiB,
        reserve_bytes: GiB,
        used_bytes: 40 * GiB,
        spare_bytes: 55 * GiB,
        shared: true,
        ledgerSized: false,
        entries: [{ kind: "tenant", name: "asr", footprint_bytes: 3 * GiB, pin: false }],
      },
      {
        host: "h",
        index: 1,
        total_bytes: 96 * GiB,
        reserve_bytes: 0,
        used_bytes: 0,
        spare_bytes: 96 * GiB,
        shared: false,
        ledgerSized: true,
        entries: [{ kind: "other", name: "r", engine: "radiance" }],
      },
    ]);
    expect(rows.map((r) => [r.index, r.used_bytes, r.spare_bytes, r.tenants])).toEqual([
      [0, 40 * GiB, 55 * GiB, ["asr"]],
      [1, null, null, ["r (radiance)"]],
    ]);
    expect(summaryMarkdown(resultOf([]), rows)).toContain("| h | 1 | 96 GiB | 0 B | — | — | r (radiance) |");
  });

  test("with an observed file: the plateau beside the predicted footprint, bold below the reserve, — for a card not observed", () => {
    const GiB = 2 ** 30;
    const usage = (index: number) => ({
      host: "h",
      index,
      total_bytes: 96 * GiB,
      reserve_bytes: GiB,
      used_bytes: 90 * GiB,
      spare_bytes: 5 * GiB,
      shared: false,
      ledgerSized: false,
      entries: [],
    });
    const card = (index: number, plateau: number) => ({ host: "h", index, plateau_free_bytes: plateau });
    const observed = {
      file: "observed.yaml",
      read: {
        ok: true as const,
        value: {
          version: 1 as const,
          from: "2026-10-05T00:00:00Z",
          until: "2026-10-07T00:00:00Z",
          cards: [card(0, 3 * GiB), card(1, GiB / 2)],
        },
        cardLines: [8, 12],
      },
    };
    const rows = cardRowsOf([usage(0), usage(1), usage(2)], observed);
    expect(rows.map((r) => r.plateau_free_bytes)).toEqual([3 * GiB, GiB / 2, null]);
    const md = summaryMarkdown(resultOf([]), rows);
    expect(md).toContain("| host | gpu | total | reserve | used | spare | free at plateau (observed) | tenants |");
    expect(md).toContain("| h | 0 | 96 GiB | 1 GiB | 90 GiB | 5 GiB | 3 GiB |  |");
    expect(md).toContain("| h | 1 | 96 GiB | 1 GiB | 90 GiB | 5 GiB | **512 MiB** |  |");
    expect(md).toContain("| h | 2 | 96 GiB | 1 GiB | 90 GiB | 5 GiB | — |  |");
  });
});

describe("what the failed step says it refused", () => {
  test("the refused units are counted, not all units of the range", async () => {
    const { refusedWhat } = await import("../../src/action/run.js");
    const [a, b, c] = ["a".repeat(40), "b".repeat(40), "c".repeat(40)];
    const findings = [
      finding({ commit: a }),
      finding({ commit: a, fingerprint: "fp-a2", line: 9 }),
      finding({ commit: b, severity: "warning", rule: "env/duplicate-key" }),
      finding({ commit: c, status: "waived", reason: "ok" }),
    ];
    const three = { ...resultOf(findings), units: [a, b, c] };
    expect(refusedWhat(three)).toBe("1 of 3 deploy units");
    expect(refusedWhat({ ...three, failOn: "warning" })).toBe("2 of 3 deploy units");
    expect(refusedWhat({ ...resultOf(findings), units: [a] })).toBe("aaaaaaaaaa");
  });
});
