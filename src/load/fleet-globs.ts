// The paths a fleet is made of, as globs: what loadFleet lists (so a listing costs the size of the
// fleet's folders, never of the whole repository), and every path whose change can change a verdict
// (what the hook's fast path must never skip).
import type { Policy } from "../config/policy.js";
import { CONFIG_NAMES } from "../config/load.js";
import { COMPOSE_GLOB } from "../compose/records.js";

/**
 * The ledgers pattern (`ledgers/{service}.yaml`) as a glob: everything under its literal folder, a
 * superset (service-index.ts picks the facts files among them by the pattern itself).
 */
export function ledgerGlob(ledgers: string): string {
  const head = ledgers.split("{service}")[0] ?? "";
  const folder = head.includes("/") ? head.slice(0, head.lastIndexOf("/")) : "";
  return folder === "" ? "**" : `${folder}/**`;
}

/**
 * The model files listed: those under models/ (src/kv/model-source.ts matches a service to
 * `models/<org>/<name>/`). A config.json elsewhere is read when an env file names it with MODEL_CONFIG
 * (src/load/model-files.ts asks for it after the first read).
 */
const MODEL_FILE_GLOBS = ["models/**/config.json", "models/**/model.safetensors.index.json"];

/**
 * What a compose file may pull in besides itself (env_file, `.env`, `extends`, `include`): listed only
 * when the first listing holds a compose file, so a repository without one lists no YAML beyond its
 * playbooks.
 */
export const ENV_ANYWHERE_GLOBS = ["**/.env", "**/.env.*", "**/*.env"];
export const COMPOSE_SIDE_GLOBS = [...ENV_ANYWHERE_GLOBS, "**/*.yml", "**/*.yaml"];

/** What loadFleet lists first: env files under `services`, ledger facts, playbooks, compose, systemd, Kubernetes and model files. */
export function listingGlobs(
  policy: Pick<Policy, "services" | "ledgers" | "playbooks" | "compose" | "systemd"> & Partial<Pick<Policy, "kubernetes">>,
): string[] {
  return [
    policy.services,
    ledgerGlob(policy.ledgers),
    policy.playbooks,
    policy.compose,
    policy.systemd,
    ...(policy.kubernetes ?? []),
    ...MODEL_FILE_GLOBS,
  ];
}

/**
 * Every path whose staged change can change the fleet or the policy: the listing's globs, compose
 * files and what they pull in (env files always; other YAML when the tree has a compose file), the
 * config itself, `.kvgateignore`, the TTM guards and the observed plateaus file.
 */
export function fleetChangeGlobs(
  policy: Pick<Policy, "services" | "ledgers" | "playbooks" | "compose" | "systemd" | "ttm" | "observed"> &
    Partial<Pick<Policy, "kubernetes">>,
  hasCompose = true,
): string[] {
  const globs = [
    ...listingGlobs(policy),
    COMPOSE_GLOB,
    ...(hasCompose ? COMPOSE_SIDE_GLOBS : COMPOSE_SIDE_GLOBS.filter((g) => g.includes(".env"))),
    ".kvgateignore",
    ...CONFIG_NAMES,
    ...policy.ttm.guards,
    ...(policy.observed ? [policy.observed] : []),
  ];
  return [...new Set(globs)];
}
