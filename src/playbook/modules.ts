// The modules that write a service's env: lineinfile, blockinfile, copy, template, docker_container.
// Each turns its arguments into EnvEdits with the line the value is written on. Unknown modules are
// not handlers and are skipped by the reader.
import { posix } from "node:path";
import { loadPack } from "../rules/load.js";
import { join as shellJoin, split as shellSplit } from "shlex";
import { parseEnv } from "../parse/env.js";
import { emit, locate, problem, unreadable, type PlaybookWalk } from "./walk.js";
import { contentLineOf, isMapping, isSequence, itemsOf, lineOf, pairsOf, scalarText, toJs, type YamlFile } from "./nodes.js";
import { asText, render, renderParts, renderValue, type Scope } from "./template.js";
import { renderTemplate, type OutLine } from "./jinja.js";
import { attribution, envFileDeploy, unitFileDeploy, type FileDeploy } from "./render-file.js";
import { unresolvedMessage } from "./problems.js";

interface ModuleCall {
  /** Short name: `lineinfile`, `docker_container`, ... */
  module: string;
  /** The module's argument node (a mapping, or a free-form `k=v` string). */
  node: unknown;
  /** Line of the module key. */
  line: number;
  /** The task's `args:` node, if any. */
  args: unknown;
  file: YamlFile;
  scope: Scope;
  /** Line of the loop item this call renders, when looping over a literal list. */
  itemLine: number | null;
  /** The loop item this call renders (its `name` may name the service a template deploys). */
  item?: unknown;
  /** The role whose tasks these are: its templates/ and files/ are where `src` is found. */
  roleDir?: string | undefined;
}

type Handler = (r: PlaybookWalk, call: ModuleCall) => void;

const HANDLERS: Record<string, Handler> = {
  lineinfile,
  blockinfile,
  copy,
  template,
  docker_container: dockerContainer,
};

/** `ansible.builtin.lineinfile`, `community.docker.docker_container`, `community.general.x` → short name. */
export function moduleNameOf(key: string): string | null {
  const m = /^(?:(?:ansible\.(?:builtin|legacy)|community\.[a-z_]+)\.)?([a-z_][a-z0-9_]*)$/.exec(key);
  return m ? (m[1] as string) : null;
}

export function moduleHandler(module: string): Handler | undefined {
  return Object.prototype.hasOwnProperty.call(HANDLERS, module) ? HANDLERS[module] : undefined;
}

interface Arg {
  raw: unknown;
  node: unknown;
  line: number;
}

/** The module's arguments: its mapping over the task's `args:`, or a free-form `k=v k=v` string. */
function argsOf(call: ModuleCall): Map<string, Arg> {
  const out = new Map<string, Arg>();
  const addMap = (node: unknown): void => {
    for (const [k, v] of pairsOf(call.file, node)) out.set(k, { raw: toJs(call.file, v), node: v, line: lineOf(call.file, v, call.line) });
  };
  addMap(call.args);
  if (isMapping(call.file, call.node)) addMap(call.node);
  else {
    const text = scalarText(call.file, call.node);
    let words: string[];
    try {
      words = text === null ? [] : shellSplit(text);
    } catch {
      words = [];
    }
    for (const w of words) {
      const eq = w.indexOf("=");
      if (eq > 0) out.set(w.slice(0, eq), { raw: w.slice(eq + 1), node: call.node, line: lineOf(call.file, call.node, call.line) });
    }
  }
  return out;
}

function lineFor(call: ModuleCall, arg: Arg | undefined): number {
  return call.itemLine ?? arg?.line ?? call.line;
}

interface Target {
  service: string;
  envFile: string;
  /** The destination is a systemd unit of this name: its service is what the unit runs. */
  unit?: string;
}

