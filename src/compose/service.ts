// One compose service as a deploy: the env edits it makes, in the order Compose gives them weight —
// its env_files' settings, then `environment` over them (compose spec, services `env_file`: "values
// set by environment have precedence"), then `image` (as IMAGE), the command line (as one `flags`
// edit) and the cards (as one `gpus` edit). The same edits a playbook's docker_container task makes,
// so the playbook overlay lays them over the committed env file unchanged.
import { posix } from "node:path";
import type { EnvEdit } from "../playbook/records.js";
import { problem, readText, resolvePath, unresolved, type Ctx } from "./context.js";
import { readDotEnv, type DotEnv } from "./dotenv.js";
import type { VarValue } from "./interpolate.js";
import { envItemsOf } from "./merge.js";
import { commandOf } from "./command.js";
import { gpusOf, type GpuVar } from "./gpus.js";
import { get, getIn, textOf, type CNode } from "./tree.js";
import type { ServiceDef } from "./app.js";
import type { ComposeDeploy } from "./records.js";

/** Env keys that choose cards: they become the one `gpus` edit, never a plain setting. */
const GPU_KEYS = new Set(["NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"]);

interface LoadedEnvFile {
  path: string;
  env: DotEnv;
}

export function deployOf(ctx: Ctx, s: ServiceDef): ComposeDeploy {
  const { name, def } = s;
  const containerNode = get(def, "container_name");
  const containerName = containerNode?.t === "str" && !containerNode.unresolved ? containerNode.value : null;
  const envFiles = envFilesOf(ctx, name, get(def, "env_file"), s);
  const target = targetOf(
    ctx,
    name,
    containerName,
    envFiles.map((f) => f.path),
  );
  const edits: EnvEdit[] = [];
  const gpuVars = new Map<string, GpuVar>();
  // The environment the container gets (env_file, then environment over it): what its shell expands.
  const container = new Map<string, VarValue>();

  for (const f of envFiles) {
    for (const e of f.env.entries) {
      container.set(e.key, e.value === null ? { state: "unknown", vars: e.vars ?? [e.key] } : { state: "set", value: e.value });
      const node: CNode = {
        t: "str",
        value: e.value,
        pos: { file: f.path, line: e.line },
        ...(e.value === null ? { unresolved: { vars: e.vars ?? [] } } : {}),
      };
      if (GPU_KEYS.has(e.key)) {
        gpuVars.set(e.key, { key: e.key, value: e.value, node });
        continue;
      }
      // The service's own env file is what the deploy is laid over: its settings are already there.
      if (f.path === target.envFile) continue;
      if (e.value === null) unresolved(ctx, node, `${e.key} for ${target.service}`, target.service, e.key);
      else edits.push({ kind: "set", key: e.key, value: e.value, line: e.line, file: f.path });
    }
  }

  for (const item of envItemsOf(get(def, "environment"))) {
    const node = item.node;
    let value = item.value;
    container.set(item.key, value === null ? { state: "unknown", vars: [item.key] } : { state: "set", value });
    if (value === null && node.t === "str" && !node.unresolved) {
      // A bare KEY takes its value from the environment Compose runs in: the `.env`, else the shell.
      const v = s.project.env(item.key);
      if (v.state === "set") {
        value = v.value;
        container.set(item.key, { state: "set", value });
      } else {
        problem(ctx, {
          kind: "unresolved",
          file: node.pos.file,
          line: node.pos.line,
          message:
            `${item.key} for ${target.service} has no value in the compose file and none ` +
            `in the .env beside it; docker compose takes it from the deploy host's shell, ` +
            `which kvgate cannot see, so the setting is skipped (write ${item.key}=value)`,
          service: target.service,
          key: item.key,
        });
        if (GPU_KEYS.has(item.key)) gpuVars.set(item.key, { key: item.key, value: null, node: { ...node, unresolved: { vars: [] } } });
        continue;
      }
    }
    if (GPU_KEYS.has(item.key)) {
      gpuVars.set(item.key, { key: item.key, value, node });
      continue;
    }
    if (value === null) unresolved(ctx, node, `${item.key} for ${target.service}`, target.service, item.key);
    else edits.push({ kind: "set", key: item.key, value, line: node.pos.line, file: node.pos.file });
  }

  const image = get(def, "image");
  if (image?.t === "str" && image.unresolved) unresolved(ctx, image, `image of ${target.service}`, target.service, "IMAGE");
  else if (image?.t === "str" && image.value !== null)
    edits.push({ kind: "set", key: "IMAGE", value: image.value, line: image.pos.line, file: image.pos.file });

  const cmd = commandOf(ctx, target.service, def, (name) => container.get(name) ?? { state: "unset" });
  if (cmd) edits.push({ kind: "flags", key: "COMMAND", value: cmd.value, line: cmd.line, file: cmd.file, wordLines: cmd.wordLines });

  const gpus = gpusOf(ctx, target.service, def, gpuVars);
  if (gpus.cards?.value) edits.push({ kind: "gpus", value: gpus.cards.value, line: gpus.cards.pos.line, file: gpus.cards.pos.file });

  return {
    playbook: ctx.root,
    compose: ctx.root,
    service: target.service,
    envFile: target.envFile,
    edits,
    composeService: name,
    containerName,
    matchedBy: target.matchedBy,
    file: s.keyPos.file,
    line: s.keyPos.line,
    gpu: gpus.request,
    cards: gpus.cards?.line ?? null,
    envFiles: envFiles.map((f) => f.path),
    replicas: replicasOf(ctx, name, def, containerName),
    profiles: profilesOf(ctx, name, def),
    healthyFirst: healthyDependencies(get(def, "depends_on")),
    ...(cmd?.runsEngine ? { engineCommand: { file: cmd.file, line: cmd.line } } : {}),
  };
}

