// The default policy pack: the data files of rules/ (engines, models catalog, secret detectors and
// placeholders, policy defaults), each validated with zod when first used. Loading is lazy so the
// hook pays only for what a change needs.
import type { Config } from "../config/schema.js";
import type { EnginesSpec } from "./engines.js";
import type { ModelCatalog } from "./models.js";
import type { DetectorSet } from "./detectors.js";
import type { CardTable } from "./cards.js";

export interface RulesPack {
  /** rules/policy.yaml: the defaults kvgate.yaml is merged over. */
  defaults: Config;
  /** rules/engines.yaml: settings, flags, aliases and removed flags per engine. */
  engines: EnginesSpec;
  /** rules/models.yaml, parsed on first call. */
  models(): ModelCatalog;
  /** rules/secrets.yaml, parsed on first call. */
  detectors(): DetectorSet;
  /** rules/cards.yaml: the cards known by name, parsed on first call. */
  cards(): CardTable;
}
