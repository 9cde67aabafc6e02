// `usage --litellm-db postgresql://…`: LiteLLM's own database, aggregated in SQL (./sql.ts). The
// statements run in one read-only REPEATABLE READ transaction, so the counts, the peaks and the
// runaways describe the same rows even while the proxy keeps writing. Every failure is a GateError that
// names what to fix (exit 2), and no message ever carries the URL's password.
import type { Client as PgClient } from "pg";
import { GateError, UsageError } from "../errors.js";
import { scrubText } from "../secrets/redact.js";
import {
  COLUMNS_SQL,
  OPTIONAL_DB_COLUMNS,
  REQUIRED_DB_COLUMNS,
  aggregateSql,
  problemsSql,
  runawaysSql,
  sqlValues,
  type SqlParams,
  type TableShape,
} from "./sql.js";
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
import type { ServiceMap } from "./services.js";
import { parseTimestamp } from "../units/timestamps.js";

const DB_USAGE =
  "usage: kvgate usage --litellm-db postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE " +
  "[--since T] [--until T] [--connect-timeout D] [--statement-timeout D] [--format text|json]";

const ENCODE_HINT =
  "a password with any of # / ? @ : % or a space must be percent-encoded in " +
  "the URL (# → %23, / → %2F, ? → %3F, @ → %40, : → %3A, % → %25, space → " +
  "%20): node -e 'console.log(encodeURIComponent(process.argv[1]))' 'the " +
  "password' prints it; or leave the password out of the URL and set PGPASSWORD";

export interface DbTarget {
  url: string;
  /** The URL as it may be shown: no password. */
  shown: string;
  password: string;
  /** Prisma's ?schema= (LiteLLM's DATABASE_URL may carry it): the search_path to use. */
  schema: string | null;
}

/** Reads the URL without ever echoing it whole (it may hold a password). */
export function dbTarget(url: string): DbTarget {
  let u: URL;
  // The text is never quoted back: it may hold a password.
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(
      `--litellm-db is not a URL: write postgresql://<user>:<password>@<host>:<port>/<database> ` +
        `(LiteLLM's DATABASE_URL)${url.includes("@") ? `; ${ENCODE_HINT}` : ""}`,
      DB_USAGE,
    );
  }
  if (u.protocol !== "postgresql:" && u.protocol !== "postgres:") {
    throw new UsageError(`--litellm-db must be a postgresql:// URL (got ${u.protocol}//…)`, DB_USAGE);
  }
  let password: string;
  try {
    password = decodeURIComponent(u.password);
  } catch {
    throw new UsageError(`--litellm-db: the password holds a % that is not a percent-encoding; ${ENCODE_HINT}`, DB_USAGE);
  }
  const shownUrl = new URL(url);
  shownUrl.password = "";
  for (const k of [...shownUrl.searchParams.keys()]) if (/pass/i.test(k)) shownUrl.searchParams.set(k, "***");
  return { url, shown: shownUrl.toString(), password, schema: u.searchParams.get("schema") };
}

function secretsOf(t: DbTarget): string[] {
  const out = [t.password, encodeURIComponent(t.password), t.url].filter((s) => s.length > 0);
  return out;
}

export interface DbTimeouts {
  /** To connect and log in (--connect-timeout). */
  connectMs: number;
  /** Per statement, enforced by the server (statement_timeout) and, a little later, by kvgate (--statement-timeout). */
  statementMs: number;
}

/** `10s`, `5m`, `2h` — as the flags take them. */
function durationText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}