function targetOf(r: PlaybookWalk, service: string): Target {
  return { service, envFile: r.opts.services?.get(service) ?? `scripts/${service}.env` };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The `name` of the loop item this call renders, when it has one. */
function itemNameOf(call: ModuleCall): string | null {
  const item = call.item;
  if (item === null || typeof item !== "object" || Array.isArray(item)) return null;
  const name = (item as Record<string, unknown>).name;
  return typeof name === "string" && /^[A-Za-z0-9_.@-]+$/.test(name) ? name : null;
}

/**
 * The service a destination writes (docs/playbooks.md#templates): the loop item's name when the path
 * uses it (`/opt/vllm/{{ item.name }}/vllm.env`), else a file named `<service>.env`, else, for a task
 * that writes a whole file, a systemd unit (`vllm-<service>.service`: what it runs says the service).
 * The folder may stay a variable.
 */
function destination(r: PlaybookWalk, call: ModuleCall, args: Map<string, Arg>, names: string[], units = false): Target | null {
  const arg = names.map((n) => args.get(n)).find((a) => a !== undefined);
  if (!arg) return null;
  const raw = asText(arg.raw);
  const rendered = render(raw, call.scope);
  let path = rendered.ok ? asText(rendered.value) : null;
  // `{{ fleet_root }}/scripts/voices.env` names its service even when the folder is unknown.
  if (path === null) {
    const base = render(raw.split("/").pop() ?? raw, call.scope);
    if (base.ok) path = asText(base.value);
  }
  if (path === null) {
    if (/\.(env|service)["']?\s*$/.test(raw) || (units && itemNameOf(call) !== null)) {
      problem(r, {
        kind: "unresolved",
        file: call.file.path,
        line: lineFor(call, arg),
        message: `${call.module} destination ${raw}: ${rendered.ok ? "" : rendered.reason}; kvgate cannot tell which service this task deploys`,
      });
    }
    return null;
  }
  const base = path.split("/").pop() ?? path;
  const item = raw.includes("{{") ? itemNameOf(call) : null;
  const byItem =
    item !== null && (path.split("/").includes(item) || new RegExp(`(^|[-_.@])${escapeRe(item)}([-_.@]|$)`).test(base)) ? item : null;
  if (units && base.endsWith(".service")) return { ...targetOf(r, byItem ?? ""), unit: base };
  if (byItem !== null) return targetOf(r, byItem);
  const m = /^([A-Za-z0-9_.@-]+)\.env$/.exec(base);
  return m ? targetOf(r, m[1] as string) : null;
}

/** Renders one argument; an unresolved value is reported (with its service and key) and yields null. */
function renderArg(r: PlaybookWalk, call: ModuleCall, arg: Arg, t: Target | null, key?: string): string | null {
  const rendered = renderValue(arg.raw, call.scope);
  if (rendered.ok) return asText(rendered.value);
  const what = key ? `${key} for ${t?.service ?? "the service"}` : `${call.module}`;
  problem(r, {
    kind: "unresolved",
    file: call.file.path,
    line: lineFor(call, arg),
    message: unresolvedMessage(what, rendered.expr, rendered.reason),
    ...(t ? { service: t.service } : {}),
    ...(key ? { key } : {}),
  });
  return null;
}

/** The env key a lineinfile regexp matches: `^MAX_MODEL_LEN=`, `^export KV_CACHE_MEMORY_BYTES=`, `^#?GPU=`. */
export function keyOfRegexp(re: string): string | null {
  const rest = re.replace(/^\^/, "").replace(/^(?:#\?|\\s\*|\s\*|\(\?:export\\s\+\)\?|\(export\\s\+\)\?|export\\s\+|export\s+)+/, "");
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(.*)$/.exec(rest);
  if (!m) return null;
  const tail = m[2] as string;
  if (tail !== "" && !/^(=|\\s|\s|\\b|\[|\(|\$)/.test(tail)) return null;
  return m[1] as string;
}

/** Text written whole or as a block (copy content, blockinfile): rendered as Ansible templates a module's
 *  arguments; `exact` maps the text's lines onto the playbook's (a literal block), else all are `start`. */
function textDeploy(r: PlaybookWalk, call: ModuleCall, t: Target, text: string, start: number, exact: boolean): void {
  const rendered = renderTemplate(text, call.scope);
  const at = (n: number): number => (exact ? start + n - 1 : start);
  if (rendered.error) {
    problem(r, {
      kind: "parse",
      file: call.file.path,
      line: at(rendered.error.line),
      message: `${call.file.path}:${at(rendered.error.line)}: the ${call.module} text does not render: ${rendered.error.message}`,
    });
    return;
  }
  const lines = rendered.lines.map((l) => ({ ...l, src: at(l.src) }));
  applyDeploy(r, call, t, envFileDeploy(lines, call.file.path, t.service));
}

/** A rendered file's edits and problems added to the walk, with the play's host for a seat that names none. */
function applyDeploy(r: PlaybookWalk, call: ModuleCall, t: Target, d: FileDeploy, resetAt?: number): void {
  const service = t.unit && t.service === "" ? d.service : t.service;
  const target = t.unit ? targetOf(r, service) : t;
  for (const p of d.problems) problem(r, { ...p, ...(p.service !== undefined ? { service } : {}) });
  for (const f of d.files) if (!r.out.files.includes(f)) r.out.files.push(f);
  if (resetAt !== undefined) emit(r, service, target.envFile, { kind: "reset", line: resetAt, file: call.file.path });
  for (const e of d.edits) emit(r, service, target.envFile, e);
  if (r.host && (resetAt !== undefined || d.edits.length > 0))
    emit(r, service, target.envFile, { kind: "host", value: r.host.name, line: r.host.line, file: r.host.file });
}

function lineinfile(r: PlaybookWalk, call: ModuleCall): void {
  const args = argsOf(call);
  const t = destination(r, call, args, ["path", "dest", "destfile", "name"]);
  if (!t) return;
  const state = asText(args.get("state")?.raw ?? "present");
  const reArg = args.get("regexp") ?? args.get("regex");
  const lineArg = args.get("line") ?? args.get("value");
  const reText = reArg ? renderArg(r, call, reArg, t) : null;
  const reKey = reText === null ? null : keyOfRegexp(reText);
  const file = call.file.path;
  if (state === "absent") {
    let key = reKey;
    if (key === null && lineArg) key = keyOfLine(renderArg(r, call, lineArg, t) ?? "");
    if (key === null) {
      problem(r, {
        kind: "unresolved",
        file,
        line: lineFor(call, reArg ?? lineArg),
        message: `lineinfile state: absent on ${t.envFile}: kvgate cannot tell which key ${reText ?? "it"} removes; start the regexp with ^KEY=`,
        service: t.service,
      });
      return;
    }
    emit(r, t.service, t.envFile, { kind: "remove", key, line: lineFor(call, reArg ?? lineArg), file });
    return;
  }
  if (!lineArg) return;
  const key = keyOfLine(asText(lineArg.raw));
  const value = renderArg(r, call, lineArg, t, key ?? undefined);
  if (value === null) return;
  const entry = parseEnv(value, file).all[0];
  if (!entry) return;
  const line = lineFor(call, lineArg);
  if (reKey !== null && reKey !== entry.key) emit(r, t.service, t.envFile, { kind: "remove", key: reKey, line, file });
  emit(r, t.service, t.envFile, { kind: "set", key: entry.key, value: entry.value, line, file, ...writtenBy(call, lineArg, entry) });
}

/** The variables that wrote a `line:`'s value (`MAX_MODEL_LEN={{ ctx }}`): the finding and fix go to them. */
function writtenBy(call: ModuleCall, arg: Arg, entry: { key: string; value: string }): ReturnType<typeof attribution> {
  if (typeof arg.raw !== "string") return {};
  const parts = renderParts(arg.raw, call.scope);
  if (!parts.ok) return {};
  const text = parts.parts.map((p) => p.text).join("");
  return attribution([{ text, src: arg.line, parts: parts.parts, unsure: null }], entry.key, entry.value);
}

function keyOfLine(text: string): string | null {
  return /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(text)?.[1] ?? null;
}

function blockinfile(r: PlaybookWalk, call: ModuleCall): void {
  const args = argsOf(call);
  const t = destination(r, call, args, ["path", "dest", "destfile", "name"]);
  if (!t || asText(args.get("state")?.raw ?? "present") === "absent") return;
  const block = args.get("block") ?? args.get("content");
  if (!block) return;
  const at = call.itemLine === null ? contentLineOf(call.file, block.node, block.line) : { line: call.itemLine, exact: false };
  textDeploy(r, call, t, asText(block.raw), at.line, at.exact);
}

function copy(r: PlaybookWalk, call: ModuleCall): void {
  const args = argsOf(call);
  const t = destination(r, call, args, ["dest"], true);
  if (!t) return;
  const content = args.get("content");
  if (content) {
    const at = call.itemLine === null ? contentLineOf(call.file, content.node, content.line) : { line: call.itemLine, exact: false };
    if (t.unit) return void fileDeploy(r, call, t, call.file.path, asText(content.raw), false, lineFor(call, content));
    emit(r, t.service, t.envFile, { kind: "reset", line: lineFor(call, content), file: call.file.path });
    textDeploy(r, call, t, asText(content.raw), at.line, at.exact);
    return;
  }
  const src = args.get("src");
  if (!src) return;
  if (/^(true|yes|1)$/i.test(asText(args.get("remote_src")?.raw ?? ""))) {
    problem(r, {
      kind: "unresolved",
      file: call.file.path,
      line: lineFor(call, src),
      message:
        `copy remote_src to ${t.unit ?? t.envFile}: the source is on the host, so ` +
        `what it writes is unknown to kvgate; the committed env file is checked instead`,
      ...(t.service !== "" ? { service: t.service } : {}),
    });
    return;
  }
  // copy does not template its src: the file is written as it is.
  fromRepoFile(r, call, t, src, "files", false);
}

function template(r: PlaybookWalk, call: ModuleCall): void {
  const args = argsOf(call);
  const t = destination(r, call, args, ["dest"], true);
  const src = args.get("src");
  if (t && src) fromRepoFile(r, call, t, src, "templates", true);
}

/**
 * Where Ansible finds a role's `src`: the role's templates/ (or files/), the role itself, its tasks/;
 * then next to the task file and the playbook, in their templates/ (files/) folders and beside them.
 */
function findSource(r: PlaybookWalk, call: ModuleCall, rel: string, sub: "templates" | "files"): string | null {
  const dirs = call.roleDir ? [`${call.roleDir}/${sub}`, call.roleDir, `${call.roleDir}/tasks`] : [];
  const present = (p: string) => r.read(p) !== null || (r.opts.unreadable?.(p) ?? null) !== null;
  const fromRole = dirs.map((d) => posix.normalize(posix.join(d, rel))).find((p) => !p.startsWith("../") && present(p));
  return fromRole ?? locate(r, call.file.path, rel, [sub, `../${sub}`, ""]);
}

function fromRepoFile(r: PlaybookWalk, call: ModuleCall, t: Target, src: Arg, sub: "templates" | "files", renderIt: boolean): void {
  const rel = renderArg(r, call, src, t.service === "" ? null : t);
  if (rel === null) return;
  const path = rel.startsWith("/") ? null : findSource(r, call, rel, sub);
  const text = path === null ? null : r.read(path);
  // In the repository but not text: Ansible cannot render it either (a finding, never a skipped seat).
  if (path !== null && text === null && unreadable(r, path)) return;
  if (path === null || text === null) {
    problem(r, {
      kind: "unresolved",
      file: call.file.path,
      line: lineFor(call, src),
      message: `${call.module} src ${rel} is not in the repository; what it writes to ${t.unit ?? t.envFile} is unknown to kvgate`,
      ...(t.service !== "" ? { service: t.service } : {}),
      ...(t.unit ? {} : { key: "COMMAND" }),
    });
    return;
  }
  if (!r.out.files.includes(path)) r.out.files.push(path);
  fileDeploy(r, call, t, path, text, renderIt, lineFor(call, src));
}

/** A file written whole (a template, a copied file): rendered, read as an env file or a unit, laid over its seat. */
function fileDeploy(r: PlaybookWalk, call: ModuleCall, t: Target, path: string, text: string, renderIt: boolean, resetAt: number): void {
  let lines: OutLine[];
  if (renderIt) {
    const rendered = renderTemplate(text, call.scope);
    if (rendered.error) {
      problem(r, {
        kind: "parse",
        file: path,
        line: rendered.error.line,
        message: `${path}:${rendered.error.line}: the template does not render: ${rendered.error.message}`,
      });
      return;
    }
    lines = rendered.lines;
  } else lines = text.split(/\r?\n/).map((l, i) => ({ text: l, src: i + 1, parts: [{ text: l, at: null, col: 0 }], unsure: null }));
  if (t.unit) {
    if (!r.opts.readUnit) return;
    applyDeploy(r, call, t, unitFileDeploy(lines, path, t.unit, r.opts.readUnit));
  } else applyDeploy(r, call, t, envFileDeploy(lines, path, t.service), resetAt);
}

/** `<engine>-` or `<engine>_` at the start of a container name, for the engines of the rules pack. */
function withoutEnginePrefix(name: string, engines: readonly string[]): string {
  const hit = engines.find((e) => name.startsWith(`${e}-`) || name.startsWith(`${e}_`));
  return hit === undefined ? name : name.slice(hit.length + 1);
}

/** `vllm-coder` / `radiance-x` / `coder` → the service, when it is one the repo knows (or any without a list). */
function serviceOfContainer(r: PlaybookWalk, name: string): Target | null {
  const candidates = [name, withoutEnginePrefix(name, r.opts.engines ?? Object.keys(loadPack().engines.engines))];
  const known = r.opts.services;
  if (!known) {
    const service = candidates[1] as string;
    return { service, envFile: `scripts/${service}.env` };
  }
  for (const c of candidates) {
    const envFile = known.get(c);
    if (envFile) return { service: c, envFile };
  }
  return null;
}

function dockerContainer(r: PlaybookWalk, call: ModuleCall): void {
  const args = argsOf(call);
  const state = asText(args.get("state")?.raw ?? "started");
  if (state === "absent" || state === "stopped") return;
  let t = destination(r, call, args, ["env_file"]);
  const nameArg = args.get("name");
  if (!t && nameArg) {
    const rendered = render(asText(nameArg.raw), call.scope);
    if (rendered.ok) t = serviceOfContainer(r, asText(rendered.value));
    else if (["env", "command", "device_requests"].some((k) => args.has(k))) {
      problem(r, {
        kind: "unresolved",
        file: call.file.path,
        line: lineFor(call, nameArg),
        message: `docker_container name ${asText(nameArg.raw)}: ${rendered.reason}; kvgate cannot tell which service this container runs`,
      });
    }
  }
  if (!t) return;
  const file = call.file.path;
  const env = args.get("env");
  if (env) {
    if (isMapping(call.file, env.node)) {
      for (const [key, v] of pairsOf(call.file, env.node)) {
        const arg: Arg = { raw: toJs(call.file, v), node: v, line: lineOf(call.file, v, env.line) };
        const value = renderArg(r, call, arg, t, key);
        const held = renderValue(arg.raw, call.scope);
        const from = held.ok && held.at ? { from: held.at } : {};
        if (value !== null) emit(r, t.service, t.envFile, { kind: "set", key, value, line: lineFor(call, arg), file, ...from });
      }
    } else {
      const rendered = renderValue(env.raw, call.scope);
      if (rendered.ok && rendered.value !== null && typeof rendered.value === "object" && !Array.isArray(rendered.value)) {
        for (const [key, v] of Object.entries(rendered.value))
          emit(r, t.service, t.envFile, { kind: "set", key, value: asText(v), line: lineFor(call, env), file });
      } else renderArg(r, call, env, t, "env");
    }
  }
  const command = args.get("command");
  if (command) {
    const rendered = renderValue(command.raw, call.scope);
    if (!rendered.ok) renderArg(r, call, command, t, "command");
    else {
      const list = Array.isArray(rendered.value) ? rendered.value.map(asText) : null;
      const value = list ? shellJoin(list) : asText(rendered.value);
      // A list command keeps each word's line, so a finding about `--max-model-len` points at that item.
      const words =
        list && call.itemLine === null ? itemsOf(call.file, command.node).map((n) => lineOf(call.file, n, command.line)) : undefined;
      emit(r, t.service, t.envFile, {
        kind: "flags",
        key: "COMMAND",
        value,
        line: lineFor(call, command),
        file,
        ...(words ? { wordLines: words } : {}),
      });
    }
  }
  const requests = args.get("device_requests");
  if (requests) gpusOf(r, call, t, requests);
}

function gpusOf(r: PlaybookWalk, call: ModuleCall, t: Target, requests: Arg): void {
  const ids: string[] = [];
  let line = lineFor(call, requests);
  for (const req of itemsOf(call.file, requests.node)) {
    const idsNode = pairsOf(call.file, req).find(([k]) => k === "device_ids")?.[1];
    if (idsNode === undefined) continue;
    const arg: Arg = { raw: toJs(call.file, idsNode), node: idsNode, line: lineOf(call.file, idsNode, line) };
    const rendered = renderValue(arg.raw, call.scope);
    if (!rendered.ok) {
      renderArg(r, call, arg, t, "device_ids");
      return;
    }
    const list = Array.isArray(rendered.value) ? rendered.value.map(asText) : asText(rendered.value).split(",");
    ids.push(...list.map((s) => s.trim()).filter((s) => s !== ""));
    line = call.itemLine ?? arg.line;
  }
  if (ids.length > 0) emit(r, t.service, t.envFile, { kind: "gpus", value: ids.join(","), line, file: call.file.path });
  else if (isSequence(call.file, requests.node)) {
    problem(r, {
      kind: "unresolved",
      file: call.file.path,
      line,
      message: `device_requests of ${t.service} name no device_ids (count: -1 gives every card); kvgate keeps the env file's GPU`,
      service: t.service,
      key: "GPU",
    });
  }
}
