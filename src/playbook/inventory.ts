// Ansible inventories in the repository (docs/playbooks.md#hosts): INI (`[group]`, `[group:vars]`,
// `[group:children]`, `host key=value`, ranges `gpu[01:04]`) and YAML (`all: { hosts:, children:, vars: }`),
// merged. What a play's `hosts:` selects, each host's groups (parents first), and the variables the
// inventory itself gives a host or a group, each placed at its line. A file that is not valid is a
// problem at its line; a dynamic inventory (`plugin:`, a script) gives no hosts and says so.
import { split as shellSplit } from "shlex";
import { isMapping, lineOf, pairsOf, parseYamlFile, scalarText, type YamlFile } from "./nodes.js";
import { assignPlaced, varsOf, type VarRef } from "./vars.js";
import type { PlaybookProblem } from "./records.js";

type Vars = Record<string, unknown>;

interface InventoryHost {
  name: string;
  /** Where the inventory first names the host. */
  file: string;
  line: number;
  vars: Vars;
}

interface Group {
  hosts: string[];
  children: string[];
  vars: Vars;
}

export interface Inventory {
  /** The inventory files read. */
  files: string[];
  hosts: Map<string, InventoryHost>;
  groups: Map<string, Group>;
  problems: PlaybookProblem[];
}

export function emptyInventory(): Inventory {
  return { files: [], hosts: new Map(), groups: new Map([["all", { hosts: [], children: [], vars: {} }]]), problems: [] };
}

/** Reads the inventory files (INI or YAML, told apart by name and content) into one inventory. */
export function readInventory(files: readonly { path: string; text: string }[]): Inventory {
  const inv = emptyInventory();
  for (const f of files) {
    inv.files.push(f.path);
    const yaml =
      /\.(ya?ml|json)$/.test(f.path) ||
      (!/\.ini$/.test(f.path) && !/^\s*\[[^\]\n]*\]\s*$/m.test(f.text) && /^\s*\w[\w-]*:\s*$/m.test(f.text));
    if (yaml) readYaml(inv, parseYamlFile(f.path, f.text));
    else readIni(inv, f.path, f.text);
  }
  return inv;
}

function group(inv: Inventory, name: string): Group {
  let g = inv.groups.get(name);
  if (!g) inv.groups.set(name, (g = { hosts: [], children: [], vars: {} }));
  return g;
}

function addHost(inv: Inventory, name: string, file: string, line: number, vars: Vars, places: ReadonlyMap<string, VarRef>): void {
  let h = inv.hosts.get(name);
  if (!h) inv.hosts.set(name, (h = { name, file, line, vars: {} }));
  // A host named twice (in two groups) has the variables of both lines, the later over the earlier.
  assignPlaced(h.vars, vars, places);
}

// ---- INI -----------------------------------------------------------------------------------------

function readIni(inv: Inventory, path: string, text: string): void {
  const bad = (line: number, message: string): void =>
    void inv.problems.push({ kind: "parse", file: path, line, message: `${path}:${line}: ${message}` });
  let section = "ungrouped";
  let kind: "hosts" | "vars" | "children" = "hosts";
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const t = raw.trim();
    if (t === "" || t.startsWith("#") || t.startsWith(";")) return;
    if (t.startsWith("[")) {
      const m = /^\[([^\]:\s]+)(?::(vars|children))?\]$/.exec(t);
      if (!m) return bad(line, `\`${t}\` is not a section header ([group], [group:vars] or [group:children])`);
      section = m[1] as string;
      kind = (m[2] as "vars" | "children" | undefined) ?? "hosts";
      group(inv, section);
      return;
    }
    if (kind === "vars") {
      const eq = t.indexOf("=");
      if (eq <= 0) return bad(line, `\`${t}\` in [${section}:vars] is not key=value`);
      const key = t.slice(0, eq).trim();
      assignPlaced(
        group(inv, section).vars,
        { [key]: unquote(t.slice(eq + 1).trim()) },
        new Map([[key, { file: path, line, name: key, yaml: false }]]),
      );
      return;
    }
    let words: string[];
    try {
      words = shellSplit(t.replace(/\s#.*$/, ""));
    } catch (e) {
      return bad(line, `the line cannot be split into words (${(e as Error).message})`);
    }
    const [first, ...rest] = words;
    if (first === undefined) return;
    if (kind === "children") {
      group(inv, section).children.push(first);
      group(inv, first);
      return;
    }
    const vars: Vars = {};
    const places = new Map<string, VarRef>();
    for (const w of rest) {
      const eq = w.indexOf("=");
      if (eq <= 0) return bad(line, `\`${w}\` after host ${first} is not key=value`);
      const key = w.slice(0, eq);
      vars[key] = literal(w.slice(eq + 1));
      places.set(key, { file: path, line, name: key, yaml: false });
    }
    const names = expandRange(first);
    if (names === null) return bad(line, `the host range in \`${first}\` is not [start:end]`);
    for (const name of names) {
      addHost(inv, name, path, line, vars, places);
      if (section !== "ungrouped" || !group(inv, "ungrouped").hosts.includes(name)) group(inv, section).hosts.push(name);
    }
  });
}

