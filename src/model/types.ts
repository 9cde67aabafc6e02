// The typed model that checks read. Everything here is plain data: checks are pure functions of it.
// Paths are repo-relative POSIX paths (relative to --repo when it names a sub-folder).
// The parsers' records (env files, ledger facts, playbooks) are defined beside their parsers, one
// layer down, and re-exported here so the layers above read the whole model from one module.
import type { PlaybookRead } from "../playbook/records.js";
import type { ComposeRead } from "../compose/records.js";
import type { SystemdRead } from "../systemd/read.js";
import type { KubernetesFleet } from "../kubernetes/records.js";
import type { ObservedRead } from "../parse/observed.js";
import type { LedgerEntry } from "../parse/ledger-facts.js";
import type { ParsedEnv } from "../parse/env-types.js";
import type { Severity } from "../rules/severity.js";
export type { EnvEntry, EnvFlag, ParsedEnv } from "../parse/env-types.js";
export type { DeployFile, PlaybookRead } from "../playbook/records.js";
export type { ComposeDeploy, ComposeRead } from "../compose/records.js";
export type { K8sDeploy, KubernetesFleet } from "../kubernetes/records.js";
export type { Severity } from "../rules/severity.js";

type Status = "open" | "exempt" | "allowed" | "waived";

/** Where a value was written: the file, the 1-based line, and the spelling used there. */
export interface Origin {
  file: string;
  line: number;
  /** `env` for a KEY=VALUE line, `flag` for a flag (in an *_ARGS-style value, a compose or container
   *  command), `playbook` for a KEY=VALUE a deploy file (playbook task, compose environment) writes. */
  source: "env" | "flag" | "playbook";
  /** The env key (`MAX_MODEL_LEN`) or the flag as written (`--max_model_len`); for a value an Ansible
   *  variable holds, the variable (`max_model_len` in host_vars/gpu1.yml). */
  name: string;
  /** `name` is a YAML key (`name: value`), not an env key or a flag. */
  yaml?: boolean;
}

/** A value the gate reads, typed by its unit, with where it came from. */
export interface Setting {
  /** Canonical setting name from rules/engines.yaml, e.g. `max_model_len`, `kv_pin`, `host_pool_mib`. */
  name: string;
  /** The text as written, after unquoting. */
  raw: string;
  /** Parsed by the setting's unit: tokens/bytes/mib/int/ratio → number, bool → boolean, json → unknown, string. */
  value: unknown;
  origin: Origin;
  /** Other places that set the same setting (an env key overridden by a flag, say). */
  shadowed: Origin[];
  /**
   * Where the committed env file sets it, when a deploy file (compose, a playbook) sets the value that
   * runs: a fix writes both places, or `playbook/drift` would answer the one it wrote (src/load/running.ts).
   */
  committed?: Origin;
}

/** An engine of rules/engines.yaml (or a name it does not know, as written). */
type EngineName = string;

/** How a service's engine was found (docs/engines.md): the ENGINE key, or recognised from what it runs. */
export interface EngineRecognition {
  /** The engine, lowercased; null when nothing names one (or two engines match, see candidates). */
  engine: EngineName | null;
  by: "ENGINE" | "image" | "command" | "flag" | "none";
  /** What named it, as the file writes it (`IMAGE=vllm/vllm-openai:v0.11.0 (image vllm/vllm-openai:*)`). */
  evidence: string | null;
  origin: Origin | null;
  /** Engines that the same kind of evidence names at once (then engine is null). */
  candidates?: EngineName[];
}

/** One service: an env file (or a playbook's deploy of one), with its typed settings. */
export interface Service {
  name: string;
  /** The env file the service lives in, e.g. `scripts/voices.env`. */
  file: string;
  engine: EngineName | null;
  /** How the engine was found; absent on services built in memory by tests. */
  recognition?: EngineRecognition;
  host: string | null;
  /** Card indexes on the host, in order (`GPU=0,1` → [0, 1]). */
  gpus: number[];
  model: string | null;
  tp: number;
  /** Typed settings by canonical name; absent when the file does not set it. */
  settings: Record<string, Setting>;
  env: ParsedEnv;
  /** Where the engine/host/gpus/model/tp came from, for messages. */
  origins: Partial<Record<"engine" | "host" | "gpus" | "model" | "tp", Origin>>;
  /** Values that could not be read by their unit (engine/bad-value); the setting is then absent. */
  invalid: { name: string; raw: string; origin: Origin; message: string }[];
  /** GPU and CUDA_VISIBLE_DEVICES naming different cards (fleet/gpu-conflict); GPU is the one used. */
  gpuConflict?: { kept: Origin; keptRaw: string; other: Origin; otherRaw: string };
  /** A setting given both as an env key and as a flag with different values (env/conflict). */
  conflicts: { name: string; kept: Origin; keptRaw: string; dropped: Origin; droppedRaw: string }[];
  /**
   * Where the service is defined when no env file of it is in the repository (a compose service's
   * key, a playbook's task): a finding about the seat as a whole points here (see definitionOf).
   * `by`: which kind of deploy file defines it, so advice names that file's spelling.
   */
  definedAt?: { file: string; line: number; by?: "compose" | "playbook" };
  /** Containers of this seat that run (compose `deploy.replicas` / `scale`); absent: one. Each sits
   *  on the seat's cards, so a card counts each one (src/kv/card-usage.ts). */
  replicas?: number;
  /**
   * Services this one boots only after they are up (compose `depends_on: { x: { condition:
   * service_healthy } }`, a systemd unit's `After=` with `Requires=`): its profiler then finds them
   * resident, never half-booted. Absent: nothing orders its boot.
   */
  bootsAfter?: string[];
  /**
   * The engine reads the seat's settings from its command line only (a Kubernetes container: vLLM
   * reads no MAX_MODEL_LEN from its environment), so a setting it lacks is advised as a flag.
   */
  flagsOnly?: boolean;
  /**
   * A deploy file writes the seat's whole command line through something kvgate could not resolve
   * (an Ansible lookup): where. What the seat does not set is then unknown, not absent
   * (src/model/unread-command.ts).
   */
  commandUnread?: { file: string; line: number; key: string };
}

