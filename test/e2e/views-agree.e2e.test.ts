// One fleet, every view: `explain`, `plan`, the fleet `check` judged, and the Action's job-summary card
// table must agree on every seat's pin, context and cards and on every card's total, because they all
// take the fleet as it runs from the one loader (src/load/running.ts). The third case is the drift that
// once split them: a compose file raising chat's pin to 12G while its env file keeps 6G (explain said
// 29.3 GiB on card 0, the Action's table 23.3 GiB).
import { afterAll, describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { ROOT, kvgate } from "../helpers/cli.js";
import { runAction } from "../delivery/action-env.js";
import { openSource, runCheck } from "../../src/engine/api.js";
import { loadPack } from "../../src/rules/load.js";
import { cardUsage } from "../../src/kv/card-usage.js";
import { formatBytes } from "../../src/units/bytes.js";

const made: TempRepo[] = [];
afterAll(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/** A repository whose first commit is the example and whose second applies `change` (or repeats it). */
async function exampleRepo(name: string, change: (write: (p: string, f: (t: string) => string) => void) => void): Promise<TempRepo> {
  const dir = join(ROOT, "examples", name);
  const repo = await makeRepo();
  made.push(repo);
  for (const f of filesUnder(dir)) repo.write(relative(dir, f), readFileSync(f));
  repo.stage();
  repo.commit("the fleet");
  change((p, f) => repo.write(p, f(readFileSync(join(repo.dir, p), "utf8"))));
  repo.write("CHANGE.md", "the change under review\n");
  repo.stage();
  repo.commit("the change");
  return repo;
}

interface Seat {
  pin: number | null;
  context: number | null;
  cards: string;
}
type Cards = Record<string, number>;

function explainView(repo: TempRepo): { seats: Record<string, Seat>; cards: Cards } {
  const run = kvgate(["explain", "--format", "json"], { cwd: repo.dir });
  expect(run.code, run.stderr).toBe(0);
  const doc = JSON.parse(run.stdout) as {
    services: { name: string; host: string | null; gpus: number[]; max_model_len?: number | null; kv?: { pinned_bytes: number | null } }[];
    gpus: { host: string; index: number; used_bytes: number; radiance: boolean }[];
  };
  const seats: Record<string, Seat> = {};
  for (const s of doc.services) {
    if (!s.kv) continue;
    seats[s.name] = { pin: s.kv.pinned_bytes, context: s.max_model_len ?? null, cards: s.gpus.map((g) => `${s.host}:${g}`).join(",") };
  }
  const cards: Cards = {};
  for (const g of doc.gpus) if (!g.radiance) cards[`${g.host}:${g.index}`] = g.used_bytes;
  return { seats, cards };
}

/** What `check` judged: the newest unit's fleet as the engine loaded it for the checks. */
async function checkView(repo: TempRepo): Promise<{ seats: Record<string, Seat>; cards: Cards; verdict: string }> {
  const pack = loadPack();
  const source = await openSource(repo.dir, true);
  const run = await runCheck({ dir: repo.dir, source, selection: { mode: "all" }, failOn: "error", pack, env: {} });
  const newest = await run.newest();
  if (!newest) throw new Error("no unit");
  const fleet = newest.fleet.running;
  const seats: Record<string, Seat> = {};
  for (const s of fleet.services) {
    if (s.engine !== "vllm") continue;
    const pin = s.settings.kv_pin?.value;
    const len = s.settings.max_model_len?.value;
    seats[s.name] = {
      pin: typeof pin === "number" ? pin : null,
      context: typeof len === "number" ? len : null,
      cards: s.gpus.map((g) => `${s.host}:${g}`).join(","),
    };
  }
  const cards: Cards = {};
  for (const u of cardUsage(fleet, newest.policy, pack)) if (!u.ledgerSized) cards[`${u.host}:${u.index}`] = u.used_bytes;
  return { seats, cards, verdict: run.result.verdict };
}

function planView(repo: TempRepo): { assignment: Record<string, string>; cards: Cards } {
  const run = kvgate(["plan", "--format", "json"], { cwd: repo.dir });
  expect(run.code, run.stderr).toBe(0);
  const parsed = JSON.parse(run.stdout) as P | P[];
  type P = { host: string; assignment: Record<string, number>; moves: unknown[]; cards: { index: number; used_bytes: number }[] };
  const assignment: Record<string, string> = {};
  const cards: Cards = {};
  for (const p of Array.isArray(parsed) ? parsed : [parsed]) {
    // Today's layout is the plan's when it moves nothing; these fleets are laid out at their optimum.
    expect(p.moves).toEqual([]);
    for (const [seat, gpu] of Object.entries(p.assignment)) assignment[seat] = `${p.host}:${gpu}`;
    for (const c of p.cards) cards[`${p.host}:${c.index}`] = c.used_bytes;
  }
  return { assignment, cards };
}

/** The Action on a pull request of the change: its job summary's "GPU memory per card" rows. */
function actionView(repo: TempRepo): Record<string, string> {
  const head = repo.git("rev-parse", "HEAD").trim();
  const base = repo.git("rev-parse", "HEAD~1").trim();
  const r = runAction({
    workspace: repo.dir,
    event: "pull_request",
    payload: {
      action: "synchronize",
      number: 1,
      pull_request: { number: 1, base: { ref: "main", sha: base }, head: { ref: "topic", sha: head } },
      repository: { default_branch: "main", full_name: "acme/fleet" },
    },
  });
  expect(r.summary, r.stdout + r.stderr).toContain("### GPU memory per card");
  const rows: Record<string, string> = {};
  const table = r.summary.slice(r.summary.indexOf("### GPU memory per card"));
  for (const line of table.split("\n")) {
    const m = /^\| (\S+) \| (\d+) \| [^|]+ \| [^|]+ \| ([^|]+) \|/.exec(line);
    if (m && m[3]?.trim() !== "—") rows[`${m[1]}:${m[2]}`] = (m[3] ?? "").trim();
  }
  return rows;
}

async function allViews(repo: TempRepo) {
  const explain = explainView(repo);
  const check = await checkView(repo);
  const plan = planView(repo);
  const action = actionView(repo);
  return { explain, check, plan, action };
}

function expectAgreement(v: Awaited<ReturnType<typeof allViews>>): void {
  expect(Object.keys(v.explain.seats).length).toBeGreaterThan(0);
  expect(v.check.seats).toEqual(v.explain.seats);
  // The plan places seats and tenants (kvgate.yaml fleet.tenants); every vLLM seat is among them.
  for (const seat of Object.keys(v.explain.seats)) expect(v.explain.seats[seat]?.cards.split(",")).toContain(v.plan.assignment[seat]);
  expect(v.check.cards).toEqual(v.explain.cards);
  for (const [card, used] of Object.entries(v.plan.cards)) if (card in v.explain.cards) expect(used).toBe(v.explain.cards[card]);
  const shown = Object.fromEntries(Object.entries(v.explain.cards).map(([k, b]) => [k, formatBytes(b)]));
  expect(v.action).toEqual(shown);
}

const GiB = 2 ** 30;

describe("every view agrees on the fleet as it runs", () => {
  test("examples/fleet", async () => {
    const repo = await exampleRepo("fleet", () => {});
    const v = await allViews(repo);
    expectAgreement(v);
    expect(v.explain.seats.voices).toMatchObject({ pin: 6.5 * GiB, context: 40960 });
  });

  test("examples/compose", async () => {
    const repo = await exampleRepo("compose", () => {});
    const v = await allViews(repo);
    expectAgreement(v);
    expect(v.explain.seats.chat).toEqual({ pin: 6 * GiB, context: 32768, cards: "fv-ml3:0" });
  });

  test("examples/compose with the compose file raising chat's pin to 12G while its env file keeps 6G", async () => {
    const repo = await exampleRepo("compose", (write) =>
      write("hosts/fv-ml3/compose.yaml", (t) =>
        t.replace("      - --kv-cache-memory-bytes\n      - 6G", "      - --kv-cache-memory-bytes\n      - 12G"),
      ),
    );
    expect(readFileSync(join(repo.dir, "scripts/chat.env"), "utf8")).toContain("--kv-cache-memory-bytes 6G");
    const v = await allViews(repo);
    expectAgreement(v);
    // The compose file's 12G runs: 6 GiB more on card 0 than the env file says, in every view.
    expect(v.explain.seats.chat).toEqual({ pin: 12 * GiB, context: 32768, cards: "fv-ml3:0" });
    const before = await allViews(await exampleRepo("compose", () => {}));
    expect(v.explain.cards["fv-ml3:0"]! - before.explain.cards["fv-ml3:0"]!).toBe(6 * GiB);
  });
});
