// The finding pipeline: what every report becomes before anyone sees it, whoever raised it (a check,
// the audit of a commit, the waiver trailers, a view's own refusals). Named phases of small named
// steps, each a pure function of the drafts, run in one order that this module owns; callers name a
// phase, never a slice of steps:
//
//   identify: waivers → engine-from → render → redact → fingerprint
//   judge:    place → new-only → statuses → baseline → mask
//   collect:  dedupe → sort                       (across the units of a run)
//
// `fingerprint` runs on the text before `mask`, so a finding's identity does not change with the
// detector list; `mask` runs after `statuses` because a waiver's reason is text from a commit message
// and is shown too. `mask` is where every shown text passes: control-character escaping and the
// masking of key bodies belong there. Two sets of earlier findings, kept apart by name: `new-only`
// drops what the state before the change already had (a change answers for what it introduces), and
// `baseline` exempts what a `--baseline FILE` report lists (docs/secrets.md#baselines).
import { createHash } from "node:crypto";
import type { DeployFile, Finding, Service, Severity } from "../model/types.js";
import type { MessageContext, Report } from "../model/rule.js";
import type { AnyRule } from "../checks/define.js";
import type { Masker } from "../secrets/mask.js";
import { KeyWindows } from "../secrets/shown.js";
import { ruleById } from "../checks/registry.js";
import { redactFinding, secretFingerprint } from "../secrets/redact.js";
import { unknownWaivers, type Waiver } from "./waivers.js";
import { waiverUnknownRule } from "../checks/waiver-unknown-rule.js";
import { isComposeDeploy } from "../load/running.js";

/** A report on its way to a finding: the rule module whose messages render it, and what is known so far. */
export interface Draft {
  source: AnyRule;
  report: Report;
  finding: Finding;
  /** Set for the reports of a playbook's deploy: the findings are placed at the playbook's lines. */
  deploy?: DeployFile;
}

export interface PipelineContext {
  /** Names the messages may quote (the override variable, the waiver trailer). */
  names: Pick<MessageContext, "overrideName" | "waiverTrailer">;
  /**
   * `rule|fingerprint` of the findings the state before the change already had, worked out when
   * `new-only` first needs it (a change with no finding never asks); null: keep all (`--all`).
   */
  seenBefore: (() => ReadonlySet<string>) | null;
  /**
   * Seats the change touches that are not sized after it (docs/coverage.md): a change to such a seat
   * answers for every error about it, old or new, so an unsized seat is never edited through a pass.
   */
  unsizedTouched?: () => ReadonlySet<string>;
  /** `--baseline FILE`: `rule|fingerprint` of an earlier report's findings, exempt with reason `baseline`. */
  baseline: ReadonlySet<string> | null;
  /** The unit's waiver trailers: `statuses` applies them, `waivers` reports the ones naming no rule. */
  waivers: readonly Waiver[];
  /** The services the drafts were raised over (their engine recognition): `engine-from`. */
  services: readonly Service[];
  masker: Masker;
}

/** A step; the run's last phase (collect) reads only the drafts and runs without a context. */
interface Step {
  name: StepName;
  run(drafts: Draft[], ctx?: PipelineContext): Draft[];
}

function need(ctx: PipelineContext | undefined, step: StepName): PipelineContext {
  if (!ctx) throw new Error(`the ${step} step needs the pipeline context`);
  return ctx;
}

export const PHASE_STEPS = {
  identify: ["waivers", "engine-from", "render", "redact", "fingerprint"],
  judge: ["place", "new-only", "statuses", "baseline", "mask"],
  collect: ["dedupe", "sort"],
} as const;
export type PhaseName = keyof typeof PHASE_STEPS;
type StepName = (typeof PHASE_STEPS)[PhaseName][number];

/** A rule's report as a draft: the finding's fields the report gives, its text still to render. */
export function raise(source: AnyRule, report: Report, commit: string | null, deploy?: DeployFile): Draft {
  const rule = report.rule ?? source.id;
  if (report.rule !== undefined && !ruleById(report.rule)) throw new Error(`check ${source.id} reported unregistered rule ${report.rule}`);
  const finding: Finding = {
    rule,
    severity: report.severity ?? source.severity,
    status: report.status ?? "open",
    message: "",
    file: report.file ?? null,
    line: report.line ?? null,
    service: report.service ?? null,
    commit,
    fingerprint: "",
    data: report.data,
  };
  if (report.reason !== undefined) finding.reason = report.reason;
  return deploy ? { source, report, finding, deploy } : { source, report, finding };
}

