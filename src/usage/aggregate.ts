// The streaming aggregation of spend rows per service. Per service it holds two token histograms (exact
// percentiles, memory bounded by distinct values: ./histogram.ts), an in-flight tracker (memory
// bounded by the rows of one reorder window: ./inflight.ts) and one per deployment when several serve
// it, the largest RUNAWAY_LIST runaways and a tally per key that sent one. Nothing here grows with the
// number of rows. Failures and cache hits are counted, not called: a failure used no KV (a
// context-length refusal is kept as the sign it is), a cache hit never reached the engine.
import { TokenHistogram } from "./histogram.js";
import { InflightPeak, REORDER_WINDOW_MS } from "./inflight.js";
import { contextErrorOf, keyAliasOf, type SpendRow } from "./row.js";
import type { ServiceMap } from "./services.js";
import {
  PROBLEM_LIST,
  RUNAWAY_LIST,
  byKeyOrder,
  byRunawayOrder,
  type KeyTally,
  type RowCounts,
  type RowProblem,
  type RunawayRow,
  type ServiceFigures,
} from "./figures.js";

export interface AggregateOptions {
  services: ServiceMap;
  /** The completion size from which a reply is a runaway, per service (usage.runaway_tokens, or the seat's cap when lower). */
  runawayThreshold: (service: string) => number;
  /** The completion size from which a reply is left out of the KV's peak (what a cap would cut): for a
   *  seat whose cap is in force, cap + 1 (it cuts nothing further). Default: the runaway threshold. */
  peakCut?: (service: string) => number;
  /** Rows whose startTime is before `since` or at/after `until` are left out (ms; null: no bound). */
  since: number | null;
  until: number | null;
  windowMs?: number;
}

function maxAlias(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

export interface ExactPeaks {
  all: number;
  sans: number;
  deployments: Map<string, number>;
}

class ServiceAcc {
  calls = 0;
  failed = 0;
  contextErrors = { count: 0, maxAsked: null as number | null, limit: null as number | null };
  cacheHits = 0;
  readonly prompt = new TokenHistogram();
  readonly completion = new TokenHistogram();
  readonly inflight: InflightPeak;
  /** The one deployment seen so far; once a second comes, each gets its own tracker (`deployments`). */
  private firstDeployment: string | null = null;
  private firstCalls = 0;
  deployments: Map<string, { calls: number; inflight: InflightPeak }> | null = null;
  maxCompletionSans = -1;
  runawayCount = 0;
  runaways: RunawayRow[] = [];
  readonly keys = new Map<string, KeyTally>();
  firstStart = Infinity;
  lastStart = -Infinity;
  /** Set by a second pass when the rows were not in start order (see ./spill.ts). */
  exactPeaks: ExactPeaks | null = null;

  constructor(
    readonly name: string,
    readonly threshold: number,
    readonly cut: number,
    private readonly windowMs: number,
  ) {
    this.inflight = new InflightPeak(windowMs);
  }

  add(r: SpendRow): void {
    if (r.failed) {
      this.failed++;
      const ce = contextErrorOf(r.metadata);
      if (ce) {
        const c = this.contextErrors;
        c.count++;
        if (ce.asked !== null && (c.maxAsked === null || ce.asked > c.maxAsked)) c.maxAsked = ce.asked;
        if (ce.limit !== null && (c.limit === null || ce.limit > c.limit)) c.limit = ce.limit;
      }
      return;
    }
    if (r.cacheHit) {
      this.cacheHits++;
      return;
    }
    this.calls++;
    this.prompt.add(r.prompt);
    this.completion.add(r.completion);
    if (r.start < this.firstStart) this.firstStart = r.start;
    if (r.start > this.lastStart) this.lastStart = r.start;
    const tokens = r.prompt + r.completion;
    // The deployment first: a fork of the service's tracker must not hold this row yet.
    this.deployment(r, tokens);
    this.inflight.add(r.start, r.end, tokens, r.completion >= this.cut);
    if (r.completion >= this.threshold) this.runaway(r);
    else if (r.completion > this.maxCompletionSans) this.maxCompletionSans = r.completion;
  }

  /** Per deployment, only once a second one appears: until then the service's tracker is the first
   *  deployment's, and a copy of it goes on as that deployment's (no second sweep per row before). */
  private deployment(r: SpendRow, tokens: number): void {
    if (this.deployments === null) {
      if (this.firstDeployment === null) this.firstDeployment = r.deployment;
      if (r.deployment === this.firstDeployment) {
        this.firstCalls++;
        return;
      }
      this.deployments = new Map([[this.firstDeployment, { calls: this.firstCalls, inflight: this.inflight.clone() }]]);
    }
    let d = this.deployments.get(r.deployment);
    if (!d) {
      d = { calls: 0, inflight: new InflightPeak(this.windowMs) };
      this.deployments.set(r.deployment, d);
    }
    d.calls++;
    d.inflight.add(r.start, r.end, tokens);
  }

  private runaway(r: SpendRow): void {
    this.runawayCount++;
    const alias = keyAliasOf(r.metadata);
    const tally = this.keys.get(r.apiKey);
    if (tally) {
      tally.count++;
      if (r.completion > tally.max_completion_tokens) tally.max_completion_tokens = r.completion;
      tally.alias = maxAlias(tally.alias, alias);
    } else {
      this.keys.set(r.apiKey, { api_key: r.apiKey, alias, count: 1, max_completion_tokens: r.completion });
    }
    this.runaways.push({
      request_id: r.requestId,
      api_key: r.apiKey,
      alias,
      prompt_tokens: r.prompt,
      completion_tokens: r.completion,
      start_ms: r.start,
    });
    if (this.runaways.length > 2 * RUNAWAY_LIST) this.trim();
  }

  trim(): void {
    this.runaways.sort(byRunawayOrder);
    this.runaways.length = Math.min(this.runaways.length, RUNAWAY_LIST);
  }

  get ordered(): boolean {
    return this.inflight.ordered && [...(this.deployments?.values() ?? [])].every((d) => d.inflight.ordered);
  }

  figures(): ServiceFigures {
    this.trim();
    const swept = this.exactPeaks === null ? this.inflight.finish() : null;
    const peakAll = this.exactPeaks?.all ?? swept?.all;
    const peakSans = this.exactPeaks?.sans ?? swept?.withoutRunaways;
    if (peakAll === undefined || peakSans === undefined)
      throw new Error(`in-flight peak of ${this.name}: rows out of order and no second pass ran`);
    const deployments =
      this.deployments === null
        ? []
        : [...this.deployments.entries()]
            .map(([name, d]) => ({
              name,
              calls: d.calls,
              peakAll: this.exactPeaks?.deployments.get(name) ?? d.inflight.finish()?.all ?? 0,
            }))
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      name: this.name,
      calls: this.calls,
      failed: this.failed,
      contextErrors: { ...this.contextErrors },
      cacheHits: this.cacheHits,
      deployments,
      prompt: this.prompt.quantiles() ?? { p50: 0, p99: 0, max: 0 },
      completion: this.completion.quantiles() ?? { p50: 0, p99: 0, max: 0 },
      peakAll,
      peakWithoutRunaways: peakSans,
      peakCut: this.cut,
      maxCompletionWithoutRunaways: this.maxCompletionSans < 0 ? null : this.maxCompletionSans,
      runawayThreshold: this.threshold,
      runawayCount: this.runawayCount,
      runaways: this.runaways,
      runawayKeys: [...this.keys.values()].sort(byKeyOrder),
      firstStartMs: this.firstStart,
      lastStartMs: this.lastStart,
    };
  }
}