/** Where a finding about the whole service points: its env file's first line, or the deploy that defines it. */
export function definitionOf(s: Pick<Service, "file" | "definedAt">): { file: string; line: number } {
  return s.definedAt ?? { file: s.file, line: 1 };
}

/**
 * A fleet loaded from one side of a change, with its two faces: as its files say it (what findings
 * point at and `--fix` edits: env files, deploy files, their lines and spellings) and as it runs
 * (every deploy file's values laid over the env files once, by src/load/running.ts).
 */
export interface LoadedFleet {
  written: FleetState;
  running: FleetState;
}

/** A GPU user without an env file (from kvgate.yaml `fleet.tenants`). */
export interface Tenant {
  name: string;
  host: string;
  gpu: number;
  vramBytes: number;
  pin: boolean;
}

export interface Card {
  host: string;
  index: number;
  /** The card's model as the inventory names it (`A100-SXM4-80GB`): vLLM's batch defaults depend on it. */
  name?: string;
  totalBytes: number;
  reserveBytes: number;
  /**
   * What CUDA reports as the card's total (torch.cuda.mem_get_info, nvidia-smi's memory.total), when the
   * inventory gives it: vLLM asks utilization × this, not × the marketing size. Absent: `totalBytes`.
   */
  cudaTotalBytes?: number;
}

/** The total vLLM multiplies its utilization by: the CUDA total when the inventory gives it. */
export function cudaTotalOf(card: Pick<Card, "totalBytes" | "cudaTotalBytes">): number {
  return card.cudaTotalBytes ?? card.totalBytes;
}

/** The state of the fleet at one side of a change (before or after). */
export interface FleetState {
  services: Service[];
  tenants: Tenant[];
  cards: Card[];
  /** Radiance ledger facts files by service name, already validated (see src/parse/ledger-facts.ts). */
  ledgerFacts: Record<string, LedgerEntry>;
  /** The paths of this state the policy's fleet globs match (src/load/fleet-globs.ts): what was listed, never the whole tree. */
  paths: string[];
  /** The services were discovered (the services glob matched no file): src/load/env-files.ts. */
  discovered?: boolean;
  /** Every path the loader read for this state, present in it or not (a named file that is missing counts too). */
  readPaths?: string[];
  /** Every file matching the `playbooks` glob, read (see src/playbook/plays.ts; src/load/ always loads them). */
  playbooks?: PlaybookRead[];
  /** Every compose file matching the `compose` glob, read (src/compose/; src/load/composes.ts), with
   *  only the services that are fleet deploys (see there). */
  composes?: ComposeRead[];
  /** Every systemd unit under the `systemd` glob that deploys a service (src/systemd/; src/load/systemd.ts). */
  units?: SystemdRead[];
  /** The Kubernetes manifests and Helm values under the `kubernetes` globs, read (src/kubernetes/;
   *  src/load/kubernetes.ts): engine workloads, each replica placed on its pool's cards. */
  kubernetes?: KubernetesFleet;
  /** kvgate.yaml `observed:`: the file `kvgate observe --write` made, read (gpu/plateau); absent when
   *  the policy names none. `read` is null when the file is not in the repository. */
  observed?: { file: string; read: ObservedRead | null };
  /**
   * Model files committed in the repository, by path: every `config.json` and
   * `model.safetensors.index.json` (src/load/model-files.ts). Read as text here; src/kv/ interprets them.
   */
  modelFiles?: Record<string, ModelFile>;
}

/** One committed model file as text, or why it could not be read as text. */
export interface ModelFile {
  text: string | null;
  problem: string | null;
}

/** A finding as the engine reports it, after post-processing (status, redaction, fingerprint). */
export interface Finding {
  rule: string;
  severity: Severity;
  status: Status;
  message: string;
  file: string | null;
  line: number | null;
  service: string | null;
  commit: string | null;
  fingerprint: string;
  data: Record<string, unknown>;
  /** Why it is exempt / allowed / waived (the owner, the placeholder, the waiver's reason). */
  reason?: string;
}
