// The Ansible playbooks under the `playbooks` glob, with every file they may include: read into
// FleetState.playbooks (the engine turns each changed one into a deploy of the services it sets).
import picomatch from "picomatch";
import type { PlaybookRead } from "../model/types.js";
import { readPlaybook } from "../playbook/plays.js";
import type { DecodedFile } from "./decode.js";
import type { FleetInput } from "./input.js";

/** Folders Ansible reads vars, roles and templates from, wherever they sit in the repo. */
const ANSIBLE_DIRS = /(^|\/)(vars|group_vars|host_vars|roles|templates|files)\//;
const ANSIBLE_TEXT = /\.(ya?ml|j2|env)$/;

/** Compiled once per glob: the fleet loader asks for every snapshot of a run. */
const matchers = new Map<string, { base: string; isPlaybook: (p: string) => boolean }>();

function matcherOf(glob: string): { base: string; isPlaybook: (p: string) => boolean } {
  let m = matchers.get(glob);
  if (!m) {
    const match = picomatch(glob, { dot: true });
    matchers.set(glob, (m = { base: picomatch.scan(glob).base, isPlaybook: (p) => match(p) }));
  }
  return m;
}

/** The paths a snapshot must read for the playbooks: every file under the glob's base folder, and
 *  the YAML/Jinja files of vars, group_vars, roles, templates and files folders anywhere. */
export function playbookPaths(paths: readonly string[], playbooksGlob: string): string[] {
  const { base, isPlaybook } = matcherOf(playbooksGlob);
  return paths.filter((p) => isPlaybook(p) || (base !== "" && p.startsWith(base + "/")) || (ANSIBLE_DIRS.test(p) && ANSIBLE_TEXT.test(p)));
}

/** Reads every playbook of the files loaded; services (name → env file) come from the fleet. */
function readPlaybooks(
  files: ReadonlyMap<string, DecodedFile>,
  playbooksGlob: string,
  services: ReadonlyMap<string, string>,
  engines?: readonly string[],
): PlaybookRead[] {
  const { isPlaybook } = matcherOf(playbooksGlob);
  const read = (p: string): string | null => files.get(p)?.text ?? null;
  const out: PlaybookRead[] = [];
  for (const [path, d] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!isPlaybook(path)) continue;
    if (d.problem) {
      out.push({
        path,
        kind: "playbook",
        isPlaybook: false,
        deploys: [],
        problems: [{ kind: "parse", file: path, line: 1, message: `${path}: ${d.problem}` }],
        files: [path],
      });
    } else if (d.text !== null) out.push(readPlaybook(path, read, engines ? { services, engines } : { services }));
  }
  return out;
}

export const playbooks: FleetInput = {
  kind: "playbooks",
  paths: ({ listing, policy }) => playbookPaths(listing, policy.playbooks),
  add(fleet, files, { policy, pack }) {
    fleet.playbooks = readPlaybooks(
      files,
      policy.playbooks,
      new Map(fleet.services.map((s) => [s.name, s.file])),
      Object.keys(pack.engines.engines),
    );
  },
};