export class UsageAggregator {
  readonly counts: RowCounts = { read: 0, used: 0, skipped: 0, outside: 0, failed: 0, cacheHits: 0 };
  readonly problems: RowProblem[] = [];
  private readonly acc = new Map<string, ServiceAcc>();
  private readonly since: number;
  private readonly until: number;
  // Consecutive rows are often of one service: the last one's lookup is kept.
  private lastGroup: string | null = null;
  private lastModel: string | null = null;
  private lastAcc: ServiceAcc | null = null;

  constructor(private readonly o: AggregateOptions) {
    this.since = o.since ?? -Infinity;
    this.until = o.until ?? Infinity;
  }

  serviceOf(r: SpendRow): string {
    return this.o.services.serviceOf(r.modelGroup, r.model);
  }

  /** True when the row falls inside --since/--until. */
  inWindow(r: SpendRow): boolean {
    return r.start >= this.since && r.start < this.until;
  }

  add(r: SpendRow): void {
    this.counts.read++;
    if (!this.inWindow(r)) {
      this.counts.outside++;
      return;
    }
    this.counts.used++;
    if (r.failed) this.counts.failed++;
    else if (r.cacheHit) this.counts.cacheHits++;
    if (r.modelGroup === this.lastGroup && r.model === this.lastModel && this.lastAcc !== null) {
      this.lastAcc.add(r);
      return;
    }
    const name = this.serviceOf(r);
    let s = this.acc.get(name);
    if (!s) {
      const threshold = this.o.runawayThreshold(name);
      s = new ServiceAcc(name, threshold, this.o.peakCut?.(name) ?? threshold, this.o.windowMs ?? REORDER_WINDOW_MS);
      this.acc.set(name, s);
    }
    this.lastGroup = r.modelGroup;
    this.lastModel = r.model;
    this.lastAcc = s;
    s.add(r);
  }

  /** A row that cannot be used: counted, and the first PROBLEM_LIST kept with file and line. */
  skip(file: string, line: number | null, reason: string): void {
    this.counts.read++;
    this.counts.skipped++;
    if (this.problems.length < PROBLEM_LIST) this.problems.push({ file, line, reason });
  }

  /** Services whose rows were not in start order: their in-flight peaks need a second, sorted pass. */
  unordered(): string[] {
    return [...this.acc.values()].filter((s) => !s.ordered).map((s) => s.name);
  }

  /** The service's peak cut (see AggregateOptions.peakCut). */
  cutOf(service: string): number {
    return this.acc.get(service)?.cut ?? Infinity;
  }

  setExactPeaks(service: string, peaks: ExactPeaks): void {
    const s = this.acc.get(service);
    if (s) s.exactPeaks = peaks;
  }

  figures(): ServiceFigures[] {
    return [...this.acc.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((s) => s.figures());
  }
}
