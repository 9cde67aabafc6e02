// The variables a play sees on one host, in Ansible's order of precedence (docs/playbooks.md#variables),
// lowest first: role defaults < inventory `all` vars < group_vars/all < inventory group vars <
// group_vars/<group> (parents before children) < inventory host vars < host_vars/<host> < play vars <
// vars_files < role vars < role params < task vars < loop item. group_vars/ and host_vars/ next to the
// playbook win over those next to the inventory. This file makes the host's part of that list (the
// play's and the roles' parts are added by the walk); a Scope lists the most specific layer first.
import { scalarText, itemsOf, lineOf, isMapping, isSequence, type YamlFile } from "./nodes.js";
import { load, problem, type PlaybookWalk } from "./walk.js";
import { groupsOf, selectHosts } from "./inventory.js";
import { varsFilesOf } from "./layout.js";
import { assignPlaced, varsOf } from "./vars.js";
import type { Vars } from "./template.js";

export type PlayHost = NonNullable<PlaybookWalk["host"]>;

const varsCache = new WeakMap<YamlFile, Vars>();

/** A vars file's variables (placed); a file that is not valid YAML is a problem at its line and gives none. */
export function varsFile(r: PlaybookWalk, path: string): Vars | null {
  const f = load(r, path);
  if (!f) return null;
  if (f.errors.length > 0) {
    for (const e of f.errors) problem(r, { kind: "parse", file: path, line: e.line, message: `${path} is not valid YAML: ${e.message}` });
    return null;
  }
  const top = f.doc.contents;
  // Ansible takes a mapping of variables, or a list of mappings (merged in order); anything else it refuses.
  const parts = top === null ? [] : isSequence(f, top) ? itemsOf(f, top) : [top];
  const bad = parts.find((n) => !isMapping(f, n));
  if (bad !== undefined) {
    const line = lineOf(f, bad);
    problem(r, {
      kind: "parse",
      file: path,
      line,
      message: `${path}:${line}: a vars file holds variables (name: value), or a list of such mappings; Ansible refuses this one`,
    });
    return null;
  }
  let v = varsCache.get(f);
  if (!v) {
    v = {};
    for (const n of parts) assignPlaced(v, varsOf(f, n));
    varsCache.set(f, v);
  }
  return v;
}

/** group_vars/<name> or host_vars/<name> of every vars folder, most specific (the playbook's, the last file) first. */
function folderLayers(r: PlaybookWalk, kind: "group_vars" | "host_vars", name: string): Vars[] {
  const out: Vars[] = [];
  for (const dir of r.layout.varsDirs)
    for (const p of varsFilesOf(r.listing, r.read, dir, kind, name)) {
      const v = varsFile(r, p);
      if (v) out.unshift(v);
    }
  return out;
}

/** The host's layers: host_vars, inventory host vars, each group's (children first), `all`'s. */
export function hostLayers(r: PlaybookWalk, host: string | null): Vars[] {
  const inv = r.inventory;
  const layers: Vars[] = [];
  if (host !== null) {
    layers.push(...folderLayers(r, "host_vars", host));
    const own = inv.hosts.get(host)?.vars;
    if (own) layers.push(own);
    for (const g of [...groupsOf(inv, host)].reverse()) {
      layers.push(...folderLayers(r, "group_vars", g));
      const gv = inv.groups.get(g)?.vars;
      if (gv) layers.push(gv);
    }
  }
  layers.push(...folderLayers(r, "group_vars", "all"));
  const all = inv.groups.get("all")?.vars;
  if (all) layers.push(all);
  return layers;
}

/** Ansible's magic variables that a template may use without a fact: the host's name and groups. */
export function magicVars(r: PlaybookWalk, host: string | null): Vars {
  const inv = r.inventory;
  const groups = Object.fromEntries([...inv.groups.keys()].map((g) => [g, selectHosts(inv, [g])]));
  return {
    ansible_managed: "Ansible managed",
    groups,
    ...(host === null
      ? {}
      : { inventory_hostname: host, inventory_hostname_short: host.split(".")[0] ?? host, group_names: groupsOf(inv, host) }),
  };
}

/**
 * The hosts a play runs on: those of its `hosts:` pattern in the repository's inventory. Without an
 * inventory, a pattern that is one name with a host_vars/ file (or a host of kvgate.yaml) is that host;
 * otherwise the play is read once, for no particular host (only group_vars/all applies).
 */
export function playHosts(r: PlaybookWalk, file: YamlFile, node: unknown): (PlayHost | null)[] {
  const patterns = (isSequence(file, node) ? itemsOf(file, node).map((n) => scalarText(file, n)) : [scalarText(file, node)]).filter(
    (p): p is string => p !== null && !p.includes("{{"),
  );
  const line = lineOf(file, node);
  if (patterns.length === 0) return [null];
  const inv = r.inventory;
  if (inv.hosts.size > 0) {
    const hosts = selectHosts(inv, patterns);
    if (hosts.length > 0)
      return hosts.map((h) => ({ name: h, file: inv.hosts.get(h)?.file ?? file.path, line: inv.hosts.get(h)?.line ?? line }));
    problem(r, {
      kind: "unresolved",
      file: file.path,
      line,
      message: `hosts: ${patterns.join(", ")} selects no host of the inventory (${inv.files.join(", ")}); kvgate reads the play for no particular host`,
    });
    return [null];
  }
  const [one] = patterns;
  if (patterns.length === 1 && one !== undefined && /^[A-Za-z0-9_.-]+$/.test(one) && one !== "all" && one !== "localhost") {
    const known =
      r.opts.hosts?.includes(one) || r.layout.varsDirs.some((d) => varsFilesOf(r.listing, r.read, d, "host_vars", one).length > 0);
    if (known) return [{ name: one, file: file.path, line }];
  }
  return [null];
}
