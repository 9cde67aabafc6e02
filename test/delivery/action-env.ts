// Runs the committed Action bundle (dist/action/index.js) the way the GitHub runner does: a node
// process with INPUT_* variables, an event payload file, and GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIT_ENV } from "../helpers/repo.js";
import { ROOT } from "../helpers/cli.js";

const ACTION = join(ROOT, "dist", "action", "index.js");

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** `::error file=…` lines parsed into their parts. */
  annotations: { level: string; props: Record<string, string>; message: string }[];
}

/** GITHUB_OUTPUT holds `name<<DELIM\nvalue\nDELIM` blocks (or `name=value` lines). */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name = "", delim] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i] ?? "");
      out[name] = value.join("\n");
    } else if (line.includes("=")) {
      out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return out;
}

function unescape(s: string): string {
  return s.replaceAll("%0A", "\n").replaceAll("%0D", "\r").replaceAll("%3A", ":").replaceAll("%2C", ",").replaceAll("%25", "%");
}

function parseAnnotations(stdout: string): ActionRun["annotations"] {
  const out: ActionRun["annotations"] = [];
  for (const line of stdout.split("\n")) {
    const m = /^::(error|warning|notice)(?: ([^:]*))?::(.*)$/.exec(line);
    if (!m) continue;
    const props: Record<string, string> = {};
    for (const kv of (m[2] ?? "").split(",").filter(Boolean)) props[kv.slice(0, kv.indexOf("="))] = unescape(kv.slice(kv.indexOf("=") + 1));
    out.push({ level: m[1] ?? "", props, message: unescape(m[3] ?? "") });
  }
  return out;
}

export function runAction(opts: {
  workspace: string;
  event: string;
  payload: unknown;
  inputs?: Record<string, string>;
  env?: Record<string, string>;
}): ActionRun {
  const tmp = mkdtempSync(join(tmpdir(), "kvgate-action-"));
  try {
    const eventPath = join(tmp, "event.json");
    const outputPath = join(tmp, "output");
    const summaryPath = join(tmp, "summary.md");
    writeFileSync(eventPath, JSON.stringify(opts.payload));
    writeFileSync(outputPath, "");
    writeFileSync(summaryPath, "");
    const env: Record<string, string | undefined> = {
      ...GIT_ENV,
      GITHUB_ACTIONS: "true",
      GITHUB_EVENT_NAME: opts.event,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_OUTPUT: outputPath,
      GITHUB_STEP_SUMMARY: summaryPath,
      GITHUB_WORKSPACE: opts.workspace,
      NO_COLOR: "1",
      ...opts.env,
    };
    for (const k of Object.keys(env)) if (k.startsWith("INPUT_")) delete env[k];
    // GitHub's convention: INPUT_ + the name upper-cased, spaces to underscores, hyphens kept.
    for (const [name, value] of Object.entries(opts.inputs ?? {})) env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] = value;
    const r = spawnSync(process.execPath, [ACTION], { cwd: opts.workspace, env: env, encoding: "utf8" });
    return {
      code: r.status,
      stdout: r.stdout,
      stderr: r.stderr,
      outputs: parseOutputs(readFileSync(outputPath, "utf8")),
      summary: existsSync(summaryPath) ? readFileSync(summaryPath, "utf8") : "",
      annotations: parseAnnotations(r.stdout),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
