// The card inventory `kvgate init` writes (docs/coverage.md#inventory): from the host itself
// (`init --from-host`: `nvidia-smi --query-gpu=index,name,memory.total --format=csv`, run here or read
// from a file the user saved on the host), else nothing — the starter then carries the stanza to fill
// and the check refuses the seats as unsized until it is filled. A size is never guessed.
import { readFileSync } from "node:fs";
import { GateError } from "../errors.js";
import { runToolSync } from "../git/exec.js";

export interface HostCard {
  index: number;
  /** As nvidia-smi names it (`NVIDIA GeForce RTX 4090`). */
  name: string;
  /** nvidia-smi's memory.total, in MiB. */
  totalMib: number;
}

const NVIDIA_SMI_ARGS = ["--query-gpu=index,name,memory.total", "--format=csv"];

/**
 * nvidia-smi's CSV: `index, name, memory.total [MiB]` then `0, NVIDIA GeForce RTX 4090, 24564 MiB`
 * (with `noheader` / `nounits` too). A line that is not three fields with a number is an error naming it.
 */
export function parseNvidiaSmi(text: string, label: string): HostCard[] {
  const cards: HostCard[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || /^index\s*,/i.test(line)) return;
    const parts = line.split(",").map((p) => p.trim());
    const index = Number(parts[0]);
    const mib = Number((parts[parts.length - 1] ?? "").replace(/\s*MiB$/i, ""));
    const name = parts.slice(1, -1).join(",").trim();
    if (parts.length < 3 || !Number.isInteger(index) || index < 0 || !Number.isFinite(mib) || mib <= 0 || name === "") {
      throw new GateError(`${label}:${i + 1}: not an nvidia-smi line of index, name, memory.total: ${JSON.stringify(line.slice(0, 80))}`, {
        hint: `write it on the host with: nvidia-smi ${NVIDIA_SMI_ARGS.join(" ")}`,
      });
    }
    cards.push({ index, name, totalMib: mib });
  });
  if (cards.length === 0)
    throw new GateError(`${label}: no GPU line`, { hint: `write it on the host with: nvidia-smi ${NVIDIA_SMI_ARGS.join(" ")}` });
  return cards;
}

/** `--from-host`: the file given (`-` is not read from stdin: a hook has none), else nvidia-smi run here. */
export function hostCards(from: string | true): { cards: HostCard[]; source: string } {
  if (from !== true) {
    let text: string;
    try {
      text = readFileSync(from, "utf8");
    } catch (e) {
      throw new GateError(`--from-host ${from}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
        hint: `save the host's nvidia-smi ${NVIDIA_SMI_ARGS.join(" ")} output to a file and name it`,
      });
    }
    return { cards: parseNvidiaSmi(text, from), source: from };
  }
  const run = runToolSync("nvidia-smi", NVIDIA_SMI_ARGS, { timeout: 20_000 });
  if (run.error || run.status !== 0) {
    throw new GateError(`--from-host: nvidia-smi did not run here (${run.error?.message ?? run.stderr.trim()})`, {
      hint: `run kvgate init --from-host on the GPU host, or save nvidia-smi ${NVIDIA_SMI_ARGS.join(" ")} there and pass the file: --from-host FILE`,
    });
  }
  return { cards: parseNvidiaSmi(run.stdout, "nvidia-smi"), source: "nvidia-smi on this host" };
}
