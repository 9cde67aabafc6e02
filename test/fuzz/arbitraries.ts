// Generators shared by the fuzz tests: realistic env-file, YAML and commit-message shapes, so the
// properties are exercised on what users write and not only on random noise.
import fc from "fast-check";

/** Bounded run counts: the whole fuzz suite must stay well under 20 s on a 2-core machine. */
export const RUNS = { cheap: 400, medium: 150, heavy: 60 } as const;

export const envKey = fc.oneof(
  fc.constantFrom(
    "ENGINE",
    "HOST",
    "GPU",
    "MODEL",
    "TP",
    "MAX_MODEL_LEN",
    "KV_CACHE_MEMORY_BYTES",
    "SERVE_ARGS",
    "HOST_POOL_MIB",
    "_X",
    "a1",
  ),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
);

/** Characters that stress quoting: quotes, escapes, comment marks, shell specials, CR, unicode. */
const nasty = fc.constantFrom(
  "'",
  '"',
  "\\",
  "#",
  " ",
  "\t",
  "$",
  "`",
  "=",
  "\r",
  "\n",
  "\\n",
  "é",
  "\u00a0",
  "\u2028",
  "{",
  "}",
  ";",
  "--",
  "\0",
);
export const envValue = fc
  .array(fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 2, arbitrary: nasty }), { maxLength: 8 })
  .map((parts) => parts.join(""));

const flagName = fc.constantFrom(
  "--max-model-len",
  "--max_model_len",
  "--kv-cache-memory-bytes",
  "--kv-cache-memory",
  "-tp",
  "--tensor-parallel-size",
  "--enforce-eager",
  "--hf-overrides",
  "--model",
  "--vram-kv-mib",
);
const flagValue = fc.oneof(
  fc.constantFrom(
    "40960",
    "32k",
    "32K",
    "22GiB",
    "22GB",
    "22G",
    "-1",
    "4096.5",
    '\'{"rope_scaling":{"rope_type":"yarn"}}\'',
    '"a b"',
    "'unterminated",
    "\\",
  ),
  fc.string({ maxLength: 5 }),
);
/** A command line as it appears in SERVE_ARGS: flags, `--flag=value`, bare switches, positionals. */
const serveArgs = fc
  .array(
    fc.oneof(
      fc.tuple(flagName, flagValue).map(([f, v]) => `${f} ${v}`),
      fc.tuple(flagName, flagValue).map(([f, v]) => `${f}=${v}`),
      flagName,
      fc.constantFrom("vllm", "serve", "Qwen/Qwen3-8B", "\\\n"),
    ),
    { maxLength: 6 },
  )
  .map((w) => w.join(" "));

/** One physical (or quoted multi-line) line of an env file, in every shape the parser knows and some it does not. */
export const envLine = fc.oneof(
  fc.tuple(fc.boolean(), envKey, envValue).map(([e, k, v]) => `${e ? "export " : ""}${k}=${v}`),
  fc.tuple(envKey, envValue).map(([k, v]) => `${k}='${v}'`),
  fc.tuple(envKey, envValue).map(([k, v]) => `${k}="${v}"`),
  fc.tuple(envKey, envValue, fc.string({ maxLength: 6 })).map(([k, v, c]) => `${k}=${v} # ${c}`),
  serveArgs.map((a) => `SERVE_ARGS="${a}"`),
  serveArgs.map((a) => `VLLM_FLAGS='${a}'`),
  fc.string({ maxLength: 10 }).map((c) => `# ${c}`),
  fc.constantFrom("", "   ", "export", "=x", "1A=2", "A B=1", "export  A=1", 'A="open', "A='x' tail", "\uFEFFA=1"),
  fc.string({ maxLength: 20 }),
);

export const envText = fc
  .tuple(fc.array(envLine, { maxLength: 12 }), fc.constantFrom("\n", "\r\n"), fc.boolean(), fc.boolean())
  .map(([lines, eol, bom, trailing]) => (bom ? "\uFEFF" : "") + lines.join(eol) + (trailing ? eol : ""));

/** A commit message: subject, body paragraphs, a trailer-ish last paragraph. */
const trailerKey = fc.oneof(
  fc.constantFrom("Signed-off-by", "Co-authored-by", "Kvgate-Waive", "Kvgate-Verdict", "Reviewed-by", "Fixes"),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,10}$/),
);
const trailerLine = fc.oneof(
  fc.tuple(trailerKey, fc.string({ maxLength: 20 })).map(([k, v]) => `${k}: ${v}`),
  fc.tuple(trailerKey, fc.string({ maxLength: 10 })).map(([k, v]) => `${k}:${v}`),
  fc.string({ maxLength: 10 }).map((v) => ` ${v}`),
  fc.string({ maxLength: 10 }).map((v) => `# ${v}`),
  fc.string({ maxLength: 20 }),
);
export const commitMessage = fc
  .tuple(
    fc.string({ maxLength: 20 }),
    fc.array(fc.string({ maxLength: 30 }), { maxLength: 3 }),
    fc.array(trailerLine, { maxLength: 6 }),
    fc.constantFrom("\n", "\r\n"),
  )
  .map(([subject, body, trailers, eol]) => [subject, "", ...body.flatMap((p) => [p, ""]), ...trailers].join(eol));
