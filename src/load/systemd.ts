// The systemd units under the `systemd` glob (docs/deploys.md#systemd-units), read into
// FleetState.units: a unit whose ExecStart runs an engine (or that loads a service's env file) is a
// deploy of that service, laid over its env file in the running face (src/load/running.ts).
import { readUnit, type SystemdRead } from "../systemd/read.js";
import { buildService } from "../model/build.js";
import { deployedEnv } from "../playbook/overlay.js";
import type { FleetInput } from "./input.js";
import { pathMatcher } from "./service-index.js";
import { parseEnv } from "../parse/env.js";

export const systemdUnits: FleetInput = {
  kind: "systemd units",
  paths: ({ listing, policy }) => {
    const isUnit = pathMatcher(policy.systemd);
    const units = listing.filter((p) => isUnit(p));
    // The env files a unit may load (EnvironmentFile=, --env-file name them by host path).
    return units.length === 0 ? [] : [...units, ...listing.filter((p) => p.endsWith(".env"))];
  },
  // An EnvironmentFile= or --env-file of any name (`/etc/vllm/chat.conf`): each tail of the host path is
  // a repository path it may be (the listing holds only *.env files); those that exist are read.
  morePaths(files, { policy }) {
    const isUnit = pathMatcher(policy.systemd);
    const out: string[] = [];
    for (const [path, d] of files) {
      if (!isUnit(path) || d.text === null) continue;
      for (const m of d.text.matchAll(/(?:EnvironmentFile=-?|--env-file[= ])"?([^\s"]+)/g)) {
        const parts = (m[1] as string).split("/").filter((s) => s !== "" && s !== "." && s !== "..");
        if (parts.some((s) => /[%$]/.test(s))) continue;
        for (let i = 0; i < parts.length; i++) out.push(parts.slice(i).join("/"));
      }
    }
    return out;
  },
  add(fleet, files, { listing, policy, pack }) {
    const isUnit = pathMatcher(policy.systemd);
    // The host paths' tails read in the second batch that exist: repoPathOf matches against them too.
    const extra = [...files].filter(([p, d]) => (d.text !== null || d.problem !== null) && !listing.includes(p)).map(([p]) => p);
    const paths = extra.length > 0 ? [...listing, ...extra] : listing;
    const services = new Map(fleet.services.map((s) => [s.name, s.file]));
    const out: SystemdRead[] = [];
    for (const [path, d] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
      if (!isUnit(path)) continue;
      if (d.problem !== null || d.text === null) {
        if (d.problem !== null)
          out.push({
            path,
            kind: "systemd",
            isUnit: false,
            deploys: [],
            problems: [{ kind: "parse", file: path, line: 1, message: `${path}: ${d.problem}` }],
            files: [path],
          });
        continue;
      }
      const envOf = (p: string) => {
        const f = files.get(p);
        return f?.text ? [...parseEnv(f.text, p).entries.values()].map((e) => ({ key: e.key, value: e.value, line: e.line })) : null;
      };
      const read = readUnit(path, d.text, { paths, services, envOf });
      // An env file only this unit loads (not a service's, which env/parse reads): what it cannot parse
      // is the unit's problem, at that file's line (docker refuses such a line too).
      const own = new Set(services.values());
      for (const f of new Set(read.files.filter((x) => x !== path && !own.has(x)))) {
        const text = files.get(f)?.text;
        if (!text) continue;
        for (const p of parseEnv(text, f).problems)
          if (p.kind === "parse") read.problems.push({ kind: "parse", file: f, line: p.line, message: `${f}:${p.line}: ${p.message}` });
      }
      // A unit that runs no engine and loads no service's env file (sshd, a timer's job) is not the fleet's.
      read.deploys = read.deploys.filter(
        (dep) => services.has(dep.service) || buildService(deployedEnv(dep, null), pack, policy, dep.service).engine !== null,
      );
      // A unit kvgate cannot read is the fleet's when its text names an engine (fail closed); an
      // unreadable unit of something else (sshd) is not.
      const engines = Object.keys(pack.engines.engines);
      const namesEngine = engines.some((e) => d.text?.toLowerCase().includes(e));
      if (read.deploys.length > 0 || (namesEngine && read.problems.some((p) => p.kind === "parse"))) out.push(read);
    }
    fleet.units = out;
  },
};
