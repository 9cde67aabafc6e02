// The usage text, printed by --help and after a usage error. The formats of `check` come from the
// reporter table (src/report/reporters.ts); the README's CLI section is this text (a docs test).
import { FORMATS, REPORTERS } from "../report/reporters.js";

const formats = FORMATS.map((f) => `  ${f.padEnd(8)} ${REPORTERS[f].describe}`).join("\n");

export const USAGE = `usage: kvgate <command> [options]

commands:
  check    [--staged | --commit REV | --range A..B | --all] [--unit commit|range] [--repo DIR]
           [--config FILE] [--format ${FORMATS.join("|")}] [--output FILE] [--fail-on error|warning|never]
           [--baseline FILE]  findings of an earlier JSON report are exempt
           [--fix]  write the findings' value fixes into the working tree (never the index), check again
  audit    --range A..B [--shard I/N] [--repo DIR] [--config FILE] [--format text|json] [--output FILE]
  explain  [SERVICE] [--repo DIR] [--config FILE] [--format text|json]
  plan     [--host H] [--raise-contexts] [--repo DIR] [--config FILE] [--format text|json]
  init     [--repo DIR]
  hook     prepare-commit-msg FILE [SOURCE [SHA]]
  schema   print the JSON Schema of kvgate.yaml
  rules    [RULE...] [--format text|json|markdown]  every rule (with RULE: that rule and its page)
  usage    (--litellm FILE... | --litellm-db postgresql://…) [--since T] [--until T] [--format text|json]
           [--min-requests N] [--min-span D] [--metrics FILE...] [--connect-timeout D] [--statement-timeout D]
           what each service's LiteLLM traffic was, and the context, KV and output cap it needs
  observe  --metrics FILE... [--host H] [--since T] [--until T] [--format text|json|svg] [--output FILE]
           [--write FILE]  GPU memory at boot and at plateau per card (nvidia-smi, DCGM, Beszel), and
           vLLM's own KV use and preemptions per seat

check --format:
${formats}

options:
  -h, --help     this text; \`kvgate <command> --help\` for a command's flags
  -v, --version  the version

exit codes: 0 pass, 1 refused, 2 could not run (usage, config, git; the gate fails closed)
`;

export const USAGE_LINE =
  "usage: kvgate check [--staged | --commit REV | --range A..B | --all] [options]; `kvgate --help` for all commands";