/** A pg error as a sentence that names the fix, with the password scrubbed out of whatever pg said. */
function dbError(e: unknown, t: DbTarget, timeouts: DbTimeouts, connecting: boolean): GateError {
  const err = e as { code?: string; message?: string; address?: string; port?: number; hostname?: string };
  const said = scrubText(String(err.message ?? e), secretsOf(t));
  const where = t.shown;
  // A server that takes the connection and never answers (a firewall that drops, a port of another
  // service), or a statement that waits on a lock: the flag that bounds it, and how to move it.
  if (connecting && /timeout|terminated/i.test(said)) {
    return new GateError(
      `PostgreSQL at ${where} did not answer within ${durationText(timeouts.connectMs)} (--connect-timeout ${durationText(timeouts.connectMs)})`,
      {
        hint: "check the host and the port (is it PostgreSQL? a firewall that accepts and drops?), or raise --connect-timeout",
      },
    );
  }
  if (err.code === "57014" || /query read timeout/i.test(said)) {
    return new GateError(
      `PostgreSQL at ${where}: a statement ran past --statement-timeout ${durationText(timeouts.statementMs)} ` +
        `(a lock on "LiteLLM_SpendLogs"? pg_stat_activity shows who holds it)`,
      { hint: "narrow the window with --since/--until, wait for the lock to go, or raise --statement-timeout" },
    );
  }
  switch (err.code) {
    case "ECONNREFUSED":
      return new GateError(`cannot connect to PostgreSQL at ${where}: connection refused`, {
        hint: "start the server, or fix the host and port in --litellm-db",
      });
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new GateError(`cannot connect to PostgreSQL at ${where}: unknown host`, { hint: "fix the host name in --litellm-db" });
    case "ETIMEDOUT":
      return new GateError(`cannot connect to PostgreSQL at ${where}: timed out`, { hint: "check the host, the port and the firewall" });
    case "28P01":
    case "28000":
      return new GateError(`PostgreSQL at ${where} refused the login: ${said}`, {
        hint: "fix the user and password in --litellm-db (or set PGPASSWORD)",
      });
    case "3D000":
      return new GateError(`PostgreSQL at ${where}: ${said}`, {
        hint: "name LiteLLM's database in --litellm-db (the path of the proxy's DATABASE_URL)",
      });
    case "42P01":
      return new GateError(`PostgreSQL at ${where}: no table "LiteLLM_SpendLogs"`, {
        hint: "point --litellm-db at LiteLLM's database (the proxy's DATABASE_URL); spend logs must be on (disable_spend_logs: false)",
      });
    case "42501":
      return new GateError(`PostgreSQL at ${where}: ${said}`, { hint: 'grant the user SELECT on "LiteLLM_SpendLogs"' });
    default:
      if (/timeout/i.test(said))
        return new GateError(`cannot connect to PostgreSQL at ${where}: ${said}`, { hint: "check the host, the port and the firewall" });
      return new GateError(`PostgreSQL at ${where}: ${said}`, { hint: "check --litellm-db and that the server is LiteLLM's" });
  }
}

export interface DbUsageOptions {
  target: DbTarget;
  services: ServiceMap;
  thresholds: Map<string, number>;
  /** Services whose replies are left out of the KV's peak from another size than their runaway threshold (a seat's cap in force: above it). */
  cuts: Map<string, number>;
  defaultThreshold: number;
  since: number | null;
  until: number | null;
  timeouts: DbTimeouts;
}

export interface DbUsage {
  figures: ServiceFigures[];
  counts: RowCounts;
  problems: RowProblem[];
}

function sqlTime(ms: number | null): string | null {
  return ms === null ? null : new Date(Math.floor(ms)).toISOString().replace("T", " ").replace("Z", "");
}

function time(text: string): number {
  const t = parseTimestamp(text);
  if (t === null) throw new Error(`PostgreSQL returned a timestamp kvgate cannot read: ${text}`);
  return t;
}

interface AggregateRow {
  read: number;
  skipped: number;
  outside: number;
  failed: number;
  cached: number;
  services: {
    name: string;
    calls: number;
    p50p: number | null;
    p99p: number | null;
    maxp: number | null;
    p50c: number | null;
    p99c: number | null;
    maxc: number | null;
    c_sans: number | null;
    runaways: number;
    peak_all: number;
    peak_sans: number;
    first: string | null;
    last: string | null;
    failed: number;
    cached: number;
    ctx: number;
    asked: number | null;
    lim: number | null;
    deployments: { name: string; calls: number; peak: number }[];
  }[];
}

interface RunawaysRow {
  list: { service: string; request_id: string; api_key: string; alias: string | null; p: number; c: number; st: string }[];
  keys: { service: string; api_key: string; count: number; max: number; alias: string | null }[];
}

