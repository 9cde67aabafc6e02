// What the playbook reader returns: per service, the env settings a playbook deploys, each with the
// file and line that writes it. Plain data: the overlay and the checks are pure functions of it.

/** One change a playbook makes to a service's env, in task order. `file` is the playbook, an
 *  included tasks file, or a template; `line` is 1-based in that file. */
export type EnvEdit =
  /** KEY=VALUE (lineinfile, blockinfile, copy content, template, docker_container env). */
  | { kind: "set"; key: string; value: string; line: number; file: string }
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
      /** How its file spells the setting each word sets, where that is not the flag (a values file's
       *  `maxModelLen`, which a chart renders as --max-model-len): what a finding names and a fix edits. */
      wordKeys?: (string | null)[];
    }
  /** The cards the service gets (docker_container `device_requests[].device_ids`), e.g. `0,1`. */
  | { kind: "gpus"; value: string; line: number; file: string }
  /** The env file is written whole from here on (copy content/src, template): what it held before is gone. */
  | { kind: "reset"; line: number; file: string };

export interface PlaybookDeploy {
  /** The playbook (the file matching the `playbooks` glob), even when the edit sits in an included file. */
  playbook: string;
  service: string;
  /** The env file the deploy stands for, e.g. `scripts/voices.env`. */
  envFile: string;
  edits: EnvEdit[];
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
}
