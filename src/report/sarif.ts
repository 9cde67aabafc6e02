// SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer). Every rule of the registry is listed in
// tool.driver.rules so a viewer can show a rule's description even for a run that did not raise it.
// Exempt / allowed / waived findings stay in the log as suppressed results: code scanning shows
// them as dismissed, with the reason, instead of losing them.
import type * as Sarif from "sarif";
import type { CheckResult } from "../engine/result.js";
import type { Finding, Severity } from "../model/types.js";
import type { RuleMeta } from "../checks/define.js";
import { RULES } from "../checks/registry.js";
import type { ReportContext } from "./reporter.js";
import { fixListOf } from "../fix/collect.js";
import { fixReplacement } from "../fix/replacement.js";
import { showFix } from "../model/value-fix.js";
import { ruleDocUrl } from "./rules-doc.js";

const SARIF_SCHEMA = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json";
const INFORMATION_URI = "https://github.com/kvgate/kvgate";

/** Where a finding without a file points: code scanning refuses a result without a location. */
export const NO_FILE_URI = "kvgate.yaml";

const LEVEL: Record<Severity, "error" | "warning" | "note"> = { error: "error", warning: "warning", notice: "note" };

// helpUri is the rule's page (docs/rules/): what it checks, why, a failing and a passing example, the
// fix. `help` says the same in one line, since code scanning shows a rule's help text, not its helpUri.
function descriptor(rule: RuleMeta): Sarif.ReportingDescriptor {
  const page = ruleDocUrl(rule.id);
  return {
    id: rule.id,
    shortDescription: { text: rule.description },
    helpUri: page,
    help: {
      text: `${rule.description} What it checks, why, examples and the fix: ${page}`,
      markdown: `${rule.description}\n\n[What it checks, why, examples and the fix](${page})`,
    },
    defaultConfiguration: { level: LEVEL[rule.severity] },
  };
}

/** Repo-relative paths as URI references: each segment percent-encoded, the slashes kept. */
export function pathToUri(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

function locationOf(f: Finding): Sarif.Location {
  if (f.file === null) {
    return {
      physicalLocation: { artifactLocation: { uri: NO_FILE_URI, uriBaseId: "%SRCROOT%" } },
      message: { text: "this finding is about the change as a whole, not one file" },
    };
  }
  const physical: Sarif.PhysicalLocation = { artifactLocation: { uri: pathToUri(f.file), uriBaseId: "%SRCROOT%" } };
  if (f.line !== null && f.line >= 1) physical.region = { startLine: f.line };
  return { physicalLocation: physical };
}

function suppressionsOf(f: Finding): Sarif.Suppression[] | undefined {
  if (f.status === "open") return undefined;
  // An exemption lives in the repository (kvgate.yaml, the placeholder list); a waiver trailer or the
  // override variable lives outside the files.
  const kind = f.status === "exempt" ? "inSource" : "external";
  return [{ kind, justification: f.reason ?? `${f.status} by kvgate` }];
}

/**
 * A finding's value fix as a SARIF fix (§3.55): one artifactChange per file, each replacing the value's
 * region with the advised value (an insertion at the end when the fix adds a line). Given only for open
 * findings, and only when every value of the fix can be placed in the file as it was checked.
 */
function fixesOfFinding(f: Finding, files: ReadonlyMap<string, string> | undefined): Sarif.Fix[] | undefined {
  if (!files || f.status !== "open") return undefined;
  const list = fixListOf(f);
  if (list.length === 0) return undefined;
  const changes = new Map<string, Sarif.Replacement[]>();
  for (const fix of list) {
    const text = files.get(fix.file);
    const r = text === undefined ? null : fixReplacement(text, fix);
    if (!r) return undefined;
    const deletedRegion: Sarif.Region = { charOffset: r.charOffset, charLength: r.charLength };
    if (r.startLine !== undefined)
      Object.assign(deletedRegion, { startLine: r.startLine, startColumn: r.startColumn, endColumn: r.endColumn });
    const forFile = changes.get(fix.file) ?? [];
    forFile.push({ deletedRegion, insertedContent: { text: r.text } });
    changes.set(fix.file, forFile);
  }
  return [
    {
      description: { text: `set ${list.map(showFix).join(", ")}` },
      artifactChanges: [...changes].map(([file, replacements]) => ({
        artifactLocation: { uri: pathToUri(file), uriBaseId: "%SRCROOT%" },
        replacements,
      })),
    },
  ];
}

function resultOf(f: Finding, index: Map<string, number>, files?: ReadonlyMap<string, string>): Sarif.Result {
  const ruleIndex = index.get(f.rule);
  const result: Sarif.Result = {
    ruleId: f.rule,
    ...(ruleIndex === undefined ? {} : { ruleIndex }),
    level: LEVEL[f.severity],
    message: { text: f.message },
    locations: [locationOf(f)],
    partialFingerprints: { "kvgate/v1": f.fingerprint },
    properties: {
      status: f.status,
      ...(f.service === null ? {} : { service: f.service }),
      ...(f.commit === null ? {} : { commit: f.commit }),
      data: f.data,
    },
  };
  const suppressions = suppressionsOf(f);
  if (suppressions) result.suppressions = suppressions;
  const fixes = fixesOfFinding(f, files);
  if (fixes) result.fixes = fixes;
  return result;
}

export function sarifLog(result: CheckResult, rules: readonly RuleMeta[] = RULES, files?: ReadonlyMap<string, string>): Sarif.Log {
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "kvgate",
            version: result.version,
            semanticVersion: result.version,
            informationUri: INFORMATION_URI,
            rules: rules.map(descriptor),
          },
        },
        originalUriBaseIds: { "%SRCROOT%": { description: { text: "the root of the repository kvgate checked" } } },
        results: result.findings.map((f) => resultOf(f, index, files)),
        properties: {
          verdict: result.verdict,
          mode: result.mode,
          units: result.units,
          counts: result.counts,
          ...(result.coverage ? { coverage: result.coverage } : {}),
        },
      },
    ],
  };
}

export function formatSarif(result: CheckResult, ctx?: Pick<ReportContext, "files">): string {
  return JSON.stringify(sarifLog(result, RULES, ctx?.files), null, 2) + "\n";
}
