// kvgate explain [SERVICE]: every service with its parsed settings and where each came from, the KV
// arithmetic per seat, the per-card memory table, and for radiance the funding and the TTM ledger.
import { parse, oneOf } from "../args.js";
import { GateError } from "../../errors.js";
import { workingView } from "../view.js";
import { explainJson, explainText } from "../../explain/fleet.js";
import { useColor } from "../../report/color.js";
import { createMasker } from "../../secrets/mask.js";
import type { FleetState } from "../../model/types.js";

function composeServiceOf(fleet: FleetState, key: string): string | null {
  for (const r of fleet.composes ?? [])
    for (const d of r.deploys) if (d.composeService === key || d.containerName === key) return d.service;
  return null;
}

const OPTIONS = { repo: { type: "string" }, format: { type: "string" }, config: { type: "string" } } as const;

export async function explainCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS, 1);
  const format = oneOf("format", values.format, ["text", "json"] as const, "text");
  const { running: fleet, before, policy, pack } = await workingView(values);
  // A compose service's key (vllm-voices) names the fleet service it deploys (voices).
  const asked = positionals[0];
  const only = asked === undefined || fleet.services.some((s) => s.name === asked) ? asked : (composeServiceOf(fleet, asked) ?? asked);
  if (only !== undefined && !fleet.services.some((s) => s.name === only)) {
    throw new GateError(`no service "${only}"`, {
      hint: `name one of: ${fleet.services.map((s) => s.name).join(", ") || "(none found under " + policy.services + ")"}`,
    });
  }
  const input = { fleet, before, policy, pack, only: only ?? null };
  const out =
    format === "json"
      ? JSON.stringify(explainJson(input), null, 2) + "\n"
      : explainText(input, { color: useColor(process.stdout, process.env) });
  // explain prints settings as written: a credential among them is shown redacted, as everywhere.
  process.stdout.write(createMasker(pack.detectors(), policy).text(out));
  return 0;
}
