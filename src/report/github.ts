// GitHub's faces: annotations on the changed lines and the job summary. The annotation functions are
// a parameter (the Action passes @actions/core, the CLI a printer of workflow commands, tests fakes),
// so this file never imports @actions/core and the CLI bundle stays small for the hook.
import type { CheckResult } from "../engine/result.js";
import { coverageText } from "./text.js";
import type { Finding, Severity } from "../model/types.js";
import { formatBytes } from "../units/bytes.js";
import { ruleDocUrl } from "./rules-doc.js";

/** GitHub shows at most 10 annotations of each severity per step; the rest go to the summary. */
const ANNOTATIONS_PER_SEVERITY = 10;

export interface AnnotationProps {
  title: string;
  file?: string;
  startLine?: number;
}

/** The subset of @actions/core the reporter calls. */
export interface AnnotationSink {
  error(message: string, props: AnnotationProps): void;
  warning(message: string, props: AnnotationProps): void;
  notice(message: string, props: AnnotationProps): void;
}

interface Annotation {
  severity: Severity;
  message: string;
  props: AnnotationProps;
}

export interface AnnotationPlan {
  annotations: Annotation[];
  /** Open findings left out past the per-severity cap. */
  omitted: number;
}

/** The first 10 open findings of each severity, in the result's order. */
function planAnnotations(result: CheckResult, limit = ANNOTATIONS_PER_SEVERITY): AnnotationPlan {
  const taken: Record<Severity, number> = { error: 0, warning: 0, notice: 0 };
  const annotations: Annotation[] = [];
  let omitted = 0;
  for (const f of result.findings) {
    if (f.status !== "open") continue;
    if (taken[f.severity] >= limit) {
      omitted++;
      continue;
    }
    taken[f.severity]++;
    const props: AnnotationProps = { title: f.rule };
    if (f.file !== null) props.file = f.file;
    if (f.file !== null && f.line !== null) props.startLine = f.line;
    annotations.push({ severity: f.severity, message: f.commit ? `${f.message} (commit ${f.commit.slice(0, 10)})` : f.message, props });
  }
  return { annotations, omitted };
}

/** Sends the annotations to `core`; returns the plan so callers can say what was left out. */
export function formatGithub(result: CheckResult, core: AnnotationSink): AnnotationPlan {
  const plan = planAnnotations(result);
  for (const a of plan.annotations) core[a.severity](a.message, a.props);
  return plan;
}

// Workflow command escaping, as the Actions runner reads it (the same rules as @actions/core).
function escapeData(s: string): string {
  return s.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}
function escapeProperty(s: string): string {
  return escapeData(s).replaceAll(":", "%3A").replaceAll(",", "%2C");
}

export function workflowCommand(command: string, props: AnnotationProps, message: string): string {
  const parts: string[] = [];
  if (props.file !== undefined) parts.push(`file=${escapeProperty(props.file)}`);
  if (props.startLine !== undefined) parts.push(`line=${props.startLine}`);
  parts.push(`title=${escapeProperty(props.title)}`);
  return `::${command} ${parts.join(",")}::${escapeData(message)}`;
}

/** `--format github` outside the Action: the same annotations as workflow command lines. */
export function formatGithubCommands(result: CheckResult): string {
  const lines: string[] = [];
  const sink: AnnotationSink = {
    error: (m, p) => lines.push(workflowCommand("error", p, m)),
    warning: (m, p) => lines.push(workflowCommand("warning", p, m)),
    notice: (m, p) => lines.push(workflowCommand("notice", p, m)),
  };
  const plan = formatGithub(result, sink);
  if (plan.omitted > 0)
    lines.push(
      `kvgate: ${plan.omitted} more open finding${plan.omitted === 1 ? "" : "s"} ` +
        `not annotated (GitHub shows ${ANNOTATIONS_PER_SEVERITY} ` +
        `per severity); see the job summary or --format text`,
    );
  lines.push(verdictLine(result));
  return lines.join("\n") + "\n";
}

export function verdictLine(result: CheckResult): string {
  const c = result.counts;
  const extra = (["exempt", "allowed", "waived"] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `, ${c[k]} ${k}`)
    .join("");
  return (
    `kvgate ${result.mode}: ${c.error} error(s), ${c.warning} ` +
    `warning(s), ${c.notice} notice(s)${extra}${coverageText(result.coverage)} ` +
    `— ${result.verdict === "pass" ? "PASS" : "REFUSED"}`
  );
}

