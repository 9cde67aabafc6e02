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
   * compose `command:`): where the file's other flags live. `line` is that key's line.
   */
  into?: string;
}

/** How a message says the fix: `KEY=value`, `--flag value`, `--flag value in VLLM_EXTRA_ARGS`, or a YAML key's `key: value` (a chart's `maxModelLen`, `nvidia.com/gpu`). */
export function showFix(fix: Pick<ValueFix, "key" | "value" | "into">): string {
  if (!fix.key.startsWith("-")) return /[a-z]/.test(fix.key) ? `${fix.key}: ${fix.value}` : `${fix.key}=${fix.value}`;
  return fix.into ? `${fix.key} ${fix.value} in ${fix.into}` : `${fix.key} ${fix.value}`;
}
