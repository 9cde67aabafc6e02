// Which engine a service runs when its env file has no ENGINE key (docs/engines.md). Operators write
// what the container runs (an image, a command line, the engine's own flags) and rarely a label for
// kvgate; reading only ENGINE left such seats unchecked and the gate said PASS. Each engine's
// `recognise` traits in rules/engines.yaml say what names it; no engine is named here.
import picomatch from "picomatch";
import { split as shellSplit } from "shlex";
import type { EngineSpec } from "../rules/engines.js";
import type { EngineRecognition, EnvEntry, Origin, ParsedEnv } from "./types.js";
import { isFlagKey } from "../parse/env.js";
import { originOfEntry, originOfFlag } from "./settings.js";

/** A key that holds the container image a service runs: IMAGE, DOCKER_IMAGE, VLLM_IMAGE, … (compose's
 *  `image:` is read as IMAGE). Operators name the variable after the engine (`VLLM_IMAGE`) as often as not. */
const IMAGE_KEY = /(^|_)IMAGE$/;

/** The service's image entries, IMAGE first: what it runs, as far as an env file can say. */
export function imageEntries(parsed: ParsedEnv): EnvEntry[] {
  const out = parsed.all.filter((e) => IMAGE_KEY.test(e.key) && e.value.trim() !== "" && parsed.entries.get(e.key) === e);
  return out.sort((a, b) => Number(b.key === "IMAGE") - Number(a.key === "IMAGE"));
}

type Evidence = { engine: string; evidence: string; origin: Origin };
type Kind = Exclude<EngineRecognition["by"], "ENGINE" | "none">;

/**
 * `docker.io/vllm/vllm-openai:v0.11.0@sha256:…` → `vllm/vllm-openai:v0.11.0`: the registry host and
 * Docker Hub's `library/` do not change what runs, and a digest pins the same image.
 */