function unquote(v: string): string {
  return /^(['"]).*\1$/.test(v) ? v.slice(1, -1) : v;
}

/** A host line's value as Ansible reads it there (a Python literal): numbers and booleans typed. */
function literal(v: string): unknown {
  if (/^-?\d+$/.test(v)) return Number(v);
  if (/^-?\d+\.\d+$/.test(v)) return Number(v);
  if (v === "True" || v === "true") return true;
  if (v === "False" || v === "false") return false;
  return v;
}

/** `gpu[01:04]` → gpu01..gpu04, `node[a:c]` → nodea..nodec; null for a malformed range. */
function expandRange(pattern: string): string[] | null {
  const m = /^(.*?)\[([^\]]*)\](.*)$/.exec(pattern);
  if (!m) return [pattern];
  const r = /^([0-9]+|[a-z]):([0-9]+|[a-z])(?::(\d+))?$/.exec(m[2] as string);
  if (!r) return null;
  const [from, to] = [r[1] as string, r[2] as string];
  const step = Number(r[3] ?? "1");
  const tails = expandRange(m[3] as string);
  if (tails === null || step < 1) return null;
  const out: string[] = [];
  if (/^\d+$/.test(from) && /^\d+$/.test(to)) {
    for (let i = Number(from); i <= Number(to) && out.length < 10_000; i += step)
      for (const t of tails) out.push(`${m[1]}${String(i).padStart(from.length, "0")}${t}`);
  } else if (/^[a-z]$/.test(from) && /^[a-z]$/.test(to)) {
    for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c += step)
      for (const t of tails) out.push(`${m[1]}${String.fromCharCode(c)}${t}`);
  } else return null;
  return out.length > 0 ? out : null;
}

// ---- YAML ----------------------------------------------------------------------------------------

function readYaml(inv: Inventory, file: YamlFile): void {
  for (const e of file.errors)
    inv.problems.push({ kind: "parse", file: file.path, line: e.line, message: `${file.path}:${e.line}: not valid YAML: ${e.message}` });
  if (file.errors.length > 0) return;
  const root = file.doc.contents;
  if (root === null || root === undefined) return;
  if (!isMapping(file, root)) {
    inv.problems.push({
      kind: "parse",
      file: file.path,
      line: lineOf(file, root),
      message: `${file.path}: an inventory is a mapping of groups (all: { hosts: …, children: … })`,
    });
    return;
  }
  const pairs = pairsOf(file, root);
  const plugin = pairs.find(([k]) => k === "plugin");
  if (plugin) {
    inv.problems.push({
      kind: "unresolved",
      file: file.path,
      line: lineOf(file, plugin[2]),
      message: `${file.path}: the inventory plugin ${scalarText(file, plugin[1]) ?? ""} lists its hosts at run time; kvgate reads no hosts from it`,
    });
    return;
  }
  for (const [name, node, key] of pairs) yamlGroup(inv, file, name, node, lineOf(file, key), 0);
}

