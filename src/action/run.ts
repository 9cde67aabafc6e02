// The Action: read the inputs and the event, make the clone hold the range, run the same engine as
// the CLI, then annotate, summarise, write SARIF and set the outputs. `core` is a parameter so the
// flow reads top to bottom without GitHub's globals; main.ts passes @actions/core.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { GateError } from "../errors.js";
import { openRepo, type Repo } from "../git/index.js";
import type { Selection } from "../git/types.js";
import { checkUnits, ignoreOf } from "../engine/run.js";
import type { CheckResult, Mode } from "../engine/result.js";
import { loadPack } from "../rules/load.js";
import { loadPolicy } from "../config/load.js";
import { CONFIG_NAMES, findConfig, policyFromBytes, policyOf } from "../load/config.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { formatSarif } from "../report/sarif.js";
import { formatGithub, summaryMarkdown, verdictLine, type AnnotationSink } from "../report/github.js";
import { countFindings } from "../engine/result.js";
import { readInputs, type ActionInputs } from "./inputs.js";
import { planRange, type RangePlan } from "./event.js";
import { ensureHistory, remoteBranchTip } from "./fetch.js";
import { cardRows } from "./cards.js";
import { runAudit, auditSummaryMarkdown } from "./audit.js";

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
  return { from: null, head: plan.head, policyRev: null, why: `${plan.why} (no ${plan.defaultBranch ? `origin/${plan.defaultBranch}` : "default branch"} to compare with: the head commit alone)` };
}

async function policyFor(repo: Repo, inputs: ActionInputs, target: Target, workspace: string, pack: RulesPack, log: (m: string) => void): Promise<Policy | undefined> {
  if (inputs.policyFrom === "base") {
    if (target.policyRev === null) {
      log("kvgate: policy-from: base, but there is no base commit; each commit's own kvgate.yaml applies");
      return undefined;
    }
    const names = inputs.config ? [inputs.config] : [...CONFIG_NAMES];
    const at = target.policyRev.slice(0, 12);
    const found = await findConfig(await repo.snapshot(target.policyRev), names);
    if (found.text !== null) {
      log(`kvgate: policy from ${found.file} at the base commit ${at}`);
      return loadPolicy(found.text, `${found.file} (at ${at})`, pack);
    }
    log(`kvgate: the base commit ${at} has no ${names.join(" or ")}: the defaults apply`);
    return loadPolicy(null, found.file, pack);
  }
  if (inputs.config === null) return undefined;
  const file = isAbsolute(inputs.config) ? inputs.config : resolve(workspace, inputs.config);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new GateError(`cannot read the config input ${inputs.config}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { hint: "name a kvgate.yaml path relative to the repository root" });
  }
  return policyFromBytes(bytes, inputs.config, pack);
}

function writeSarif(workspace: string, path: string, result: CheckResult): string {
  const file = isAbsolute(path) ? path : resolve(workspace, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, formatSarif(result));
  return file;
}

export async function runAction(core: ActionCore, env: Env): Promise<void> {
  const inputs = readInputs((n) => core.getInput(n));
  const workspace = resolve(env.GITHUB_WORKSPACE || process.cwd());
  const log = (m: string) => core.info(m);
  const plan = planRange(env.GITHUB_EVENT_NAME ?? "", readPayload(env) as never, inputs, env.GITHUB_SHA ?? null);
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
  const policy = await policyFor(repo, inputs, target, workspace, pack, log);
  const selection: Selection = target.from === null ? { mode: "commit", rev: target.head } : { mode: "range", range: `${target.from}..${target.head}`, unit: inputs.unit };
  const units = await repo.units(selection);
  const mode: Mode = selection.mode;
  // policy-from: base reads .kvgateignore from the base too: a pull request cannot accept its own secret.
  const ignore = inputs.policyFrom === "base" && target.policyRev !== null ? { ignore: await ignoreOf(await repo.snapshot(target.policyRev)) } : {};
  const result = await checkUnits(units, { mode, failOn: inputs.failOn, pack, env, ...(policy ? { policy } : {}), ...ignore });

  const plan2 = formatGithub(result, core);
  if (plan2.omitted > 0) log(`kvgate: ${plan2.omitted} more finding(s) are in the job summary (GitHub shows 10 annotations per severity)`);
  const cards = await cardRows(repo, target.head, policy ?? (await policyOf(await repo.snapshot(target.head), pack)), pack).catch((e: unknown) => {
    log(`kvgate: no card table in the summary: ${(e as Error).message}`);
    return undefined;
  });
  core.summary.addRaw(summaryMarkdown(result, cards));
  await core.summary.write();
  const sarifFile = inputs.sarif ? writeSarif(workspace, inputs.sarif, result) : "";
  core.setOutput("verdict", result.verdict);
  core.setOutput("errors", result.counts.error);
  core.setOutput("warnings", result.counts.warning);
  core.setOutput("sarif-file", sarifFile);
  log(verdictLine(result));
  if (result.verdict === "fail") core.setFailed(`kvgate refused ${result.units.length === 1 ? result.units[0] : `${result.units.length} deploy units`}: ${result.counts.error} error(s), ${result.counts.warning} warning(s) at --fail-on ${result.failOn}; see the annotations and the job summary`);
}

async function audit(core: ActionCore, repo: Repo, target: Target, shard?: string): Promise<void> {
  if (target.from === null) throw new GateError("mode: audit needs a range, and this event gives only one commit", { hint: "set the base input" });
  const range = `${target.from}..${target.head}`;
  const report = await runAudit(repo.root, range, shard);
  const findings = report.commits.flatMap((c) => c.findings);
  const counts = countFindings(findings);
  formatGithub({ tool: "kvgate", version: "", mode: "range", verdict: report.verdict, failOn: "error", counts, findings, units: [range], filesChecked: 0 }, core);
  core.summary.addRaw(auditSummaryMarkdown(report, range));
  await core.summary.write();
  core.setOutput("verdict", report.verdict);
  core.setOutput("errors", counts.error);
  core.setOutput("warnings", counts.warning);
  core.setOutput("sarif-file", "");
  if (report.verdict === "fail") core.setFailed(`kvgate audit: ${counts.error} error(s) in ${range}; see the job summary`);
}
