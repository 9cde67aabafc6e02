// The SQL of `usage --litellm-db`: the same figures as the file path (./aggregate.ts), computed where
// LiteLLM keeps its spend logs, so that a month of a busy gateway never crosses the network row by row.
// Table and columns as LiteLLM's schema.prisma creates them (model LiteLLM_SpendLogs; Prisma quotes the
// mixed-case names; DateTime is timestamp(3) without time zone, in UTC). Columns that came later
// (status, cache_hit, api_base, model_id) are read when the table has them (sqlFor).
//
// - a row's meaning as in ./row.ts: a failure (status, else metadata.status, "failure") is not a call,
//   and is a context-length refusal when its error_information says so (the same patterns); a cache
//   hit ("True") is not a call; neither is in flight.
// - percentiles: percentile_disc, the first value whose cumulative share reaches q, which is the
//   nearest rank ⌈q·n⌉ of docs/usage-observe.md (PostgreSQL computes ceil(q × n) in double precision;
//   for q = 0.5 and 0.99 that equals the exact ⌈q·n⌉ for every n up to 2·10^7, checked in the tests).
// - in-flight peak: each request is a start event (+tokens) and an end event (−tokens); a running sum
//   over the events ordered by time, ends before starts at the same instant ([start, end) intervals),
//   and its maximum, per service. The replies a cap would cut keep their place in the order but count 0
//   in the second sum. Per deployment, only for services that several deployments served.
// - the rows are classified once (a MATERIALIZED CTE of narrow columns), then aggregated.

/** The parameters of AGGREGATE_SQL ($1..$9; RUNAWAYS_SQL adds $10 and $11). */
export interface SqlParams {
  /** usage.models as parallel arrays: listed name → service. */
  names: string[];
  services: string[];
  /** Per-service runaway thresholds (the seat's output cap where lower than usage.runaway_tokens). */
  thresholdServices: string[];
  thresholds: number[];
  defaultThreshold: number;
  /** `YYYY-MM-DD HH:MM:SS.mmm` (UTC) or null. */
  since: string | null;
  until: string | null;
  /** Per-service peak cuts (a seat with a cap in force: above the cap); others use the threshold. */
  cutServices: string[];
  cuts: number[];
}

export function sqlValues(p: SqlParams): unknown[] {
  return [p.names, p.services, p.thresholdServices, p.thresholds, p.defaultThreshold, p.since, p.until, p.cutServices, p.cuts];
}

/** Columns that later LiteLLM versions added: read when present. */
export const OPTIONAL_DB_COLUMNS = ["status", "cache_hit", "api_base", "model_id"] as const;

const TABLE = `"LiteLLM_SpendLogs"`;

const COMMON = `
  names(name, service) AS (SELECT * FROM unnest($1::text[], $2::text[])),
  limits(service, threshold) AS (SELECT * FROM unnest($3::text[], $4::int[])),
  cuts(service, cut) AS (SELECT * FROM unnest($8::text[], $9::int[]))`;

/** The row's service: a usage.models listing of its model_group, else of its model, else the name itself. */
const SERVICE = `COALESCE(g.service, m.service, NULLIF(s.model_group, ''), NULLIF(s.model, ''))`;
const JOIN_NAMES = `LEFT JOIN names g ON g.name = NULLIF(s.model_group, '') LEFT JOIN names m ON m.name = NULLIF(s.model, '')`;
/** Unusable: no model; a served row without tokens or times in order. A failure needs only its start. */
const BAD = `(x.service IS NULL OR x.st IS NULL OR (NOT x.failed AND (x.p IS NULL OR x.c IS NULL OR x.p < 0 OR x.c < 0 OR x.et IS NULL OR x.et < x.st)))`;
const OUTSIDE = `(($6::timestamp IS NOT NULL AND x.st < $6::timestamp) OR ($7::timestamp IS NOT NULL AND x.st >= $7::timestamp))`;
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US'`;
const MSG = `(s.metadata->'error_information'->>'error_message')`;
/** ./row.ts CONTEXT_MESSAGE and its number patterns, in PostgreSQL's regex dialect. */
const CONTEXT =
  `(s.metadata->'error_information'->>'error_class' = 'ContextWindowExceededError' ` +
  `OR ${MSG} ~* '(maximum context length|context length ` +
  `exceeded|context_length_exceeded|context window|prompt is too long)')`;
const ASKED = `COALESCE(substring(${MSG} from '(?i)you requested (\\d+) tokens'), substring(${MSG} from '(?i)your request has (\\d+) input tokens'))::bigint`;
const LIMIT = `substring(${MSG} from '(?i)maximum context length is (\\d+)')::bigint`;

export interface TableShape {
  /** The optional columns the table has. */
  has: ReadonlySet<string>;
}

