// The docker compose files under the `compose` glob (docs/compose.md), read into
// FleetState.composes: each service a deploy, as a playbook's container task is (the engine checks the
// fleet as each changed compose file would leave it).
import { posix } from "node:path";
import type { ComposeRead, FleetState } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { readComposeFiles, type ComposeDeploy } from "../compose/index.js";
import { deployedEnv } from "../playbook/overlay.js";
import { recogniseEngine } from "../model/engine.js";
import type { DecodedFile } from "./decode.js";
import type { FleetInput } from "./input.js";
import { pathMatcher } from "./service-index.js";
import { composeSchemaCheck } from "./compose-schema.js";

const matchers = new Map<string, (p: string) => boolean>();
function isComposeOf(glob: string): (p: string) => boolean {
  let m = matchers.get(glob);
  if (!m) matchers.set(glob, (m = pathMatcher(glob)));
  return m;
}

/** Files a compose file may pull in: `.env` files and env_files (`*.env`, `.env.*`), and the YAML of
 *  `extends: { file }`, `include` and override files. They may sit anywhere in the repository (an
 *  env_file of `../../scripts/coder.env`), so every such path is read when any compose file exists;
 *  a path the reader then does not find is really not in the repository. */
const COMPOSE_SIDE_FILE = /(^|\/)(\.env[^/]*|[^/]*\.env|[^/]*\.ya?ml)$/;

function composePaths(listing: readonly string[], glob: string): string[] {
  const isCompose = isComposeOf(glob);
  if (!listing.some(isCompose)) return [];
  return listing.filter((p) => isCompose(p) || COMPOSE_SIDE_FILE.test(p));
}

/** The reader's view of the loaded files: a file not in the snapshot is null. */
function sourceOf(files: ReadonlyMap<string, DecodedFile>): (p: string) => DecodedFile | null {
  return (p) => {
    const d = files.get(posix.normalize(p));
    return d && (d.text !== null || d.problem !== null) ? d : null;
  };
}

/**
 * A compose service is a fleet deploy when it is one of the fleet's services (matched by env_file,
 * key or container_name), holds a GPU, or runs an engine kvgate recognises (by ENGINE, its image or
 * its command). Anything else (a reverse proxy, a database, a UI beside the seats) is not sized and
 * not gated, as a file outside the globs is not: the README says so.
 */
function isFleetDeploy(d: ComposeDeploy, fleet: FleetState, pack: RulesPack): boolean {
  if (d.matchedBy !== null || d.gpu !== null) return true;
  const committed = fleet.services.find((s) => s.name === d.service)?.env ?? null;
  // The engine as buildService finds it (ENGINE, else recognised), without building the whole
  // service: a compose file may hold thousands of services that are not seats.
  const env = deployedEnv(d, committed);
  return (env.entries.get("ENGINE")?.value.trim() ?? "") !== "" || recogniseEngine(pack, env).engine !== null;
}

/** The last read and every file it asked for. A view and a staged check load two snapshots (HEAD and
 *  the working tree or index) whose compose files are mostly the same text: the same inputs give the
 *  same reads, so the second is not made (a 10 MB compose file in `explain`: the reader's time and
 *  memory once, not twice). */
let last: { paths: string; services: string; asked: Map<string, DecodedFile | null>; reads: ComposeRead[] } | null = null;

function sameFile(a: DecodedFile | null, b: DecodedFile | null): boolean {
  return a === b || (a !== null && b !== null && a.text === b.text && a.problem === b.problem);
}

function readOnce(paths: readonly string[], source: (p: string) => DecodedFile | null, services: Map<string, string>): ComposeRead[] {
  const key = paths.join("\0");
  const named = JSON.stringify([...services]);
  if (last && last.paths === key && last.services === named && [...last.asked].every(([p, d]) => sameFile(source(p), d))) return last.reads;
  const asked = new Map<string, DecodedFile | null>();
  const reads = readComposeFiles(
    paths,
    (p) => {
      const d = source(p);
      asked.set(p, d);
      return d;
    },
    { services, schema: composeSchemaCheck },
  );
  last = { paths: key, services: named, asked, reads };
  return reads;
}

function readComposes(files: ReadonlyMap<string, DecodedFile>, fleet: FleetState, policy: Policy, pack: RulesPack): ComposeRead[] {
  const isCompose = isComposeOf(policy.compose);
  const paths = [...files.keys()].filter(isCompose);
  if (paths.length === 0) return [];
  const services = new Map(fleet.services.map((s) => [s.name, s.file]));
  return readOnce(paths, sourceOf(files), services)
    .filter((r) => r.isCompose || r.problems.length > 0)
    .map((r) => {
      const deploys = r.deploys.filter((d) => isFleetDeploy(d, fleet, pack));
      // A value the reader could not resolve for a service that is not gated is not the gate's notice.
      const dropped = new Set(r.deploys.filter((d) => !deploys.includes(d)).map((d) => d.service));
      const problems = r.problems.filter((p) => p.kind === "parse" || p.service === undefined || !dropped.has(p.service));
      return { ...r, deploys, problems, others: [...dropped].sort() };
    });
}

export const composes: FleetInput = {
  kind: "compose files",
  paths: ({ listing, policy }) => composePaths(listing, policy.compose),
  add(fleet, files, { policy, pack }) {
    fleet.composes = readComposes(files, fleet, policy, pack);
  },
};