const map =
  (step: StepName, fn: (d: Draft, ctx: PipelineContext) => Draft) =>
  (drafts: Draft[], ctx?: PipelineContext): Draft[] => {
    const c = need(ctx, step);
    return drafts.map((d) => fn(d, c));
  };

/** A waiver trailer naming a rule kvgate does not have waives nothing: it is a finding itself. */
const waivers: Step = {
  name: "waivers",
  run(drafts, ctx) {
    const c = need(ctx, "waivers");
    const unknown = unknownWaivers(c.waivers);
    return unknown.length === 0 ? drafts : [...drafts, ...unknown.map((w) => raise(waiverUnknownRule, w.report, w.commit))];
  },
};

/**
 * A finding about a service whose engine was recognised from what it runs (no ENGINE key) says how
 * (docs/engines.md#recognition), so a user can see why the vLLM rules judged a file that never says "vllm".
 */
const engineFrom: Step = {
  name: "engine-from",
  run: map("engine-from", (d, ctx) => {
    const name = d.finding.service;
    if (name === null || "engine_from" in d.finding.data) return d;
    const r = ctx.services.find((s) => s.name === name)?.recognition;
    if (!r || r.by === "ENGINE" || r.engine === null) return d;
    const engine_from = { engine: r.engine, by: r.by, evidence: r.evidence, file: r.origin?.file ?? null, line: r.origin?.line ?? null };
    return { ...d, finding: { ...d.finding, data: { ...d.finding.data, engine_from } } };
  }),
};

/** The message from the rule's messages; an unknown message id is the rule's bug (an internal error). */
const render: Step = {
  name: "render",
  run: map("render", (d, ctx) => {
    const build = d.source.messages[d.report.message];
    if (!build) throw new Error(`check ${d.source.id} reported unknown message id "${d.report.message}"`);
    const at: MessageContext = { file: d.finding.file, line: d.finding.line, ...ctx.names };
    return { ...d, finding: { ...d.finding, message: build(d.report.data as never, at) } };
  }),
};

/** The report's own secret, replaced by its redacted form in every text of the finding. */
const redact: Step = {
  name: "redact",
  run: map("redact", (d) => (d.report.secret ? { ...d, finding: redactFinding(d.finding, d.report.secret) } : d)),
};

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** What identifies the finding across runs: the secret's hash, the domain's own, or rule/place/key. */
const fingerprint: Step = {
  name: "fingerprint",
  run: map("fingerprint", (d) => {
    const { report: r, finding: f } = d;
    const value =
      r.fingerprint ??
      (r.secret
        ? secretFingerprint(r.secret)
        : sha256([f.rule, f.file ?? "", f.service ?? "", r.key ?? "", r.key ? "" : f.message].join("\u0000")).slice(0, 16));
    return { ...d, finding: { ...f, fingerprint: value } };
  }),
};

/**
 * A playbook's deploy reports what the unit's own run did not already say (same rule, service and
 * message, wherever they point), once per playbook; a finding placed in a deployed service's committed
 * env file moves to the playbook's first edit of that service, or a compose service's key (the deploy
 * is what changed; the env file line stays in data.env_file_line).
 */
const place: Step = {
  name: "place",
  run(drafts) {
    const id = (f: Finding): string => [f.rule, f.service, f.message].join("\u0000");
    const main = new Set(drafts.filter((d) => !d.deploy).map((d) => id(d.finding)));
    const seen = new Set<string>();
    const out: Draft[] = [];
    for (const d of drafts) {
      const read = d.deploy;
      if (!read) {
        out.push(d);
        continue;
      }
      const f0 = d.finding;
      const key = `${read.path}\u0000${read.profile ?? ""}\u0000${id(f0)}`;
      if (main.has(id(f0)) || seen.has(key)) continue;
      seen.add(key);
      // A compose profile's finding says which profile: it holds only when that profile is started. It
      // is its own finding too (the same card over under two profiles is two findings).
      const f =
        read.profile === undefined
          ? f0
          : {
              ...f0,
              message: `${f0.message} (with compose profile ${read.profile})`,
              fingerprint: sha256(`${f0.fingerprint}\u0000${read.profile}`).slice(0, 16),
              data: { ...f0.data, compose_profile: read.profile },
            };
      const deploy = read.deploys.find((x) => x.service === f.service);
      // A compose service is placed at its key under `services:` (its first edit may be an anchor's image).
      const first = deploy && isComposeDeploy(deploy) ? deploy : (deploy?.edits.find((e) => e.kind !== "reset") ?? deploy?.edits[0]);
      if (deploy && first && f.file === deploy.envFile) {
        out.push({ ...d, finding: { ...f, file: first.file, line: first.line, data: { ...f.data, env_file_line: f.line } } });
      } else out.push(f === f0 ? d : { ...d, finding: f });
    }
    return out;
  },
};

