// Which commits a workflow run gates, from GITHUB_EVENT_NAME and the event payload. Pure: the git
// work (fetching, merge bases) happens after, on the plan this returns.
import { GateError } from "../errors.js";
import type { ActionInputs } from "./inputs.js";

const ZERO_SHA = /^0+$/;

export type RangePlan =
  /** Gate `base..head`; with `mergeBase`, from the merge base of base and head (a pull request). */
  | { kind: "range"; base: string; head: string; mergeBase: boolean; policyRev: string; why: string }
  /** A new branch: the commits of head that are not on the default branch. */
  | { kind: "new-branch"; defaultBranch: string | null; head: string; why: string }
  /** Nothing to gate (a deleted branch). */
  | { kind: "nothing"; why: string };

interface Payload {
  pull_request?: { base?: { sha?: string; ref?: string }; head?: { sha?: string; ref?: string }; number?: number };
  before?: string;
  after?: string;
  ref?: string;
  deleted?: boolean;
  inputs?: Record<string, unknown>;
  repository?: { default_branch?: string };
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
}

export function planRange(eventName: string, payload: Payload, inputs: Pick<ActionInputs, "base" | "head">, sha: string | null): RangePlan {
  const defaultBranch = str(payload.repository?.default_branch);
  // Explicit inputs win for every event: they are how a workflow says exactly what to gate.
  if (inputs.base !== null) {
    const head = inputs.head ?? sha;
    if (!head)
      throw new GateError("input base is set but there is no head", { hint: "set the head input too (or run where GITHUB_SHA is set)" });
    return {
      kind: "range",
      base: inputs.base,
      head,
      mergeBase: eventName.startsWith("pull_request"),
      policyRev: inputs.base,
      why: `inputs ${inputs.base}..${head}`,
    };
  }
  switch (eventName) {
    case "pull_request":
    case "pull_request_target": {
      const base = str(payload.pull_request?.base?.sha);
      const head = inputs.head ?? str(payload.pull_request?.head?.sha);
      if (!base || !head)
        throw new GateError("the pull_request event payload has no base.sha / head.sha", {
          hint: "run the Action on pull_request events, or set the base and head inputs",
        });
      return {
        kind: "range",
        base,
        head,
        mergeBase: true,
        policyRev: base,
        why: `pull request #${payload.pull_request?.number ?? "?"}: merge base of ${base.slice(0, 12)} and ${head.slice(0, 12)}`,
      };
    }
    case "push": {
      const before = str(payload.before);
      const after = inputs.head ?? str(payload.after) ?? sha;
      if (payload.deleted || (after && ZERO_SHA.test(after)))
        return { kind: "nothing", why: `${payload.ref ?? "the ref"} was deleted: nothing to gate` };
      if (!after) throw new GateError("the push event payload has no after sha", { hint: "set the head input" });
      if (!before || ZERO_SHA.test(before))
        return {
          kind: "new-branch",
          defaultBranch,
          head: after,
          why: `new ref ${payload.ref ?? ""}: the commits not on ${defaultBranch ?? "the default branch"}`.replace("  ", " "),
        };
      return {
        kind: "range",
        base: before,
        head: after,
        mergeBase: false,
        policyRev: before,
        why: `push ${before.slice(0, 12)}..${after.slice(0, 12)}`,
      };
    }
    case "workflow_dispatch": {
      const base = str(payload.inputs?.base);
      const head = inputs.head ?? str(payload.inputs?.head) ?? sha;
      if (!head) throw new GateError("workflow_dispatch without a head", { hint: "give the head input (or run where GITHUB_SHA is set)" });
      if (base) return { kind: "range", base, head, mergeBase: false, policyRev: base, why: `workflow_dispatch ${base}..${head}` };
      return {
        kind: "new-branch",
        defaultBranch,
        head,
        why: `workflow_dispatch: the commits of ${head.slice(0, 12)} not on ${defaultBranch ?? "the default branch"}`,
      };
    }
    default:
      throw new GateError(`the ${eventName || "(unknown)"} event has no range kvgate knows how to read`, {
        hint: "run on pull_request, push or workflow_dispatch, or set the base and head inputs",
      });
  }
}
