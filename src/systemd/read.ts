// A systemd unit as a deploy (docs/deploys.md#systemd-units): the service it runs, from `ExecStart=`
// (`docker run … IMAGE ARGS`, `podman run …`, or the engine's own command), its `Environment=` and
// `EnvironmentFile=` (the env file it loads is the service's, when the repository has it), the cards
// (`docker run --gpus device=…`, CUDA_VISIBLE_DEVICES), and the units it starts after (`After=` with
// `Requires=`/`BindsTo=`: its boot waits for theirs). The same edits a playbook's container task makes,
// so the overlay lays them over the env file unchanged.
import { posix } from "node:path";
import { join as shellJoin, split as shellSplit } from "shlex";
import type { DeployFile, EnvEdit, PlaybookDeploy, PlaybookProblem } from "../playbook/records.js";
import { entriesOf, environmentPairs, parseUnit, type UnitEntry } from "./unit.js";
import { runsVllm, VLLM_IMAGE } from "../playbook/engine-command.js";

interface SystemdDeploy extends PlaybookDeploy {
  /** The unit's name (`vllm-chat.service`). */
  unit: string;
  /** Units it starts after and requires (After= with Requires= or BindsTo=). */
  startsAfter: string[];
  /** Where the unit defines the service: its ExecStart line. */
  file: string;
  line: number;
}

export interface SystemdRead extends DeployFile {
  kind: "systemd";
  /** The file runs something kvgate reads (an ExecStart); false for a timer, a mount, a unit without one. */
  isUnit: boolean;
  deploys: SystemdDeploy[];
}

/** docker/podman run options that take no value; every other option takes the next word (or `=value`). */
const BOOLEAN = new Set([
  "--rm",
  "-d",
  "--detach",
  "-i",
  "--interactive",
  "-t",
  "--tty",
  "-it",
  "-ti",
  "--init",
  "--privileged",
  "--read-only",
  "--sig-proxy",
  "-q",
  "--quiet",
]);
const GPU_KEYS = new Set(["CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"]);

/** `ExecStart=` prefixes (`-`, `@`, `+`, `!`, `!!`) change how systemd runs it, not what runs. */
function commandText(value: string): string {
  return value.replace(/^[-@+!:]+/, "");
}

/** The repository path an absolute host path stands for: the longest path suffix the repository has. */
function repoPathOf(hostPath: string, paths: readonly string[]): string | null {
  const clean = hostPath.replace(/^-/, "");
  let best: string | null = null;
  for (const p of paths) if ((clean === p || clean.endsWith(`/${p}`)) && (best === null || p.length > best.length)) best = p;
  return best;
}

interface Parsed {
  edits: EnvEdit[];
  envFiles: string[];
  problems: PlaybookProblem[];
  engineCommand?: { file: string; line: number };
}