/** Identity of a finding regardless of where in history it was seen: `rule|fingerprint` (what new-only and baseline match). */
export function findingKey(f: Finding): string {
  return `${f.rule}|${f.fingerprint}`;
}

/** A change answers for what it introduces: findings the state before it already had are dropped. */
const newOnly: Step = {
  name: "new-only",
  run(drafts, ctx) {
    const pctx = need(ctx, "new-only");
    const seen = pctx.seenBefore;
    if (!seen || drafts.length === 0) return drafts;
    const keys = seen();
    // Asked only when some draft would be dropped.
    let answers: ReadonlySet<string> | undefined;
    const answered = (f: Finding): boolean => {
      if (f.severity !== "error" || f.service === null) return false;
      answers ??= pctx.unsizedTouched?.() ?? new Set();
      return answers.has(f.service);
    };
    return drafts.filter((d) => !keys.has(findingKey(d.finding)) || answered(d.finding));
  },
};

/** `--baseline FILE`: an open finding the earlier report lists is exempt (reason `baseline`); never a line, so moving code does not churn it. */
const baseline: Step = {
  name: "baseline",
  run: map("baseline", (d, ctx) => {
    const f = d.finding;
    if (!ctx.baseline || f.status !== "open" || !ctx.baseline.has(findingKey(f))) return d;
    return { ...d, finding: { ...f, status: "exempt", reason: "baseline" } };
  }),
};

/** `waived` for an open finding a Kvgate-Waive trailer names; secret findings cannot be waived. */
const statuses: Step = {
  name: "statuses",
  run: map("statuses", (d, ctx) => {
    const f = d.finding;
    if (f.status !== "open" || f.rule.startsWith("secret/")) return d;
    const w = ctx.waivers.find((x) => x.rule === f.rule);
    if (!w) return d;
    const reason = w.reason === "" ? `waived in ${w.commit.slice(0, 12)}` : `waived in ${w.commit.slice(0, 12)}: ${w.reason}`;
    return { ...d, finding: { ...f, status: "waived", reason } };
  }),
};

/**
 * Every shown text (message, reason, data, file name, service name) scanned with the detectors and
 * what they find redacted; no 8 characters of a secret raised in the same batch quoted anywhere (a
 * pasted PEM key's base64 lines, quoted by env/parse, are pieces of the key the detector found), nor
 * a run shaped like a key body; control characters escaped.
 */
const mask: Step = {
  name: "mask",
  run(drafts, ctx) {
    const c = need(ctx, "mask");
    const keys = new KeyWindows();
    // A placeholder is shown on purpose (status exempt); every other secret is a key not to quote.
    for (const d of drafts) if (d.report.secret && d.finding.status !== "exempt") keys.add(d.report.secret);
    return drafts.map((d) => ({ ...d, finding: c.masker.finding(d.finding, keys) }));
  },
};

/** The same finding from two units of one run (a range re-checking an untouched file) is kept once. */
const dedupe: Step = {
  name: "dedupe",
  run(drafts) {
    const seen = new Set<string>();
    return drafts.filter(({ finding: f }) => {
      const k = `${f.fingerprint}|${f.commit ?? ""}|${f.file ?? ""}|${f.line ?? ""}|${JSON.stringify(f.data.column ?? null)}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  },
};

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, notice: 2 };

/** By file, line, severity and rule; findings without a file last. */
const sort: Step = {
  name: "sort",
  run: (drafts) =>
    [...drafts].sort(
      ({ finding: a }, { finding: b }) =>
        (a.file ?? "\uffff").localeCompare(b.file ?? "\uffff") ||
        (a.line ?? 0) - (b.line ?? 0) ||
        SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
        a.rule.localeCompare(b.rule),
    ),
};

const STEPS: Record<StepName, Step> = {
  waivers,
  "engine-from": engineFrom,
  render,
  redact,
  fingerprint,
  place,
  "new-only": newOnly,
  statuses,
  baseline,
  mask,
  dedupe,
  sort,
};

/** Runs one phase's steps, in order. `collect` needs no context; the others do. */
export function runPhase(phase: PhaseName, drafts: Draft[], ctx?: PipelineContext): Draft[] {
  let out = drafts;
  for (const name of PHASE_STEPS[phase]) out = STEPS[name].run(out, ctx);
  return out;
}

/** A unit's drafts identified and judged: every phase but the run's `collect`. */
export function runUnitPhases(drafts: Draft[], ctx: PipelineContext): Draft[] {
  return runPhase("judge", runPhase("identify", drafts, ctx), ctx);
}