/**
 * How many containers compose starts (compose-go types.go GetScale: `scale`, else `deploy.replicas`,
 * else 1), with compose's refusals: the two set apart (loader/validate.go checkConsistency), a negative
 * count, and more than one container under one container_name (docker/compose convergence.go getScale).
 */
function replicasOf(ctx: Ctx, service: string, def: CNode, containerName: string | null): number {
  const read = (n: CNode | undefined, what: string): number | null => {
    if (n === undefined || (n.t === "str" && n.value === null && !n.unresolved)) return null;
    if (n.t === "str" && n.unresolved) {
      unresolved(ctx, n, `${what} of ${service}`, service);
      return null;
    }
    const t = textOf(n);
    return t !== null && /^-?\d+$/.test(t) ? Number(t) : null;
  };
  const scaleNode = get(def, "scale");
  const replicasNode = getIn(def, "deploy", "replicas");
  const scale = read(scaleNode, "scale");
  const replicas = read(replicasNode, "deploy.replicas");
  const refuse = (n: CNode, message: string): number => {
    problem(ctx, { kind: "parse", file: n.pos.file, line: n.pos.line, message: `services.${service}: ${message}`, service });
    return 1;
  };
  if (scale !== null && replicas !== null && scale !== replicas)
    return refuse(
      replicasNode as CNode,
      `can't set distinct values on 'scale' and 'deploy.replicas'; docker compose refuses the file (keep one)`,
    );
  const n = scale ?? replicas ?? 1;
  const at = (scale !== null ? scaleNode : replicasNode) as CNode;
  if (n < 0)
    return refuse(
      at,
      `${scale !== null ? "scale" : "deploy.replicas"} must be greater than or equal to 0; docker compose refuses the file`,
    );
  if (n > MAX_REPLICAS) {
    problem(ctx, {
      kind: "unresolved",
      file: at.pos.file,
      line: at.pos.line,
      message: `services.${service}: ${n} replicas; kvgate counts ${MAX_REPLICAS} of them on the service's cards (any card is long full by then)`,
      service,
    });
    return MAX_REPLICAS;
  }
  if (n > 1 && containerName !== null)
    return refuse(
      at,
      `${n} replicas under one container_name (${containerName}); docker compose refuses to ` +
        `start them (Docker requires each container to have a unique name: remove container_name)`,
    );
  return n;
}

/** Replicas counted at most: each is an entry of its card's usage. */
const MAX_REPLICAS = 1024;

/** The service's profiles (a list of names). */
function profilesOf(ctx: Ctx, service: string, def: CNode): string[] {
  const n = get(def, "profiles");
  const out: string[] = [];
  for (const item of n?.t === "seq" ? n.items : []) {
    if (item.t === "str" && item.unresolved) unresolved(ctx, item, `profiles of ${service}`, service);
    else {
      const t = textOf(item);
      if (t !== null) out.push(t);
    }
  }
  return out;
}

/**
 * The services this one starts after they report healthy: `depends_on: { x: { condition:
 * service_healthy } }` (compose spec, depends_on long syntax). The short list form and the other
 * conditions (service_started, service_completed_successfully) wait for a start, not a healthy
 * engine: a vLLM neighbour that has started may still be profiling.
 */
