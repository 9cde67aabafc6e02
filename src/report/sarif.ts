// SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer). Every rule of the registry is listed in
// tool.driver.rules so a viewer can show a rule's description even for a run that did not raise it.
// Exempt / allowed / waived findings stay in the log as suppressed results: code scanning shows
// them as dismissed, with the reason, instead of losing them.
import type * as Sarif from "sarif";
import type { CheckResult } from "../engine/result.js";
import type { Finding, Severity } from "../model/types.js";
import type { RuleMeta } from "../checks/define.js";
import { RULES } from "../checks/registry.js";

const SARIF_SCHEMA = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json";
const INFORMATION_URI = "https://github.com/kvgate/kvgate";

/** Where a finding without a file points: code scanning refuses a result without a location. */
export const NO_FILE_URI = "kvgate.yaml";

const LEVEL: Record<Severity, "error" | "warning" | "note"> = { error: "error", warning: "warning", notice: "note" };

/** The README's rule section anchor: `kv/covers-context` → `#rule-kv-covers-context`. */
export function ruleHelpUri(id: string): string {
  return `${INFORMATION_URI}#rule-${id.replaceAll("/", "-")}`;
}

function descriptor(rule: RuleMeta): Sarif.ReportingDescriptor {
  return {
    id: rule.id,
    shortDescription: { text: rule.description },
    helpUri: ruleHelpUri(rule.id),
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

function resultOf(f: Finding, index: Map<string, number>): Sarif.Result {
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
  return result;
}

function sarifLog(result: CheckResult, rules: readonly RuleMeta[] = RULES): Sarif.Log {
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
        results: result.findings.map((f) => resultOf(f, index)),
        properties: { verdict: result.verdict, mode: result.mode, units: result.units, counts: result.counts },
      },
    ],
  };
}

export function formatSarif(result: CheckResult): string {
  return JSON.stringify(sarifLog(result), null, 2) + "\n";
}
