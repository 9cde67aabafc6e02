// Picks the reporter. Reporters format; they never decide.
import type { CheckResult } from "../engine/result.js";
import { formatJson } from "./json.js";
import { formatText } from "./text.js";
import { formatSarif } from "./sarif.js";
import { formatGithubCommands } from "./github.js";
import { useColor } from "./color.js";

export const FORMATS = ["text", "json", "sarif", "github"] as const;
export type Format = (typeof FORMATS)[number];

export interface FormatContext {
  stream: { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
}

export function formatResult(result: CheckResult, format: Format, ctx: FormatContext): string {
  switch (format) {
    case "text":
      return formatText(result, { color: useColor(ctx.stream, ctx.env) });
    case "json":
      return formatJson(result);
    case "sarif":
      return formatSarif(result);
    case "github":
      return formatGithubCommands(result);
    default:
      return format satisfies never;
  }
}