function yamlGroup(inv: Inventory, file: YamlFile, name: string, node: unknown, line: number, depth: number): void {
  const g = group(inv, name);
  if (depth > 32 || node === null || node === undefined || scalarText(file, node) !== null) return;
  if (!isMapping(file, node)) {
    inv.problems.push({
      kind: "parse",
      file: file.path,
      line,
      message: `${file.path}:${line}: group ${name} is not a mapping of hosts, children and vars`,
    });
    return;
  }
  for (const [k, v, keyNode] of pairsOf(file, node)) {
    if (k === "vars") assignPlaced(g.vars, varsOf(file, v));
    else if (k === "hosts") {
      for (const [h, hv, hk] of pairsOf(file, v)) {
        const vars = varsOf(file, hv);
        for (const n of expandRange(h) ?? [h]) {
          addHost(inv, n, file.path, lineOf(file, hk), vars, new Map());
          if (!g.hosts.includes(n)) g.hosts.push(n);
        }
      }
    } else if (k === "children") {
      for (const [c, cv, ck] of pairsOf(file, v)) {
        if (!g.children.includes(c)) g.children.push(c);
        yamlGroup(inv, file, c, cv, lineOf(file, ck), depth + 1);
      }
    } else
      inv.problems.push({
        kind: "parse",
        file: file.path,
        line: lineOf(file, keyNode),
        message: `${file.path}:${lineOf(file, keyNode)}: \`${k}\` under group ${name} is not hosts, children or vars`,
      });
  }
}

// ---- selection -----------------------------------------------------------------------------------

/** Every host of a group, its children's included, in inventory order. */
function hostsOfGroup(inv: Inventory, name: string, seen = new Set<string>()): string[] {
  if (name === "all") return [...inv.hosts.keys()];
  const g = inv.groups.get(name);
  if (!g || seen.has(name)) return [];
  seen.add(name);
  return [...g.hosts, ...g.children.flatMap((c) => hostsOfGroup(inv, c, seen))];
}

function wildcard(term: string): RegExp {
  return new RegExp(
    `^${term
      .replace(/[.+^${}()|\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
}

/** The hosts a `hosts:` pattern selects (`all`, groups, hosts, `a:b`, `a,b`, `!x`, `&y`, `web*`), in inventory order. */
export function selectHosts(inv: Inventory, patterns: readonly string[]): string[] {
  const terms = patterns
    .flatMap((p) => p.split(/[,:]/))
    .map((t) => t.trim())
    .filter((t) => t !== "");
  const match = (term: string): string[] => {
    if (term === "all" || term === "*") return [...inv.hosts.keys()];
    if (inv.groups.has(term)) return hostsOfGroup(inv, term);
    if (inv.hosts.has(term)) return [term];
    if (/[*?]/.test(term)) {
      const re = wildcard(term);
      return [
        ...new Set([
          ...[...inv.groups.keys()].filter((g) => re.test(g)).flatMap((g) => hostsOfGroup(inv, g)),
          ...[...inv.hosts.keys()].filter((h) => re.test(h)),
        ]),
      ];
    }
    return [];
  };
  let chosen = new Set<string>();
  for (const t of terms) if (!t.startsWith("!") && !t.startsWith("&")) for (const h of match(t)) chosen.add(h);
  for (const t of terms) if (t.startsWith("&")) chosen = new Set(match(t.slice(1)).filter((h) => chosen.has(h)));
  for (const t of terms) if (t.startsWith("!")) for (const h of match(t.slice(1))) chosen.delete(h);
  return [...inv.hosts.keys()].filter((h) => chosen.has(h));
}

/** The groups of a host (with their parents), by depth below `all` (a child's vars win), then by name; `all` not included. */
export function groupsOf(inv: Inventory, host: string): string[] {
  const parents = (g: string): string[] => [...inv.groups].filter(([p, x]) => p !== "all" && x.children.includes(g)).map(([p]) => p);
  const depth = (g: string, seen: readonly string[] = []): number =>
    seen.includes(g) ? 0 : 1 + Math.max(0, ...parents(g).map((p) => depth(p, [...seen, g])));
  const mine = new Set<string>();
  const add = (g: string): void => {
    if (g === "all" || mine.has(g)) return;
    mine.add(g);
    parents(g).forEach(add);
  };
  for (const [name, g] of inv.groups) if (g.hosts.includes(host)) add(name);
  return [...mine]
    .map((g) => [g, depth(g)] as const)
    .sort(([a, x], [b, y]) => x - y || a.localeCompare(b))
    .map(([g]) => g);
}
