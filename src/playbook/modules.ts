// The modules that write a service's env: lineinfile, blockinfile, copy, template, docker_container.
// Each turns its arguments into EnvEdits with the line the value is written on. Unknown modules are
// not handlers and are skipped by the reader.
import { loadPack } from "../rules/load.js";
import { join as shellJoin, split as shellSplit } from "shlex";
import { parseEnv } from "../parse/env.js";
import { emit, locate, problem, type PlaybookWalk } from "./walk.js";
import { contentLineOf, isMapping, isSequence, itemsOf, lineOf, pairsOf, scalarText, toJs, type YamlFile } from "./nodes.js";
import { asText, render, renderValue, type Scope } from "./template.js";

export interface ModuleCall {
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
}

function targetOfEnvPath(r: PlaybookWalk, path: string): Target | null {
  const base = path.split("/").pop() ?? path;
  const m = /^([A-Za-z0-9_.@-]+)\.env$/.exec(base);
  if (!m) return null;
  const service = m[1] as string;
  return { service, envFile: r.opts.services?.get(service) ?? `scripts/${service}.env` };
}

/** The service a destination writes: its file name is `<service>.env` (the folder may stay a variable). */
function destination(r: PlaybookWalk, call: ModuleCall, args: Map<string, Arg>, names: string[]): Target | null {
  const arg = names.map((n) => args.get(n)).find((a) => a !== undefined);
  if (!arg) return null;
  const raw = asText(arg.raw);
  const rendered = render(raw, call.scope);
  if (rendered.ok) return targetOfEnvPath(r, asText(rendered.value));
  // `{{ fleet_root }}/scripts/voices.env` names its service even when the folder is unknown.
  const base = raw.split("/").pop() ?? raw;
  if (!base.includes("{{") && !base.includes("{%")) return targetOfEnvPath(r, base);
  if (/\.env["']?\s*$/.test(raw)) {
    problem(r, {
      kind: "unresolved",
      file: call.file.path,
      line: lineFor(call, arg),
      message: `${call.module} destination ${raw}: ${rendered.reason}; kvgate cannot tell which service this task deploys`,
    });
  }
  return null;
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

/** What kvgate could not read and what would let it; long token-like runs are masked (never echo a credential). */
function unresolvedMessage(what: string, expr: string, reason: string): string {
  const fix = /is not defined/.test(reason)
    ? "define it in the play's vars or an in-repo vars_files if kvgate should check it"
    : "kvgate reads plain variables, literals and the filters default, int, string and trim";
  return `${what}: ${maskTokens(expr)} cannot be read: ${maskTokens(reason)}; the setting is skipped (${fix})`;
}

function maskTokens(s: string): string {
  return s.replace(/[A-Za-z0-9_-]{24,}/g, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? `${run.slice(0, 4)}…${run.slice(-2)}` : run));
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

/** `KEY=VALUE` text (one line or many) as set edits; `exact` maps the text's lines onto the file's. */
function envTextEdits(
  r: PlaybookWalk,
  call: ModuleCall,
  t: Target,
  text: string,
  start: number,
  exact: boolean,
  file: string,
  renderIt: boolean,
): void {
  const lines = text.split(/\r?\n/);
  const rendered: string[] = [];
  let statementsSeen = false;
  lines.forEach((line, i) => {
    const at = exact ? start + i : start;
    if (!renderIt) return void rendered.push(line);
    if (/^\s*\{%.*%\}\s*$/.test(line)) {
      statementsSeen = true;
      return void rendered.push("");
    }
    const out = render(line, call.scope);
    if (out.ok) return void rendered.push(asText(out.value));
    const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1];
    problem(r, {
      kind: "unresolved",
      file,
      line: at,
      message: unresolvedMessage(`${key ?? "a line"} for ${t.service}`, out.expr, out.reason),
      service: t.service,
      ...(key ? { key } : {}),
    });
    rendered.push("");
  });
  if (statementsSeen) {
    problem(r, {
      kind: "unresolved",
      file,
      line: start,
      message: `${file} uses Jinja statements ({% %}); kvgate reads every line as if each branch were taken`,
      service: t.service,
    });
  }
  const parsed = parseEnv(rendered.join("\n"), file);
  for (const e of parsed.all)
    emit(r, t.service, t.envFile, { kind: "set", key: e.key, value: e.value, line: exact ? start + e.line - 1 : start, file });
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
  emit(r, t.service, t.envFile, { kind: "set", key: entry.key, value: entry.value, line, file });
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
  envTextEdits(r, call, t, asText(block.raw), at.line, at.exact, call.file.path, true);
}

function copy(r: PlaybookWalk, call: ModuleCall): void {
  const args = argsOf(call);
  const t = destination(r, call, args, ["dest"]);
  if (!t) return;
  const content = args.get("content");
  if (content) {
    const at = call.itemLine === null ? contentLineOf(call.file, content.node, content.line) : { line: call.itemLine, exact: false };
    emit(r, t.service, t.envFile, { kind: "reset", line: lineFor(call, content), file: call.file.path });
    envTextEdits(r, call, t, asText(content.raw), at.line, at.exact, call.file.path, true);
    return;
  }
  const src = args.get("src");
  if (!src) return;
  if (/^(true|yes|1)$/i.test(asText(args.get("remote_src")?.raw ?? ""))) {
    problem(r, {
      kind: "unresolved",
      file: call.file.path,
      line: lineFor(call, src),
      message: `copy remote_src to ${t.envFile}: the source is on the host, so what it writes is unknown to kvgate; the committed env file is checked instead`,
      service: t.service,
    });
    return;
  }
  // copy does not template its src: the file is written as it is.
  fromRepoFile(r, call, t, src, ["files", ""], false);
}

function template(r: PlaybookWalk, call: ModuleCall): void {
  const args = argsOf(call);
  const t = destination(r, call, args, ["dest"]);
  const src = args.get("src");
  if (t && src) fromRepoFile(r, call, t, src, ["templates", "../templates", ""], true);
}

function fromRepoFile(r: PlaybookWalk, call: ModuleCall, t: Target, src: Arg, subdirs: string[], renderIt: boolean): void {
  const rel = renderArg(r, call, src, t);
  if (rel === null) return;
  const path = locate(r, call.file.path, rel, subdirs);
  const text = path === null ? null : r.read(path);
  if (path === null || text === null) {
    problem(r, {
      kind: "unresolved",
      file: call.file.path,
      line: lineFor(call, src),
      message: `${call.module} src ${rel} is not in the repository; what it writes to ${t.envFile} is unknown to kvgate`,
      service: t.service,
    });
    return;
  }
  if (!r.out.files.includes(path)) r.out.files.push(path);
  emit(r, t.service, t.envFile, { kind: "reset", line: lineFor(call, src), file: call.file.path });
  envTextEdits(r, call, t, text, 1, true, path, renderIt);
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
        if (value !== null) emit(r, t.service, t.envFile, { kind: "set", key, value, line: lineFor(call, arg), file });
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
