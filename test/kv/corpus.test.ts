// Real vLLM launches from vLLM's issue tracker (test/kv/corpus/launches.yaml: each cited, with the log
// line that proves its outcome), each run through the whole gate as a one-seat repository: the seat's
// env file as the launch set it, its card in the inventory, kv.factor 1 (vLLM's own condition: one
// max-length request; kvgate's margin is policy, not vLLM). kvgate "refuses" a launch when any error
// finding is open. The gate must agree with what vLLM did on at least 95 % of them and refuse none that
// booted; the table it prints says, per launch, the outcome, kvgate's verdict and the rules behind it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import * as z from "zod";
import { runCase, type Actual } from "../helpers/rule-tester.js";

const Outcome = z.enum(["booted", "context-refused", "kv-refused", "free-memory", "oom"]);

const Card = z.strictObject({ name: z.string().min(1), cuda_total: z.string().optional() });

const Launch = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  url: z.string().regex(/^https:\/\/github\.com\/vllm-project\/vllm\/(issues|pull)\/\d+/),
  where: z.string().min(1),
  /** The vLLM version the log shows (or the release of the thread's date, `version_from: date`). */
  version: z.string().regex(/^\d+\.\d+\.\d+$/),
  version_from: z.enum(["log", "date", "image"]),
  card: Card,
  /** Cards that differ per rank (a pipeline over two kinds of card), by index; else `card` on every rank. */
  cards: z.array(Card).optional(),
  /** The service's env keys (MODEL, TP, MAX_MODEL_LEN, GPU_MEMORY_UTILIZATION, ...). */
  env: z.record(z.string(), z.string()),
  /** Flags as the launch wrote them, read from VLLM_ARGS. */
  args: z.string().optional(),
  /** kvgate.yaml `models:` entries for a model the catalog lacks (each says where its figures come from). */
  models: z.record(z.string(), z.unknown()).optional(),
  /** What else held the card when the launch started (a free-memory refusal's "Free memory on device"). */
  neighbours: z.string().optional(),
  outcome: Outcome,
  proof: z.string().min(10),
  note: z.string().optional(),
});
type Launch = z.infer<typeof Launch>;

const file = join(import.meta.dirname, "corpus", "launches.yaml");
const launches = z.strictObject({ launches: z.array(Launch) }).parse(parse(readFileSync(file, "utf8"))).launches;

function repoOf(l: Launch): Record<string, string> {
  const tp = Number(l.env.TP ?? "1");
  const pp = Number(l.env.PP ?? "1");
  const cards = Array.from({ length: tp * pp }, (_, i) => i);
  const card = (i: number) => {
    const c = l.cards?.[i] ?? l.card;
    return `{ index: ${i}, name: ${JSON.stringify(c.name)}${c.cuda_total ? `, total: ${c.cuda_total}, cuda_total: ${c.cuda_total}` : ""} }`;
  };
  const yaml = [
    "fleet:",
    "  hosts:",
    `    h: { gpus: [ ${cards.map(card).join(", ")} ] }`,
    ...(l.neighbours ? ["  tenants:", `    - { name: neighbour, host: h, gpu: 0, vram: ${l.neighbours} }`] : []),
    "kv: { factor: 1, round: 1MiB }",
    ...(l.models ? [`models: ${JSON.stringify(l.models)}`] : []),
  ].join("\n");
  const env = {
    ENGINE: "vllm",
    HOST: "h",
    GPU: cards.join(","),
    VLLM_VERSION: l.version,
    ...l.env,
  };
  const lines = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  if (l.args) lines.push(`VLLM_ARGS="${l.args.replace(/"/g, '\\"')}"`);
  return { "kvgate.yaml": `${yaml}\n`, [`scripts/${l.id}.env`]: `${lines.join("\n")}\n` };
}

/** The rules whose refusal stands for each outcome (the reason, reported beside the verdict). */
const REASON: Record<z.infer<typeof Outcome>, string[]> = {
  booted: [],
  "context-refused": ["kv/context-max"],
  "kv-refused": ["kv/covers-context"],
  "free-memory": ["kv/boot-check", "kv/unpinned-shared-card"],
  oom: ["kv/graph-headroom", "kv/covers-context", "gpu/fits"],
};

interface Verdict {
  launch: Launch;
  errors: Actual[];
  refused: boolean;
  agrees: boolean;
  sameReason: boolean;
}

async function verdictOf(l: Launch): Promise<Verdict> {
  const findings = await runCase({ name: l.id, files: repoOf(l) });
  const errors = findings.filter((f) => f.severity === "error" && f.status === "open");
  const refused = errors.length > 0;
  const agrees = refused === (l.outcome !== "booted");
  const sameReason = l.outcome === "booted" ? !refused : errors.some((e) => REASON[l.outcome].includes(e.rule));
  return { launch: l, errors, refused, agrees, sameReason };
}

describe("real vLLM launches (test/kv/corpus/launches.yaml)", () => {
  it("holds at least 30 cited launches covering every outcome", () => {
    expect(launches.length).toBeGreaterThanOrEqual(30);
    for (const o of Outcome.options) expect(launches.filter((l) => l.outcome === o).length, o).toBeGreaterThan(0);
    expect(new Set(launches.map((l) => l.id)).size).toBe(launches.length);
  });

  it("agrees with vLLM on at least 95 % and refuses none that booted", async () => {
    const verdicts: Verdict[] = [];
    for (const l of launches) verdicts.push(await verdictOf(l));
    const table = verdicts.map(
      (v) =>
        `${v.agrees ? "agree   " : "DISAGREE"} ${v.launch.id.padEnd(28)} vLLM ${v.launch.outcome.padEnd(15)} kvgate ${v.refused ? "refuses" : "passes "} ${v.errors.map((e) => `${e.rule}: ${e.message}`).join(" | ")}`,
    );
    const agreed = verdicts.filter((v) => v.agrees).length;
    const falseRefusals = verdicts.filter((v) => v.launch.outcome === "booted" && v.refused);
    const share = agreed / verdicts.length;
    // The table is the evidence the README quotes: printed on every run.
    console.log(
      `${table.join("\n")}\n${agreed}/${verdicts.length} agree (${(share * 100).toFixed(1)} %), ${falseRefusals.length} false refusals`,
    );
    expect(falseRefusals.map((v) => v.launch.id)).toEqual([]);
    expect(share).toBeGreaterThanOrEqual(0.95);
  });
});