/** `docker run [opts] IMAGE [args]`: the options kvgate reads, the image, and what the container runs. */
function dockerRun(words: string[], at: UnitEntry, path: string, paths: readonly string[], out: Parsed): string[] {
  let i = 0;
  const value = (w: string): string | null => {
    const eq = w.indexOf("=");
    if (w.startsWith("--") && eq > 0) return w.slice(eq + 1);
    i++;
    return words[i] ?? null;
  };
  for (; i < words.length; i++) {
    const w = words[i] as string;
    if (!w.startsWith("-")) break;
    if (BOOLEAN.has(w)) continue;
    const name = w.includes("=") && w.startsWith("--") ? w.slice(0, w.indexOf("=")) : w;
    const v = value(w);
    if (v === null) break;
    if (name === "-e" || name === "--env") {
      const eq = v.indexOf("=");
      if (eq <= 0) {
        out.problems.push({
          kind: "unresolved",
          file: path,
          line: at.line,
          message: `${path}:${at.line}: -e ${v} takes its value from the host's environment, which kvgate cannot see`,
          key: v,
        });
        continue;
      }
      const key = v.slice(0, eq);
      const val = v.slice(eq + 1);
      if (GPU_KEYS.has(key)) out.edits.push({ kind: "gpus", value: val, line: at.line, file: path });
      else out.edits.push({ kind: "set", key, value: val, line: at.line, file: path });
    } else if (name === "--env-file") {
      const p = repoPathOf(v, paths);
      if (p) out.envFiles.push(p);
    } else if (name === "--gpus") {
      const cards = /device=([0-9,\s]+)/.exec(v.replace(/["']/g, ""))?.[1]?.replace(/\s/g, "");
      if (cards) out.edits.push({ kind: "gpus", value: cards, line: at.line, file: path });
    }
  }
  const image = words[i];
  if (image === undefined) return [];
  out.edits.push({ kind: "set", key: "IMAGE", value: image, line: at.line, file: path });
  const args = words.slice(i + 1);
  // vLLM's OpenAI image runs `vllm serve` as its entrypoint: the arguments are its flags.
  return VLLM_IMAGE.test(image) && args[0] !== "vllm" ? ["vllm", "serve", ...args] : args;
}

function execStart(entry: UnitEntry, path: string, paths: readonly string[], out: Parsed): void {
  let words: string[];
  try {
    words = shellSplit(commandText(entry.value));
  } catch (e) {
    out.problems.push({
      kind: "parse",
      file: path,
      line: entry.line,
      message: `${path}:${entry.line}: ExecStart cannot be split into words (${(e as Error).message})`,
    });
    return;
  }
  if (words.some((w) => /%[a-zA-Z]/.test(w) || /\$\{?[A-Za-z_]/.test(w))) {
    out.problems.push({
      kind: "unresolved",
      file: path,
      line: entry.line,
      message: `${path}:${entry.line}: ExecStart uses a specifier or variable (%i, $VAR) that systemd fills in on the host; kvgate reads what the file writes`,
      key: "COMMAND",
    });
  }
  const tool = posix.basename(words[0] ?? "");
  const run = (tool === "docker" || tool === "podman") && (words[1] === "run" || (words[1] === "container" && words[2] === "run"));
  const command = run ? dockerRun(words.slice(words[1] === "run" ? 2 : 3), entry, path, paths, out) : words;
  if (command.length > 0) out.edits.push({ kind: "flags", key: "COMMAND", value: shellJoin(command), line: entry.line, file: path });
  if (runsVllm(command)) out.engineCommand = { file: path, line: entry.line };
}

/** The service a unit runs: the one whose env file it loads, else its name (without a `vllm-` prefix) when a service has it. */
function serviceOf(
  unit: string,
  envFiles: readonly string[],
  services: ReadonlyMap<string, string>,
): { service: string; envFile: string | null } {
  for (const [name, file] of services) if (envFiles.includes(file)) return { service: name, envFile: file };
  const stem = unit.replace(/\.service$/, "").replace(/@.*$/, "");
  for (const candidate of [stem, stem.replace(/^vllm-/, ""), stem.replace(/-vllm$/, "")]) {
    const file = services.get(candidate);
    if (file) return { service: candidate, envFile: file };
  }
  return { service: stem, envFile: null };
}

export interface ReadUnitOptions {
  /** Every path of the repository (EnvironmentFile= and --env-file name host paths: matched by suffix). */
  paths: readonly string[];
  /** Known services: name → env file. */
  services: ReadonlyMap<string, string>;
  /** The entries of an env file of the repository the unit loads (null when it cannot be read). */
  envOf?: (path: string) => { key: string; value: string; line: number }[] | null;
}

export function readUnit(path: string, text: string, opts: ReadUnitOptions): SystemdRead {
  const out: SystemdRead = { path, kind: "systemd", isUnit: false, deploys: [], problems: [], files: [path] };
  const unit = parseUnit(text);
  for (const p of unit.problems) out.problems.push({ kind: "parse", file: path, line: p.line, message: `${path}:${p.line}: ${p.message}` });
  const starts = entriesOf(unit, "Service", "ExecStart");
  const start = starts[starts.length - 1];
  if (!start) return out;
  out.isUnit = true;
  const parsed: Parsed = { edits: [], envFiles: [], problems: [] };
  for (const e of entriesOf(unit, "Service", "EnvironmentFile")) {
    const p = repoPathOf(e.value, opts.paths);
    if (p) parsed.envFiles.push(p);
    else if (!e.value.startsWith("-"))
      parsed.problems.push({
        kind: "unresolved",
        file: path,
        line: e.line,
        message: `${path}:${e.line}: EnvironmentFile=${e.value} is not in the repository, so its settings are not read`,
        key: "EnvironmentFile",
      });
  }
  for (const e of entriesOf(unit, "Service", "Environment"))
    for (const kv of environmentPairs(e.value))
      parsed.edits.push(
        GPU_KEYS.has(kv.key)
          ? { kind: "gpus", value: kv.value, line: e.line, file: path }
          : { kind: "set", key: kv.key, value: kv.value, line: e.line, file: path },
      );
  execStart(start, path, opts.paths, parsed);
  const name = posix.basename(path);
  const target = serviceOf(name, parsed.envFiles, opts.services);
  // An env file it loads that is not the service's own: its settings are laid over, before the unit's
  // own Environment= and command (systemd reads EnvironmentFile= then Environment=; docker -e wins).
  const loaded: EnvEdit[] = [];
  for (const f of [...new Set(parsed.envFiles)]) {
    if (f === target.envFile) continue;
    for (const e of opts.envOf?.(f) ?? [])
      loaded.push(
        GPU_KEYS.has(e.key)
          ? { kind: "gpus", value: e.value, line: e.line, file: f }
          : { kind: "set", key: e.key, value: e.value, line: e.line, file: f },
      );
  }
  parsed.edits.unshift(...loaded);
  const required = new Set(
    [...entriesOf(unit, "Unit", "Requires"), ...entriesOf(unit, "Unit", "BindsTo")].flatMap((e) => e.value.split(/\s+/)),
  );
  const startsAfter = entriesOf(unit, "Unit", "After")
    .flatMap((e) => e.value.split(/\s+/))
    .filter((u) => required.has(u));
  // The env files it loads other than the service's own are laid over it, as compose's env_file are.
  out.files.push(...parsed.envFiles);
  out.problems.push(...parsed.problems.map((p) => ({ ...p, service: target.service })));
  out.deploys.push({
    playbook: path,
    service: target.service,
    envFile: target.envFile ?? path,
    edits: parsed.edits,
    unit: name,
    startsAfter,
    file: path,
    line: start.line,
    ...(parsed.engineCommand ? { engineCommand: parsed.engineCommand } : {}),
  });
  return out;
}