/** The row's columns, classified: what every statement selects from. */
function rows(t: TableShape, extra = ""): string {
  const failed = t.has.has("status")
    ? `COALESCE(NULLIF(s.status, ''), s.metadata->>'status', '') = 'failure'`
    : `COALESCE(s.metadata->>'status', '') = 'failure'`;
  const cache = t.has.has("cache_hit") ? `lower(COALESCE(s.cache_hit, '')) IN ('true', '1')` : `false`;
  const deployment = [
    t.has.has("api_base") ? `NULLIF(s.api_base, '')` : null,
    t.has.has("model_id") ? `NULLIF(s.model_id, '')` : null,
    `''`,
  ]
    .filter(Boolean)
    .join(", ");
  return `SELECT ${SERVICE} AS service, s.prompt_tokens AS p, s.completion_tokens AS c, s."startTime" AS st, s."endTime" AS et,
      (${failed}) AS failed, (${cache}) AS cached, COALESCE(${deployment}) AS dep${extra}
    FROM ${TABLE} s ${JOIN_NAMES}`;
}

/** Counts, percentiles, maxima and in-flight peaks per service: one row, one JSON value. */
export function aggregateSql(t: TableShape): string {
  return `
WITH ${COMMON},
v AS MATERIALIZED (
  SELECT x.service, x.p, x.c, x.st, x.et, x.dep,
    CASE WHEN ${BAD} THEN 2 WHEN ${OUTSIDE} THEN 1 WHEN x.failed THEN 3 WHEN x.cached THEN 4 ELSE 0 END AS status,
    x.c >= COALESCE(l.threshold, $5::int) AS runaway,
    x.c >= COALESCE(k.cut, l.threshold, $5::int) AS cut,
    x.ctx, x.asked, x.lim
  FROM (${rows(t, `, (s.metadata->'error_information') IS NOT NULL AND ${CONTEXT} AS ctx, ${ASKED} AS asked, ${LIMIT} AS lim`)}) x
  LEFT JOIN limits l ON l.service = x.service LEFT JOIN cuts k ON k.service = x.service
),
ok AS NOT MATERIALIZED (SELECT * FROM v WHERE status = 0),
stats AS (
  SELECT service, count(*) AS calls,
    percentile_disc(ARRAY[0.5, 0.99]::float8[]) WITHIN GROUP (ORDER BY p) AS pq, max(p) AS pmax,
    percentile_disc(ARRAY[0.5, 0.99]::float8[]) WITHIN GROUP (ORDER BY c) AS cq, max(c) AS cmax,
    max(c) FILTER (WHERE NOT runaway) AS c_sans,
    count(*) FILTER (WHERE runaway) AS runaways,
    to_char(min(st), ${ISO}) AS first_st, to_char(max(st), ${ISO}) AS last_st,
    count(DISTINCT dep) AS deps
  FROM ok GROUP BY service
),
other AS (
  SELECT service, count(*) FILTER (WHERE status = 3) AS failed, count(*) FILTER (WHERE status = 4) AS cached,
    count(*) FILTER (WHERE status = 3 AND ctx) AS ctx, max(asked) FILTER (WHERE status = 3 AND ctx) AS asked,
    max(lim) FILTER (WHERE status = 3 AND ctx) AS lim
  FROM v WHERE status IN (3, 4) GROUP BY service
),
ev AS (
  SELECT service, st AS t, (p + c)::bigint AS d, cut FROM ok WHERE et > st
  UNION ALL
  SELECT service, et AS t, -(p + c)::bigint AS d, cut FROM ok WHERE et > st
),
peaks AS (
  SELECT service, max(run_all) AS peak_all, max(run_sans) AS peak_sans FROM (
    SELECT service,
      sum(d) OVER w AS run_all,
      sum(CASE WHEN cut THEN 0 ELSE d END) OVER w AS run_sans
    FROM ev WINDOW w AS (PARTITION BY service ORDER BY t, d ROWS UNBOUNDED PRECEDING)
  ) running GROUP BY service
),
multi AS (SELECT service FROM stats WHERE deps > 1),
dev AS (
  SELECT o.service, o.dep, o.st AS t, (o.p + o.c)::bigint AS d FROM ok o JOIN multi USING (service) WHERE o.et > o.st
  UNION ALL
  SELECT o.service, o.dep, o.et AS t, -(o.p + o.c)::bigint AS d FROM ok o JOIN multi USING (service) WHERE o.et > o.st
),
dpeaks AS (
  SELECT service, dep, max(run) AS peak FROM (
    SELECT service, dep, sum(d) OVER (PARTITION BY service, dep ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS run FROM dev
  ) r GROUP BY service, dep
),
dcalls AS (SELECT o.service, o.dep, count(*) AS calls FROM ok o JOIN multi USING (service) GROUP BY o.service, o.dep),
names_all AS (SELECT service FROM stats UNION SELECT service FROM other)
SELECT json_build_object(
  'read', (SELECT count(*) FROM v),
  'skipped', (SELECT count(*) FROM v WHERE status = 2),
  'outside', (SELECT count(*) FROM v WHERE status = 1),
  'failed', (SELECT count(*) FROM v WHERE status = 3),
  'cached', (SELECT count(*) FROM v WHERE status = 4),
  'services', (SELECT coalesce(json_agg(json_build_object(
      'name', n.service, 'calls', coalesce(s.calls, 0),
      'p50p', s.pq[1], 'p99p', s.pq[2], 'maxp', s.pmax,
      'p50c', s.cq[1], 'p99c', s.cq[2], 'maxc', s.cmax,
      'c_sans', s.c_sans, 'runaways', coalesce(s.runaways, 0),
      'peak_all', coalesce(k.peak_all, 0), 'peak_sans', coalesce(k.peak_sans, 0),
      'first', s.first_st, 'last', s.last_st,
      'failed', coalesce(o.failed, 0), 'cached', coalesce(o.cached, 0),
      'ctx', coalesce(o.ctx, 0), 'asked', o.asked, 'lim', o.lim,
      'deployments', (SELECT coalesce(json_agg(json_build_object('name', c.dep, 'calls', c.calls, 'peak', coalesce(p.peak, 0))
          ORDER BY c.dep COLLATE "C"), '[]'::json)
        FROM dcalls c LEFT JOIN dpeaks p ON p.service = c.service AND p.dep = c.dep WHERE c.service = n.service)
    ) ORDER BY n.service COLLATE "C"), '[]'::json)
    FROM names_all n LEFT JOIN stats s ON s.service = n.service LEFT JOIN peaks k ON k.service = n.service
    LEFT JOIN other o ON o.service = n.service)
) AS result`;
}

