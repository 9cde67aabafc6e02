// What a reporter is: a pure function of the run's result and of what it may not guess, to the text
// it prints. Reporters format; they never decide (the CLI picks the colour and the exit code).
import type { CheckResult } from "../engine/result.js";

export interface ReportContext {
  /** Colour the text: the output is a terminal and NO_COLOR is not set (the CLI decides). */
  color: boolean;
  /** The secrets override variable as kvgate.yaml names it (secrets.override, default ALLOW_SECRETS). */
  overrideName: string;
  /** The text of each file a finding's value fix edits, as checked: SARIF gives those fixes as replacements. Absent: no SARIF fixes. */
  files?: ReadonlyMap<string, string>;
}

export type Reporter = (result: CheckResult, ctx: ReportContext) => string;
