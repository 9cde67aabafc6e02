// What the playbook reader returns: per service, the env settings a playbook deploys, each with the
// file and line that writes it. Plain data: the overlay and the checks are pure functions of it.
import type { VarRef } from "./vars.js";
export type { VarRef } from "./vars.js";

/** A flag whose value a variable holds (`--max-model-len {{ item.ctx }}`): the flag as spelled, its value, the variable. */
export interface FlagFrom {
  flag: string;
  value: string;
  from: VarRef;
}

/** One change a playbook makes to a service's env, in task order. `file` is the playbook, an
 *  included tasks file, or a template; `line` is 1-based in that file. */
export type EnvEdit =
  /** KEY=VALUE (lineinfile, blockinfile, copy content, template, docker_container env). `from`: the
   *  variable that holds the whole value; `flagFrom`: the variables that hold flag values inside it. */
  | { kind: "set"; key: string; value: string; line: number; file: string; from?: VarRef; flagFrom?: FlagFrom[] }
  /** The key's line is deleted (lineinfile `state: absent`, or a lineinfile whose regexp names another key). */
  | { kind: "remove"; key: string; line: number; file: string }
  /** The service's whole command line (a docker_container `command`): it replaces every flag key of the env file. */
  | {
      kind: "flags";
      key: string;
      value: string;
      line: number;
      file: string;
      /** The line of each shell word (a YAML list command). */ wordLines?: number[];
      flagFrom?: FlagFrom[];
      /** How its file spells the setting each word sets, where that is not the flag (a values file's
       *  `maxModelLen`, which a chart renders as --max-model-len): what a finding names and a fix edits. */
      wordKeys?: (string | null)[];
    }
  /** The cards the service gets (docker_container `device_requests[].device_ids`), e.g. `0,1`. */
  | { kind: "gpus"; value: string; line: number; file: string; from?: VarRef }
  /** The host the play deployed it to (the inventory's), for a seat whose file names none: HOST unless set. */
  | { kind: "host"; value: string; line: number; file: string }
  /** The env file is written whole from here on (copy content/src, template): what it held before is gone. */
  | { kind: "reset"; line: number; file: string };

export interface PlaybookDeploy {
  /** The playbook (the file matching the `playbooks` glob), even when the edit sits in an included file. */
  playbook: string;
  service: string;
  /** The env file the deploy stands for, e.g. `scripts/voices.env`. */
  envFile: string;
  edits: EnvEdit[];
  /**
   * Its command runs vLLM's server itself (a compose service on the stock image's `vllm serve`, a unit's
   * `ExecStart=vllm serve …` or `docker run vllm/vllm-openai …`): the seat's settings are its command's
   * flags, never kvgate's env keys its environment gives the process (vLLM reads only VLLM_* variables).
   * The line of that command.
   */
  engineCommand?: { file: string; line: number };
}

export interface PlaybookProblem {
  /** `parse`: a YAML error or an import cycle (error). `unresolved`: a value the gate could not read (notice). */
  kind: "parse" | "unresolved";
  file: string;
  line: number;
  message: string;
  service?: string;
  /** The setting (env key) that was skipped, when there is one. */
  key?: string;
}

/** A file that deploys services: a playbook, or a compose file read into the same shape (its
 *  deploys are PlaybookDeploys), so the overlay, drift and placement functions take either. */
export interface DeployFile {
  path: string;
  kind: "playbook" | "compose" | "systemd" | "kubernetes";
  deploys: PlaybookDeploy[];
  problems: PlaybookProblem[];
  /** Every file the read used: itself, included tasks files, vars files, templates (or compose's own). */
  files: string[];
  /** A compose project's profile: the deploys are the services that profile starts (on top of those
   *  without one), checked as a deploy of their own and reported as that profile's. */
  profile?: string;
}

export interface PlaybookRead extends DeployFile {
  kind: "playbook";
  /** False for valid YAML that holds no play (a vars file, a tasks file, a mapping). */
  isPlaybook: boolean;
}

/** How the reader finds files: a callback over files already loaded (null when not in the repo). */
export type ReadFile = (path: string) => string | null;

export interface ReadOptions {
  /** Known services: name → env file path. Destinations named `<name>.env` resolve through it; a
   *  container maps to a service only when its name (or the name without an `<engine>-`
   *  prefix, for every engine of rules/engines.yaml) is listed. Without it, `<name>.env` → `scripts/<name>.env` and every container maps. */
  services?: ReadonlyMap<string, string>;
  /** The engine names of rules/engines.yaml: a container named `<engine>-<service>` runs that service.
   *  Default: the shipped rules pack's engines. */
  engines?: readonly string[];
  /** Every path of the repository: where the reader finds ansible.cfg, inventories and roles_path. Default:
   *  the paths of the map given to readPlaybook (a read callback alone finds only fixed names). */
  paths?: readonly string[];
  /** Reads a systemd unit a template renders (src/systemd/, handed in by the loader: the parsers do not import each other). */
  readUnit?: UnitReader;
  /** Why a file of the repository cannot be read as text (binary, not UTF-8); null when it can or is absent.
   *  A template, vars file or task file the walk needs that is unreadable is a parse problem at it, not a skip. */
  unreadable?: (path: string) => string | null;
  /** The hosts of kvgate.yaml's inventory: without an Ansible inventory, a play's `hosts:` naming one is that host. */
  hosts?: readonly string[];
}

/** What a systemd unit deploys (src/systemd/read.ts readUnit, bound to the repository's paths and services). */
export type UnitReader = (
  name: string,
  text: string,
) => { deploys: { service: string; edits: EnvEdit[] }[]; problems: PlaybookProblem[]; files: string[] };
