// Every `check --format`, in one table: the name, what it prints, and the reporter. The usage text and
// the README's format list are made from this table (a docs test keeps them so).
import type { CheckResult } from "../engine/result.js";
import type { ReportContext, Reporter } from "./reporter.js";
import { formatJson } from "./json.js";
import { formatText } from "./text.js";
import { formatSarif } from "./sarif.js";
import { formatGithubCommands } from "./github.js";

export type { ReportContext, Reporter } from "./reporter.js";

export const REPORTERS = {
  text: { describe: "the terminal: one line when all passes, else every finding by file and the counts", report: formatText },
  json: { describe: "the result as JSON: verdict, counts, and each finding with its numbers (data)", report: formatJson },
  sarif: { describe: "SARIF 2.1.0, for GitHub code scanning and other viewers", report: formatSarif },
  github: { describe: "GitHub workflow commands: an annotation per finding, outside the Action", report: formatGithubCommands },
} as const satisfies Record<string, { describe: string; report: Reporter }>;

export type Format = keyof typeof REPORTERS;
export const FORMATS = Object.keys(REPORTERS) as Format[];

export function formatResult(result: CheckResult, format: Format, ctx: ReportContext): string {
  return REPORTERS[format].report(result, ctx);
}
