// One kind of file the fleet loader reads (env files, ledger facts, playbooks; compose files next):
// which paths of a snapshot it wants, and what it adds to the fleet from the files read. The loader
// reads every kind's paths in one batch, then lets each kind add to the fleet in the order of
// src/load/inputs.ts, so a kind can build on the ones before it (ledger facts need the services).
import type { Snapshot } from "../git/types.js";
import type { FleetState } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { DecodedFile } from "./decode.js";

export interface LoadContext {
  snapshot: Snapshot;
  /** Every path of the snapshot. */
  listing: readonly string[];
  policy: Policy;
  pack: RulesPack;
}

export interface FleetInput {
  /** What the input reads, e.g. `env files`. */
  kind: string;
  paths(ctx: LoadContext): Iterable<string>;
  /** Paths only the files read can name (a MODEL_CONFIG in an env file): read in a second batch. */
  morePaths?(files: ReadonlyMap<string, DecodedFile>, ctx: LoadContext): Iterable<string>;
  add(fleet: FleetState, files: ReadonlyMap<string, DecodedFile>, ctx: LoadContext): void;
}
