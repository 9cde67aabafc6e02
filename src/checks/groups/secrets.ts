// The secrets checks. Each lives in its own file under src/checks/ and is listed here.
// secret-scan reports one rule per detector of rules/secrets.yaml; their RuleMetas are read from that
// file at import, so adding a detector there registers its rule id.
import type { AnyCheck, RuleMeta } from "../define.js";
import { secretScan, SKIPPED_RULE } from "../secret-scan.js";
import { builtinDetectors } from "../../rules/detectors.js";

export const checks: AnyCheck[] = [secretScan];

const detectorRules: RuleMeta[] = builtinDetectors().detectors.map((d) => ({
  id: d.rule,
  severity: d.severity,
  description: `${/^[AEIOU]/.test(d.title) ? "An" : "A"} ${d.title} in the change (placeholders listed in rules/secrets.yaml or kvgate.yaml are exempt).`,
}));

/** Rules reported by secret-scan (per detector, skipped files) and by `kvgate audit`. */
export const rules: RuleMeta[] = [
  ...detectorRules,
  { id: SKIPPED_RULE, severity: "notice", description: "A file not scanned for secrets: binary, over 5 MiB, or excluded by secrets.exclude." },
  { id: "audit/override-unneeded", severity: "notice", description: "A commit recorded an ALLOW_SECRETS override, but the current placeholder filter exempts everything it held." },
  { id: "audit/secret-landed", severity: "error", description: "A non-placeholder secret landed under a recorded override: rotate it." },
  { id: "audit/bypass", severity: "error", description: "A secret landed with no recorded override and no gate verdict (the gate did not run, e.g. --no-verify)." },
  { id: "audit/verdict-mismatch", severity: "error", description: "The commit's Kvgate-Verdict trailer says pass, but the current secret scan of it fails." },
];