/** One card's memory, as the card usage reports it (docs/cli.md's `gpu/fits` data). */
export interface CardRow {
  host: string;
  index: number;
  total_bytes: number;
  /** null when the fleet model cannot size the card (shown as "—"). */
  used_bytes: number | null;
  spare_bytes: number | null;
  reserve_bytes?: number;
  tenants?: string[];
  /** The card's free memory at plateau, from kvgate.yaml's observed file (gpu/plateau); absent when
   *  the fleet observes none, null when the file does not list this card. */
  plateau_free_bytes?: number | null;
}

/** Markdown table cells: pipes and newlines would break the row. */
function cell(s: string): string {
  return s.replaceAll("\\", "\\\\").replaceAll("|", "\\|").replace(/\r?\n/g, " ");
}

function statusCell(f: Finding): string {
  return f.status === "open" ? f.severity : `${f.severity} (${f.status})`;
}

function where(f: Finding): string {
  if (f.file === null) return "—";
  return `\`${cell(f.file)}${f.line !== null ? `:${f.line}` : ""}\``;
}

/** A commit id as the summary shows it (the commit column's length); a range's ends each shortened. */
export function shortId(id: string): string {
  return id.replace(/\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b/g, (sha) => sha.slice(0, SHORT_SHA));
}
const SHORT_SHA = 10;

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, notice: 2 };

/** The rule id linked to its page (the page SARIF's helpUri names). */
function ruleLink(id: string): string {
  return `[\`${id}\`](${ruleDocUrl(id)})`;
}

/** The job summary: the verdict, every finding (errors first), and the per-card memory table when given. */
export function summaryMarkdown(result: CheckResult, cards?: readonly CardRow[]): string {
  const out: string[] = [];
  const icon = result.verdict === "pass" ? "✅" : "❌";
  out.push(`## ${icon} kvgate: ${result.verdict === "pass" ? "pass" : "refused"}`);
  out.push("");
  const c = result.counts;
  const units = result.units.length === 1 ? `unit \`${cell(shortId(result.units[0] ?? ""))}\`` : `${result.units.length} deploy units`;
  out.push(
    `${c.error} error(s), ${c.warning} warning(s), ${c.notice} notice(s); ` +
      `${c.exempt} exempt, ${c.allowed} allowed, ${c.waived} waived — ${units}, ` +
      `${result.filesChecked} file(s) changed, failing at \`${result.failOn}\`.`,
  );
  if (result.coverage) out.push("", `Coverage: ${cell(coverageText(result.coverage).slice(2))}.`);
  out.push("");
  if (result.findings.length === 0) {
    out.push("No findings.");
  } else {
    out.push("| severity | rule | where | message | commit |");
    out.push("|---|---|---|---|---|");
    // Errors first, then warnings, then notices; within a severity, the result's order (by file and line).
    const ordered = [...result.findings].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
    for (const f of ordered) {
      const reason = f.reason ? ` — _${cell(f.reason)}_` : "";
      out.push(
        `| ${statusCell(f)} | ${ruleLink(f.rule)} | ${where(f)} | ${cell(f.message)}${reason} | ${f.commit ? `\`${f.commit.slice(0, SHORT_SHA)}\`` : "—"} |`,
      );
    }
  }
  if (cards && cards.length > 0) {
    out.push("");
    out.push("### GPU memory per card");
    out.push("");
    // The observed plateau sits beside the predicted footprint (used): the prediction is kvgate's
    // arithmetic, the plateau is what the card really kept free after days of creep.
    const observed = cards.some((c) => c.plateau_free_bytes !== undefined);
    out.push(`| host | gpu | total | reserve | used | spare |${observed ? " free at plateau (observed) |" : ""} tenants |`);
    out.push(`|---|---|---|---|---|---|${observed ? "---|" : ""}---|`);
    const bytes = (n: number | null | undefined) => (n === null || n === undefined ? "—" : formatBytes(n));
    for (const card of cards) {
      const spare = card.spare_bytes !== null && card.spare_bytes < 0 ? `**${bytes(card.spare_bytes)}**` : bytes(card.spare_bytes);
      const p = card.plateau_free_bytes;
      const plateau = observed ? ` ${typeof p === "number" && p < (card.reserve_bytes ?? 0) ? `**${bytes(p)}**` : bytes(p)} |` : "";
      out.push(
        `| ${cell(card.host)} | ${card.index} | ${bytes(card.total_bytes)} ` +
          `| ${bytes(card.reserve_bytes)} | ${bytes(card.used_bytes)} | ` +
          `${spare} |${plateau} ${card.tenants?.map(cell).join(", ") ?? ""} |`,
      );
    }
  }
  return out.join("\n") + "\n";
}
