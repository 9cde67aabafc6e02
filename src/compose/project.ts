// Which files make a docker compose project, as `docker compose up` run in the compose file's folder
// decides (compose-go cli/options.go): COMPOSE_FILE when the environment sets it (the `.env` of the
// folder counts: WithDotEnv runs before WithConfigFileEnv), split on COMPOSE_PATH_SEPARATOR (else the
// OS's path list separator, `:` on the Linux hosts that run the seats), each path relative to the
// folder; otherwise the first of compose.yaml, compose.yml, docker-compose.yml, docker-compose.yaml
// (WithDefaultConfigPath: the others are ignored, with a warning) with the first override file found
// merged over it. COMPOSE_PROFILES (comma-separated, WithDefaultProfiles) picks the profiles.
import { posix } from "node:path";
import { readDotEnv } from "./dotenv.js";
import { UNSET } from "./interpolate.js";
import type { ComposeProblem, ComposeSource } from "./records.js";

/** compose-go cli/options.go DefaultFileNames and DefaultOverrideFileNames, in their order. */
const DEFAULT_FILES = ["compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"];
const OVERRIDE_FILES = ["compose.override.yml", "compose.override.yaml", "docker-compose.override.yml", "docker-compose.override.yaml"];

export interface ProjectFiles {
  /** The compose files merged in order: the first names the project. */
  files: string[];
  /** The `.env` line of COMPOSE_FILE, when it chose the files. */
  composeFileAt: { file: string; line: number } | null;
}

/** The folder's `.env` settings that steer compose itself. */
export interface ComposeSettings {
  composeFile: { value: string; line: number } | null;
  separator: string | null;
  profiles: { names: string[]; line: number } | null;
  envPath: string;
}

const textOf = (source: ComposeSource, p: string): string | null => {
  const got = source(p);
  return got === null ? null : typeof got === "string" ? got : got.text;
};

const inDir = (dir: string, name: string): string => (dir === "." ? name : `${dir}/${name}`);

/** COMPOSE_FILE, COMPOSE_PATH_SEPARATOR and COMPOSE_PROFILES from the folder's `.env`. */
export function composeSettings(source: ComposeSource, dir: string): ComposeSettings {
  const envPath = inDir(dir, ".env");
  const text = textOf(source, envPath);
  const out: ComposeSettings = { composeFile: null, separator: null, profiles: null, envPath };
  if (text === null) return out;
  for (const e of readDotEnv(text, envPath, UNSET).entries) {
    if (e.value === null) continue;
    if (e.key === "COMPOSE_FILE") out.composeFile = { value: e.value, line: e.line };
    if (e.key === "COMPOSE_PATH_SEPARATOR") out.separator = e.value;
    if (e.key === "COMPOSE_PROFILES")
      out.profiles = {
        names: e.value
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== ""),
        line: e.line,
      };
  }
  return out;
}

/** The first default compose file present in the folder (the one `docker compose` reads there). */
function winnerOf(source: ComposeSource, dir: string): string | null {
  for (const name of DEFAULT_FILES) if (source(inDir(dir, name)) !== null) return inDir(dir, name);
  return null;
}

/** The override file `docker compose` merges over the folder's default file, when there is one. */
function overrideOf(source: ComposeSource, dir: string): string | null {
  for (const name of OVERRIDE_FILES) if (source(inDir(dir, name)) !== null) return inDir(dir, name);
  return null;
}

/**
 * The projects of the compose files (glob matches) of one folder, and what is said about the files
 * left out: COMPOSE_FILE's project, else the default file with its override; any other matching file
 * is a project of its own (what `docker compose -f file up` would run).
 */
export function folderProjects(source: ComposeSource, dir: string, paths: readonly string[], problems: ComposeProblem[]): ProjectFiles[] {
  const settings = composeSettings(source, dir);
  const out: ProjectFiles[] = [];
  const claimed = new Set<string>();
  if (settings.composeFile) {
    const named = namedFiles(settings, dir, problems);
    if (named.length > 0) {
      out.push({ files: named, composeFileAt: { file: settings.envPath, line: settings.composeFile.line } });
      for (const f of named) claimed.add(f);
    }
    // With COMPOSE_FILE set, compose looks for no override file: one that is there is not read.
    for (const name of OVERRIDE_FILES) {
      const p = inDir(dir, name);
      if (claimed.has(p) || !paths.includes(p)) continue;
      claimed.add(p);
      problems.push({
        kind: "unresolved",
        file: p,
        line: 1,
        message:
          `COMPOSE_FILE (${settings.envPath}:${settings.composeFile.line}) ` +
          `names the project's files, so docker compose does not merge ${name}, ` +
          `and neither does kvgate; add it to COMPOSE_FILE if it should be`,
      });
    }
  } else {
    const winner = winnerOf(source, dir);
    if (winner) {
      const override = overrideOf(source, dir);
      out.push({ files: override ? [winner, override] : [winner], composeFileAt: null });
      claimed.add(winner);
      if (override) claimed.add(override);
      for (const name of DEFAULT_FILES) {
        const p = inDir(dir, name);
        if (p === winner || !paths.includes(p)) continue;
        claimed.add(p);
        problems.push({
          kind: "unresolved",
          file: p,
          line: 1,
          message:
            `docker compose in ${dir === "." ? "the repository root" : dir} reads ` +
            `${posix.basename(winner)}, not ${name} (compose-go reads the first of ` +
            `${DEFAULT_FILES.join(", ")}), so kvgate does not deploy ${p} either; ` +
            `merge it into ${posix.basename(winner)}, or name both in COMPOSE_FILE`,
        });
      }
      for (const name of OVERRIDE_FILES) claimed.add(inDir(dir, name));
    }
  }
  for (const p of paths) if (!claimed.has(p)) out.push({ files: [p], composeFileAt: null });
  return out;
}

/** COMPOSE_FILE's paths, in the repository; what is not is a problem at the `.env` line. */
function namedFiles(settings: ComposeSettings, dir: string, problems: ComposeProblem[]): string[] {
  const cf = settings.composeFile as { value: string; line: number };
  const sep = settings.separator ?? ":";
  const out: string[] = [];
  for (const raw of cf.value.split(sep)) {
    const written = raw.trim();
    if (written === "") continue;
    const p = posix.normalize(posix.join(dir, written));
    if (written.startsWith("/") || p === ".." || p.startsWith("../")) {
      problems.push({
        kind: "parse",
        file: settings.envPath,
        line: cf.line,
        message:
          `COMPOSE_FILE names ${written}, outside the repository: kvgate cannot ` +
          `read what docker compose would run (name a compose file in the repository)`,
      });
      continue;
    }
    out.push(p);
  }
  return out;
}
