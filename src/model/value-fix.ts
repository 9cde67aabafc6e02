// A fix that is a value: which file, which line, the key as the file spells it (the env key, or the
// flag when the value came from a flag), and the value to write. Findings carry it as `data.fix`;
// `kvgate check --fix` writes it into the working tree.

export interface ValueFix {
  /** Repo-relative path of the file that sets (or should set) the value. */
  file: string;
  /** The line that sets it now; null when the file does not set it yet (the fix adds a line). */
  line: number | null;
  /** `MAX_MODEL_LEN`, or `--max-model-len` as written in the file. */
  key: string;
  /** The value to write, as the engine reads it (plain integers for bytes and tokens). */
  value: string;
  /**
   * A flag the file does not set yet, to add inside the value of this key (`VLLM_EXTRA_ARGS`, a
   * unit's `ExecStart`), or `command`: a YAML container command (a compose `command:`, a Kubernetes
   * `args:`) whose process is vLLM's server. Where the file's other flags live; `line` is that key's line.
   */
  into?: string;
  /** `key` is a YAML key (an Ansible variable in host_vars, say): the fix reads `key: value`. */
  yaml?: boolean;
  /**
   * The same value where the committed env file sets it, when a deploy file (compose, a playbook) sets
   * the value that runs: part of the fix, so the two files still agree after it (playbook/drift).
   */
  also?: ValueFix;
}

/**
 * How a message says the fix: `KEY=value`, `--flag value`, `--flag value in VLLM_EXTRA_ARGS`, or a YAML
 * key's `key: value` (an Ansible variable in host_vars, a chart's `maxModelLen`, `nvidia.com/gpu`).
 */
export function showFix(fix: Pick<ValueFix, "key" | "value" | "into" | "yaml" | "also">): string {
  return showFixes([fix]);
}

/**
 * Several fixes in one phrase: `--max-model-len 40960 and --kv-cache-memory-bytes 8053063680`, then where
 * the committed env file gets the same (`(the same in scripts/chat.env)`) or what it gets instead.
 */
export function showFixes(fixes: readonly Pick<ValueFix, "key" | "value" | "into" | "yaml" | "also">[]): string {
  const own = fixes.map(showOne).join(" and ");
  const also = fixes.flatMap((f) => (f.also ? [{ fix: f, also: f.also }] : []));
  if (also.length === 0) return own;
  const files = new Set(also.map((a) => a.also.file));
  const same = also.every((a) => a.also.key === a.fix.key && a.also.value === a.fix.value);
  if (same && files.size === 1) return `${own} (the same in ${also[0]?.also.file})`;
  return `${own} (and ${also.map((a) => `${showOne(a.also)} in ${a.also.file}`).join(" and ")})`;
}

function showOne(fix: Pick<ValueFix, "key" | "value" | "into" | "yaml">): string {
  if (fix.yaml) return `${fix.key}: ${fix.value}`;
  if (!fix.key.startsWith("-")) return /[a-z]/.test(fix.key) ? `${fix.key}: ${fix.value}` : `${fix.key}=${fix.value}`;
  if (fix.into === "command") return `${fix.key} ${fix.value} in its command`;
  return fix.into ? `${fix.key} ${fix.value} in ${fix.into}` : `${fix.key} ${fix.value}`;
}
