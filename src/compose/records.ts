// What the compose reader returns: per compose service, the env settings it deploys, each with the
// file and line that writes it. A ComposeDeploy is a PlaybookDeploy (same edits, same fields), so the
// playbook overlay, drift and deploy-state functions take it unchanged.
import type { PlaybookDeploy, PlaybookProblem } from "../playbook/records.js";
import type { SchemaCheck } from "./validate.js";

/** docs/compose.md: the compose files kvgate reads (kvgate.yaml `compose:`, this is the default). */
export const COMPOSE_GLOB = "**/{docker-compose,compose}*.{yml,yaml}";

/** The cards a service asks Docker for, as written (before kvgate maps them onto host card indices). */
export interface GpuRequest {
  /** `device_ids` of the GPU requests (host card indices or UUIDs), null when none names ids. */
  deviceIds: string[] | null;
  /** `count` of the GPU requests: a number, or `all` (also `gpus: all`, a request with neither
   *  count nor device_ids, `runtime: nvidia` without NVIDIA_VISIBLE_DEVICES); null with device_ids only. */
  count: number | "all" | null;
  /** What asked: `deploy.resources.reservations.devices`, `gpus`, `runtime`, or the env key. */
  source: string;
  file: string;
  line: number;
}

/** The line that decides which host cards a service runs on, and how it spells them: what to edit to
 *  move the seat (`kvgate plan`'s moves). `device_ids` of a GPU request (under deploy or `gpus:`), a
 *  CDI `devices:` name, or an env key (in `environment:` or an env_file). A CUDA_VISIBLE_DEVICES
 *  that picks among the cards a request gives the container names that request as `given`. */
export interface CardsLine {
  /** `count`: a request's `count: N` (cards 0..N-1); `all`: a request for every card (`count: all`,
   *  `gpus: all`, `runtime: nvidia`, a request with neither count nor device_ids). */
  via: "device_ids" | "devices" | "NVIDIA_VISIBLE_DEVICES" | "CUDA_VISIBLE_DEVICES" | "count" | "all";
  /** The host card ids the line leads to ([] for every card until the loader knows the host's). */
  ids: string[];
  file: string;
  line: number;
  given: { via: CardsLine["via"]; ids: string[]; file: string; line: number } | null;
  /** The container is given every card of its host: the fleet loader resolves the cards from the
   *  host's inventory (src/load/running.ts). `picks`: CUDA_VISIBLE_DEVICES indices among them; without
   *  one the seat runs on the first TP × PP of them, as vLLM takes its devices. */
  everyCard?: { picks: number[] | null };
}

export interface ComposeDeploy extends PlaybookDeploy {
  /** The compose file the deploy belongs to (the file matching the `compose` glob). Same as
   *  `playbook`, which holds it too so that every playbook function takes a compose deploy. */
  compose: string;
  /** The key under `services:`. */
  composeService: string;
  containerName: string | null;
  /** How the service was matched to a known env file; null when it maps to none (it is still a
   *  deploy: `service` is then the compose key and `envFile` where its env file would be). */
  matchedBy: "env_file" | "key" | "container_name" | null;
  /** Where the service is defined (its key under `services:`). */
  file: string;
  line: number;
  /** The cards it asks for; null when it asks for none. */
  gpu: GpuRequest | null;
  /** The line that places it on host cards; null when nothing in the compose service does (the
   *  env file's GPU then does) or kvgate cannot tell which cards (an unresolved id, a UUID). */
  cards: CardsLine | null;
  /** The env_file paths it loads, in order (repo-relative; only those in the repository). */
  envFiles: string[];
  /** The containers compose starts (compose-go types.go GetScale: `scale`, else `deploy.replicas`,
   *  else 1): each is a seat on the service's cards; 0 starts none. */
  replicas: number;
  /** The service's `profiles`: it starts only when one of them is active (none: always). */
  profiles: string[];
  /** Compose keys of the services it waits for as healthy before it starts (depends_on … service_healthy). */
  healthyFirst?: string[];
}

/** Same shape as a PlaybookProblem. `parse` (error): something `docker compose config` refuses (YAML
 *  errors, a cycle, a missing extends/include target, an invalid `${`). `unresolved` (notice): a value
 *  kvgate cannot read (a variable not in the `.env`, a path outside the repo); the setting is skipped. */
export type ComposeProblem = PlaybookProblem;

export interface ComposeRead {
  path: string;
  /** False for valid YAML that is not a compose file (no `services` and no `include`). */
  isCompose: boolean;
  deploys: ComposeDeploy[];
  problems: ComposeProblem[];
  /** Every file the read used: itself, the override file, `.env` files, extends/include targets, env_files. */
  files: string[];
  /** Compose files this one pulls in (include, extends `file:`, the override file): they are deployed
   *  as part of it, so they are not deploys of their own (see readComposeFiles). */
  composeFiles: string[];
  /** COMPOSE_PROFILES of the project's `.env`: the deploys are those it enables. Null when not set:
   *  the services without a profile run, and each profile is checked on top of them on its own. */
  activeProfiles: string[] | null;
  /** Services it starts that are not fleet seats (a UI, a proxy): named in the coverage line, not sized. */
  others?: string[];
}

/** A file as the loader has it: text, or why it is not text (non-UTF-8, NUL bytes). */
interface SourceFile {
  text: string | null;
  problem: string | null;
}

/** How the reader finds files: over what the caller already loaded (null when not in the repo). A
 *  plain `(path) => string | null` fits, and so does the fleet loader's DecodedFile lookup. */
export type ComposeSource = (path: string) => string | SourceFile | null;

export interface ComposeReadOptions {
  /** The Compose Specification's schema check (src/load/compose-schema.ts); without it, files are
   *  not checked against the schema (only what the reader itself refuses is refused). */
  schema?: SchemaCheck;
  /** Known services: name → env file path (the fleet's env files). A compose service is the known
   *  service whose env file it loads (`env_file`), or whose name is its key or container_name (also
   *  without a `vllm-`/`radiance-` prefix). Without it, every compose service is `scripts/<key>.env`. */
  services?: ReadonlyMap<string, string>;
}
