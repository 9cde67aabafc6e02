// Terminal text: the hook's face on every commit. One line when all passes; on a refusal every
// finding grouped by file as `file:line severity rule message`, and a last line with the counts
// and the verdict.
import type { CheckResult } from "../engine/result.js";
import type { Finding } from "../model/types.js";
import type { Coverage } from "../kv/coverage.js";
import { COLORS, PLAIN, type Paint } from "./color.js";
import type { ReportContext } from "./reporter.js";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function label(f: Finding, p: Paint): string {
  const sev = f.severity === "error" ? p.red("error") : f.severity === "warning" ? p.yellow("warning") : p.cyan("notice");
  return f.status === "open" ? sev : `${sev} ${p.dim(`(${f.status})`)}`;
}

function summaryLine(result: CheckResult, p: Paint): string {
  const c = result.counts;
  const parts = [plural(c.error, "error"), plural(c.warning, "warning"), plural(c.notice, "notice")];
  for (const k of ["exempt", "allowed", "waived"] as const) if (c[k] > 0) parts.push(`${c[k]} ${k}`);
  const verdict = result.verdict === "pass" ? p.green(p.bold("PASS")) : p.red(p.bold("REFUSED"));
  return `kvgate ${result.mode}: ${parts.join(", ")}${coverageText(result.coverage)} — ${verdict}`;
}

/** `; 3 seats sized on 2 cards; 1 service not an engine (open-webui); 0 unsized`, when the run covered the fleet. */
export function coverageText(c: Coverage | undefined): string {
  if (!c) return "";
  const others = c.not_engines.length > 0 ? `; ${plural(c.not_engines.length, "service")} not an engine (${c.not_engines.join(", ")})` : "";
  const unsized = c.unsized.length > 0 ? `${c.unsized.length} unsized (${c.unsized.join(", ")})` : "0 unsized";
  return `; ${plural(c.sized, "seat")} sized on ${plural(c.cards, "card")}${others}; ${unsized}`;
}

/** The whole text of a run without findings (the hook's fast path prints it too, byte for byte). */
export function cleanPassText(mode: string, filesChecked: number, color: boolean, coverage?: Coverage): string {
  const p = color ? COLORS : PLAIN;
  return `kvgate ${mode}: ${p.green("pass")} (${plural(filesChecked, "file")} checked, no findings)${coverageText(coverage)}\n`;
}

export function formatText(result: CheckResult, opts: ReportContext): string {
  const p = opts.color ? COLORS : PLAIN;
  if (result.findings.length === 0) {
    return cleanPassText(result.mode, result.filesChecked, opts.color, result.coverage);
  }
  const lines: string[] = [];
  const byFile = new Map<string, Finding[]>();
  for (const f of result.findings) {
    const k = f.file ?? "(no file)";
    const list = byFile.get(k) ?? [];
    list.push(f);
    byFile.set(k, list);
  }
  for (const [file, findings] of byFile) {
    lines.push(p.bold(file));
    for (const f of findings) {
      const where = f.file ? `${f.file}${f.line ? `:${f.line}` : ""}` : "-";
      const commit = f.commit ? p.dim(` [${f.commit.slice(0, 10)}]`) : "";
      lines.push(`  ${where} ${label(f, p)} ${p.dim(f.rule)} ${f.message}${commit}`);
      if (f.reason) lines.push(`    ${p.dim(`↳ ${f.reason}`)}`);
    }
  }
  const allowed = result.findings.filter((f) => f.status === "allowed");
  if (allowed.length > 0) {
    const name = opts.overrideName;
    lines.push("");
    lines.push(
      p.yellow(
        `${name}=1 let ${plural(allowed.length, "secret finding")} through. ` +
          `The commit records each (Kvgate-Allowed-Secret trailers) so ` +
          `\`kvgate audit\` can re-check it; if a value is real, rotate it.`,
      ),
    );
  }
  lines.push("");
  if (result.verdict === "fail") {
    // The way out, once: each message says what to set; explain shows the numbers behind it.
    lines.push(p.dim("Change what each finding says; `kvgate explain <service>` shows the arithmetic, `kvgate rules` the rules."));
  }
  lines.push(summaryLine(result, p));
  return lines.join("\n") + "\n";
}