export function imageName(image: string): string {
  let s = image.trim().replace(/@sha256:[0-9a-f]+$/i, "");
  const first = s.split("/")[0] ?? "";
  if (s.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost")) s = s.slice(first.length + 1);
  return s.replace(/^library\//, "");
}

function imageMatches(pattern: string, image: string): boolean {
  let match = IMAGE_MATCHERS.get(pattern);
  if (!match) IMAGE_MATCHERS.set(pattern, (match = picomatch(pattern, { dot: true })));
  return match(imageName(image));
}

/** The words of a command key's value, or null when the value cannot be split (env/parse says so). */
function wordsOf(entry: EnvEntry): string[] | null {
  try {
    return shellSplit(entry.value.replace(/\\\n/g, " "));
  } catch {
    return null;
  }
}

/** `python3 -m vllm.entrypoints…` is found in `exec /usr/bin/python3 -m vllm.entrypoints… --port 8000`. */
function runsCommand(words: readonly string[], command: string): boolean {
  const want = command.split(/\s+/).filter((w) => w !== "");
  const base = (w: string, i: number) => (i === 0 ? (w.split("/").pop() ?? w) : w);
  for (let i = 0; i + want.length <= words.length; i++) {
    if (want.every((w, j) => base(words[i + j] as string, j) === w)) return true;
  }
  return false;
}

/** Compiled once per pattern: a compose file of thousands of services recognises each one's image. */
const IMAGE_MATCHERS = new Map<string, (s: string) => boolean>();

function byImage(engines: Record<string, EngineSpec>, parsed: ParsedEnv): Evidence[] {
  const out: Evidence[] = [];
  for (const entry of imageEntries(parsed)) {
    for (const [name, spec] of Object.entries(engines)) {
      const hit = spec.recognise?.images.find((p) => imageMatches(p, entry.value));
      if (hit)
        out.push({ engine: name, evidence: `${entry.key}=${entry.value.trim()} matches ${hit}`, origin: originOfEntry(parsed, entry) });
    }
  }
  return out;
}

function byCommand(engines: Record<string, EngineSpec>, parsed: ParsedEnv): Evidence[] {
  const out: Evidence[] = [];
  for (const entry of parsed.all) {
    if (!isFlagKey(entry.key)) continue;
    const words = wordsOf(entry);
    if (!words) continue;
    for (const [name, spec] of Object.entries(engines)) {
      const hit = spec.recognise?.commands.find((c) => runsCommand(words, c));
      if (hit) out.push({ engine: name, evidence: `${entry.key} runs \`${hit}\``, origin: originOfEntry(parsed, entry) });
    }
  }
  return out;
}

function byCommandWord(engines: Record<string, EngineSpec>, parsed: ParsedEnv): Evidence[] {
  const out: Evidence[] = [];
  for (const p of parsed.positionals) {
    for (const [name, spec] of Object.entries(engines)) {
      if (spec.recognise?.command_words.includes(p.word)) {
        out.push({
          engine: name,
          evidence: `${p.fromKey} names \`${p.word}\``,
          origin: { file: parsed.file, line: p.line, source: "flag", name: p.fromKey },
        });
      }
    }
  }
  return out;
}

function byFlag(engines: Record<string, EngineSpec>, parsed: ParsedEnv): Evidence[] {
  const out: Evidence[] = [];
  for (const f of parsed.flags) {
    for (const [name, spec] of Object.entries(engines)) {
      if (spec.recognise?.flags.includes(f.name))
        out.push({ engine: name, evidence: `${f.spelled}, a flag only ${name} has`, origin: originOfFlag(parsed, f) });
    }
  }
  return out;
}

/** `serve MODEL` in a command key, for the engines whose trait says it names them. */
function byServe(engines: Record<string, EngineSpec>, parsed: ParsedEnv): Evidence[] {
  const p = parsed.positionals;
  const i = p.findIndex((w, k) => w.word === "serve" && p[k + 1]?.fromKey === w.fromKey);
  if (i < 0) return [];
  const at = p[i] as (typeof p)[number];
  return Object.entries(engines)
    .filter(([, spec]) => spec.recognise?.serves_model)
    .map(([name]) => ({
      engine: name,
      evidence: `${at.fromKey} runs \`serve MODEL\``,
      origin: { file: parsed.file, line: at.line, source: "flag" as const, name: at.fromKey },
    }));
}

/** Strongest first: an image or a command line says what runs; a flag or `serve` only suggests it. */
const KINDS: readonly [Kind, (e: Record<string, EngineSpec>, p: ParsedEnv) => Evidence[]][] = [
  ["image", byImage],
  ["command", byCommand],
  ["command", byCommandWord],
  ["flag", byFlag],
  ["command", byServe],
];

export function recogniseFrom(engines: Record<string, EngineSpec>, parsed: ParsedEnv): EngineRecognition {
  for (const [by, find] of KINDS) {
    const found = find(engines, parsed);
    const names = [...new Set(found.map((e) => e.engine))];
    const first = found[0];
    if (!first) continue;
    if (names.length > 1)
      return { engine: null, by: "none", evidence: found.map((e) => e.evidence).join("; "), origin: first.origin, candidates: names };
    return { engine: first.engine, by, evidence: first.evidence, origin: first.origin };
  }
  return { engine: null, by: "none", evidence: null, origin: null };
}

/**
 * True when a command's words run an engine by its traits (a `recognise.commands` command, or a
 * `command_words` word followed by `serve`): what picks the server out of a container's `sh -c` script.
 */
export function runsEngineCommand(engines: Record<string, EngineSpec>, words: readonly string[]): boolean {
  return Object.values(engines).some(
    (spec) =>
      (spec.recognise?.commands ?? []).some((c) => runsCommand(words, c)) ||
      words.some((w, i) => (spec.recognise?.command_words ?? []).includes(w.split("/").pop() ?? w) && words[i + 1] === "serve"),
  );
}
