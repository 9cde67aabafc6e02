// What the env parser returns: every KEY=VALUE line, the flags inside command keys, the positional
// words, and the problems, each with its line. Plain data; the model builds services from it.

/** One KEY=VALUE line of an env file after unquoting. */
export interface EnvEntry {
  key: string;
  value: string;
  line: number;
  exported: boolean;
  /** True when the value was single- or double-quoted (shell-word splitting still applies to flag keys). */
  quoted: boolean;
  /** Set when the entry comes from another file than the env file (a playbook's edit). */
  file?: string;
  /** The variable that holds the value in `file` (an Ansible variable a template renders), when not `key`. */
  variable?: string;
  /** `variable` is written as YAML (`name: value`). */
  yaml?: boolean;
}

/** One command-line flag found inside an ARGS/CMD/COMMAND/*_ARGS/*_FLAGS/*_OPTS value. */
export interface EnvFlag {
  /** Normalised: `--max_model_len` → `--max-model-len`; short flags kept as written (`-tp`). */
  name: string;
  /** As written in the file. */
  spelled: string;
  /** The flag's value; `null` for a bare switch (`--enforce-eager`). */
  value: string | null;
  /** The env key whose value held the flag. */
  fromKey: string;
  line: number;
  /** Set when the flag comes from another file than the env file (a playbook's edit). */
  file?: string;
  /** The variable that holds the flag's value in `file` (an Ansible variable a template renders). */
  variable?: string;
  /** `variable` is written as YAML (`name: value`). */
  yaml?: boolean;
  /** How that file spells the setting, when not as the flag (a chart values key, `maxModelLen`). */
  written?: string;
}

interface EnvProblem {
  kind: "parse" | "duplicate-key";
  line: number;
  message: string;
  key?: string;
}

/** A parsed env file: the last value of each key, every flag, the positional words of command keys. */
export interface ParsedEnv {
  file: string;
  /** Last value per key (a duplicate key: the last wins). */
  entries: Map<string, EnvEntry>;
  /** Every entry in file order, duplicates included. */
  all: EnvEntry[];
  flags: EnvFlag[];
  /** Words of command keys that are not flags or flag values, in order (`vllm serve Qwen/Qwen3-8B`). */
  positionals: { word: string; fromKey: string; line: number }[];
  problems: EnvProblem[];
  /**
   * The engine reads its settings from its command line only: the env as a container running `vllm
   * serve` sees it (compose's environment and env_file reach the process, and vLLM reads none of
   * MAX_MODEL_LEN, KV_CACHE_MEMORY_BYTES, …: only VLLM_* variables). A setting with a flag is then read
   * from the flag alone (src/model/settings.ts).
   */
  engineFlagsOnly?: boolean;
}
