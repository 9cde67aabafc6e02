// A playbook's edits laid over the committed env file: the ParsedEnv the service builder turns into
// the deployed Service. Every entry and flag an edit writes carries the playbook's file and line, so
// a sizing finding about a deployed value points at the task that deploys it.
import { split as shellSplit } from "shlex";
import { isFlagKey, parseEnv } from "../parse/env.js";
import type { EnvEntry, ParsedEnv } from "../parse/env-types.js";
import type { EnvEdit, PlaybookDeploy } from "./records.js";

function emptyEnv(file: string): ParsedEnv {
  return { file, entries: new Map(), all: [], flags: [], positionals: [], problems: [] };
}

/** The env key a `gpus` edit writes: the one the env file already uses (GPU wins over CUDA_VISIBLE_DEVICES). */
export function gpuKeyOf(env: ParsedEnv): string {
  return !env.entries.has("GPU") && env.entries.has("CUDA_VISIBLE_DEVICES") ? "CUDA_VISIBLE_DEVICES" : "GPU";
}

/** Applies the edits in order. The base is not changed; its own problems are kept (the env checks report them). */
export function overlayEnv(base: ParsedEnv, edits: readonly EnvEdit[]): ParsedEnv {
  const env: ParsedEnv = {
    file: base.file,
    entries: new Map(base.entries),
    all: [...base.all],
    flags: [...base.flags],
    positionals: [...base.positionals],
    problems: [...base.problems],
  };
  for (const edit of edits) {
    switch (edit.kind) {
      case "reset":
        env.entries.clear();
        env.all = [];
        env.flags = [];
        env.positionals = [];
        break;
      case "set":
        setEntry(env, edit.key, edit.value, edit.line, edit.file);
        break;
      case "remove":
        removeKey(env, edit.key);
        break;
      case "flags":
        // A container's command is the whole command line: the env file's flag keys are not run.
        for (const key of [...env.entries.keys()]) if (isFlagKey(key)) removeKey(env, key);
        setEntry(env, edit.key, edit.value, edit.line, edit.file, edit.wordLines, edit.wordKeys);
        break;
      case "gpus":
        setEntry(env, gpuKeyOf(env), edit.value, edit.line, edit.file);
        break;
      default:
        edit satisfies never;
    }
  }
  return env;
}

/** The deployed env of a deploy: the committed env file (or nothing, when it is not committed) with the edits. */
export function deployedEnv(deploy: PlaybookDeploy, committed: ParsedEnv | null): ParsedEnv {
  return overlayEnv(committed ?? emptyEnv(deploy.envFile), deploy.edits);
}

function removeKey(env: ParsedEnv, key: string): void {
  env.entries.delete(key);
  env.all = env.all.filter((e) => e.key !== key);
  env.flags = env.flags.filter((f) => f.fromKey !== key);
  env.positionals = env.positionals.filter((p) => p.fromKey !== key);
}

/** Like lineinfile with a regexp: the key's line is replaced where it was, or appended. */
function setEntry(
  env: ParsedEnv,
  key: string,
  value: string,
  line: number,
  file: string,
  wordLines?: readonly number[],
  wordKeys?: readonly (string | null)[],
): void {
  const entry: EnvEntry = { key, value, line, exported: false, quoted: false, file };
  const at = env.all.findIndex((e) => e.key === key);
  const rest = env.all.filter((e) => e.key !== key);
  if (at < 0) rest.push(entry);
  else rest.splice(Math.min(at, rest.length), 0, entry);
  env.all = rest;
  env.entries.set(key, entry);
  if (!isFlagKey(key)) return;
  env.flags = env.flags.filter((f) => f.fromKey !== key);
  env.positionals = env.positionals.filter((p) => p.fromKey !== key);
  const parsed = parseEnv(`${key}="${value.replace(/[\\"$`]/g, (c) => "\\" + c)}"`, file);
  // A deployed command that cannot be split is an error, not an empty command line (fail closed).
  for (const prob of parsed.problems) env.problems.push({ ...prob, line, message: `${file}:${line}: ${prob.message}` });
  const indexOfWord = wordIndexOf(value, wordLines !== undefined);
  for (const f of parsed.flags) {
    const i = indexOfWord(f.spelled, f.value);
    const written = i === undefined ? null : (wordKeys?.[i] ?? null);
    env.flags.push({ ...f, line: (i === undefined ? undefined : wordLines?.[i]) ?? line, file, ...(written ? { written } : {}) });
  }
  for (const p of parsed.positionals) {
    const i = indexOfWord(p.word);
    env.positionals.push({ ...p, line: (i === undefined ? undefined : wordLines?.[i]) ?? line });
  }
}

/** Finds each flag's or positional's word, in order, and answers with that word's index. */
function wordIndexOf(value: string, located: boolean): (word: string, flagValue?: string | null) => number | undefined {
  if (!located) return () => undefined;
  let words: string[] = [];
  try {
    words = shellSplit(value);
  } catch {
    return () => undefined;
  }
  const used = new Set<number>();
  return (word, flagValue) => {
    const isFlag = flagValue !== undefined;
    const i = words.findIndex((w, j) => !used.has(j) && (w === word || (isFlag && w.startsWith(word + "="))));
    if (i < 0) return undefined;
    used.add(i);
    // `--flag value` as two words: the value is not a positional.
    if (isFlag && flagValue !== null && words[i] === word) used.add(i + 1);
    return i;
  };
}
