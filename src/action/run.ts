// The Action: read the inputs and the event, make the clone hold the range, run the same engine as
// the CLI, then annotate, summarise, write SARIF and set the outputs. `core` is a parameter so the
// flow reads top to bottom without GitHub's globals; main.ts passes @actions/core.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { GateError } from "../errors.js";
import { openRepo, runAudit, runCheck } from "../engine/api.js";
import type { Repo, Shard } from "../git/index.js";
import type { Selection } from "../git/types.js";
import type { CheckResult } from "../engine/result.js";
import { loadPack } from "../rules/load.js";
import { formatSarif } from "../report/sarif.js";
import { formatGithub, shortId, summaryMarkdown, verdictLine, type AnnotationSink } from "../report/github.js";
import { cardRows } from "../report/card-rows.js";
import { auditSummaryMarkdown } from "../report/audit.js";
import { countFindings, verdictOf } from "../engine/result.js";
import { readInputs } from "./inputs.js";
import { policyFor } from "./policy.js";
import { planRange, type RangePlan } from "./event.js";
import { ensureHistory, remoteBranchTip } from "./fetch.js";

export interface ActionCore extends AnnotationSink {
  getInput(name: string): string;
  setOutput(name: string, value: string | number): void;
  setFailed(message: string): void;
  info(message: string): void;
  summary: { addRaw(text: string, addEOL?: boolean): unknown; write(): Promise<unknown> };
}

type Env = Readonly<Record<string, string | undefined>>;

/** What to gate once the clone holds it: a range from `from`, or `head` alone. */
interface Target {
  from: string | null;
  head: string;
  policyRev: string | null;
  why: string;
}

function readPayload(env: Env): Record<string, unknown> {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new GateError(`cannot read the event payload ${path}: ${(e as Error).message}`);
  }
}

async function resolveTarget(dir: string, plan: Exclude<RangePlan, { kind: "nothing" }>, log: (m: string) => void): Promise<Target> {
  if (plan.kind === "range") {
    const from = await ensureHistory(dir, { base: plan.base, head: plan.head, mergeBase: plan.mergeBase }, { log });
    return { from, head: plan.head, policyRev: plan.policyRev, why: plan.why };
  }
  const tip = plan.defaultBranch ? await remoteBranchTip(dir, plan.defaultBranch, log) : null;
  if (tip && tip !== plan.head) {
    // The default branch exists: a history too short to find where the branch left it fails the
    // step with the fix (ensureHistory's GateError), never a quiet check of the head commit alone.
    const from = await ensureHistory(dir, { base: tip, head: plan.head, mergeBase: true }, { log });
    if (from !== null && from !== plan.head) return { from, head: plan.head, policyRev: tip, why: plan.why };
  }
  await ensureHistory(dir, { base: null, head: plan.head, mergeBase: false }, { log });
  // The head alone; its policy is still the default branch's when there is one (policy-from: base).
  return {
    from: null,
    head: plan.head,
    policyRev: tip,
    why: `${plan.why} (no ${plan.defaultBranch ? `origin/${plan.defaultBranch}` : "default branch"} to compare with: the head commit alone)`,
  };
}

function writeSarif(workspace: string, path: string, result: CheckResult, files: ReadonlyMap<string, string>): string {
  const file = isAbsolute(path) ? path : resolve(workspace, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, formatSarif(result, { files }));
  return file;
}