/** The runaways: the largest $10 per service, and a tally per key (count, largest, alias). */
export function runawaysSql(t: TableShape): string {
  return `
WITH ${COMMON},
r AS (
  SELECT x.*, row_number() OVER (PARTITION BY x.service ORDER BY x.c DESC, x.st, x.request_id COLLATE "C") AS rn
  FROM (${rows(t, `, s.request_id, s.api_key, NULLIF(s.metadata->>'user_api_key_alias', '') AS alias`)}
    WHERE s.completion_tokens >= $11::int) x
  LEFT JOIN limits l ON l.service = x.service
  WHERE NOT ${BAD} AND NOT ${OUTSIDE} AND NOT x.failed AND NOT x.cached AND x.c >= COALESCE(l.threshold, $5::int)
)
SELECT json_build_object(
  'list', (SELECT coalesce(json_agg(json_build_object(
      'service', service, 'request_id', request_id, 'api_key', api_key, 'alias', alias,
      'p', p, 'c', c, 'st', to_char(st, ${ISO})) ORDER BY service COLLATE "C", rn), '[]'::json)
    FROM r WHERE rn <= $10::int),
  'keys', (SELECT coalesce(json_agg(json_build_object(
      'service', service, 'api_key', api_key, 'count', n, 'max', cmax, 'alias', alias)), '[]'::json)
    FROM (SELECT service, api_key, count(*) AS n, max(c) AS cmax, max(alias COLLATE "C") AS alias FROM r GROUP BY service, api_key) k)
) AS result`;
}

/** The first $3 skipped rows, with why (the file path's reasons, by request id instead of line). */
export function problemsSql(t: TableShape): string {
  return `
WITH names(name, service) AS (SELECT * FROM unnest($1::text[], $2::text[])),
x AS (${rows(t, ", s.request_id")})
SELECT request_id,
  CASE WHEN x.service IS NULL THEN 'neither model_group nor model names the model'
       WHEN x.st IS NULL THEN 'startTime is missing'
       WHEN x.p IS NULL THEN 'prompt_tokens is missing'
       WHEN x.c IS NULL THEN 'completion_tokens is missing'
       WHEN x.p < 0 THEN 'prompt_tokens: expected a whole number of tokens ≥ 0, got ' || x.p
       WHEN x.c < 0 THEN 'completion_tokens: expected a whole number of tokens ≥ 0, got ' || x.c
       WHEN x.et IS NULL THEN 'endTime is missing'
       ELSE 'endTime ' || x.et || ' is before startTime ' || x.st END AS reason
FROM x WHERE ${BAD}
ORDER BY x.st NULLS FIRST, x.request_id COLLATE "C"
LIMIT $3::int`;
}

/** The columns `usage` reads; a table without them is not LiteLLM's (or is from a version too old). */
export const REQUIRED_DB_COLUMNS = [
  "request_id",
  "api_key",
  "model",
  "model_group",
  "prompt_tokens",
  "completion_tokens",
  "startTime",
  "endTime",
  "metadata",
] as const;

export const COLUMNS_SQL = `
SELECT column_name FROM information_schema.columns
WHERE table_name = 'LiteLLM_SpendLogs' AND table_schema = ANY (current_schemas(false))`;