function healthyDependencies(node: CNode | undefined): string[] {
  if (node?.t !== "map") return [];
  const out: string[] = [];
  for (const [key, value] of node.entries) {
    const condition = get(value.value, "condition");
    if (condition?.t === "str" && condition.value === "service_healthy") out.push(key);
  }
  return out;
}

/** `env_file: x.env`, a list of paths, or `{ path, required, format }` items; files read in order. */
function envFilesOf(ctx: Ctx, service: string, node: CNode | undefined, s: ServiceDef): LoadedEnvFile[] {
  const out: LoadedEnvFile[] = [];
  const items = node?.t === "seq" ? node.items : node ? [node] : [];
  const known = new Set(ctx.opts.services?.values() ?? []);
  for (const item of items) {
    const pathNode = item.t === "map" ? get(item, "path") : item;
    if (!pathNode || (pathNode.t === "str" && pathNode.value === null && !pathNode.unresolved)) continue;
    if (pathNode.t === "str" && pathNode.unresolved) {
      unresolved(ctx, pathNode, `env_file of ${service}`, service);
      continue;
    }
    const written = textOf(pathNode);
    if (written === null) continue;
    const required = textOf(item.t === "map" ? get(item, "required") : undefined) !== "false";
    const raw = textOf(item.t === "map" ? get(item, "format") : undefined) === "raw";
    // Relative to the file that writes it (compose spec: "resolved from the Compose file's parent folder").
    const r = resolvePath(posix.dirname(pathNode.pos.file), written);
    if (!r.ok) {
      problem(ctx, {
        kind: "unresolved",
        file: pathNode.pos.file,
        line: pathNode.pos.line,
        message: `env_file of ${service}: ${r.why}; the settings it holds are unknown to kvgate`,
        service,
      });
      continue;
    }
    const text = readText(ctx, r.path);
    if (text === null) {
      if (required && ctx.source(r.path) === null) {
        problem(ctx, {
          kind: "unresolved",
          file: pathNode.pos.file,
          line: pathNode.pos.line,
          message:
            `env_file ${r.path} of ${service} is not in the repository; docker ` +
            `compose refuses to start without it, and the settings it holds are unknown ` +
            `to kvgate (commit it, or mark it required: false if it is optional)`,
          service,
        });
      }
      continue;
    }
    const env = readDotEnv(text, r.path, s.project.env, raw);
    // A fleet env file's own lines are reported by env/parse already.
    if (!known.has(r.path))
      for (const p of env.problems)
        problem(ctx, { kind: "parse", file: r.path, line: p.line, message: `${p.message}; docker compose refuses to load it`, service });
    out.push({ path: r.path, env });
  }
  return out;
}

interface Target {
  service: string;
  envFile: string;
  matchedBy: ComposeDeploy["matchedBy"];
}

/** The fleet service a compose service deploys: the one whose env file it loads, else the one named
 *  by its key or container_name (also without a `vllm-`/`radiance-` prefix); else its own key. */
function targetOf(ctx: Ctx, key: string, containerName: string | null, envPaths: string[]): Target {
  const known = ctx.opts.services;
  const stem = (p: string): string | null => /^(.+)\.env$/.exec(posix.basename(p))?.[1] ?? null;
  // Without the fleet's services the key names the service (its env file: one it loads named after it).
  if (!known) return { service: key, envFile: envPaths.find((p) => stem(p) === key) ?? `scripts/${key}.env`, matchedBy: null };
  for (const p of envPaths) {
    for (const [service, envFile] of known) if (envFile === p) return { service, envFile, matchedBy: "env_file" };
  }
  for (const p of envPaths) {
    const n = stem(p);
    const envFile = n === null ? undefined : known.get(n);
    if (n !== null && envFile) return { service: n, envFile, matchedBy: "env_file" };
  }
  const names: [string, Target["matchedBy"]][] = [
    [key, "key"],
    ...(containerName ? [[containerName, "container_name"] as [string, Target["matchedBy"]]] : []),
  ];
  for (const strip of [false, true]) {
    for (const [name, by] of names) {
      const n = strip ? name.replace(/^(vllm|radiance)[-_]/, "") : name;
      const envFile = known.get(n);
      if (envFile) return { service: n, envFile, matchedBy: by };
    }
  }
  return { service: key, envFile: `scripts/${key}.env`, matchedBy: null };
}
