// What `kvgate init` finds in a repository (docs/coverage.md#discovery), read by the gate's own loader
// so init and the check never disagree: env files anywhere whose keys or values name an engine or hold
// a GPU, compose services, systemd units and playbooks that deploy a seat, and what it did not take
// and why. The card inventory comes from the host (./inventory.ts); a size is never guessed.
import { hostname } from "node:os";
import type { RulesPack } from "../rules/pack.js";
import type { Service } from "../model/types.js";
import { loadPolicy } from "../config/load.js";
import { loadView } from "../engine/api.js";
import { needsEngine, sizesKvPerSeat } from "../model/engine.js";
import { envGlobFor } from "../load/env-glob.js";
import type { FoundService } from "./starter.js";

export interface Discovery {
  services: FoundService[];
  /** The services glob that matches the env files found; null when the seats have none (compose, units). */
  servicesGlob: string | null;
  /** Deploy files found: compose files, systemd units, playbooks. */
  deploys: string[];
  /** What was looked at and not taken, with the reason. */
  notTaken: { path: string; why: string }[];
}

/** A services glob no file matches: the loader then discovers every env file that is a seat. */
const DISCOVER_ALL = 'services: ".kvgate-init/discover/*.env"\n';

function found(s: Service, pack: RulesPack): FoundService {
  const r = s.recognition;
  return {
    name: s.name,
    file: s.file,
    engine: s.engine,
    recognisedBy: r && r.by !== "ENGINE" && r.engine ? r.by : null,
    perSeat: sizesKvPerSeat(pack, s),
    host: s.host,
    gpus: s.gpus.length > 0 ? s.gpus : [],
  };
}

export async function discover(root: string, pack: RulesPack): Promise<Discovery> {
  const view = await loadView({ dir: root, policy: loadPolicy(DISCOVER_ALL, "kvgate init", pack), pack });
  if (!view) return { services: [], servicesGlob: null, deploys: [], notTaken: [] };
  const seats = view.running.services.filter((s) => s.engine !== null || needsEngine(s, pack));
  const envFiles = view.written.services.map((s) => s.file);
  const notTaken: Discovery["notTaken"] = [];
  for (const p of view.written.paths)
    if (/(^|\/)[^/.][^/]*\.env$/.test(p) && !envFiles.includes(p) && !/(^|\/)node_modules\//.test(p))
      notTaken.push({ path: p, why: "no engine signal (no image of an engine kvgate knows, no engine command or flag, no GPU)" });
  for (const r of view.written.composes ?? [])
    for (const o of r.others ?? [])
      notTaken.push({ path: `${r.path} (service ${o})`, why: "runs no engine kvgate knows and holds no GPU" });
  const deploys = [
    ...(view.written.composes ?? []).filter((r) => r.deploys.length > 0).map((r) => r.path),
    ...(view.written.units ?? []).map((r) => r.path),
    ...(view.written.playbooks ?? []).filter((r) => r.deploys.length > 0).map((r) => r.path),
  ];
  return { services: seats.map((s) => found(s, pack)), servicesGlob: envGlobFor(envFiles), deploys, notTaken };
}

/** The host the seats run on, for the inventory: the one every seat names, else the machine's own name. */
export function hostFor(services: readonly FoundService[], given: string | undefined): string {
  if (given) return given;
  const named = [...new Set(services.map((s) => s.host).filter((h): h is string => h !== null))];
  return named.length === 1 ? (named[0] as string) : hostname();
}