export async function runAction(core: ActionCore, env: Env): Promise<void> {
  const inputs = readInputs((n) => core.getInput(n));
  const workspace = resolve(env.GITHUB_WORKSPACE || process.cwd());
  const log = (m: string) => core.info(m);
  const plan = planRange(env.GITHUB_EVENT_NAME ?? "", readPayload(env), inputs, env.GITHUB_SHA ?? null);
  log(`kvgate: ${plan.why}`);
  if (plan.kind === "nothing") {
    core.setOutput("verdict", "pass");
    core.setOutput("errors", 0);
    core.setOutput("warnings", 0);
    core.setOutput("sarif-file", "");
    return;
  }
  const target = await resolveTarget(workspace, plan, log);
  // Opened after the fetches: the Repo reads the clone's shallow state once.
  const repo = await openRepo(workspace);
  if (inputs.mode === "audit") return audit(core, repo, target, inputs.shard);

  const pack = loadPack();
  const { policy, base } = await policyFor(repo, inputs, target.policyRev, workspace, pack, log);
  const selection: Selection =
    target.from === null
      ? { mode: "commit", rev: target.head }
      : { mode: "range", range: `${target.from}..${target.head}`, unit: inputs.unit };
  // No environment: the override variable (secrets.override) is never honoured in CI, where the
  // runner sets variables of its own (GITHUB_RUN_ATTEMPT=1) that a pull request's kvgate.yaml could
  // name. An override exists there only as what the commit recorded.
  const run = await runCheck({
    dir: workspace,
    source: { repo, units: (s) => repo.units(s) },
    selection,
    failOn: inputs.failOn,
    pack,
    env: {},
    ...(policy ? { policy } : {}),
    ...(base ? { policyBase: base } : {}),
  });
  const result = run.result;

  const plan2 = formatGithub(result, core);
  if (plan2.omitted > 0) log(`kvgate: ${plan2.omitted} more finding(s) are in the job summary (GitHub shows 10 annotations per severity)`);
  // The head's fleet as it runs, the one the checks judged: the table and the findings cannot disagree.
  const cards = await run.newest().then(
    (n) => (n ? cardRows(n.fleet.running, n.policy, pack) : undefined),
    (e: unknown) => {
      log(`kvgate: no card table in the summary: ${(e as Error).message}`);
      return undefined;
    },
  );
  core.summary.addRaw(summaryMarkdown(result, cards));
  await core.summary.write();
  // The fixes are replacements in the head's files, the tree code scanning shows.
  const sarifFile = inputs.sarif ? writeSarif(workspace, inputs.sarif, result, await run.fixTexts()) : "";
  core.setOutput("verdict", result.verdict);
  core.setOutput("errors", result.counts.error);
  core.setOutput("warnings", result.counts.warning);
  core.setOutput("sarif-file", sarifFile);
  log(verdictLine(result));
  if (result.verdict === "fail")
    core.setFailed(
      `kvgate refused ${refusedWhat(result)}: ${result.counts.error} error(s), ${result.counts.warning} ` +
        `warning(s) at --fail-on ${result.failOn}; see the annotations and the job summary`,
    );
}

/**
 * What the step refused: the one unit, or how many of the units hold a finding that fails the run
 * (a range of 5 commits with one bad commit refused 1 deploy unit of 5, not 5).
 */
export function refusedWhat(result: CheckResult): string {
  if (result.units.length === 1) return shortId(result.units[0] ?? "");
  const failing = result.findings.filter((f) => verdictOf([f], result.failOn) === "fail");
  // A finding of a per-commit unit names its commit; one without a commit belongs to no single unit.
  const refused = new Set(failing.map((f) => f.commit ?? "")).size;
  return `${refused} of ${result.units.length} deploy units`;
}

async function audit(core: ActionCore, repo: Repo, target: Target, shard?: Shard): Promise<void> {
  if (target.from === null)
    throw new GateError("mode: audit needs a range, and this event gives only one commit", { hint: "set the base input" });
  const range = `${target.from}..${target.head}`;
  const report = await runAudit({ repo, range, pack: loadPack(), ...(shard ? { shard } : {}) });
  const findings = report.commits.flatMap((c) => c.findings);
  const counts = countFindings(findings);
  formatGithub(
    {
      tool: "kvgate",
      version: report.version,
      mode: "range",
      verdict: report.verdict,
      failOn: "error",
      counts,
      findings,
      units: [range],
      filesChecked: 0,
    },
    core,
  );
  core.summary.addRaw(auditSummaryMarkdown(report, range));
  await core.summary.write();
  core.setOutput("verdict", report.verdict);
  core.setOutput("errors", counts.error);
  core.setOutput("warnings", counts.warning);
  core.setOutput("sarif-file", "");
  if (report.verdict === "fail") core.setFailed(`kvgate audit: ${counts.error} error(s) in ${range}; see the job summary`);
}
