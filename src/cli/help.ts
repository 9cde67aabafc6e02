// `kvgate <command> --help` (or `kvgate help <command>`): that command's usage line and its flags,
// each with what it does. The global `kvgate --help` (./usage.ts) lists the commands.
import { FORMATS, REPORTERS } from "../report/reporters.js";

const REPO =
  "  --repo DIR         the repository (or a folder inside one: " +
  "read as a fleet of its own); default: the\n                " +
  "     top level of the repository holding the current folder";
const CONFIG = "  --config FILE      use this kvgate.yaml instead of the repository's";
const OUTPUT = "  --output FILE      write the report to FILE instead of stdout";
const SINCE = "  --since T, --until T\n                     only what happened in [T, T) (a date or an ISO timestamp)";

const HELP: Record<string, string> = {
  check: `usage: kvgate check [--staged | --commit REV | --range A..B | --all] [options]

Gates a change: what it introduces that the rules refuse. Exit 0 pass, 1 refused, 2 could not run.

what to check (one of):
  --staged           the staged change (the default; what the pre-commit hook runs)
  --commit REV       one commit, against its first parent
  --range A..B       each commit of A..B (A...B: the commits of B since the merge base)
  --all              every file of the tree, every finding (also a folder that is not a repository)
options:
  --unit commit|range
                     with --range: each commit a deploy unit (default), or the range as one (squash merges)
${REPO}
${CONFIG}
  --format F         ${FORMATS.join(", ")} (default text):
${FORMATS.map((f) => `                       ${f.padEnd(7)} ${REPORTERS[f].describe}`).join("\n")}
${OUTPUT}
  --fail-on error|warning|never
                     the lowest severity of an open finding that refuses (default error)
  --baseline FILE    an earlier \`kvgate check --format json\` report: its findings are exempt
  --fix              write each finding's value fix into the working-tree files (never the index),
                     check again, and print what changed and what is left
  -h, --help         this text
`,
  audit: `usage: kvgate audit --range A..B [options]

Re-scans each commit of the range for secrets with the current policy and classifies it: clean,
exempt-only, secret-landed, bypass, verdict-mismatch. Exit 1 when a secret landed or the gate was bypassed.

options:
  --range A..B       the commits to audit (required); one revision (HEAD) audits every commit it
                     reaches, the root commit included
  --shard I/N        audit only the I-th of N contiguous blocks of the range (one job of a CI matrix)
${REPO}
${CONFIG}
  --format text|json (default text)
${OUTPUT}
  -h, --help         this text
`,
  explain: `usage: kvgate explain [SERVICE] [options]

The sizing tables of the working tree: each service's settings and where each came from, the KV
arithmetic, every card's memory, radiance funding and the TTM ledger.

options:
  SERVICE            only this service
${REPO}
${CONFIG}
  --format text|json (default text)
  -h, --help         this text
`,
  plan: `usage: kvgate plan [--host H] [options]

The proven-optimal layout of a host's seats over its cards, and the moves to get there.

options:
  --host H           only this host (default: every host with something to move)
  --raise-contexts   the layout that raises the most seats to their model's native maximum context,
                     every card keeping its reserve, and the settings to write
${REPO}
${CONFIG}
  --format text|json (default text)
  -h, --help         this text
`,
  init: `usage: kvgate init [--repo DIR] [--from-host [FILE]] [--host NAME[,NAME…]]

Installs the hooks (husky, the pre-commit framework or plain git, whichever the repository uses), a
starter kvgate.yaml and .github/workflows/kvgate.yml, then proves the hooks live on a canary commit.
Exit 0 live, 1 not live (the fix is printed), 2 could not run.

The starter kvgate.yaml lists the seats init found (env files anywhere, compose files, playbooks and
roles, systemd units) and the cards: from nvidia-smi with --from-host, else the totals an observed
file records (kvgate observe --write), else a GPU name the repository writes that rules/cards.yaml
knows, else a TODO stanza the check refuses every seat on.

options:
  --repo DIR         the repository (default: the one holding the current folder)
  --from-host [FILE] the card inventory from nvidia-smi --query-gpu=index,name,memory.total --format=csv:
                     run here (no FILE), or that output saved on the host
  --host NAME[,NAME…]
                     the hosts that inventory is for (identical machines; default: the host the seats
                     name, else this machine's name)
  -h, --help         this text
`,
  hook: `usage: kvgate hook prepare-commit-msg FILE [SOURCE [SHA]]

Run by git as the prepare-commit-msg hook: adds the Kvgate-Verdict trailer (and a
Kvgate-Allowed-Secret trailer per secret the override let through) from the verdict \`check --staged\`
recorded for the tree being committed.

options:
  -h, --help         this text
`,
  schema: `usage: kvgate schema

Prints the JSON Schema of kvgate.yaml (for editors and validators).

options:
  -h, --help         this text
`,
  rules: `usage: kvgate rules [RULE...] [--format text|json|markdown]

Every rule id with its default severity and what it refuses or reports; with rule ids, those rules
in full with the link to each one's page (what it checks, why, a failing and a passing example, the fix).

options:
  --format text|json|markdown (default text)
  -h, --help         this text
`,
  usage: `usage: kvgate usage (--litellm FILE... | --litellm-db postgresql://…) [options]

What each service's LiteLLM traffic was, and the context, KV and output cap it needs — when there is
evidence enough — beside what vLLM's own metrics said of the seat. Times are UTC.

options:
  --litellm FILE...        LiteLLM spend logs (JSON lines, a JSON array or CSV), one or more
  --litellm-db URL         LiteLLM's PostgreSQL instead (aggregated in SQL)
  --connect-timeout D      give up on a server that does not answer (default 10s)
  --statement-timeout D    cancel a statement that runs longer, a lock wait included (default 5m)
${SINCE}
  --min-requests N         advise only from at least N calls of a service (default 1000)
  --min-span D             ... over at least this much time, first call to last (default 24h)
  --metrics FILE...        vLLM's Prometheus metrics (a /metrics scrape or a range query): preemptions
                           are evidence the KV was too small (default: the seats of kvgate.yaml's observed file)
  --format text|json (default text)
${REPO}
${CONFIG}
  -h, --help         this text
`,
  observe: `usage: kvgate observe --metrics FILE... [options]

GPU memory at boot and at plateau, per card, from nvidia-smi CSV, DCGM (a Prometheus range query's
JSON, or Prometheus text with timestamps) or Beszel records (API or SQLite export); and per vLLM seat,
from vLLM's own metrics, its peak KV use and every preemption window. Files are streamed; times UTC.

options:
  --metrics FILE...  the metrics, one or more files (required)
  --host H           the host the metrics are of: every card of a file is read as this host
${SINCE}
  --format text|json|svg (default text)
${OUTPUT}
  --write FILE       also write the observed figures for the gate to read (gpu/plateau, kv/preempted)
${REPO}
${CONFIG}
  -h, --help         this text
`,
};

/** The help of one command, or null for a name that is not a command. */
export function commandHelp(name: string): string | null {
  return HELP[name] ?? null;
}