/** Ends the client, and its socket with it even when the server never answers the goodbye. */
async function close(client: PgClient): Promise<void> {
  await Promise.race([client.end().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
  // pg keeps its socket on `connection.stream`: a half-open socket would hold the process open.
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

export async function usageFromDb(o: DbUsageOptions): Promise<DbUsage> {
  const pg = (await import("pg")).default;
  const client: PgClient = new pg.Client({
    connectionString: o.target.url,
    connectionTimeoutMillis: o.timeouts.connectMs,
    // The server cancels a statement past this (a lock it waits on included): SQLSTATE 57014.
    statement_timeout: o.timeouts.statementMs,
    // And kvgate stops waiting shortly after, should the server not answer at all.
    query_timeout: o.timeouts.statementMs + 5_000,
    application_name: "kvgate usage",
  });
  // An idle client's socket error (the server going away) would otherwise be an unhandled event.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (e) {
    await close(client);
    throw dbError(e, o.target, o.timeouts, true);
  }
  try {
    if (o.target.schema) await client.query(`SET search_path TO ${quoteIdent(o.target.schema)}`);
    const cols = (await client.query<{ column_name: string }>(COLUMNS_SQL)).rows.map((r) => r.column_name);
    if (cols.length === 0) throw Object.assign(new Error("no table"), { code: "42P01" });
    const missing = REQUIRED_DB_COLUMNS.filter((c) => !cols.includes(c));
    if (missing.length > 0) {
      throw new GateError(`PostgreSQL at ${o.target.shown}: "LiteLLM_SpendLogs" lacks ${missing.join(", ")}`, {
        hint: "this is not LiteLLM's spend-log table, or it is from a LiteLLM too old for kvgate (model_group came in 2024)",
      });
    }
    const shape: TableShape = { has: new Set(OPTIONAL_DB_COLUMNS.filter((c) => cols.includes(c))) };
    const threshold = [...o.thresholds.entries()];
    const params: SqlParams = {
      names: o.services.pairs().map(([n]) => n),
      services: o.services.pairs().map(([, s]) => s),
      thresholdServices: threshold.map(([s]) => s),
      thresholds: threshold.map(([, t]) => t),
      defaultThreshold: o.defaultThreshold,
      since: sqlTime(o.since),
      until: sqlTime(o.until),
      cutServices: [...o.cuts.keys()],
      cuts: [...o.cuts.values()],
    };
    const values = sqlValues(params);
    const smallest = Math.min(o.defaultThreshold, ...threshold.map(([, t]) => t));
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const agg = (await client.query<{ result: AggregateRow }>(aggregateSql(shape), values)).rows[0]?.result as AggregateRow;
    const run = (await client.query<{ result: RunawaysRow }>(runawaysSql(shape), [...values, RUNAWAY_LIST, smallest])).rows[0]
      ?.result as RunawaysRow;
    const problems: RowProblem[] =
      agg.skipped > 0
        ? (
            await client.query<{ request_id: string; reason: string }>(problemsSql(shape), [params.names, params.services, PROBLEM_LIST])
          ).rows.map((r) => ({
            file: "LiteLLM_SpendLogs",
            line: null,
            reason: `request ${r.request_id}: ${r.reason}`,
          }))
        : [];
    await client.query("COMMIT");
    return {
      figures: figuresOf(agg, run, o),
      counts: {
        read: agg.read,
        used: agg.read - agg.skipped - agg.outside,
        skipped: agg.skipped,
        outside: agg.outside,
        failed: agg.failed,
        cacheHits: agg.cached,
      },
      problems,
    };
  } catch (e) {
    if (e instanceof GateError) throw e;
    throw dbError(e, o.target, o.timeouts, false);
  } finally {
    await close(client);
  }
}

function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

function figuresOf(agg: AggregateRow, run: RunawaysRow, o: DbUsageOptions): ServiceFigures[] {
  const lists = new Map<string, RunawayRow[]>();
  for (const r of run.list) {
    const l = lists.get(r.service) ?? [];
    l.push({
      request_id: r.request_id,
      api_key: r.api_key,
      alias: r.alias,
      prompt_tokens: r.p,
      completion_tokens: r.c,
      start_ms: time(r.st),
    });
    lists.set(r.service, l);
  }
  const keys = new Map<string, KeyTally[]>();
  for (const k of run.keys) {
    const l = keys.get(k.service) ?? [];
    l.push({ api_key: k.api_key, alias: k.alias, count: Number(k.count), max_completion_tokens: k.max });
    keys.set(k.service, l);
  }
  const q = (a: number | null, b: number | null, c: number | null) => ({ p50: a ?? 0, p99: b ?? 0, max: c ?? 0 });
  return agg.services.map((s) => ({
    name: s.name,
    calls: Number(s.calls),
    failed: Number(s.failed),
    contextErrors: {
      count: Number(s.ctx),
      maxAsked: s.asked === null ? null : Number(s.asked),
      limit: s.lim === null ? null : Number(s.lim),
    },
    cacheHits: Number(s.cached),
    deployments: s.deployments.map((d) => ({ name: d.name, calls: Number(d.calls), peakAll: Number(d.peak) })),
    prompt: q(s.p50p, s.p99p, s.maxp),
    completion: q(s.p50c, s.p99c, s.maxc),
    peakAll: Number(s.peak_all),
    peakWithoutRunaways: Number(s.peak_sans),
    peakCut: o.cuts.get(s.name) ?? o.thresholds.get(s.name) ?? o.defaultThreshold,
    maxCompletionWithoutRunaways: s.c_sans,
    runawayThreshold: o.thresholds.get(s.name) ?? o.defaultThreshold,
    runawayCount: Number(s.runaways),
    runaways: (lists.get(s.name) ?? []).sort(byRunawayOrder),
    runawayKeys: (keys.get(s.name) ?? []).sort(byKeyOrder),
    firstStartMs: s.first === null ? Infinity : time(s.first),
    lastStartMs: s.last === null ? -Infinity : time(s.last),
  }));
}
